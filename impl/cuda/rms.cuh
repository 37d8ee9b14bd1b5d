// RmsNorm's kernel, shared by tl_rmsnorm_f32 (elementwise.cu) and norm.h's
// RmsNorm and FusedSkipNorm (norm.cu), so that the two ABIs give the same
// bits. Templates, so that both files can include it.
#pragma once

#include <cstdint>

#include "impl/cuda/grid.cuh"
#include "impl/cuda/map.cuh"
#include "impl/cuda/reduce.cuh"

namespace konform::cuda {

constexpr unsigned kNormThreads = 256;  // rmsnorm's: fixed, so a row's bits never depend on the batch

// y = x / sqrt(mean(x^2) + eps) * w, one block of kBlock threads per row
// (grid-striding over rows). The sum of squares is accumulated in double (the
// squares of floats are exact there) and tree-reduced across the block: far
// inside the pairwise-summation bound the limits assume (docs/tolerances.md,
// "Reductions"), and its order depends on d only, not on the row count.
template <unsigned kBlock, class Format, class T>
__global__ void rmsnorm_rows(const T* x, const float* w, T* y, int64_t rows, int64_t d, float eps) {
  __shared__ double partial[kBlock];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * d;
    double acc = 0.0;
    for (int64_t i = threadIdx.x; i < d; i += kBlock) {
      const double v = Format::widen(xr[i]);
      acc += v * v;
    }
    // eps inside the root (spec §2.1); the mean rounded to float once.
    const float mean_sq = static_cast<float>(reduce_block<kBlock>(acc, partial, Plus{}) / static_cast<double>(d));
    const float inv = 1.0f / sqrtf(mean_sq + eps);
    for (int64_t i = threadIdx.x; i < d; i += kBlock) y[r * d + i] = Format::narrow(Format::widen(xr[i]) * inv * w[i]);
  }
}

// Runs rmsnorm_rows on device buffers (rows, d >= 1). In place (y == x) is
// safe: a row's x is read before the block's reduction, whose barriers every
// thread passes before any writes y, and each y[i] is its own x[i]. x and y
// are f32 (AsFloat), or f16 or bf16 (F16, BF16: map.cuh) with the sum of
// squares still in double.
template <class Format = AsFloat, class T>
void launch_rmsnorm(const T* x, const float* w, T* y, int64_t rows, int64_t d, float eps, tl_cuda_stream stream) {
  launch(rmsnorm_rows<kNormThreads, Format, T>, grid_for_lines(rows), kNormThreads, stream, x, w, y, rows, d, eps);
}

}  // namespace konform::cuda
