// A block-wide tree reduction for libtl_cuda's kernels (argmax, softmax,
// argmax along an axis, the norms, attention) and the operators softmaxes reduce with: its shape
// depends on the block size only, never on
// how many blocks or lines a call has, so a line's result does not depend on
// the batch.
#pragma once

namespace konform::cuda {

// The sum for reduce_block: the reductions that sum do it in double, which
// meets the pairwise bound of docs/tolerances.md in any order.
struct Plus {
  __device__ double operator()(double a, double b) const { return a + b; }
};

// Combines one value per thread of a block of kBlock threads (a power of 2)
// with `op` and returns the result to every thread. `shared` has kBlock
// slots; it may be reused at once (the last barrier guards slot 0).
template <unsigned kBlock, class T, class Op>
__device__ inline T reduce_block(T mine, T* shared, Op op) {
  shared[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned s = kBlock / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) shared[threadIdx.x] = op(shared[threadIdx.x], shared[threadIdx.x + s]);
    __syncthreads();
  }
  const T result = shared[0];
  __syncthreads();
  return result;
}

// The max of a line, NaN winning: a NaN anywhere makes the line NaN.
struct MaxOrNan {
  __device__ float operator()(float a, float b) const { return a != a ? a : b != b || b > a ? b : a; }
};
}  // namespace konform::cuda
