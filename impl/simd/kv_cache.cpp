// tinyllm/kv_cache.h in libtl_kernels. A cache only copies: append is one
// memcpy of s * head_dim floats per head and tensor (libc's copy is already
// vectorised), a view is two pointers. Validation as the header states.
#include <cstdlib>
#include <cstring>
#include <string>

#include "impl/common/status.hpp"
#include "tinyllm/kv_cache.h"

namespace konform::simd {
namespace {

struct Cache {
  int64_t layers, kv_heads, head_dim, max_seq;
  float* k;  // [layers][kv_heads][max_seq][head_dim]
  float* v;
  bool* appended;  // per layer, in the forward in progress
  int64_t past = 0;
  int64_t s = 0;  // the forward in progress; 0 outside one

  int64_t layer_offset(int64_t layer) const { return layer * kv_heads * max_seq * head_dim; }
};

Cache* of(tl_kv_cache* c) { return reinterpret_cast<Cache*>(c); }
const Cache* of(const tl_kv_cache* c) { return reinterpret_cast<const Cache*>(c); }

tl_status create(int64_t layers, int64_t kv_heads, int64_t head_dim, int64_t max_seq, tl_kv_cache** out) {
  *out = nullptr;
  if (layers < 1 || kv_heads < 1 || head_dim < 1 || max_seq < 1)
    return impl::fail(TL_ERR_INVALID_ARGUMENT, "create: num_layers, kv_heads, head_dim and max_seq must be >= 1");
  long double bytes = 8.0L * layers * kv_heads * head_dim * max_seq;
  if (bytes > static_cast<long double>(INT64_MAX)) return impl::fail(TL_ERR_INVALID_ARGUMENT, "create: the cache's size overflows int64_t");
  const size_t n = static_cast<size_t>(layers * kv_heads * head_dim * max_seq);
  Cache* c = static_cast<Cache*>(std::calloc(1, sizeof(Cache)));
  float* k = static_cast<float*>(std::malloc(n * sizeof(float)));  // rule 4: never zeroed
  float* v = static_cast<float*>(std::malloc(n * sizeof(float)));
  bool* appended = static_cast<bool*>(std::calloc(static_cast<size_t>(layers), sizeof(bool)));
  if (c == nullptr || k == nullptr || v == nullptr || appended == nullptr) {
    std::free(c), std::free(k), std::free(v), std::free(appended);
    return impl::fail(TL_ERR_INVALID_ARGUMENT, "create: out of memory");
  }
  *c = Cache{layers, kv_heads, head_dim, max_seq, k, v, appended};
  *out = reinterpret_cast<tl_kv_cache*>(c);
  return TL_OK;
}

void destroy(tl_kv_cache* cache) {
  if (cache == nullptr) return;
  Cache* c = of(cache);
  std::free(c->k), std::free(c->v), std::free(c->appended), std::free(c);
}

tl_status begin(tl_kv_cache* cache, int64_t s) {
  Cache* c = of(cache);
  if (s < 1) return impl::fail(TL_ERR_INVALID_ARGUMENT, "begin: a forward appends s >= 1 positions");
  if (c->s > 0) return impl::fail(TL_ERR_INVALID_ARGUMENT, "begin: a forward is already in progress");
  if (s > c->max_seq - c->past)
    return impl::fail(TL_ERR_CONTEXT_OVERFLOW, "begin: past_seq_len " + std::to_string(c->past) + " + s " +
                                                   std::to_string(s) + " > max_seq " + std::to_string(c->max_seq));
  c->s = s;
  std::memset(c->appended, 0, static_cast<size_t>(c->layers) * sizeof(bool));
  return TL_OK;
}

tl_status append_f32(tl_kv_cache* cache, int64_t layer, const float* k_new, const float* v_new) {
  Cache* c = of(cache);
  if (c->s == 0) return impl::fail(TL_ERR_INVALID_ARGUMENT, "append_f32: outside a forward (call begin first)");
  if (layer < 0 || layer >= c->layers) return impl::fail(TL_ERR_INVALID_ARGUMENT, "append_f32: layer out of range");
  if (c->appended[layer]) return impl::fail(TL_ERR_INVALID_ARGUMENT, "append_f32: layer already appended in this forward");
  const int64_t rows = c->s * c->head_dim;  // one head's new positions, contiguous at both ends
  for (int64_t h = 0; h < c->kv_heads; ++h) {
    const int64_t to = c->layer_offset(layer) + (h * c->max_seq + c->past) * c->head_dim;
    std::memcpy(c->k + to, k_new + h * rows, static_cast<size_t>(rows) * sizeof(float));
    std::memcpy(c->v + to, v_new + h * rows, static_cast<size_t>(rows) * sizeof(float));
  }
  c->appended[layer] = true;
  return TL_OK;
}

tl_status view_f32(const tl_kv_cache* cache, int64_t layer, tl_kv_view_f32* out) {
  const Cache* c = of(cache);
  if (layer < 0 || layer >= c->layers) return impl::fail(TL_ERR_INVALID_ARGUMENT, "view_f32: layer out of range");
  const int64_t length = c->past + (c->s > 0 && c->appended[layer] ? c->s : 0);
  *out = {c->k + c->layer_offset(layer), c->v + c->layer_offset(layer), length, c->max_seq * c->head_dim};
  return TL_OK;
}

tl_status commit(tl_kv_cache* cache) {
  Cache* c = of(cache);
  if (c->s == 0) return impl::fail(TL_ERR_INVALID_ARGUMENT, "commit: outside a forward");
  for (int64_t l = 0; l < c->layers; ++l)
    if (!c->appended[l])
      return impl::fail(TL_ERR_INVALID_ARGUMENT, "commit: layer " + std::to_string(l) + " has not appended in this forward");
  c->past += c->s;  // rule 3: once per forward
  c->s = 0;
  return TL_OK;
}

void reset(tl_kv_cache* cache) {
  Cache* c = of(cache);
  c->past = 0;
  c->s = 0;
}

int64_t past_seq_len(const tl_kv_cache* cache) { return of(cache)->past; }

const tl_kv_cache_api kApi = {1, create, destroy, begin, append_f32, view_f32, commit, reset, past_seq_len};

}  // namespace
}  // namespace konform::simd

extern "C" const tl_kv_cache_api* tl_kv_cache_api_v1(void) { return &konform::simd::kApi; }
