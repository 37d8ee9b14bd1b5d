// The quantized formats of tinyllm/quant.h (ggml's Q8_0, Q4_0 and Q4_K block
// layouts), written from their public definitions.
//
// Unlike the other oracles this one is mostly not a template: a format's
// dequantization is defined by float formulas (exact for Q8_0 and Q4_0, one
// rounding for Q4_K), and its reference quantizer by a float procedure, so the
// float code below is the definition itself; the quantized matmul is then a
// dot product in T with the dequantized weights.
//
// Float expressions here are evaluated one rounding per operation, in program
// order: no fused multiply-add (a contraction would change quantizer bits).
// GCC and clang are told so below; the project builds for baseline x86-64,
// where there is no FMA to contract to in any case.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "konform/reference/f16.hpp"
#include "konform/reference/linalg.hpp"

#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

namespace konform::reference::quant {

enum class Format { q8_0, q4_0, q4_k };

// Values per block and bytes per block.
constexpr int64_t block_values(Format f) { return f == Format::q4_k ? 256 : 32; }
constexpr int64_t block_bytes(Format f) { return f == Format::q8_0 ? 34 : f == Format::q4_0 ? 18 : 144; }
// Bytes of rows x k values (k a multiple of block_values).
constexpr int64_t row_bytes(Format f, int64_t k) { return k / block_values(f) * block_bytes(f); }

inline uint16_t load_u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline void store_u16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v & 0xff);
  p[1] = static_cast<uint8_t>(v >> 8);
}

// ggml's nearest_int: round to nearest, ties to even, by adding 1.5 * 2^23;
// defined for |v| <= 4194303 (the quantizer never leaves that range for
// inputs whose scales fit f16).
inline int nearest_int(float v) {
  const float biased = v + 12582912.0f;
  int32_t i;
  std::memcpy(&i, &biased, 4);
  return (i & 0x007fffff) - 0x00400000;
}

// v, or 0 where v overflowed. The one rule for blocks so small that a
// reciprocal overflows: ggml goes on with the infinity and converts it (or
// Inf * 0 = NaN) to an integer, which C leaves undefined and which x86, ARM
// and GPUs resolve differently (INT_MIN, saturation, a NaN's payload bits).
// Here the reciprocal is 0 instead, so every quant of such a block is the
// zero quant (Q8_0: 0, Q4_0: 8, Q4_K: level 0 and 6-bit scale 0); its f16
// scales are 0 too, so the block decodes to zeros either way.
inline float finite_or_zero(float v) { return std::isfinite(v) ? v : 0.0f; }

// The reciprocal the quants are computed with: 1 / d, or 0 when d is 0 or
// 1 / d overflows (|d| < 2^-128; the f16 scale of such a block is 0).
inline float inverse_scale(float d) { return d != 0.0f ? finite_or_zero(1.0f / d) : 0.0f; }

// ---------------------------------------------------------------- Q8_0

// 34 bytes: f16 d, then int8 q[32]. d = max|x| / 127, q = round(x / d) with
// halves away from zero (roundf), computed with the f32 d.
inline void quantize_q8_0_block(const float* x, uint8_t* out) {
  float amax = 0.0f;
  for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[j]));
  const float d = amax / 127.0f;
  const float id = inverse_scale(d);
  store_u16(out, f32_to_f16(d));
  for (int j = 0; j < 32; ++j) out[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(std::round(x[j] * id)));
}

inline void dequantize_q8_0_block(const uint8_t* in, float* y) {
  const float d = f16_to_f32(load_u16(in));
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<int8_t>(in[2 + j])) * d;
}

// ---------------------------------------------------------------- Q4_0

// 18 bytes: f16 d, then 16 bytes of nibbles (value j low, j + 16 high).
// d = x_max / -8 where x_max is the first value of largest magnitude, so the
// extreme value maps to q = 0 exactly; q = min(15, trunc(x / d + 8.5)).
inline void quantize_q4_0_block(const float* x, uint8_t* out) {
  float amax = 0.0f, max = 0.0f;
  for (int j = 0; j < 32; ++j) {
    if (amax < std::fabs(x[j])) {
      amax = std::fabs(x[j]);
      max = x[j];
    }
  }
  const float d = max / -8.0f;
  const float id = inverse_scale(d);
  store_u16(out, f32_to_f16(d));
  for (int j = 0; j < 16; ++j) {
    const int lo = std::min(15, static_cast<int>(x[j] * id + 8.5f));
    const int hi = std::min(15, static_cast<int>(x[j + 16] * id + 8.5f));
    out[2 + j] = static_cast<uint8_t>(lo | (hi << 4));
  }
}

inline void dequantize_q4_0_block(const uint8_t* in, float* y) {
  const float d = f16_to_f32(load_u16(in));
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>((in[2 + j] & 15) - 8) * d;
    y[j + 16] = static_cast<float>((in[2 + j] >> 4) - 8) * d;
  }
}

// ---------------------------------------------------------------- Q4_K

// The 6-bit scale and min of sub-block j (0..7) from the 12 packed bytes.
inline void q4_k_scale_min(int j, const uint8_t* scales, int* sc, int* m) {
  if (j < 4) {
    *sc = scales[j] & 63;
    *m = scales[j + 4] & 63;
  } else {
    *sc = (scales[j + 4] & 15) | ((scales[j - 4] >> 6) << 4);
    *m = (scales[j + 4] >> 4) | ((scales[j] >> 6) << 4);
  }
}

// The scale d * sc and the min dmin * m of sub-block j (both exact in float).
inline void q4_k_sub_block(const uint8_t* in, int j, float* scale, float* min) {
  int sc, m;
  q4_k_scale_min(j, in + 4, &sc, &m);
  *scale = f16_to_f32(load_u16(in)) * static_cast<float>(sc);
  *min = f16_to_f32(load_u16(in + 2)) * static_cast<float>(m);
}

// The 4-bit quant of value i (0..255) of a super-block.
inline int q4_k_quant(const uint8_t* in, int i) {
  const uint8_t byte = in[16 + 32 * (i / 64) + i % 32];
  return (i % 64) < 32 ? (byte & 15) : (byte >> 4);
}

// 144 bytes: f16 d, f16 dmin, 12 bytes of scales and mins, 128 bytes of nibbles.
inline void dequantize_q4_k_block(const uint8_t* in, float* y) {
  for (int j = 0; j < 8; ++j) {
    float scale, min;
    q4_k_sub_block(in, j, &scale, &min);
    for (int i = 32 * j; i < 32 * j + 32; ++i) y[i] = scale * static_cast<float>(q4_k_quant(in, i)) - min;
  }
}

// The best affine grid for one sub-block of 32 values (ggml's
// make_qkx2_quants with 15 levels, rmin -1, rdelta 0.1, 20 steps, squared
// error): tries 21 grids, fits scale and min by weighted least squares, and
// keeps the one of least weighted error. Returns the scale; *neg_min is -min
// (>= 0); q[] gets the levels 0..15.
inline float q4_k_fit_sub_block(const float* x, const float* w, uint8_t* q, float* neg_min) {
  constexpr int n = 32, nmax = 15, nstep = 20;
  constexpr float rmin = -1.0f, rdelta = 0.1f;
  float min = x[0], max = x[0];
  float sum_w = w[0];
  float sum_x = sum_w * x[0];
  for (int i = 1; i < n; ++i) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
    sum_w += w[i];
    sum_x += w[i] * x[i];
  }
  if (min > 0) min = 0;
  float iscale = static_cast<float>(nmax) / (max - min);
  // Flat, or a range below about 2^-124 where 15 / range overflows (ggml
  // would convert Inf and Inf * 0 to levels; finite_or_zero): levels 0.
  if (max == min || !std::isfinite(iscale)) {
    for (int i = 0; i < n; ++i) q[i] = 0;
    *neg_min = -min;
    return 0.0f;
  }
  float scale = 1 / iscale;
  float best_error = 0;
  for (int i = 0; i < n; ++i) {
    q[i] = static_cast<uint8_t>(std::clamp(nearest_int(iscale * (x[i] - min)), 0, nmax));
    float diff = scale * static_cast<float>(q[i]) + min - x[i];
    diff = diff * diff;
    best_error += w[i] * diff;
  }
  uint8_t trial[n];
  for (int step = 0; step <= nstep; ++step) {
    iscale = (rmin + rdelta * static_cast<float>(step) + static_cast<float>(nmax)) / (max - min);
    if (!std::isfinite(iscale)) continue;  // a grid of Inf levels (finite_or_zero): not tried
    float sum_l = 0, sum_l2 = 0, sum_xl = 0;
    for (int i = 0; i < n; ++i) {
      const int l = std::clamp(nearest_int(iscale * (x[i] - min)), 0, nmax);
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
      std::copy(trial, trial + n, q);
      best_error = error;
      scale = this_scale;
      min = this_min;
    }
  }
  *neg_min = -min;
  return scale;
}

// ggml's quantize_row_q4_K_ref for one super-block of 256 values: fit each
// sub-block (weights sqrt(mean x^2) + |x|), quantize the eight scales and
// eight mins to 6 bits against their maxima, round those maxima / 63 to f16,
// then requantize every value against its sub-block's 6-bit grid.
inline void quantize_q4_k_block(const float* x, uint8_t* out) {
  uint8_t levels[256];
  float scales[8], mins[8];
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < 8; ++j) {
    const float* xs = x + 32 * j;
    float sum_x2 = 0;
    for (int l = 0; l < 32; ++l) sum_x2 += xs[l] * xs[l];
    const float av_x = std::sqrt(sum_x2 / 32);
    float w[32];
    for (int l = 0; l < 32; ++l) w[l] = av_x + std::fabs(xs[l]);
    scales[j] = q4_k_fit_sub_block(xs, w, levels + 32 * j, &mins[j]);
    if (scales[j] > max_scale) max_scale = scales[j];
    if (mins[j] > max_min) max_min = mins[j];
  }
  // 0 where 63 / max overflows (maxima below about 2^-122; finite_or_zero).
  const float inv_scale = max_scale > 0 ? finite_or_zero(63.0f / max_scale) : 0.0f;
  const float inv_min = max_min > 0 ? finite_or_zero(63.0f / max_min) : 0.0f;
  uint8_t* packed = out + 4;
  for (int j = 0; j < 8; ++j) {
    // As ggml: the int converts to uint8_t (mod 256) before the clamp to 63.
    const uint8_t ls = std::min<uint8_t>(63, static_cast<uint8_t>(nearest_int(inv_scale * scales[j])));
    const uint8_t lm = std::min<uint8_t>(63, static_cast<uint8_t>(nearest_int(inv_min * mins[j])));
    if (j < 4) {
      packed[j] = ls;
      packed[j + 4] = lm;
    } else {
      packed[j + 4] = static_cast<uint8_t>((ls & 15) | ((lm & 15) << 4));
      packed[j - 4] = static_cast<uint8_t>(packed[j - 4] | ((ls >> 4) << 6));
      packed[j] = static_cast<uint8_t>(packed[j] | ((lm >> 4) << 6));
    }
  }
  store_u16(out, f32_to_f16(max_scale / 63.0f));
  store_u16(out + 2, f32_to_f16(max_min / 63.0f));
  for (int j = 0; j < 8; ++j) {
    float d, dm;
    q4_k_sub_block(out, j, &d, &dm);
    if (d == 0) continue;  // the sub-block keeps its fitted levels
    for (int i = 32 * j; i < 32 * j + 32; ++i)
      levels[i] = static_cast<uint8_t>(std::clamp(nearest_int((x[i] + dm) / d), 0, 15));
  }
  for (int c = 0; c < 4; ++c)
    for (int l = 0; l < 32; ++l)
      out[16 + 32 * c + l] = static_cast<uint8_t>(levels[64 * c + l] | (levels[64 * c + 32 + l] << 4));
}

// ---------------------------------------------------------------- rows

inline void quantize_block(Format f, const float* x, uint8_t* out) {
  if (f == Format::q8_0) quantize_q8_0_block(x, out);
  else if (f == Format::q4_0) quantize_q4_0_block(x, out);
  else quantize_q4_k_block(x, out);
}

inline void dequantize_block(Format f, const uint8_t* in, float* y) {
  if (f == Format::q8_0) dequantize_q8_0_block(in, y);
  else if (f == Format::q4_0) dequantize_q4_0_block(in, y);
  else dequantize_q4_k_block(in, y);
}

// n values (a multiple of the block length) into n / QK blocks, and back.
inline void quantize(Format f, const float* x, uint8_t* out, int64_t n) {
  for (int64_t b = 0; b < n / block_values(f); ++b)
    quantize_block(f, x + b * block_values(f), out + b * block_bytes(f));
}
inline void dequantize(Format f, const uint8_t* in, float* y, int64_t n) {
  for (int64_t b = 0; b < n / block_values(f); ++b)
    dequantize_block(f, in + b * block_bytes(f), y + b * block_values(f));
}

// The scale a block's values are stored with: d for Q8_0 and Q4_0; for Q4_K
// the larger of d and dmin (each f16). Quantize refuses rows where one would
// not fit f16; this says whether it did.
inline bool block_scales_finite(Format f, const uint8_t* block) {
  const bool d_ok = std::isfinite(f16_to_f32(load_u16(block)));
  return f == Format::q4_k ? d_ok && std::isfinite(f16_to_f32(load_u16(block + 2))) : d_ok;
}

// The quantized matmul (§9): y = x @ Dequantize(w)^T; x: [M, K], w: N rows of
// K / QK blocks, y: [M, N].
template <typename T>
void qmatmul(Format f, const float* x, const uint8_t* w, T* y, int64_t M, int64_t N, int64_t K) {
  std::vector<float> wf(static_cast<size_t>(N * K));
  dequantize(f, w, wf.data(), N * K);
  matmul<T>(x, wf.data(), y, M, N, K);
}

// ---------------------------------------------------------------- q8x

// The q8x matmuls (tinyllm/quant.h): x quantized per block as ggml's CPU
// backend does, integer dot products per block, the blocks' terms added.
// x's format is Q8_0 (blocks of 32, f16 scale) for Q8_0 and Q4_0 weights,
// Q8_K (blocks of 256, f32 scale, sums of 16 quants) for Q4_K.
constexpr int64_t x_block_values(Format f) { return f == Format::q4_k ? 256 : 32; }

// One row of x quantized: a scale per block, the quants, Q8_K's bsums.
struct QuantizedX {
  std::vector<float> d;
  std::vector<int8_t> q;
  std::vector<int32_t> bsums;
};

// quantize_row_q8_0_ref (Quantize_Q8_0's rule) with the scale read back as
// its f16, or quantize_row_q8_K_ref: iscale = -127 / x_max, q = min(127,
// nearest_int(iscale x)), d = 1 / iscale in f32; a block of zeros, or one
// whose iscale overflows (finite_or_zero), is d = 0 with zero quants.
inline QuantizedX quantize_x(Format f, const float* x, int64_t K) {
  QuantizedX r;
  r.q.resize(static_cast<size_t>(K));
  const int64_t qk = x_block_values(f);
  for (int64_t b = 0; b < K / qk; ++b) {
    const float* xb = x + b * qk;
    int8_t* q = r.q.data() + b * qk;
    if (f != Format::q4_k) {
      uint8_t block[34];
      quantize_q8_0_block(xb, block);
      r.d.push_back(f16_to_f32(load_u16(block)));
      std::memcpy(q, block + 2, 32);
      continue;
    }
    float amax = 0, max = 0;
    for (int j = 0; j < 256; ++j)
      if (std::fabs(xb[j]) > amax) {
        amax = std::fabs(xb[j]);
        max = xb[j];
      }
    const float iscale = amax != 0 ? finite_or_zero(-127.0f / max) : 0.0f;
    for (int j = 0; j < 256; ++j)
      q[j] = static_cast<int8_t>(iscale != 0 ? std::min(127, nearest_int(iscale * xb[j])) : 0);
    for (int g = 0; g < 16; ++g) {
      int32_t sum = 0;
      for (int i = 0; i < 16; ++i) sum += q[16 * g + i];
      r.bsums.push_back(sum);
    }
    r.d.push_back(iscale != 0 ? 1.0f / iscale : 0.0f);
  }
  return r;
}

// The terms of one weight block against its x block: the exact integer
// sums, and their magnitudes (sum |qw qx|, Q4_K: sum sc |q qx| and sum m |qx|).
struct BlockSums {
  int64_t isum = 0, isum_min = 0;
  int64_t mag = 0, mag_min = 0;
};

inline BlockSums block_sums(Format f, const uint8_t* wb, const QuantizedX& xq, int64_t b) {
  BlockSums s;
  const int8_t* qx = xq.q.data() + b * x_block_values(f);
  if (f == Format::q8_0) {
    for (int j = 0; j < 32; ++j) {
      const int64_t p = static_cast<int64_t>(static_cast<int8_t>(wb[2 + j])) * qx[j];
      s.isum += p;
      s.mag += p < 0 ? -p : p;
    }
  } else if (f == Format::q4_0) {
    for (int j = 0; j < 32; ++j) {
      const int qw = (j < 16 ? (wb[2 + j] & 15) : (wb[2 + j - 16] >> 4)) - 8;
      const int64_t p = static_cast<int64_t>(qw) * qx[j];
      s.isum += p;
      s.mag += p < 0 ? -p : p;
    }
  } else {
    for (int sub = 0; sub < 8; ++sub) {
      int sc, m;
      q4_k_scale_min(sub, wb + 4, &sc, &m);
      for (int l = 0; l < 32; ++l) {
        const int64_t p = static_cast<int64_t>(q4_k_quant(wb, 32 * sub + l)) * qx[32 * sub + l];
        s.isum += sc * p;
        s.mag += sc * (p < 0 ? -p : p);
        s.mag_min += m * std::abs(static_cast<int>(qx[32 * sub + l]));
      }
      s.isum_min +=
          m * (xq.bsums[static_cast<size_t>(b * 16 + 2 * sub)] + xq.bsums[static_cast<size_t>(b * 16 + 2 * sub + 1)]);
    }
  }
  return s;
}

// y = sum over blocks of (dw dx) isum (Q4_K: minus (dmin dx) isum_min), in
// T, each block's term formed and added in block order as tinyllm/quant.h
// states (in double the products lose at most 2^-53 relative, far below
// float's roundings). With `scale`, also each output's magnitude
// sum_b |dw dx| mag (+ |dmin dx| mag_min), and with `floor` the absolute
// error of float roundings into the subnormals: Q8_K's f32 dx may be so
// small that dw dx, dmin dx or the term is subnormal, each then off by up
// to 2^-150 times what multiplies it: sum_b 2^-150 (mag + mag_min + 3).
// The strict profile's scale.
template <typename T>
void qmatmul_q8x(Format f, const float* x, const uint8_t* w, T* y, int64_t M, int64_t N, int64_t K,
                 double* scale = nullptr, double* floor = nullptr) {
  const int64_t nb = K / block_values(f), rb = row_bytes(f, K);
  for (int64_t m = 0; m < M; ++m) {
    const QuantizedX xq = quantize_x(f, x + m * K, K);
    for (int64_t n = 0; n < N; ++n) {
      T acc = 0;
      double mag = 0, lost = 0;
      for (int64_t b = 0; b < nb; ++b) {
        const uint8_t* wb = w + n * rb + b * block_bytes(f);
        const BlockSums s = block_sums(f, wb, xq, b);
        const T dx = static_cast<T>(xq.d[static_cast<size_t>(b)]);
        const T dw = static_cast<T>(f16_to_f32(load_u16(wb)));
        T t = static_cast<T>(dw * dx) * static_cast<T>(s.isum);
        mag += std::fabs(static_cast<double>(dw) * static_cast<double>(dx)) * static_cast<double>(s.mag);
        if (f == Format::q4_k) {
          const T dmin = static_cast<T>(f16_to_f32(load_u16(wb + 2)));
          t = t - static_cast<T>(dmin * dx) * static_cast<T>(s.isum_min);
          mag += std::fabs(static_cast<double>(dmin) * static_cast<double>(dx)) * static_cast<double>(s.mag_min);
        }
        lost += 0x1p-150 * static_cast<double>(s.mag + s.mag_min + 3);
        acc = acc + t;
      }
      y[m * N + n] = acc;
      if (scale != nullptr) scale[m * N + n] = mag;
      if (floor != nullptr) floor[m * N + n] = lost;
    }
  }
}

}  // namespace konform::reference::quant

#if defined(__clang__)
#pragma clang fp contract(on)
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif
