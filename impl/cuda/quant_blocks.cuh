// The block formats of tinyllm/quant.h on the device: a weight of a row of
// blocks decoded where it is read, as Dequantize defines it (docs/ops-linalg.md,
// reference/konform/reference/quant.hpp). Included after abi.cuh.
#pragma once

#include <cstdint>
#include <cstring>

namespace konform::cuda {

// IEEE binary16 bits to float, exactly (the scales are little-endian f16).
__device__ inline float f16_at(const uint8_t* p) {
  const uint32_t h = static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8;
  const uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {  // zero or subnormal: m * 2^-24, exact in float
    const float v = static_cast<float>(m) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  const uint32_t bits = sign | (e == 0x1f ? 0x7f800000u | (m << 13) : ((e + 112u) << 23) | (m << 13));
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

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

// Q4_K's 6-bit scale and min of sub-block j (0..7) from its 12 packed bytes.
__device__ inline void q4_k_scale_min(int j, const uint8_t* s, int* sc, int* m) {
  *sc = j < 4 ? s[j] & 63 : (s[j + 4] & 15) | (s[j - 4] >> 6) << 4;
  *m = j < 4 ? s[j + 4] & 63 : (s[j + 4] >> 4) | (s[j] >> 6) << 4;
}

// Q4_K: f16 d, f16 dmin, 12 bytes of 6-bit scales and mins, 128 of nibbles;
// value = (d sc) q - dmin m, the products exact, one rounding.
struct Q4_K {
  static constexpr int kValues = 256, kBytes = 144;
  __device__ static float value(const uint8_t* b, int i) {
    int sc, m;
    q4_k_scale_min(i / 32, b + 4, &sc, &m);
    const uint8_t byte = b[16 + 32 * (i / 64) + i % 32];
    const int q = (i % 64) < 32 ? (byte & 15) : (byte >> 4);
    const float scale = f16_at(b) * static_cast<float>(sc), min = f16_at(b + 2) * static_cast<float>(m);
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

}  // namespace konform::cuda
