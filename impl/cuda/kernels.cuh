// The device side of libtl_cuda: the kernels of tinyllm/elementwise.h (rmsnorm's in rms.cuh).
// Each expression rounds as the oracle's float instantiation does
// (reference/konform/reference/elementwise.hpp): the library is built with
// --fmad=false (no a*b+c contracted into an FMA) and IEEE division and sqrt.
#pragma once

#include <cstdint>

#include "impl/cuda/best.cuh"
#include "impl/cuda/gather.cuh"
#include "impl/cuda/grid.cuh"
#include "impl/cuda/reduce.cuh"
#include "impl/cuda/rms.cuh"

namespace konform::cuda {

// One thread per (token, pair, head). The angle is formed in double and
// rounded to float (spec §2.2); both members are read before either is
// written. layout 0 pairs (i, i + d_rot/2), any other (2i, 2i + 1), as the
// oracle's rope_pair does.
__global__ void rope_pairs(float* x, const int32_t* pos, int64_t tokens, int64_t heads, int64_t D, int64_t d_rot,
                           const float* inv_freq, float mu, int layout) {
  const int64_t half = d_rot / 2, total = tokens * half * heads;
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += stride) {
    const int64_t h = k % heads, i = (k / heads) % half, t = k / (heads * half);
    const float theta = static_cast<float>(static_cast<double>(pos[t]) * static_cast<double>(inv_freq[i]));
    const float c = cosf(theta), s = sinf(theta);
    const int64_t ia = layout == 0 ? i : 2 * i;
    const int64_t ib = layout == 0 ? i + half : 2 * i + 1;
    float* head = x + (t * heads + h) * D;
    const float a = head[ia], b = head[ib];
    head[ia] = mu * (a * c - b * s);
    head[ib] = mu * (a * s + b * c);
  }
}

// silu(g) * u with silu(g) = g / (1 + e^-g): e^-g overflows to +inf for very
// negative g and the quotient is -0, never inf/inf (spec §2.3). A functor
// for map.cuh's map2.
struct SiluMul {
  __device__ float operator()(float g, float u) const { return g / (1.0f + expf(-g)) * u; }
};
// Pass 1: each block's best of x (NaN skipped) into partial[blockIdx.x].
__global__ void argmax_blocks(const float* x, int64_t n, Best* partial) {
  __shared__ Best shared[kThreads];
  Best mine{0.0f, -1};
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride)
    mine = consider(mine, x[k], k);
  const Best block = reduce_block<kThreads>(mine, shared, better);
  if (threadIdx.x == 0) partial[blockIdx.x] = block;
}

// Pass 2, one block: the best of the partials; its index (-1: no number).
__global__ void argmax_final(const Best* partial, int64_t count, int64_t* result) {
  __shared__ Best shared[kThreads];
  Best mine{0.0f, -1};
  for (int64_t k = threadIdx.x; k < count; k += kThreads) mine = better(mine, partial[k]);
  const Best best = reduce_block<kThreads>(mine, shared, better);
  if (threadIdx.x == 0) *result = best.index;
}

}  // namespace konform::cuda
