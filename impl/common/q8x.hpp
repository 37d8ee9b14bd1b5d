// The q8x matmuls' scalar math that the kernel libraries share (simd, cuda):
// x quantized per block as ggml's CPU backend does (Q8_0 for Q8_0 and Q4_0
// weights, Q8_K for Q4_K), the integer dot product of one block, and the
// block's f32 term, in the order tinyllm/quant.h states. Host C++ and CUDA
// device code (KONFORM_HD); built without FMA contraction.
//
// The oracle keeps its own copy (reference/konform/reference/quant.hpp): a
// bug shared by both would pass unseen.
#pragma once

#include <math.h>  // roundf, fabsf: the same names on the host and on a device

#include <cstdint>

#include "impl/common/f16.hpp"
#include "impl/common/host_device.hpp"
#include "impl/common/quantize.hpp"

namespace konform::impl::q8x {

// x's blocks: 32 values with an f16 scale (Q8_0) or 256 with an f32 scale
// and sixteen sums of 16 quants (Q8_K). One layout serves both: qs and the
// scale per block, bsums only for Q8_K.
struct XBlockQ8K {
  float d;
  int8_t qs[256];
  int16_t bsums[16];
};
struct XBlockQ8 {
  float d;  // the f16 scale, as a float
  int8_t qs[32];
};

// quantize_row_q8_0_ref: d = max|x| / 127, q = roundf(x * (1 / d)), the f32
// d then rounded to f16 (the scale the dot product uses).
KONFORM_HD inline void quantize_x_q8_0(const float* x, XBlockQ8* out) {
  float amax = 0.0f;
  for (int j = 0; j < 32; ++j) amax = fabsf(x[j]) > amax ? fabsf(x[j]) : amax;
  const float d = amax / 127.0f;
  const float id = quantize::inverse_scale(d);
  out->d = f16::F16ToF32(f16::F32ToF16(d));
  for (int j = 0; j < 32; ++j) out->qs[j] = static_cast<int8_t>(roundf(x[j] * id));
}

// quantize_row_q8_K_ref: iscale = -127 / x_max (x_max the first value of
// largest magnitude), q = min(127, nearest_int(iscale x)), d = 1 / iscale;
// a block of zeros, or one whose iscale overflows, is d = 0 and q = 0.
KONFORM_HD inline void quantize_x_q8_k(const float* x, XBlockQ8K* out) {
  float amax = 0.0f, max = 0.0f;
  for (int j = 0; j < 256; ++j)
    if (fabsf(x[j]) > amax) {
      amax = fabsf(x[j]);
      max = x[j];
    }
  const float iscale = amax != 0.0f ? quantize::finite_or_zero(-127.0f / max) : 0.0f;
  for (int j = 0; j < 256; ++j) {
    const int v = iscale != 0.0f ? quantize::nearest_int(iscale * x[j]) : 0;
    out->qs[j] = static_cast<int8_t>(v < 127 ? v : 127);
  }
  for (int g = 0; g < 16; ++g) {
    int sum = 0;
    for (int i = 0; i < 16; ++i) sum += out->qs[16 * g + i];
    out->bsums[g] = static_cast<int16_t>(sum);
  }
  out->d = iscale != 0.0f ? 1.0f / iscale : 0.0f;
}

// One block's f32 term from its exact integer sums (tinyllm/quant.h):
// (dw dx) float(isum), and for Q4_K minus (dmin dx) float(isum_min).
KONFORM_HD inline float term(float dw, float dx, int32_t isum) { return (dw * dx) * static_cast<float>(isum); }
KONFORM_HD inline float term_q4_k(float d, float dmin, float dx, int32_t isum, int32_t isum_min) {
  return (d * dx) * static_cast<float>(isum) - (dmin * dx) * static_cast<float>(isum_min);
}

// The integer sums of one weight block against its x block, in plain C
// (libtl_cuda's threads; the simd kernels vectorize the same sums).
KONFORM_HD inline int32_t isum_q8_0(const uint8_t* wb, const int8_t* qx) {
  int32_t s = 0;
  for (int j = 0; j < 32; ++j) s += static_cast<int8_t>(wb[2 + j]) * qx[j];
  return s;
}
KONFORM_HD inline int32_t isum_q4_0(const uint8_t* wb, const int8_t* qx) {
  int32_t s = 0;
  for (int j = 0; j < 16; ++j) s += ((wb[2 + j] & 15) - 8) * qx[j] + ((wb[2 + j] >> 4) - 8) * qx[j + 16];
  return s;
}
// Q4_K: *isum = sum_s sc_s sum_{j in s} q_j qx_j, *isum_min = sum_s m_s (bsums[2 s] + bsums[2 s + 1]).
KONFORM_HD inline void isum_q4_k(const uint8_t* wb, const XBlockQ8K& xb, int32_t* isum, int32_t* isum_min) {
  int32_t s = 0, smin = 0;
  for (int sub = 0; sub < 8; ++sub) {
    int sc, m;
    quantize::q4_k_scale_min(sub, wb + 4, &sc, &m);
    const uint8_t* q = wb + 16 + 32 * (sub / 2);
    const int shift = (sub % 2) * 4;
    int32_t dot = 0;
    for (int l = 0; l < 32; ++l) dot += ((q[l] >> shift) & 15) * xb.qs[32 * sub + l];
    s += sc * dot;
    smin += m * (xb.bsums[2 * sub] + xb.bsums[2 * sub + 1]);
  }
  *isum = s;
  *isum_min = smin;
}

}  // namespace konform::impl::q8x
