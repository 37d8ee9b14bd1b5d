// tinyllm/kv_cache.h in libtl_kernels. A cache only copies: append is one
// memcpy of s * head_dim floats per head and tensor (libc's copy is already
// vectorised), a view is two pointers. The bookkeeping and its refusals are
// impl/common/kv_cache_state.hpp's (libtl_cuda's too).
#include <cstdlib>
#include <cstring>
#include <new>

#include "impl/common/kv_cache_state.hpp"
#include "tinyllm/kv_cache.h"

namespace konform::simd {
namespace {

namespace kv = impl::kv_cache;

struct Cache {
  kv::State st;
  float* k = nullptr;  // [layers][kv_heads][max_seq][head_dim]
  float* v = nullptr;
  ~Cache() { std::free(k), std::free(v); }
};

using Table = kv::Table<Cache>;

tl_status create(int64_t layers, int64_t kv_heads, int64_t head_dim, int64_t max_seq, tl_kv_cache** out) {
  *out = nullptr;
  Cache* c = new (std::nothrow) Cache;
  if (c == nullptr) return kv::out_of_memory();
  if (tl_status s = kv::create(c->st, layers, kv_heads, head_dim, max_seq)) {
    delete c;
    return s;
  }
  const size_t n = static_cast<size_t>(layers * c->st.layer_elements());
  c->k = static_cast<float*>(std::malloc(n * sizeof(float)));  // rule 4: never zeroed
  c->v = static_cast<float*>(std::malloc(n * sizeof(float)));
  if (c->k == nullptr || c->v == nullptr) {
    delete c;
    return kv::out_of_memory();
  }
  *out = reinterpret_cast<tl_kv_cache*>(c);
  return TL_OK;
}

tl_status append_f32(tl_kv_cache* cache, int64_t layer, const float* k_new, const float* v_new) {
  Cache* c = Table::of(cache);
  if (tl_status s = kv::check_append(c->st, layer)) return s;
  const int64_t rows = c->st.s * c->st.head_dim;  // one head's new positions, contiguous at both ends
  for (int64_t h = 0; h < c->st.kv_heads; ++h) {
    const int64_t to = c->st.append_offset(layer, h);
    std::memcpy(c->k + to, k_new + h * rows, static_cast<size_t>(rows) * sizeof(float));
    std::memcpy(c->v + to, v_new + h * rows, static_cast<size_t>(rows) * sizeof(float));
  }
  c->st.appended[layer] = true;
  return TL_OK;
}

constexpr tl_kv_cache_api kApi = Table::api(create, append_f32);

}  // namespace
}  // namespace konform::simd

extern "C" const tl_kv_cache_api* tl_kv_cache_api_v1(void) { return &konform::simd::kApi; }
