// Elementwise maps for libtl_cuda: y[k] = f(x[k]) or f(a[k], b[k]) with a
// functor f, one thread per element (grid-striding), on device pointers.
// Included after abi.cuh.
#pragma once

#include <cstddef>
#include <cstdint>

#include "impl/common/bf16.hpp"
#include "impl/common/f16.hpp"
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

// f16 or bf16 elements through a float functor: widened exactly, f in float,
// rounded to nearest even (impl/common/f16.hpp, bf16.hpp).
struct AsFloat {  // f32 elements as they are, for kernels templated on the format
  KONFORM_HD static float widen(float v) { return v; }
  KONFORM_HD static float narrow(float v) { return v; }
};
struct F16 {
  KONFORM_HD static float widen(uint16_t h) { return impl::f16::F16ToF32(h); }
  KONFORM_HD static uint16_t narrow(float f) { return impl::f16::F32ToF16(f); }
};
struct BF16 {
  KONFORM_HD static float widen(uint16_t h) { return impl::bf16::BF16ToF32(h); }
  KONFORM_HD static uint16_t narrow(float f) { return impl::bf16::F32ToBF16(f); }
};

template <class Format, class F>
__global__ void map1_half(const uint16_t* x, uint16_t* y, int64_t n, F f) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride)
    y[k] = Format::narrow(f(Format::widen(x[k])));
}

template <class Format, class F>
__global__ void map2_half(const uint16_t* a, const uint16_t* b, uint16_t* y, int64_t n, F f) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride)
    y[k] = Format::narrow(f(Format::widen(a[k]), Format::widen(b[k])));
}

// Each thread reads element k before it writes element k and touches no
// other, so y == x (or y == a, y == b) is safe in place. n <= 0 enqueues nothing.
template <class F>
void run_map1(const float* x, float* y, int64_t n, F f, const char* where, tl_cuda_stream stream) {
  if (n <= 0) return;
  launch(map1<F>, grid_for(n, kThreads), kThreads, stream, x, y, n, f);
  check_launch(where);
}

template <class F>
void run_map2(const float* a, const float* b, float* y, int64_t n, F f, const char* where, tl_cuda_stream stream) {
  if (n <= 0) return;
  launch(map2<F>, grid_for(n, kThreads), kThreads, stream, a, b, y, n, f);
  check_launch(where);
}

// The casts: one element per thread (grid-striding), no aliasing.
template <class Format>
__global__ void demote(const float* x, uint16_t* y, int64_t n) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride)
    y[k] = Format::narrow(x[k]);
}
template <class Format>
__global__ void promote(const uint16_t* x, float* y, int64_t n) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride)
    y[k] = Format::widen(x[k]);
}

template <class Format, class F>
void run_map1_half(const uint16_t* x, uint16_t* y, int64_t n, F f, const char* where, tl_cuda_stream stream) {
  if (n <= 0) return;
  launch(map1_half<Format, F>, grid_for(n, kThreads), kThreads, stream, x, y, n, f);
  check_launch(where);
}

template <class Format, class F>
void run_map2_half(const uint16_t* a, const uint16_t* b, uint16_t* y, int64_t n, F f, const char* where,
                   tl_cuda_stream stream) {
  if (n <= 0) return;
  launch(map2_half<Format, F>, grid_for(n, kThreads), kThreads, stream, a, b, y, n, f);
  check_launch(where);
}

// The host functions of the maps: device copies in, the _dev function, y back.
template <class Dev>
void map1_on_device(const char* where, Dev dev, const float* x, float* y, int64_t n) {
  if (n > 0) on_device(where, dev, in(x, n), out(y, n), n);
}

template <class Dev>
void map1_half_on_device(const char* where, Dev dev, const uint16_t* x, uint16_t* y, int64_t n) {
  if (n > 0) on_device(where, dev, in(x, n), out(y, n), n);
}

template <class Dev, class T>
void map2_on_device(const char* where, Dev dev, const T* a, const T* b, T* y, int64_t n) {
  if (n > 0) on_device(where, dev, in(a, n), in(b, n), out(y, n), n);
}

}  // namespace konform::cuda
