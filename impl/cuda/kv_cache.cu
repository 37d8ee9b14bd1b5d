// libtl_cuda: tinyllm/kv_cache.h with the cache's K and V in device memory.
// The C contract hands out host pointers (a view is read by the caller), so
// each layer also has a host mirror: append places the new rows on the
// device, one thread per 32-bit word (NaN payloads kept), then copies the
// layer back into its mirror, which the views point at (one address per
// layer until destroy). The bookkeeping and its refusals are libtl_kernels'
// (impl/common/kv_cache_state.hpp); they come before any CUDA call.
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "impl/common/kv_cache_state.hpp"
#include "impl/cuda/abi.cuh"
#include "impl/cuda/grid.cuh"
#include "tinyllm/kv_cache.h"

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

struct Cache {
  kv::State st;
  std::vector<std::unique_ptr<DeviceBuffer<uint32_t>>> dk, dv;  // per layer, [kv_heads][max_seq][head_dim]
  float* k = nullptr;                                           // the host mirrors, all layers: what the views point at
  float* v = nullptr;
  ~Cache() { delete[] k, delete[] v; }
};

using Table = kv::Table<Cache>;

tl_status create(int64_t layers, int64_t kv_heads, int64_t head_dim, int64_t max_seq, tl_kv_cache** out) {
  *out = nullptr;
  std::unique_ptr<Cache> c(new (std::nothrow) Cache);
  if (c == nullptr) return kv::out_of_memory();
  if (tl_status s = kv::create(c->st, layers, kv_heads, head_dim, max_seq)) return s;
  const auto per_layer = static_cast<size_t>(c->st.layer_elements()), n = static_cast<size_t>(layers) * per_layer;
  c->k = new (std::nothrow) float[n];  // rule 4: never zeroed
  c->v = new (std::nothrow) float[n];
  if (c->k == nullptr || c->v == nullptr) return kv::out_of_memory();
  for (int64_t l = 0; l < layers; ++l) {  // a failing cudaMalloc stops the process (device_buffer.cuh)
    c->dk.push_back(std::make_unique<DeviceBuffer<uint32_t>>(per_layer, "tl_kv_cache_api create"));
    c->dv.push_back(std::make_unique<DeviceBuffer<uint32_t>>(per_layer, "tl_kv_cache_api create"));
  }
  *out = reinterpret_cast<tl_kv_cache*>(c.release());
  return TL_OK;
}

// New rows of one tensor to the device, into their place, and the layer back to its mirror.
void append_one(const kv::State& st, int64_t layer, const float* x_new, DeviceBuffer<uint32_t>& layer_buffer,
                float* mirror) {
  const char* where = "tl_kv_cache_api append_f32";
  const int64_t rows = st.s * st.head_dim;
  DeviceBuffer<uint32_t> dx(reinterpret_cast<const uint32_t*>(x_new), static_cast<size_t>(st.kv_heads * rows), where);
  launch(place_rows, grid_for(st.kv_heads * rows, kThreads), kThreads, dx.get(), layer_buffer.get(), st.kv_heads, rows,
         st.max_seq * st.head_dim, st.past * st.head_dim);
  check_launch(where);
  layer_buffer.copy_to(reinterpret_cast<uint32_t*>(mirror + layer * st.layer_elements()));
}

tl_status append_f32(tl_kv_cache* cache, int64_t layer, const float* k_new, const float* v_new) {
  Cache* c = Table::of(cache);
  if (tl_status s = kv::check_append(c->st, layer)) return s;
  append_one(c->st, layer, k_new, *c->dk[static_cast<size_t>(layer)], c->k);
  append_one(c->st, layer, v_new, *c->dv[static_cast<size_t>(layer)], c->v);
  c->st.appended[layer] = true;
  return TL_OK;
}

constexpr tl_kv_cache_api kApi = Table::api(create, append_f32);

}  // namespace
}  // namespace konform::cuda

TL_CUDA_EXPORT const tl_kv_cache_api* tl_kv_cache_api_v1(void) { return &konform::cuda::kApi; }
