// The benchmark's inputs, made on the device: a 1 GiB tensor from the host
// would take longer to generate and copy than the benchmarks take to run.
#include "fill.hpp"

namespace {

// A 32-bit integer hash (lowbias32): index and seed to a uniform value.
__device__ uint32_t mix(uint32_t v) {
  v ^= v >> 16;
  v *= 0x7feb352du;
  v ^= v >> 15;
  v *= 0x846ca68bu;
  v ^= v >> 16;
  return v;
}

__global__ void uniform(float* p, size_t n, uint32_t seed, float lo, float hi) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const uint32_t r = mix(static_cast<uint32_t>(i) ^ mix(seed + static_cast<uint32_t>(i >> 32)));
    p[i] = lo + (hi - lo) * (static_cast<float>(r >> 8) * (1.0f / 16777216.0f));
  }
}

__global__ void iota(int32_t* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = static_cast<int32_t>(i);
}

}  // namespace

namespace konform::cuda_bench {

cudaError_t fill_uniform(float* p, size_t n, uint32_t seed, float lo, float hi, cudaStream_t stream) {
  uniform<<<4096, 256, 0, stream>>>(p, n, seed, lo, hi);
  return cudaGetLastError();
}

cudaError_t fill_iota(int32_t* p, size_t n, cudaStream_t stream) {
  iota<<<1024, 256, 0, stream>>>(p, n);
  return cudaGetLastError();
}

}  // namespace konform::cuda_bench
