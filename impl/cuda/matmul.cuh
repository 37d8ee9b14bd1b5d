// The matmuls of libtl_cuda, y = x @ W^T, for linalg.cu and spatial.cu (f32
// weights) and quant.cu (blocks decoded where they are read). Included after
// abi.cuh. In both, an output's arithmetic depends on K alone, never on the
// batch or the launch shape, so a row has the bits it has alone.
//
// f32 weights (matmul_tiled): each output one chain of K float multiply-adds
// in k order, acc = fma(x[m, k], w[n, k], acc) from +0, at most K u of
// s = sum |x w| off: Matmul's default rule (any order, <= K u), as
// libtl_kernels' chains. Shared-memory tiles: 128 x 128 outputs per block of
// 256 threads, each thread 8 x 8 of them in registers, x's and W's tiles of
// 8 columns staged in shared memory, so a value read from memory serves 128
// multiply-adds. Under 32 rows or columns, one thread per output
// (matmul_rows<float>) computes the same chains.
//
// f16 and bf16 (matmul_chains_on_device<F16 or BF16>): the same kernels on values widened
// where they are read (exactly), the f32 chains, y rounded once to the dtype
// (map.cuh's formats): cuBLAS's f32 compute type, never a half accumulator.
//
// Decoded weights (matmul_rows<double>): one thread per output, which decodes each
// weight as it reads it; the K products are exact in double (24-bit by
// 24-bit significands), summed in double in k order and rounded to float
// once: 0.5 u of the result plus K 2^-53 of s.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "impl/cuda/grid.cuh"
#include "impl/cuda/map.cuh"

namespace konform::cuda {

// W as N rows of K floats.
struct F32Rows {
  const float* w;
  int64_t K;
  __device__ float operator()(int64_t n, int64_t k) const { return w[n * K + k]; }
};

// W as N rows of K f16 or bf16 values, widened as read.
template <class Format>
struct HalfRows {
  const uint16_t* w;
  int64_t K;
  __device__ float operator()(int64_t n, int64_t k) const { return Format::widen(w[n * K + k]); }
};

// a * b added to a sum: exactly in double (the product of two floats is
// exact there), or as one float fma.
__device__ inline double multiply_add(float a, float b, double sum) {
  return sum + static_cast<double>(a) * static_cast<double>(b);
}
__device__ inline float multiply_add(float a, float b, float sum) { return fmaf(a, b, sum); }

// One thread per output, grid-striding: its K products summed in k order in
// Sum (double for decoded weights; float, matmul_tiled's chains, for f32
// weights with a few rows or columns, where a 128 x 128 tile would mostly
// compute padding). x: [M, K], w(n, k) the weight of output column n at k,
// y: [M, N]. x and y of the element format (AsFloat, or map.cuh's F16, BF16:
// widened as read, y rounded once).
template <class Sum, class W, class Format = AsFloat, class E = float>
__global__ void matmul_rows(const E* x, W w, E* y, int64_t M, int64_t N, int64_t K) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < M * N; i += stride) {
    const int64_t m = i / N, n = i % N;
    const E* xm = x + m * K;
    Sum sum = 0;
    for (int64_t k = 0; k < K; ++k) sum = multiply_add(Format::widen(xm[k]), w(n, k), sum);
    y[i] = Format::narrow(static_cast<float>(sum));
  }
}

constexpr int kTile = 128;  // outputs per tile side
constexpr int kTileK = 8;   // columns of k per shared-memory stage
constexpr int kMicro = 4;   // a thread's outputs per side and half tile: rows r and 64 + r
constexpr unsigned kTileThreads = 256;

// y = x @ W^T for W as N rows of K values of the element format E (floats,
// or f16 / bf16 widened where they are staged, y rounded once). The tiles are 1-D block indices
// (grid-striding), each thread's 8 x 8 outputs the rows ty * 4 + i and
// 64 + ty * 4 + i by the columns tx * 4 + j and 64 + tx * 4 + j (i, j < 4),
// so the threads of a warp read consecutive shared words. Only the K real
// columns are multiplied: zeros padding a tile never enter a sum.
// (A template, as every kernel here, so that each .cu may include it.)
template <class Format, class E>
__global__ void matmul_tiled(const E* x, const E* w, E* y, int64_t M, int64_t N, int64_t K) {
  __shared__ float xs[kTileK][kTile];
  __shared__ float ws[kTileK][kTile];
  const int t = static_cast<int>(threadIdx.x);
  const int ty = t / 16, tx = t % 16;
  const int load_row = t / 2, load_col = (t % 2) * 4;  // each thread stages 4 values of one row of each tile
  const int64_t tiles_n = (N + kTile - 1) / kTile;
  const int64_t tiles = (M + kTile - 1) / kTile * tiles_n;
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t m0 = tile / tiles_n * kTile, n0 = tile % tiles_n * kTile;
    float acc[2 * kMicro][2 * kMicro];
    for (int i = 0; i < 2 * kMicro; ++i)
      for (int j = 0; j < 2 * kMicro; ++j) acc[i][j] = 0.0f;
    const int64_t xm = m0 + load_row, wn = n0 + load_row;
    for (int64_t k0 = 0; k0 < K; k0 += kTileK) {
      for (int c = 0; c < 4; ++c) {
        const int64_t k = k0 + load_col + c;
        xs[load_col + c][load_row] = xm < M && k < K ? Format::widen(x[xm * K + k]) : 0.0f;
        ws[load_col + c][load_row] = wn < N && k < K ? Format::widen(w[wn * K + k]) : 0.0f;
      }
      __syncthreads();
      const int columns = K - k0 < kTileK ? static_cast<int>(K - k0) : kTileK;
      for (int kk = 0; kk < columns; ++kk) {
        float a[2 * kMicro], b[2 * kMicro];
        for (int i = 0; i < kMicro; ++i) {
          a[i] = xs[kk][ty * kMicro + i];
          a[kMicro + i] = xs[kk][kTile / 2 + ty * kMicro + i];
          b[i] = ws[kk][tx * kMicro + i];
          b[kMicro + i] = ws[kk][kTile / 2 + tx * kMicro + i];
        }
        for (int i = 0; i < 2 * kMicro; ++i)
          for (int j = 0; j < 2 * kMicro; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
      __syncthreads();
    }
    for (int i = 0; i < 2 * kMicro; ++i) {
      const int64_t m = m0 + (i < kMicro ? ty * kMicro + i : kTile / 2 + ty * kMicro + i - kMicro);
      if (m >= M) continue;
      for (int j = 0; j < 2 * kMicro; ++j) {
        const int64_t n = n0 + (j < kMicro ? tx * kMicro + j : kTile / 2 + tx * kMicro + j - kMicro);
        if (n < N) y[m * N + n] = Format::narrow(acc[i][j]);
      }
    }
  }
}

// The launch on device buffers; M * N == 0 launches nothing.
template <class W>
void matmul_on_device(const float* x, W w, float* y, int64_t M, int64_t N, int64_t K, const char* where,
                      tl_cuda_stream stream) {
  if (M == 0 || N == 0) return;
  launch(matmul_rows<double, W>, grid_for(M * N, kThreads), kThreads, stream, x, w, y, M, N, K);
  check_launch(where);
}

// The float chains of matmul_tiled, or of matmul_rows<float> under 32 rows
// or columns, on x, W and y of the element format E.
template <class Format, class E>
void matmul_chains_on_device(const E* x, const E* w, E* y, int64_t M, int64_t N, int64_t K, const char* where,
                             tl_cuda_stream stream) {
  if (M == 0 || N == 0) return;
  if (M < kTile / 4 || N < kTile / 4) {
    using Rows = std::conditional_t<std::is_same_v<E, float>, F32Rows, HalfRows<Format>>;
    launch(matmul_rows<float, Rows, Format, E>, grid_for(M * N, kThreads), kThreads, stream, x, Rows{w, K}, y, M, N, K);
    check_launch(where);
    return;
  }
  const long long tiles = (M + kTile - 1) / kTile * ((N + kTile - 1) / kTile);
  launch(matmul_tiled<Format, E>, static_cast<unsigned>(tiles < 65536 ? tiles : 65536), kTileThreads, stream, x, w, y,
         M, N, K);
  check_launch(where);
}

inline void matmul_on_device(const float* x, F32Rows w, float* y, int64_t M, int64_t N, int64_t K, const char* where,
                             tl_cuda_stream stream) {
  matmul_chains_on_device<AsFloat>(x, w.w, y, M, N, K, where, stream);
}

}  // namespace konform::cuda
