// tinyllm/kv_cache.h in libtl_kernels. A cache only copies: append is one
// memcpy of s * head_dim floats per head and tensor (libc's copy is already
// vectorised), a view is two pointers. The f16 and bf16 caches round the
// same rows into place with the library's own casts (cast_simd.cpp: to
// nearest, ties to even). The bookkeeping and its refusals are
// impl/common/kv_cache_state.hpp's (libtl_cuda's too).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "impl/common/kv_cache_state.hpp"
#include "tinyllm/kv_cache.h"
#include "tinyllm/tensor.h"

namespace konform::simd {
namespace {

namespace kv = impl::kv_cache;

// Elem: float, or the uint16_t bit patterns of f16 and bf16.
template <class Elem>
struct Cache {
  kv::State st;
  Elem* k = nullptr;  // [layers][kv_heads][max_seq][head_dim]
  Elem* v = nullptr;
  ~Cache() { std::free(k), std::free(v); }
};

template <class Elem>
using Table = kv::Table<Cache<Elem>, std::conditional_t<std::is_same_v<Elem, float>, tl_kv_view_f32, tl_kv_view_half>>;

template <class Elem>
tl_status create(int64_t layers, int64_t kv_heads, int64_t head_dim, int64_t max_seq, tl_kv_cache** out) {
  *out = nullptr;
  auto* c = new (std::nothrow) Cache<Elem>;
  if (c == nullptr) return kv::out_of_memory();
  if (tl_status s = kv::create(c->st, layers, kv_heads, head_dim, max_seq, sizeof(Elem))) {
    delete c;
    return s;
  }
  const size_t n = static_cast<size_t>(layers * c->st.layer_elements());
  c->k = static_cast<Elem*>(std::malloc(n * sizeof(Elem)));  // rule 4: never zeroed
  c->v = static_cast<Elem*>(std::malloc(n * sizeof(Elem)));
  if (c->k == nullptr || c->v == nullptr) {
    delete c;
    return kv::out_of_memory();
  }
  *out = reinterpret_cast<tl_kv_cache*>(c);
  return TL_OK;
}

// f32 rows copied as they are.
void copy_rows(const float* x, float* y, int64_t n) { std::memcpy(y, x, static_cast<size_t>(n) * sizeof(float)); }

// Store(x, y, n): n f32 values of x into the cache's elements at y.
template <class Elem, void (*Store)(const float*, Elem*, int64_t)>
tl_status append_f32(tl_kv_cache* cache, int64_t layer, const float* k_new, const float* v_new) {
  Cache<Elem>* c = Table<Elem>::of(cache);
  if (tl_status s = kv::check_append(c->st, layer)) return s;
  const int64_t rows = c->st.s * c->st.head_dim;  // one head's new positions, contiguous at both ends
  for (int64_t h = 0; h < c->st.kv_heads; ++h) {
    const int64_t to = c->st.append_offset(layer, h);
    Store(k_new + h * rows, c->k + to, rows);
    Store(v_new + h * rows, c->v + to, rows);
  }
  c->st.appended[layer] = true;
  return TL_OK;
}

constexpr tl_kv_cache_api kApi = Table<float>::api(create<float>, append_f32<float, copy_rows>);
constexpr tl_kv_cache_half_api kF16Api =
    Table<uint16_t>::api(create<uint16_t>, append_f32<uint16_t, tl_cast_f32_to_f16>);
constexpr tl_kv_cache_half_api kBF16Api =
    Table<uint16_t>::api(create<uint16_t>, append_f32<uint16_t, tl_cast_f32_to_bf16>);

}  // namespace
}  // namespace konform::simd

extern "C" const tl_kv_cache_api* tl_kv_cache_api_v1(void) { return &konform::simd::kApi; }
extern "C" const tl_kv_cache_half_api* tl_kv_cache_f16_api_v1(void) { return &konform::simd::kF16Api; }
extern "C" const tl_kv_cache_half_api* tl_kv_cache_bf16_api_v1(void) { return &konform::simd::kBF16Api; }
