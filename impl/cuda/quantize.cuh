// Quantize's block encoders on the device: ggml's reference quantizers as
// reference/konform/reference/quant.hpp defines them, every float operation
// in its order with one rounding (--fmad=false, IEEE division and square
// root), so the blocks are the oracle's bit for bit; Q4_K's is the one the
// scalar backend runs too (impl/common/quantize.hpp). One thread per block.
// Included after abi.cuh.
#pragma once

#include <cstdint>

#include "impl/common/f16.hpp"
#include "impl/common/quantize.hpp"
#include "impl/cuda/grid.cuh"
#include "impl/cuda/quant_blocks.cuh"

namespace konform::cuda {

using impl::quantize::inverse_scale;

// d as the block's little-endian f16 scale (nearest-even; past 65504 it is
// Inf, and Quantize then refuses).
__device__ inline void store_f16(uint8_t* p, float d) { impl::f16::StoreF16(p, impl::f16::F32ToF16(d)); }

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

// Q4_K: the kernels' shared encoder (impl/common/quantize.hpp).
struct QuantizeQ4_K : Q4_K {
  __device__ void operator()(const float* x, uint8_t* out) const { impl::quantize::quantize_q4_k_block(x, out); }
};

// Each thread encodes whole blocks (grid-striding over them).
template <class Q>
__global__ void quantize_blocks(const float* x, uint8_t* out, int64_t blocks, Q q) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; b < blocks; b += stride)
    q(x + b * Q::kValues, out + b * Q::kBytes);
}

}  // namespace konform::cuda
