#include "scalar/kernels.hpp"

#include <new>
#include <type_traits>

#include "impl/common/kv_cache_state.hpp"
#include "impl/common/status.hpp"
#include "konform/reference/kv_cache.hpp"

namespace konform::scalar {
namespace {

tl_status status_of(const reference::Verdict& v, const char* fn) {
  return v.ok() ? TL_OK : impl::fail(v.status, std::string(fn) + ": " + v.message);
}

// The table's functions on the reference cache `Cache` (f32, or the bit
// patterns of f16 or bf16), whose views are `View`s.
template <class Cache, class View>
struct Table {
  static constexpr bool kHalf = std::is_same_v<View, tl_kv_view_half>;
  static Cache* of(tl_kv_cache* c) { return reinterpret_cast<Cache*>(c); }
  static const Cache* of(const tl_kv_cache* c) { return reinterpret_cast<const Cache*>(c); }

  static tl_status create(int64_t layers, int64_t kv_heads, int64_t head_dim, int64_t max_seq, tl_kv_cache** out) {
    *out = nullptr;
    if (tl_status s = status_of(Cache::check_create(layers, kv_heads, head_dim, max_seq, kHalf ? 2 : 4), "create"))
      return s;
    Cache* c = new (std::nothrow) Cache(layers, kv_heads, head_dim, max_seq);
    if (c == nullptr) return impl::kv_cache::out_of_memory();
    *out = reinterpret_cast<tl_kv_cache*>(c);
    return TL_OK;
  }
  static void destroy(tl_kv_cache* c) { delete of(c); }
  static tl_status begin(tl_kv_cache* c, int64_t s) { return status_of(of(c)->begin(s), "begin"); }
  static tl_status append_f32(tl_kv_cache* c, int64_t layer, const float* k, const float* v) {
    return status_of(of(c)->append(layer, k, v), "append_f32");
  }
  static tl_status commit(tl_kv_cache* c) { return status_of(of(c)->commit(), "commit"); }
  static void reset(tl_kv_cache* c) { of(c)->reset(); }
  static int64_t past_seq_len(const tl_kv_cache* c) { return of(c)->past_seq_len(); }
  static tl_status view(const tl_kv_cache* c, int64_t layer, View* out) {
    const Cache& cache = *of(c);
    if (layer < 0 || layer >= cache.layers())
      return impl::fail(TL_ERR_INVALID_ARGUMENT,
                        kHalf ? "view_half: layer out of range" : "view_f32: layer out of range");
    *out = {cache.k(layer), cache.v(layer), cache.length(layer), cache.head_stride()};
    return TL_OK;
  }
};

using F32 = Table<reference::KvCache<float>, tl_kv_view_f32>;
using F16 = Table<reference::KvCache<uint16_t, reference::ToF16>, tl_kv_view_half>;
using BF16 = Table<reference::KvCache<uint16_t, reference::ToBF16>, tl_kv_view_half>;

template <class T, class Api>
constexpr Api table() {
  return {1, T::create, T::destroy, T::begin, T::append_f32, T::view, T::commit, T::reset, T::past_seq_len};
}

constexpr tl_kv_cache_api kApi = table<F32, tl_kv_cache_api>();
constexpr tl_kv_cache_half_api kF16Api = table<F16, tl_kv_cache_half_api>();
constexpr tl_kv_cache_half_api kBF16Api = table<BF16, tl_kv_cache_half_api>();

}  // namespace

const tl_kv_cache_api* kv_cache_api_v1() { return &kApi; }
const tl_kv_cache_half_api* kv_cache_f16_api_v1() { return &kF16Api; }
const tl_kv_cache_half_api* kv_cache_bf16_api_v1() { return &kBF16Api; }

}  // namespace konform::scalar
