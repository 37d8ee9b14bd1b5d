// Quantize's block encoders on the device: ggml's reference quantizers as
// reference/konform/reference/quant.hpp defines them, every float operation
// in its order with one rounding (--fmad=false, IEEE division and square
// root), so the blocks are the oracle's bit for bit. One thread per block.
// Included after abi.cuh.
#pragma once

#include <cstdint>
#include <cstring>

#include "impl/cuda/grid.cuh"
#include "impl/cuda/quant_blocks.cuh"

namespace konform::cuda {

__device__ inline uint32_t bits_of(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

// m >> s rounded to nearest, ties to even (1 <= s <= 31).
__device__ inline uint32_t shift_rne(uint32_t m, unsigned s) {
  const uint32_t q = m >> s, rem = m & ((1u << s) - 1u), half = 1u << (s - 1);
  return q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u);
}

// float to f16 bits, nearest-even; past 65504 it is Inf (Quantize then refuses).
__device__ inline void store_f16(uint8_t* p, float f) {
  const uint32_t x = bits_of(f), ax = x & 0x7fffffffu, sign = (x >> 16) & 0x8000u;
  uint32_t h;
  if (ax >= 0x477ff000u) h = sign | 0x7c00u;  // the inputs are finite: no NaN here
  else if (ax >= 0x38800000u) h = sign | shift_rne(ax - (112u << 23), 13);
  else if ((ax >> 23) < 102) h = sign;
  else h = sign | shift_rne((ax & 0x7fffffu) | 0x800000u, 126u - (ax >> 23));
  p[0] = static_cast<uint8_t>(h & 0xff);
  p[1] = static_cast<uint8_t>(h >> 8);
}

// ggml's nearest_int: the bits of v + 1.5 * 2^23 (ties to even).
__device__ inline int nearest_int(float v) {
  return static_cast<int>(bits_of(v + 12582912.0f) & 0x007fffffu) - 0x00400000;
}

__device__ inline int clamp_int(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

// v, or 0 where it overflowed (the oracle's finite_or_zero): a block so small
// that a reciprocal overflows gets the zero quant, never a conversion of Inf
// or NaN (which a GPU saturates, or reads from a NaN's payload).
__device__ inline float finite_or_zero(float v) { return isfinite(v) ? v : 0.0f; }

// 1 / d, or 0 when d is 0 or 1 / d overflows (the oracle's inverse_scale).
__device__ inline float inverse_scale(float d) { return d != 0.0f ? finite_or_zero(1.0f / d) : 0.0f; }

// Each encoder takes its format's block length and size (quant_blocks.cuh).
struct QuantizeQ8_0 : Q8_0 {
  __device__ void operator()(const float* x, uint8_t* out) const {
    float amax = 0.0f;
    for (int j = 0; j < 32; ++j) amax = amax < fabsf(x[j]) ? fabsf(x[j]) : amax;
    const float d = amax / 127.0f, id = inverse_scale(d);
    store_f16(out, d);
    for (int j = 0; j < 32; ++j) out[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(roundf(x[j] * id)));
  }
};

struct QuantizeQ4_0 : Q4_0 {
  __device__ void operator()(const float* x, uint8_t* out) const {
    float amax = 0.0f, max = 0.0f;  // max: the first value of largest magnitude
    for (int j = 0; j < 32; ++j)
      if (amax < fabsf(x[j])) {
        amax = fabsf(x[j]);
        max = x[j];
      }
    const float d = max / -8.0f, id = inverse_scale(d);
    store_f16(out, d);
    for (int j = 0; j < 16; ++j) {
      const int lo = static_cast<int>(x[j] * id + 8.5f), hi = static_cast<int>(x[j + 16] * id + 8.5f);
      out[2 + j] = static_cast<uint8_t>((lo < 15 ? lo : 15) | (hi < 15 ? hi : 15) << 4);
    }
  }
};

}  // namespace konform::cuda

#include "impl/cuda/quantize_q4_k.cuh"

namespace konform::cuda {

// Each thread encodes whole blocks (grid-striding over them).
template <class Q>
__global__ void quantize_blocks(const float* x, uint8_t* out, int64_t blocks, Q q) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; b < blocks; b += stride)
    q(x + b * Q::kValues, out + b * Q::kBytes);
}

}  // namespace konform::cuda
