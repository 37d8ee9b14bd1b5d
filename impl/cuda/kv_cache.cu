// libtl_cuda: tinyllm/kv_cache.h with the cache's K and V in device memory,
// and its device table (tinyllm/cuda/kv_cache.h). The host table hands out
// host pointers (a view is read by the caller), so its caches also have a
// host mirror: append places the new rows on the device, one thread per
// 32-bit word (NaN payloads kept), then copies the layer back into its
// mirror, which the views point at (one address per layer until destroy).
// The device table's views point at the device memory itself. The f16 and
// bf16 caches (tl_kv_cache_f16_api_v1 and the others) hold 16-bit elements:
// append rounds each f32 value on the device as the casts do (map.cuh's
// F16 and BF16: to nearest, ties to even). The bookkeeping and its refusals
// are libtl_kernels' (impl/common/kv_cache_state.hpp); they come before any
// CUDA call.
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "impl/common/kv_cache_state.hpp"
#include "impl/cuda/abi.cuh"
#include "impl/cuda/grid.cuh"
#include "impl/cuda/map.cuh"
#include "tinyllm/cuda/kv_cache.h"

namespace konform::cuda {
namespace {

namespace kv = impl::kv_cache;

// How a new element is stored: an f32 cache copies 32-bit words (NaN
// payloads kept); a half cache rounds the f32 value to the dtype.
struct Word {
  using In = uint32_t;
  using Out = uint32_t;
  using Elem = float;
  using View = tl_kv_view_f32;
  KONFORM_HD static uint32_t store(uint32_t w) { return w; }
};
template <class Format>
struct Rounded {
  using In = float;
  using Out = uint16_t;
  using Elem = uint16_t;
  using View = tl_kv_view_half;
  KONFORM_HD static uint16_t store(float f) { return Format::narrow(f); }
};
using ToF16 = Rounded<F16>;
using ToBF16 = Rounded<BF16>;

// y[h * head_stride + first + r] = store(x[h * rows + r]): one head's new
// rows are contiguous at both ends.
template <class Store>
__global__ void place_rows(const typename Store::In* x, typename Store::Out* y, int64_t heads, int64_t rows,
                           int64_t head_stride, int64_t first) {
  const int64_t n = heads * rows, stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += stride)
    y[e / rows * head_stride + first + e % rows] = Store::store(x[e]);
}

// K and V of every layer on the device, [layers][kv_heads][max_seq][head_dim];
// k and v are what the views point at: host mirrors (kMirrored) or the
// device memory itself.
template <bool kMirrored, class Store>
struct CacheOf {
  using Elem = typename Store::Elem;
  kv::State st;
  std::unique_ptr<DeviceBuffer<Elem>> dk, dv;
  Elem* k = nullptr;
  Elem* v = nullptr;
  ~CacheOf() {
    if (kMirrored) delete[] k, delete[] v;
  }
};

template <bool kMirrored, class Store>
tl_status create(int64_t layers, int64_t kv_heads, int64_t head_dim, int64_t max_seq, tl_kv_cache** out) {
  using Elem = typename Store::Elem;
  *out = nullptr;
  std::unique_ptr<CacheOf<kMirrored, Store>> c(new (std::nothrow) CacheOf<kMirrored, Store>);
  if (c == nullptr) return kv::out_of_memory();
  if (tl_status s = kv::create(c->st, layers, kv_heads, head_dim, max_seq, sizeof(Elem))) return s;
  const auto n = static_cast<size_t>(layers) * static_cast<size_t>(c->st.layer_elements());
  // a failing cudaMalloc stops the process (device_buffer.cuh)
  c->dk = std::make_unique<DeviceBuffer<Elem>>(n, "tl_kv_cache_api create");
  c->dv = std::make_unique<DeviceBuffer<Elem>>(n, "tl_kv_cache_api create");
  if (kMirrored) {
    c->k = new (std::nothrow) Elem[n];  // rule 4: never zeroed
    c->v = new (std::nothrow) Elem[n];
    if (c->k == nullptr || c->v == nullptr) return kv::out_of_memory();
  } else {
    c->k = c->dk->get(), c->v = c->dv->get();
  }
  *out = reinterpret_cast<tl_kv_cache*>(c.release());
  return TL_OK;
}

// The new rows of one tensor (device memory, f32) into their place in `layer`'s.
template <class Store>
void place(const kv::State& st, const float* x_new, typename Store::Elem* layer, tl_cuda_stream stream) {
  const int64_t rows = st.s * st.head_dim;
  launch(place_rows<Store>, grid_for(st.kv_heads * rows, kThreads), kThreads, stream,
         reinterpret_cast<const typename Store::In*>(x_new), reinterpret_cast<typename Store::Out*>(layer), st.kv_heads,
         rows, st.max_seq * st.head_dim, st.past * st.head_dim);
  check_launch("tl_kv_cache_api append_f32");
}

// Host rows to the device, into place, and the layer back to its mirror.
template <class Store, class Elem = typename Store::Elem>
void append_one(const kv::State& st, int64_t layer, const float* x_new, Elem* device, Elem* mirror) {
  const int64_t at = layer * st.layer_elements();
  const DeviceBuffer<float> dx(x_new, static_cast<size_t>(st.kv_heads * st.s * st.head_dim),
                               "tl_kv_cache_api append_f32");
  place<Store>(st, dx.get(), device + at, nullptr);
  copy_to_host(mirror + at, device + at, static_cast<size_t>(st.layer_elements()), "tl_kv_cache_api append_f32");
}

template <class Store>
using Cache = CacheOf<true, Store>;
template <class Store>
using DevCache = CacheOf<false, Store>;
template <class Store>
using Table = kv::Table<Cache<Store>, typename Store::View>;
template <class Store>
using DevTable = kv::Table<DevCache<Store>, typename Store::View>;

template <class Store>
tl_status append_f32(tl_kv_cache* cache, int64_t layer, const float* k_new, const float* v_new) {
  Cache<Store>* c = Table<Store>::of(cache);
  if (tl_status s = kv::check_append(c->st, layer)) return s;
  append_one<Store>(c->st, layer, k_new, c->dk->get(), c->k);
  append_one<Store>(c->st, layer, v_new, c->dv->get(), c->v);
  c->st.appended[layer] = true;
  return TL_OK;
}

template <class Store>
tl_status append_f32_dev(tl_kv_cache* cache, int64_t layer, const float* k_new, const float* v_new,
                         tl_cuda_stream stream) {
  DevCache<Store>* c = DevTable<Store>::of(cache);
  if (tl_status s = kv::check_append(c->st, layer)) return s;
  const int64_t at = layer * c->st.layer_elements();
  place<Store>(c->st, k_new, c->dk->get() + at, stream);
  place<Store>(c->st, v_new, c->dv->get() + at, stream);
  c->st.appended[layer] = true;
  return TL_OK;
}

// The device table (tl_kv_cache_dev_api or tl_kv_cache_half_dev_api).
template <class Store, class DevApi>
constexpr DevApi dev_table() {
  using T = DevTable<Store>;
  return {1,        create<false, Store>, T::destroy, T::begin, append_f32_dev<Store>, T::view, T::commit,
          T::reset, T::past_seq_len};
}

constexpr tl_kv_cache_api kApi = Table<Word>::api(create<true, Word>, append_f32<Word>);
constexpr tl_kv_cache_half_api kF16Api = Table<ToF16>::api(create<true, ToF16>, append_f32<ToF16>);
constexpr tl_kv_cache_half_api kBF16Api = Table<ToBF16>::api(create<true, ToBF16>, append_f32<ToBF16>);
constexpr tl_kv_cache_dev_api kDevApi = dev_table<Word, tl_kv_cache_dev_api>();
constexpr tl_kv_cache_half_dev_api kF16DevApi = dev_table<ToF16, tl_kv_cache_half_dev_api>();
constexpr tl_kv_cache_half_dev_api kBF16DevApi = dev_table<ToBF16, tl_kv_cache_half_dev_api>();

}  // namespace
}  // namespace konform::cuda

TL_CUDA_EXPORT const tl_kv_cache_api* tl_kv_cache_api_v1(void) { return &konform::cuda::kApi; }
TL_CUDA_EXPORT const tl_kv_cache_half_api* tl_kv_cache_f16_api_v1(void) { return &konform::cuda::kF16Api; }
TL_CUDA_EXPORT const tl_kv_cache_half_api* tl_kv_cache_bf16_api_v1(void) { return &konform::cuda::kBF16Api; }

TL_CUDA_EXPORT const tl_kv_cache_dev_api* tl_kv_cache_dev_api_v1(void) { return &konform::cuda::kDevApi; }
TL_CUDA_EXPORT const tl_kv_cache_half_dev_api* tl_kv_cache_f16_dev_api_v1(void) { return &konform::cuda::kF16DevApi; }
TL_CUDA_EXPORT const tl_kv_cache_half_dev_api* tl_kv_cache_bf16_dev_api_v1(void) { return &konform::cuda::kBF16DevApi; }
