#include "scalar/kernels.hpp"

#include <new>

#include "impl/common/kv_cache_state.hpp"
#include "impl/common/status.hpp"
#include "konform/reference/kv_cache.hpp"

namespace konform::scalar {
namespace {

using Cache = reference::KvCache<float>;

Cache* of(tl_kv_cache* c) { return reinterpret_cast<Cache*>(c); }
const Cache* of(const tl_kv_cache* c) { return reinterpret_cast<const Cache*>(c); }

tl_status status_of(const reference::Verdict& v, const char* fn) {
  return v.ok() ? TL_OK : impl::fail(v.status, std::string(fn) + ": " + v.message);
}

tl_status create(int64_t layers, int64_t kv_heads, int64_t head_dim, int64_t max_seq, tl_kv_cache** out) {
  *out = nullptr;
  if (tl_status s = status_of(Cache::check_create(layers, kv_heads, head_dim, max_seq), "create")) return s;
  Cache* c = new (std::nothrow) Cache(layers, kv_heads, head_dim, max_seq);
  if (c == nullptr) return impl::kv_cache::out_of_memory();
  *out = reinterpret_cast<tl_kv_cache*>(c);
  return TL_OK;
}

void destroy(tl_kv_cache* c) { delete of(c); }
tl_status begin(tl_kv_cache* c, int64_t s) { return status_of(of(c)->begin(s), "begin"); }
tl_status append_f32(tl_kv_cache* c, int64_t layer, const float* k, const float* v) {
  return status_of(of(c)->append(layer, k, v), "append_f32");
}
tl_status commit(tl_kv_cache* c) { return status_of(of(c)->commit(), "commit"); }
void reset(tl_kv_cache* c) { of(c)->reset(); }
int64_t past_seq_len(const tl_kv_cache* c) { return of(c)->past_seq_len(); }

tl_status view_f32(const tl_kv_cache* c, int64_t layer, tl_kv_view_f32* out) {
  const Cache& cache = *of(c);
  if (layer < 0 || layer >= cache.layers()) return impl::fail(TL_ERR_INVALID_ARGUMENT, "view_f32: layer out of range");
  *out = {cache.k(layer), cache.v(layer), cache.length(layer), cache.head_stride()};
  return TL_OK;
}

const tl_kv_cache_api kApi = {1, create, destroy, begin, append_f32, view_f32, commit, reset, past_seq_len};

}  // namespace

const tl_kv_cache_api* kv_cache_api_v1() { return &kApi; }

}  // namespace konform::scalar
