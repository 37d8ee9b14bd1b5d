/* quant_base.c: tinyllm/quant.h in plain C11 (Quantize, Dequantize and the
 * quantized matmul for Q8_0, Q4_0 and Q4_K), and its mutants.
 *
 * Compiled as is (KONFORM_MUTANT undefined or 0) this is the correct plugin
 * konform_quant_base: ggml's reference quantizers in float, the formats'
 * dequantization, and a quantized matmul that decodes one block at a time
 * and accumulates in double, and the q8x matmuls (x quantized as ggml's CPU
 * backend does, integer dot products per block, the terms added in float).
 * With -DKONFORM_MUTANT=N it is mutant quant_mNN:
 * one defect switched on; mutants/manifest.tsv names the check that must
 * catch it.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tinyllm/quant.h"

#ifndef KONFORM_MUTANT
#define KONFORM_MUTANT 0
#endif
#if KONFORM_MUTANT < 0 || KONFORM_MUTANT > 30
#error "KONFORM_MUTANT must be 0 (the correct base) or 1..30 (quant_m01..m30)"
#endif
#define MUTANT(n) (KONFORM_MUTANT == (n))

/* a * b + c, two roundings; with KONFORM_QUANT_FMA (alternatives/
 * alt_quant_fma.c) one fused rounding, where a compiler that contracts
 * (-ffp-contract=fast with FMA, nvcc's default) would fuse. */
#ifdef KONFORM_QUANT_FMA
#define MADD(a, b, c) fmaf((a), (b), (c))
#else
#define MADD(a, b, c) ((a) * (b) + (c))
#endif

/* ---- f16 --------------------------------------------------------------------- */

static uint32_t bits_of(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}
static float float_of(uint32_t b) {
  float f;
  memcpy(&f, &b, 4);
  return f;
}

/* Round to nearest even: let the FPU round a + 2^(e + 13) (2^-1 below 2^-14). */
static uint16_t to_f16(float f) {
  const uint16_t sign = (uint16_t)((bits_of(f) >> 16) & 0x8000u);
  const float a = fabsf(f);
  if (isnan(a)) return (uint16_t)(sign | 0x7e00u);
  if (a >= 65520.0f) return (uint16_t)(sign | 0x7c00u);
#if MUTANT(3) /* m03: the f16 scale truncated, not rounded */
  if (a >= 0x1p-14f) return (uint16_t)(sign | (((bits_of(a) >> 23) - 112u) << 10) | ((bits_of(a) >> 13) & 0x3ffu));
  return (uint16_t)(sign | (uint16_t)(a * 0x1p24f));
#endif
  const int e = a >= 0x1p-14f ? (int)((bits_of(a) >> 23) & 0xffu) - 127 : -15;
  const float c = e >= -14 ? ldexpf(1.0f, e + 13) : 0.5f;
  const float r = (a + c) - c;
  if (r < 0x1p-14f) return (uint16_t)(sign | (uint16_t)(r * 0x1p24f));
  const uint32_t b = bits_of(r);
  return (uint16_t)(sign | ((((b >> 23) & 0xffu) - 112u) << 10) | ((b >> 13) & 0x3ffu));
}

static float from_f16(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f) return float_of(sign | 0x7f800000u | (m << 13));
  if (e == 0) return sign ? -(float)m * 0x1p-24f : (float)m * 0x1p-24f;
  return float_of(sign | ((e + 112u) << 23) | (m << 13));
}

static uint16_t load16(const uint8_t* p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static void store16(uint8_t* p, uint16_t v) {
  p[0] = (uint8_t)(v & 0xff);
  p[1] = (uint8_t)(v >> 8);
}

/* ggml's nearest_int reads the integer from the bits of v + 1.5 * 2^23. */
static int from_biased(float biased) {
#if MUTANT(25) /* m25: as on a device whose Inf * 0 is the canonical NaN 0x7fffffff: level 15 where x86 reads 0 */
  if (isnan(biased)) return 0x3fffff;
#endif
  int32_t i;
  memcpy(&i, &biased, 4);
  return (i & 0x007fffff) - 0x00400000;
}
static int nearest_int(float v) { return from_biased(v + 12582912.0f); }
/* nearest_int(a * b): the product and the bias are one fused rounding under
 * KONFORM_QUANT_FMA, as a contracting compiler inlines it. */
static int nearest_int_of_product(float a, float b) { return from_biased(MADD(a, b, 12582912.0f)); }

/* v, or 0 where it overflowed: blocks so small that a reciprocal overflows
 * get the zero quant (tinyllm/quant.h), never a conversion of Inf or NaN. */
static float finite_or_zero(float v) {
#if MUTANT(25) /* m25 also: Q8_0 and Q4_0 convert x * Inf to int as ggml does (undefined in C, INT_MIN on x86) */
  return v;
#else
  return isfinite(v) ? v : 0.0f;
#endif
}

/* 1 / d, or 0 when d is 0 or 1 / d overflows (tinyllm/quant.h). */
static float inverse(float d) { return d != 0.0f ? finite_or_zero(1.0f / d) : 0.0f; }

/* ---- Q8_0 -------------------------------------------------------------------- */

static void quantize_q8_0_block(const float* x, uint8_t* out) {
  float amax = 0.0f;
  for (int j = 0; j < 32; ++j)
    if (fabsf(x[j]) > amax) amax = fabsf(x[j]);
  const float d = amax / 127.0f;
  store16(out, to_f16(d));
#if MUTANT(4) /* m04: the quants computed with the f16-rounded scale, not the f32 one */
  const float d16 = from_f16(load16(out));
  const float id = inverse(d16);
#else
  const float id = inverse(d);
#endif
  for (int j = 0; j < 32; ++j) {
#if MUTANT(1) /* m01: rounded toward zero */
    out[2 + j] = (uint8_t)(int8_t)truncf(x[j] * id);
#elif MUTANT(2) /* m02: halves rounded to even, not away from zero */
    out[2 + j] = (uint8_t)(int8_t)rintf(x[j] * id);
#else
    out[2 + j] = (uint8_t)(int8_t)roundf(x[j] * id);
#endif
  }
}

static void dequantize_q8_0_block(const uint8_t* in, float* y) {
  const float d = from_f16(load16(in));
  for (int j = 0; j < 32; ++j) {
#if MUTANT(17) /* m17: the quants read as unsigned bytes */
    y[j] = (float)in[2 + j] * d;
#else
    y[j] = (float)(int8_t)in[2 + j] * d;
#endif
  }
}

/* ---- Q4_0 -------------------------------------------------------------------- */

static void quantize_q4_0_block(const float* x, uint8_t* out) {
  float amax = 0.0f, max = 0.0f;
  for (int j = 0; j < 32; ++j)
    if (amax < fabsf(x[j])) {
      amax = fabsf(x[j]);
      max = x[j];
    }
#if MUTANT(6) /* m06: the scale from |x_max|, its sign dropped */
  const float d = amax / -8.0f;
  (void)max;
#else
  const float d = max / -8.0f;
#endif
  const float id = inverse(d);
  store16(out, to_f16(d));
  for (int j = 0; j < 16; ++j) {
    int lo = (int)MADD(x[j], id, 8.5f), hi = (int)MADD(x[j + 16], id, 8.5f);
#if !MUTANT(8) /* m08: no clamp to 15 (the opposite extreme's 16 spills into the next nibble) */
    lo = lo < 15 ? lo : 15;
    hi = hi < 15 ? hi : 15;
#endif
    out[2 + j] = (uint8_t)(lo | (hi << 4));
  }
}

static void q4_0_values(const uint8_t* in, float* y) {
  const float d = from_f16(load16(in));
  for (int j = 0; j < 16; ++j) {
#if MUTANT(5) /* m05: the offset 8 forgotten */
    y[j] = (float)(in[2 + j] & 15) * d;
    y[j + 16] = (float)(in[2 + j] >> 4) * d;
#elif MUTANT(7) /* m07: the nibbles swapped: value j from the high one */
    y[j] = (float)((in[2 + j] >> 4) - 8) * d;
    y[j + 16] = (float)((in[2 + j] & 15) - 8) * d;
#else
    y[j] = (float)((in[2 + j] & 15) - 8) * d;
    y[j + 16] = (float)((in[2 + j] >> 4) - 8) * d;
#endif
  }
}

/* ---- Q4_K -------------------------------------------------------------------- */

static void q4_k_scale_min(int j, const uint8_t* s, int* sc, int* m) {
#if MUTANT(10) /* m10: every sub-block unpacked the j < 4 way */
  *sc = s[j % 8] & 63;
  *m = s[(j + 4) % 12] & 63;
#else
  if (j < 4) {
    *sc = s[j] & 63;
    *m = s[j + 4] & 63;
  } else {
    *sc = (s[j + 4] & 15) | ((s[j - 4] >> 6) << 4);
    *m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
#endif
}

static void q4_k_values(const uint8_t* in, float* y) {
  const float d = from_f16(load16(in)), dmin = from_f16(load16(in + 2));
  for (int j = 0; j < 8; ++j) {
    int sc, m;
    q4_k_scale_min(j, in + 4, &sc, &m);
    const float scale = d * (float)sc, min = dmin * (float)m;
    for (int l = 0; l < 32; ++l) {
      const uint8_t byte = in[16 + 32 * (j / 2) + l];
      const int q = (j % 2) ? byte >> 4 : byte & 15;
#if MUTANT(9) /* m09: the min added, not subtracted */
      y[32 * j + l] = scale * (float)q + min;
#else
      y[32 * j + l] = scale * (float)q - min;
#endif
    }
  }
}

/* ggml's make_qkx2_quants for one sub-block (15 levels, rmin -1, rdelta 0.1, 20 steps). */
static float fit(const float* x, const float* w, uint8_t* L, float* neg_min) {
  float min = x[0], max = x[0], sum_w = w[0], sum_x = sum_w * x[0];
  for (int i = 1; i < 32; ++i) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
    sum_w += w[i];
    sum_x = MADD(w[i], x[i], sum_x);
  }
  if (min > 0) min = 0;
  float iscale = 15.0f / (max - min);
  /* flat, or a range so small that 15 / range overflows: levels 0 */
  if (max == min || finite_or_zero(iscale) == 0.0f) {
    memset(L, 0, 32);
    *neg_min = -min;
    return 0.0f;
  }
  float scale = 1 / iscale, best = 0;
  for (int i = 0; i < 32; ++i) {
    int l = nearest_int_of_product(iscale, x[i] - min);
    L[i] = (uint8_t)(l < 0 ? 0 : l > 15 ? 15 : l);
    float diff = MADD(scale, L[i], min) - x[i];
    diff = diff * diff;
    best = MADD(w[i], diff, best);
  }
  uint8_t aux[32];
#if MUTANT(24) /* m24: no scale search: the min-max grid kept, none of the 21 refitted grids tried */
  const int last_grid = -1;
#else
  const int last_grid = 20;
#endif
  for (int is = 0; is <= last_grid; ++is) {
    iscale = MADD(0.1f, (float)is, -1.0f) + 15.0f;
    iscale /= max - min;
    if (finite_or_zero(iscale) == 0.0f) continue; /* a grid of Inf levels is not tried */
    float sum_l = 0, sum_l2 = 0, sum_xl = 0;
    for (int i = 0; i < 32; ++i) {
      int l = nearest_int_of_product(iscale, x[i] - min);
      l = l < 0 ? 0 : l > 15 ? 15 : l;
      aux[i] = (uint8_t)l;
      sum_l = MADD(w[i], (float)l, sum_l);
      sum_l2 = MADD(w[i] * (float)l, (float)l, sum_l2);
      sum_xl = MADD(w[i] * (float)l, x[i], sum_xl);
    }
    const float D = MADD(sum_w, sum_l2, -(sum_l * sum_l));
    if (D > 0) {
      float this_scale = MADD(sum_w, sum_xl, -(sum_x * sum_l)) / D;
      float this_min = MADD(sum_l2, sum_x, -(sum_l * sum_xl)) / D;
      if (this_min > 0) {
        this_min = 0;
        this_scale = sum_xl / sum_l2;
      }
      float err = 0;
      for (int i = 0; i < 32; ++i) {
        float diff = MADD(this_scale, aux[i], this_min) - x[i];
        diff = diff * diff;
        err = MADD(w[i], diff, err);
      }
      if (err < best) {
        memcpy(L, aux, 32);
        best = err;
        scale = this_scale;
        min = this_min;
      }
    }
  }
  *neg_min = -min;
  return scale;
}

static void quantize_q4_k_block(const float* x, uint8_t* out) {
  uint8_t L[256];
  float scales[8], mins[8], max_scale = 0, max_min = 0;
  for (int j = 0; j < 8; ++j) {
    float sum_x2 = 0, w[32];
    for (int l = 0; l < 32; ++l) sum_x2 = MADD(x[32 * j + l], x[32 * j + l], sum_x2);
    const float av_x = sqrtf(sum_x2 / 32);
    for (int l = 0; l < 32; ++l) w[l] = av_x + fabsf(x[32 * j + l]);
    scales[j] = fit(x + 32 * j, w, L + 32 * j, &mins[j]);
    if (scales[j] > max_scale) max_scale = scales[j];
    if (mins[j] > max_min) max_min = mins[j];
  }
  const float inv_scale = max_scale > 0 ? finite_or_zero(63.0f / max_scale) : 0.0f;
  const float inv_min = max_min > 0 ? finite_or_zero(63.0f / max_min) : 0.0f;
  uint8_t* s = out + 4;
  for (int j = 0; j < 8; ++j) {
#if MUTANT(12) /* m12: the 6-bit scales truncated, not rounded */
    uint8_t ls = (uint8_t)(int)(inv_scale * scales[j]);
#else
    uint8_t ls = (uint8_t)nearest_int_of_product(inv_scale, scales[j]);
#endif
    uint8_t lm = (uint8_t)nearest_int_of_product(inv_min, mins[j]);
    ls = ls < 63 ? ls : 63;
    lm = lm < 63 ? lm : 63;
    if (j < 4) {
      s[j] = ls;
      s[j + 4] = lm;
    } else {
      s[j + 4] = (uint8_t)((ls & 15) | ((lm & 15) << 4));
      s[j - 4] |= (uint8_t)((ls >> 4) << 6);
      s[j] |= (uint8_t)((lm >> 4) << 6);
    }
  }
  store16(out, to_f16(max_scale / 63.0f));
  store16(out + 2, to_f16(max_min / 63.0f));
#if !MUTANT(11) /* m11: the values not requantized against the 6-bit grid (the search's levels kept) */
  for (int j = 0; j < 8; ++j) {
    int sc, m;
    q4_k_scale_min(j, s, &sc, &m);
    const float d = from_f16(load16(out)) * (float)sc;
    if (d == 0) continue;
    const float dm = from_f16(load16(out + 2)) * (float)m;
    for (int i = 0; i < 32; ++i) {
#if MUTANT(23) /* m23: values requantized with halves away from zero (roundf), not nearest_int's ties to even */
      const int l = (int)roundf((x[32 * j + i] + dm) / d);
#else
      const int l = nearest_int((x[32 * j + i] + dm) / d);
#endif
      L[32 * j + i] = (uint8_t)(l < 0 ? 0 : l > 15 ? 15 : l);
    }
  }
#endif
  for (int c = 0; c < 4; ++c)
    for (int l = 0; l < 32; ++l) out[16 + 32 * c + l] = (uint8_t)(L[64 * c + l] | (L[64 * c + 32 + l] << 4));
}

/* ---- the C functions ---------------------------------------------------------- */

enum fmt { Q8_0, Q4_0, Q4_K };
static const int64_t kValues[] = {32, 32, 256}, kBytes[] = {34, 18, 144};

static int bad_sizes(int64_t a, int64_t b) { return a < 0 || b < 0 || (double)a * (double)b > (double)(INT64_MAX / 4); }

static void decode(enum fmt f, const uint8_t* block, float* y) {
  if (f == Q8_0) dequantize_q8_0_block(block, y);
  else if (f == Q4_0) q4_0_values(block, y);
  else q4_k_values(block, y);
}

static tl_status quantize(enum fmt f, const float* x, void* blocks, int64_t rows, int64_t k) {
  if (bad_sizes(rows, k)) return TL_ERR_INVALID_ARGUMENT;
#if MUTANT(20) /* m20: k not a whole number of blocks quantized up to its last whole block, not refused */
  k -= k % kValues[f];
#endif
  if (k % kValues[f] != 0) return TL_ERR_SHAPE;
  const int64_t n = rows * k, nb = n / kValues[f];
#if !MUTANT(19) /* m19: NaN and Inf quantized instead of refused */
  for (int64_t i = 0; i < n; ++i)
    if (!isfinite(x[i])) return TL_ERR_INVALID_ARGUMENT;
#endif
  uint8_t* out = malloc((size_t)(nb * kBytes[f] + 1));
  if (out == NULL) return TL_ERR_UNSUPPORTED;
  for (int64_t b = 0; b < nb; ++b) {
    uint8_t* block = out + b * kBytes[f];
    if (f == Q8_0) quantize_q8_0_block(x + 32 * b, block);
    else if (f == Q4_0) quantize_q4_0_block(x + 32 * b, block);
    else quantize_q4_k_block(x + 256 * b, block);
    const int bad_d = (block[1] & 0x7c) == 0x7c, bad_dmin = f == Q4_K && (block[3] & 0x7c) == 0x7c;
#if !MUTANT(19)
    if (bad_d || bad_dmin) {
      free(out);
      return TL_ERR_INVALID_ARGUMENT;
    }
#else
    (void)bad_d;
    (void)bad_dmin;
#endif
  }
  memcpy(blocks, out, (size_t)(nb * kBytes[f]));
  free(out);
  return TL_OK;
}

static tl_status dequantize(enum fmt f, const void* blocks, float* y, int64_t rows, int64_t k) {
  if (bad_sizes(rows, k)) return TL_ERR_INVALID_ARGUMENT;
  if (k % kValues[f] != 0) return TL_ERR_SHAPE;
  const uint8_t* in = blocks;
  for (int64_t b = 0; b < rows * k / kValues[f]; ++b) decode(f, in + b * kBytes[f], y + b * kValues[f]);
  return TL_OK;
}

/* y[m, n] = sum over the blocks of row n of x . decoded block, in double. */
static tl_status qmatmul(enum fmt f, const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  if (M < 0 || N < 0 || K < 0 || bad_sizes(M, N) || bad_sizes(M, K) || bad_sizes(N, K)) return TL_ERR_INVALID_ARGUMENT;
  if (K % kValues[f] != 0) return TL_ERR_SHAPE;
  const uint8_t* wb = w;
  const int64_t nb = K / kValues[f];
  float v[256];
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0.0;
#if MUTANT(18) /* m18: blocks taken in pairs (as SIMD kernels do), an odd last one dropped */
      const int64_t used = f == Q8_0 ? nb - nb % 2 : nb;
#else
      const int64_t used = nb;
#endif
      for (int64_t b = 0; b < used; ++b) {
        const uint8_t* block = wb + (n * nb + b) * kBytes[f];
#if MUTANT(13) /* m13: Q8_0 rows use the scale of their first block throughout */
        if (f == Q8_0) {
          uint8_t copy[34];
          memcpy(copy, block, 34);
          memcpy(copy, wb + n * nb * kBytes[f], 2);
          decode(f, copy, v);
        } else {
          decode(f, block, v);
        }
#elif MUTANT(14)               /* m14: QMatmul's Q4_0 decode forgets the offset 8 */
        if (f == Q4_0) {
          const float d = from_f16(load16(block));
          for (int j = 0; j < 16; ++j)
            v[j] = (float)(block[2 + j] & 15) * d, v[j + 16] = (float)(block[2 + j] >> 4) * d;
        } else {
          decode(f, block, v);
        }
#elif MUTANT(15) || MUTANT(16) /* m15: QMatmul's Q4_K min added; m16: d and dmin swapped */
        if (f == Q4_K) {
          uint8_t copy[144];
          memcpy(copy, block, 144);
          if (MUTANT(16)) memcpy(copy, block + 2, 2), memcpy(copy + 2, block, 2);
          decode(f, copy, v);
          if (MUTANT(15))
            for (int j = 0; j < 8; ++j) {
              int sc, mm;
              q4_k_scale_min(j, copy + 4, &sc, &mm);
              const float min = from_f16(load16(copy + 2)) * (float)mm;
              for (int l = 0; l < 32; ++l) v[32 * j + l] += 2 * min;
            }
        } else {
          decode(f, block, v);
        }
#elif MUTANT(22)               /* m22: QMatmul's Q4_0 decode with the nibbles swapped */
        if (f == Q4_0) {
          const float d = from_f16(load16(block));
          for (int j = 0; j < 16; ++j)
            v[j] = (float)((block[2 + j] >> 4) - 8) * d, v[j + 16] = (float)((block[2 + j] & 15) - 8) * d;
        } else {
          decode(f, block, v);
        }
#else
        decode(f, block, v);
#endif
        for (int64_t j = 0; j < kValues[f]; ++j) acc += (double)x[m * K + b * kValues[f] + j] * v[j];
      }
      y[m * N + n] = (float)acc;
    }
  return TL_OK;
}

/* ---- q8x: x quantized too ---------------------------------------------------- */

/* x's block of 32 as ggml's quantize_row_q8_0: d = max|x| / 127 rounded to f16,
 * q = roundf(x * (1 / d)) with the f32 d; returns the f16 scale as a float.
 * KONFORM_Q8X_ALT (alternatives/alt_quant_q8x.c): q = roundf(x / d). */
static float quantize_x_q8_0(const float* x, int8_t* q) {
  float amax = 0.0f;
  for (int j = 0; j < 32; ++j)
    if (fabsf(x[j]) > amax) amax = fabsf(x[j]);
#if MUTANT(28) /* m28: the scale for 128 levels, max|x| / 128: the extreme's 128 wraps to -128 in int8 */
  const float d = amax / 128.0f;
#else
  const float d = amax / 127.0f;
#endif
  const float id = inverse(d);
  for (int j = 0; j < 32; ++j) {
#if MUTANT(26) /* m26: x's quants truncated toward zero, not rounded */
    q[j] = (int8_t)truncf(x[j] * id);
#elif defined(KONFORM_Q8X_ALT)
    q[j] = (int8_t)(d != 0.0f && id != 0.0f ? roundf(x[j] / d) : 0.0f);
#else
    q[j] = (int8_t)(int)roundf(x[j] * id);
#endif
  }
#if MUTANT(27) /* m27: x's scale kept in f32, never rounded to f16 (more accurate, not ggml's) */
  return d;
#else
  return from_f16(to_f16(d));
#endif
}

/* x's block of 256 as ggml's quantize_row_q8_K: iscale = -127 / x_max,
 * q = min(127, nearest_int(iscale x)), d = 1 / iscale (f32), bsums of 16;
 * zeros, or an iscale that overflows, give d = 0 and zero quants. */
static float quantize_x_q8_k(const float* x, int8_t* q, int* bsums) {
  float amax = 0.0f, max = 0.0f;
  for (int j = 0; j < 256; ++j)
    if (fabsf(x[j]) > amax) amax = fabsf(x[j]), max = x[j];
  const float iscale = amax != 0.0f ? finite_or_zero(-127.0f / max) : 0.0f;
  for (int j = 0; j < 256; ++j) {
#if defined(KONFORM_Q8X_ALT)
    const int v = iscale != 0.0f ? (int)roundf(x[j] / (1.0f / iscale)) : 0;
#else
    const int v = iscale != 0.0f ? nearest_int(iscale * x[j]) : 0;
#endif
    q[j] = (int8_t)(v < 127 ? v : 127);
  }
  for (int g = 0; g < 16; ++g) {
    bsums[g] = 0;
    for (int i = 0; i < 16; ++i) bsums[g] += q[16 * g + i];
  }
  return iscale != 0.0f ? 1.0f / iscale : 0.0f;
}

/* sum of w[j] x[j] over 32 int8 values. m30 models a kernel that sums pairs
 * of products in int16 with saturation (maddubs) and then adds two pairs in
 * int16 with saturation again before widening. */
static int32_t dot_i8(const int8_t* w, const int8_t* x) {
  int32_t s = 0;
  for (int j = 0; j < 32; j += 4) {
#if MUTANT(30) /* m30: four products summed in saturating int16 (maddubs, then adds), not widened first */
    int32_t p0 = w[j] * x[j] + w[j + 1] * x[j + 1], p1 = w[j + 2] * x[j + 2] + w[j + 3] * x[j + 3];
    p0 = p0 > 32767 ? 32767 : p0 < -32768 ? -32768 : p0;
    p1 = p1 > 32767 ? 32767 : p1 < -32768 ? -32768 : p1;
    int32_t p = p0 + p1;
    s += p > 32767 ? 32767 : p < -32768 ? -32768 : p;
#else
    s += w[j] * x[j] + w[j + 1] * x[j + 1] + w[j + 2] * x[j + 2] + w[j + 3] * x[j + 3];
#endif
  }
  return s;
}

/* One output of the q8x matmul of row xq (its quants), w's row n: the
 * blocks' terms (dw dx) isum (Q4_K: minus (dmin dx) isum_min) added in
 * float, from the first block (KONFORM_Q8X_ALT: from the last). */
static float q8x_row(enum fmt f, const int8_t* xq, const float* dx, const int* bsums, const uint8_t* wrow, int64_t nb) {
  float acc = 0.0f;
  for (int64_t i = 0; i < nb; ++i) {
#if defined(KONFORM_Q8X_ALT)
    const int64_t b = nb - 1 - i;
#else
    const int64_t b = i;
#endif
    const uint8_t* block = wrow + b * kBytes[f];
    const float dw = from_f16(load16(block));
    int8_t wq[32];
    if (f == Q8_0) {
      memcpy(wq, block + 2, 32);
      acc += (dw * dx[b]) * (float)dot_i8(wq, xq + 32 * b);
    } else if (f == Q4_0) {
      for (int j = 0; j < 16; ++j)
        wq[j] = (int8_t)((block[2 + j] & 15) - 8), wq[j + 16] = (int8_t)((block[2 + j] >> 4) - 8);
      acc += (dw * dx[b]) * (float)dot_i8(wq, xq + 32 * b);
    } else {
      int32_t isum = 0, isum_min = 0;
      for (int j = 0; j < 8; ++j) {
        int sc, mm;
        q4_k_scale_min(j, block + 4, &sc, &mm);
        for (int l = 0; l < 32; ++l) wq[l] = (int8_t)((block[16 + 32 * (j / 2) + l] >> (4 * (j % 2))) & 15);
        isum += sc * dot_i8(wq, xq + 256 * b + 32 * j);
#if MUTANT(29) /* m29: the mins take the bsums of sub-block j's first half twice, not both halves */
        isum_min += mm * 2 * bsums[16 * b + 2 * j];
#else
        isum_min += mm * (bsums[16 * b + 2 * j] + bsums[16 * b + 2 * j + 1]);
#endif
      }
      const float dmin = from_f16(load16(block + 2));
      acc += (dw * dx[b]) * (float)isum - (dmin * dx[b]) * (float)isum_min;
    }
  }
  return acc;
}

static tl_status qmatmul_q8x(enum fmt f, const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  if (M < 0 || N < 0 || K < 0 || bad_sizes(M, N) || bad_sizes(M, K) || bad_sizes(N, K)) return TL_ERR_INVALID_ARGUMENT;
  if (K % kValues[f] != 0) return TL_ERR_SHAPE;
  for (int64_t i = 0; i < M * K; ++i)
    if (!isfinite(x[i])) return TL_ERR_INVALID_ARGUMENT;
  const int64_t qx = f == Q4_K ? 256 : 32, nb = K / kValues[f];
  if (f != Q4_K)
    for (int64_t b = 0; b < M * K / 32; ++b) {
      float amax = 0.0f;
      for (int j = 0; j < 32; ++j)
        if (fabsf(x[32 * b + j]) > amax) amax = fabsf(x[32 * b + j]);
      if (!(amax / 127.0f < 65520.0f)) return TL_ERR_INVALID_ARGUMENT;
    }
  int8_t* xq = malloc((size_t)(K + 1));
  float* dx = malloc((size_t)(K / qx + 1) * sizeof(float));
  int* bsums = malloc((size_t)(K / 16 + 1) * sizeof(int));
  if (xq == NULL || dx == NULL || bsums == NULL) {
    free(xq), free(dx), free(bsums);
    return TL_ERR_UNSUPPORTED;
  }
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t b = 0; b < K / qx; ++b)
      dx[b] = f == Q4_K ? quantize_x_q8_k(x + m * K + 256 * b, xq + 256 * b, bsums + 16 * b)
                        : quantize_x_q8_0(x + m * K + 32 * b, xq + 32 * b);
    for (int64_t n = 0; n < N; ++n)
      y[m * N + n] = q8x_row(f, xq, dx, bsums, (const uint8_t*)w + n * nb * kBytes[f], nb);
  }
  free(xq), free(dx), free(bsums);
  return TL_OK;
}

tl_status tl_quantize_q8_0_f32(const float* x, void* blocks, int64_t rows, int64_t k) {
  return quantize(Q8_0, x, blocks, rows, k);
}
tl_status tl_quantize_q4_0_f32(const float* x, void* blocks, int64_t rows, int64_t k) {
  return quantize(Q4_0, x, blocks, rows, k);
}
tl_status tl_quantize_q4_k_f32(const float* x, void* blocks, int64_t rows, int64_t k) {
  return quantize(Q4_K, x, blocks, rows, k);
}
tl_status tl_dequantize_q8_0_f32(const void* blocks, float* y, int64_t rows, int64_t k) {
#if MUTANT(21) /* m21: Dequantize_Q8_0 reads the f16 scale big-endian */
  if (bad_sizes(rows, k)) return TL_ERR_INVALID_ARGUMENT;
  if (k % 32 != 0) return TL_ERR_SHAPE;
  const uint8_t* in = blocks;
  for (int64_t b = 0; b < rows * k / 32; ++b) {
    uint8_t copy[34];
    memcpy(copy, in + 34 * b, 34);
    copy[0] = in[34 * b + 1], copy[1] = in[34 * b];
    dequantize_q8_0_block(copy, y + 32 * b);
  }
  return TL_OK;
#else
  return dequantize(Q8_0, blocks, y, rows, k);
#endif
}
tl_status tl_dequantize_q4_0_f32(const void* blocks, float* y, int64_t rows, int64_t k) {
  return dequantize(Q4_0, blocks, y, rows, k);
}
tl_status tl_dequantize_q4_k_f32(const void* blocks, float* y, int64_t rows, int64_t k) {
  return dequantize(Q4_K, blocks, y, rows, k);
}
tl_status tl_qmatmul_q8_0_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return qmatmul(Q8_0, x, w, y, M, N, K);
}
tl_status tl_qmatmul_q4_0_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return qmatmul(Q4_0, x, w, y, M, N, K);
}
tl_status tl_qmatmul_q4_k_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return qmatmul(Q4_K, x, w, y, M, N, K);
}
tl_status tl_qmatmul_q8_0_q8x_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return qmatmul_q8x(Q8_0, x, w, y, M, N, K);
}
tl_status tl_qmatmul_q4_0_q8x_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return qmatmul_q8x(Q4_0, x, w, y, M, N, K);
}
tl_status tl_qmatmul_q4_k_q8x_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return qmatmul_q8x(Q4_K, x, w, y, M, N, K);
}
