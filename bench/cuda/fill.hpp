// Device-side input generators of konform_cuda_bench (fill.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace konform::cuda_bench {

// p[i] uniform in [lo, hi), a hash of i and seed; enqueued on stream.
cudaError_t fill_uniform(float* p, size_t n, uint32_t seed, float lo, float hi, cudaStream_t stream);
// p[i] = i.
cudaError_t fill_iota(int32_t* p, size_t n, cudaStream_t stream);

}  // namespace konform::cuda_bench
