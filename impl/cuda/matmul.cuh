// The one matmul of libtl_cuda, y = x @ W^T, for linalg.cu (f32 weights) and
// quant.cu (blocks decoded where they are read). Included after abi.cuh.
//
// One thread per output, grid-striding: its K products are exact in double
// (24-bit by 24-bit significands), summed in double in k order, and the sum
// is rounded to float once. The order depends on K alone, so a row's bits
// never depend on the batch; the error is 0.5 u of the result plus
// K 2^-53 of s = sum |x w|, far inside Matmul's 256 u of s (a float chain
// over K = 11008 would not be).
#pragma once

#include <cstddef>
#include <cstdint>

#include "impl/cuda/grid.cuh"

namespace konform::cuda {

// W as N rows of K floats.
struct F32Rows {
  const float* w;
  int64_t K;
  __device__ float operator()(int64_t n, int64_t k) const { return w[n * K + k]; }
};

// x: [M, K], w(n, k) the weight of output column n at k, y: [M, N].
template <class W>
__global__ void matmul_rows(const float* x, W w, float* y, int64_t M, int64_t N, int64_t K) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < M * N; i += stride) {
    const int64_t m = i / N, n = i % N;
    const float* xm = x + m * K;
    double sum = 0.0;
    for (int64_t k = 0; k < K; ++k) sum += static_cast<double>(xm[k]) * static_cast<double>(w(n, k));
    y[i] = static_cast<float>(sum);
  }
}

// The launch on device buffers; M * N == 0 launches nothing.
template <class W>
void matmul_on_device(const float* x, W w, float* y, int64_t M, int64_t N, int64_t K, const char* where,
                      tl_cuda_stream stream) {
  if (M == 0 || N == 0) return;
  launch(matmul_rows<W>, grid_for(M * N, kThreads), kThreads, stream, x, w, y, M, N, K);
  check_launch(where);
}

}  // namespace konform::cuda
