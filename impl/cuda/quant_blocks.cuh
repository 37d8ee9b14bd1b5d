// The block formats of tinyllm/quant.h on the device: a weight of a row of
// blocks decoded where it is read, as Dequantize defines it (docs/ops-linalg.md,
// reference/konform/reference/quant.hpp). Included after abi.cuh.
#pragma once

#include <cstdint>

#include "impl/common/bf16.hpp"
#include "impl/common/f16.hpp"
#include "impl/common/quantize.hpp"

namespace konform::cuda {

// The little-endian f16 at p as a float, exactly (impl/common/f16.hpp).
__device__ inline float f16_at(const uint8_t* p) { return impl::f16::F16ToF32(impl::f16::LoadF16(p)); }

// Each format: its block length and size, and value j of a block.
// Q8_0: f16 d then int8 q[32]; value j = q[j] d (exact).
struct Q8_0 {
  static constexpr int kValues = 32, kBytes = 34;
  __device__ static float value(const uint8_t* b, int j) {
    return static_cast<float>(static_cast<int8_t>(b[2 + j])) * f16_at(b);
  }
};

// Q4_0: f16 d then 16 bytes; value j = ((q[j] & 15) - 8) d, value j + 16 =
// ((q[j] >> 4) - 8) d (exact).
struct Q4_0 {
  static constexpr int kValues = 32, kBytes = 18;
  __device__ static float value(const uint8_t* b, int j) {
    const int q = j < 16 ? (b[2 + j] & 15) : (b[2 + j - 16] >> 4);
    return static_cast<float>(q - 8) * f16_at(b);
  }
};

// Q4_K: f16 d, f16 dmin, 12 bytes of 6-bit scales and mins, 128 of nibbles;
// value = (d sc) q - dmin m, the products exact, one rounding.
struct Q4_K {
  static constexpr int kValues = 256, kBytes = 144;
  __device__ static float value(const uint8_t* b, int i) {
    float scale, min;
    impl::quantize::q4_k_sub_block(b, i / 32, &scale, &min);
    const uint8_t byte = b[16 + 32 * (i / 64) + i % 32];
    const int q = (i % 64) < 32 ? (byte & 15) : (byte >> 4);
    return scale * static_cast<float>(q) - min;
  }
};

// W as N rows of blocks of format F: w(n, k) is weight k of row n.
template <class F>
struct QuantRows {
  const uint8_t* w;
  int64_t row_bytes;
  __device__ float operator()(int64_t n, int64_t k) const {
    return F::value(w + n * row_bytes + (k / F::kValues) * F::kBytes, static_cast<int>(k % F::kValues));
  }
};

// y[r, k] = w(r, k) for rows x k values, one thread per value (grid-striding).
template <class W>
__global__ void dequantize_rows(W w, float* y, int64_t rows, int64_t k) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < rows * k; i += stride)
    y[i] = w(i / k, i % k);
}

// The same into f16 (kBF16 false) or bf16: each value rounded once to the
// dtype, to nearest even (impl/common/f16.hpp, bf16.hpp).
template <class W, bool kBF16>
__global__ void dequantize_rows_half(W w, uint16_t* y, int64_t rows, int64_t k) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < rows * k; i += stride) {
    const float v = w(i / k, i % k);
    y[i] = kBF16 ? impl::bf16::F32ToBF16(v) : impl::f16::F32ToF16(v);
  }
}

}  // namespace konform::cuda
