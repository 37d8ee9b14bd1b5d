// The quantizers' scalar math that the kernel libraries share: ggml's
// reference quantizers as reference/konform/reference/quant.hpp defines them,
// every float operation in its order with one rounding, so the blocks are
// the oracle's bit for bit. Host C++ (scalar, simd) and CUDA device code
// (KONFORM_HD); each library builds without FMA contraction (-ffp-contract=off,
// --fmad=false) and with IEEE division and square root.
//
// The oracle keeps its own copy of this math on purpose: the kernels are
// checked against it, and a bug shared by both would pass unseen. The
// scalar backend and libtl_cuda run quantize_q4_k_block below; the simd
// backend fits the eight sub-blocks in vector lanes (impl/simd/quantize-inl.h)
// and shares the rest (pack_q4_k_scales, q4_k_scale_min).
#pragma once

#include <math.h>  // sqrtf, fabsf: the same names on the host and on a device

#include <cstdint>

#include "impl/common/f16.hpp"
#include "impl/common/host_device.hpp"

namespace konform::impl::quantize {

// ggml's nearest_int: the bits of v + 1.5 * 2^23 (ties to even).
KONFORM_HD inline int nearest_int(float v) {
  return static_cast<int>(f16::BitsOf(v + 12582912.0f) & 0x007fffffu) - 0x00400000;
}

KONFORM_HD inline int clamp_int(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

// Whether v is neither Inf nor NaN (by bits: the same on the host and on a device).
KONFORM_HD inline bool is_finite(float v) { return (f16::BitsOf(v) & 0x7f800000u) != 0x7f800000u; }

// v, or 0 where it overflowed (the oracle's finite_or_zero): a block so small
// that a reciprocal overflows gets the zero quant, never a conversion of Inf
// or NaN to an integer (undefined in C; a GPU saturates, or reads a NaN's payload).
KONFORM_HD inline float finite_or_zero(float v) { return is_finite(v) ? v : 0.0f; }

// 1 / d, or 0 when d is 0 or so small (below 2^-128) that 1 / d overflows
// (the oracle's inverse_scale).
KONFORM_HD inline float inverse_scale(float d) { return d != 0.0f ? finite_or_zero(1.0f / d) : 0.0f; }

// ---------------------------------------------------------------- Q4_K

// Q4_K's 6-bit scale and min of sub-block j (0..7) from its 12 packed bytes s.
KONFORM_HD inline void q4_k_scale_min(int j, const uint8_t* s, int* sc, int* m) {
  *sc = j < 4 ? s[j] & 63 : (s[j + 4] & 15) | (s[j - 4] >> 6) << 4;
  *m = j < 4 ? s[j + 4] & 63 : (s[j + 4] >> 4) | (s[j] >> 6) << 4;
}

// The best affine grid of 15 levels for 32 values (ggml's make_qkx2_quants,
// rmin -1, rdelta 0.1, 20 steps): 21 trial scales, each fitted by weighted
// least squares, the least weighted error kept. Returns the scale; *neg_min
// = -min (>= 0); q gets the levels.
KONFORM_HD inline float q4_k_fit(const float* x, const float* w, uint8_t* q, float* neg_min) {
  constexpr int n = 32, nmax = 15, nstep = 20;
  constexpr float rmin = -1.0f, rdelta = 0.1f;
  float min = x[0], max = x[0], sum_w = w[0];
  float sum_x = sum_w * x[0];
  for (int i = 1; i < n; ++i) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
    sum_w += w[i];
    sum_x += w[i] * x[i];
  }
  if (min > 0) min = 0;
  float iscale = static_cast<float>(nmax) / (max - min);
  if (max == min || !is_finite(iscale)) {  // flat, or 15 / range overflows (finite_or_zero)
    for (int i = 0; i < n; ++i) q[i] = 0;
    *neg_min = -min;
    return 0.0f;
  }
  float scale = 1 / iscale, best_error = 0;
  for (int i = 0; i < n; ++i) {
    q[i] = static_cast<uint8_t>(clamp_int(nearest_int(iscale * (x[i] - min)), 0, nmax));
    float diff = scale * static_cast<float>(q[i]) + min - x[i];
    diff = diff * diff;
    best_error += w[i] * diff;
  }
  uint8_t trial[n];
  for (int step = 0; step <= nstep; ++step) {
    iscale = (rmin + rdelta * static_cast<float>(step) + static_cast<float>(nmax)) / (max - min);
    if (!is_finite(iscale)) continue;  // a grid of Inf levels is not tried
    float sum_l = 0, sum_l2 = 0, sum_xl = 0;
    for (int i = 0; i < n; ++i) {
      const int l = clamp_int(nearest_int(iscale * (x[i] - min)), 0, nmax);
      trial[i] = static_cast<uint8_t>(l);
      const float fl = static_cast<float>(l);
      sum_l += w[i] * fl;
      sum_l2 += w[i] * fl * fl;
      sum_xl += w[i] * fl * x[i];
    }
    const float D = sum_w * sum_l2 - sum_l * sum_l;
    if (!(D > 0)) continue;
    float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
    float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
    if (this_min > 0) {
      this_min = 0;
      this_scale = sum_xl / sum_l2;
    }
    float error = 0;
    for (int i = 0; i < n; ++i) {
      float diff = this_scale * static_cast<float>(trial[i]) + this_min - x[i];
      diff = diff * diff;
      error += w[i] * diff;
    }
    if (error < best_error) {
      for (int i = 0; i < n; ++i) q[i] = trial[i];
      best_error = error;
      scale = this_scale;
      min = this_min;
    }
  }
  *neg_min = -min;
  return scale;
}

// The eight fitted scales and -mins of a super-block to its header: each
// quantized to 6 bits against their maxima (packed into out[4..15]), those
// maxima / 63 rounded to the f16 d and dmin (out[0..3]).
KONFORM_HD inline void pack_q4_k_scales(const float* scales, const float* mins, uint8_t* out) {
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < 8; ++j) {
    if (scales[j] > max_scale) max_scale = scales[j];
    if (mins[j] > max_min) max_min = mins[j];
  }
  // 0 where 63 / max overflows (maxima below about 2^-122; finite_or_zero).
  const float inv_scale = max_scale > 0 ? finite_or_zero(63.0f / max_scale) : 0.0f;
  const float inv_min = max_min > 0 ? finite_or_zero(63.0f / max_min) : 0.0f;
  uint8_t* packed = out + 4;
  for (int j = 0; j < 8; ++j) {
    // As ggml: the int becomes a uint8_t (mod 256) before the clamp to 63.
    const uint8_t ls0 = static_cast<uint8_t>(nearest_int(inv_scale * scales[j]));
    const uint8_t lm0 = static_cast<uint8_t>(nearest_int(inv_min * mins[j]));
    const uint8_t ls = ls0 < 63 ? ls0 : 63, lm = lm0 < 63 ? lm0 : 63;
    if (j < 4) {
      packed[j] = ls;
      packed[j + 4] = lm;
    } else {
      packed[j + 4] = static_cast<uint8_t>((ls & 15) | ((lm & 15) << 4));
      packed[j - 4] = static_cast<uint8_t>(packed[j - 4] | ((ls >> 4) << 6));
      packed[j] = static_cast<uint8_t>(packed[j] | ((lm >> 4) << 6));
    }
  }
  f16::StoreF16(out, f16::F32ToF16(max_scale / 63.0f));
  f16::StoreF16(out + 2, f16::F32ToF16(max_min / 63.0f));
}

// Sub-block j's scale d * sc and min dmin * m, as the packed header gives them.
KONFORM_HD inline void q4_k_sub_block(const uint8_t* block, int j, float* scale, float* min) {
  int sc, m;
  q4_k_scale_min(j, block + 4, &sc, &m);
  *scale = f16::F16ToF32(f16::LoadF16(block)) * static_cast<float>(sc);
  *min = f16::F16ToF32(f16::LoadF16(block + 2)) * static_cast<float>(m);
}

// ggml's quantize_row_q4_K_ref for one super-block of 256 values: fit each
// sub-block (weights sqrt(mean x^2) + |x|), pack the scales and mins, then
// requantize every value against its sub-block's 6-bit grid.
KONFORM_HD inline void quantize_q4_k_block(const float* x, uint8_t* out) {
  uint8_t levels[256];
  float scales[8], mins[8];
  for (int j = 0; j < 8; ++j) {
    const float* xs = x + 32 * j;
    float sum_x2 = 0;
    for (int l = 0; l < 32; ++l) sum_x2 += xs[l] * xs[l];
    const float av_x = sqrtf(sum_x2 / 32);
    float w[32];
    for (int l = 0; l < 32; ++l) w[l] = av_x + fabsf(xs[l]);
    scales[j] = q4_k_fit(xs, w, levels + 32 * j, &mins[j]);
  }
  pack_q4_k_scales(scales, mins, out);
  for (int j = 0; j < 8; ++j) {
    float d, dm;
    q4_k_sub_block(out, j, &d, &dm);
    if (d == 0) continue;  // the sub-block keeps its fitted levels
    for (int i = 32 * j; i < 32 * j + 32; ++i)
      levels[i] = static_cast<uint8_t>(clamp_int(nearest_int((x[i] + dm) / d), 0, 15));
  }
  for (int c = 0; c < 4; ++c)
    for (int l = 0; l < 32; ++l)
      out[16 + 32 * c + l] = static_cast<uint8_t>(levels[64 * c + l] | (levels[64 * c + 32 + l] << 4));
}

}  // namespace konform::impl::quantize
