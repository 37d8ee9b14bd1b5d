// Elementwise maps for libtl_cuda: y[k] = f(x[k]) or f(a[k], b[k]) with a
// functor f, one thread per element (grid-striding), and the host side that
// copies in, launches and copies out. Included after abi.cuh.
#pragma once

#include <cstddef>
#include <cstdint>

#include "impl/cuda/grid.cuh"

namespace konform::cuda {

template <class F>
__global__ void map1(const float* x, float* y, int64_t n, F f) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride) y[k] = f(x[k]);
}

template <class F>
__global__ void map2(const float* a, const float* b, float* y, int64_t n, F f) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride)
    y[k] = f(a[k], b[k]);
}

// Inputs and output are separate device buffers, so y == x (or y == a, y == b)
// needs nothing special. n <= 0 makes no CUDA call.
template <class F>
void run_map1(const float* x, float* y, int64_t n, F f, const char* where) {
  if (n <= 0) return;
  const size_t count = static_cast<size_t>(n);
  DeviceBuffer<float> dx(x, count, where), dy(count, where);
  launch(map1<F>, grid_for(n, kThreads), kThreads, dx.get(), dy.get(), n, f);
  check_launch(where);
  dy.copy_to(y);
}

template <class F>
void run_map2(const float* a, const float* b, float* y, int64_t n, F f, const char* where) {
  if (n <= 0) return;
  const size_t count = static_cast<size_t>(n);
  DeviceBuffer<float> da(a, count, where), db(b, count, where), dy(count, where);
  launch(map2<F>, grid_for(n, kThreads), kThreads, da.get(), db.get(), dy.get(), n, f);
  check_launch(where);
  dy.copy_to(y);
}

}  // namespace konform::cuda
