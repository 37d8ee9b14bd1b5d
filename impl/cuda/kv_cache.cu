// libtl_cuda: tinyllm/kv_cache.h with the cache's K and V in device memory,
// and its device table (tinyllm/cuda/kv_cache.h). The host table hands out
// host pointers (a view is read by the caller), so its caches also have a
// host mirror: append places the new rows on the device, one thread per
// 32-bit word (NaN payloads kept), then copies the layer back into its
// mirror, which the views point at (one address per layer until destroy).
// The device table's views point at the device memory itself. The bookkeeping and its refusals are libtl_kernels'
// (impl/common/kv_cache_state.hpp); they come before any CUDA call.
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "impl/common/kv_cache_state.hpp"
#include "impl/cuda/abi.cuh"
#include "impl/cuda/grid.cuh"
#include "tinyllm/cuda/kv_cache.h"

namespace konform::cuda {
namespace {

namespace kv = impl::kv_cache;

// y[h * head_stride + first + r] = x[h * rows + r]: one head's new rows are
// contiguous at both ends.
__global__ void place_rows(const uint32_t* x, uint32_t* y, int64_t heads, int64_t rows, int64_t head_stride,
                           int64_t first) {
  const int64_t n = heads * rows, stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += stride)
    y[e / rows * head_stride + first + e % rows] = x[e];
}

// K and V of every layer on the device, [layers][kv_heads][max_seq][head_dim];
// k and v are what the views point at: host mirrors (kMirrored) or the
// device memory itself.
template <bool kMirrored>
struct CacheOf {
  kv::State st;
  std::unique_ptr<DeviceBuffer<float>> dk, dv;
  float* k = nullptr;
  float* v = nullptr;
  ~CacheOf() {
    if (kMirrored) delete[] k, delete[] v;
  }
};

template <bool kMirrored>
tl_status create(int64_t layers, int64_t kv_heads, int64_t head_dim, int64_t max_seq, tl_kv_cache** out) {
  *out = nullptr;
  std::unique_ptr<CacheOf<kMirrored>> c(new (std::nothrow) CacheOf<kMirrored>);
  if (c == nullptr) return kv::out_of_memory();
  if (tl_status s = kv::create(c->st, layers, kv_heads, head_dim, max_seq)) return s;
  const auto n = static_cast<size_t>(layers) * static_cast<size_t>(c->st.layer_elements());
  // a failing cudaMalloc stops the process (device_buffer.cuh)
  c->dk = std::make_unique<DeviceBuffer<float>>(n, "tl_kv_cache_api create");
  c->dv = std::make_unique<DeviceBuffer<float>>(n, "tl_kv_cache_api create");
  if (kMirrored) {
    c->k = new (std::nothrow) float[n];  // rule 4: never zeroed
    c->v = new (std::nothrow) float[n];
    if (c->k == nullptr || c->v == nullptr) return kv::out_of_memory();
  } else {
    c->k = c->dk->get(), c->v = c->dv->get();
  }
  *out = reinterpret_cast<tl_kv_cache*>(c.release());
  return TL_OK;
}

// The new rows of one tensor (device memory) into their place in `layer`'s.
void place(const kv::State& st, const float* x_new, float* layer, tl_cuda_stream stream) {
  const int64_t rows = st.s * st.head_dim;
  launch(place_rows, grid_for(st.kv_heads * rows, kThreads), kThreads, stream, reinterpret_cast<const uint32_t*>(x_new),
         reinterpret_cast<uint32_t*>(layer), st.kv_heads, rows, st.max_seq * st.head_dim, st.past * st.head_dim);
  check_launch("tl_kv_cache_api append_f32");
}

// Host rows to the device, into place, and the layer back to its mirror.
void append_one(const kv::State& st, int64_t layer, const float* x_new, float* device, float* mirror) {
  const int64_t at = layer * st.layer_elements();
  const DeviceBuffer<float> dx(x_new, static_cast<size_t>(st.kv_heads * st.s * st.head_dim),
                               "tl_kv_cache_api append_f32");
  place(st, dx.get(), device + at, nullptr);
  copy_to_host(mirror + at, device + at, static_cast<size_t>(st.layer_elements()), "tl_kv_cache_api append_f32");
}

using Cache = CacheOf<true>;
using DevCache = CacheOf<false>;

tl_status append_f32(tl_kv_cache* cache, int64_t layer, const float* k_new, const float* v_new) {
  Cache* c = kv::Table<Cache>::of(cache);
  if (tl_status s = kv::check_append(c->st, layer)) return s;
  append_one(c->st, layer, k_new, c->dk->get(), c->k);
  append_one(c->st, layer, v_new, c->dv->get(), c->v);
  c->st.appended[layer] = true;
  return TL_OK;
}

tl_status append_f32_dev(tl_kv_cache* cache, int64_t layer, const float* k_new, const float* v_new,
                         tl_cuda_stream stream) {
  DevCache* c = kv::Table<DevCache>::of(cache);
  if (tl_status s = kv::check_append(c->st, layer)) return s;
  const int64_t at = layer * c->st.layer_elements();
  place(c->st, k_new, c->dk->get() + at, stream);
  place(c->st, v_new, c->dv->get() + at, stream);
  c->st.appended[layer] = true;
  return TL_OK;
}

constexpr tl_kv_cache_api kApi = kv::Table<Cache>::api(create<true>, append_f32);

using DevTable = kv::Table<DevCache>;
constexpr tl_kv_cache_dev_api kDevApi = {1,
                                         create<false>,
                                         DevTable::destroy,
                                         DevTable::begin,
                                         append_f32_dev,
                                         DevTable::view_f32,
                                         DevTable::commit,
                                         DevTable::reset,
                                         DevTable::past_seq_len};

}  // namespace
}  // namespace konform::cuda

TL_CUDA_EXPORT const tl_kv_cache_api* tl_kv_cache_api_v1(void) { return &konform::cuda::kApi; }

TL_CUDA_EXPORT const tl_kv_cache_dev_api* tl_kv_cache_dev_api_v1(void) { return &konform::cuda::kDevApi; }
