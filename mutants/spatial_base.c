/* spatial_base.c: the ops of tinyllm/spatial.h in plain C11, and their
 * mutants.
 *
 * Compiled as is (KONFORM_MUTANT undefined or 0) this is a correct plugin
 * (konform_spatial_base): a third reading of the header, apart from the
 * oracle and libtl_kernels, walking the output instead of the input and
 * summing PatchEmbed's convolution directly in double. With
 * -DKONFORM_MUTANT=N it is mutant spatial_mNN: one classic mistake switched
 * on, everything else identical. mutants/manifest.tsv names the check that
 * must catch each.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "tinyllm/spatial.h"

#ifndef KONFORM_MUTANT
#define KONFORM_MUTANT 0
#endif
#if KONFORM_MUTANT < 0 || KONFORM_MUTANT > 17
#error "KONFORM_MUTANT must be 0 (the correct base) or 1..17 (mutant spatial_m01..spatial_m17)"
#endif
#define MUTANT(n) (KONFORM_MUTANT == (n))

/* ---- status ------------------------------------------------------------- */

static _Thread_local char last_error[512];

const char* tl_last_error(void) { return last_error; }

static tl_status fail(tl_status status, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, args);
  va_end(args);
  return status;
}

/* 4 * a * b * c fits an int64_t (c = 1 for two factors). */
static int bytes_fit3(int64_t a, int64_t b, int64_t c) {
  int64_t n = 4;
  return !__builtin_mul_overflow(n, a, &n) && !__builtin_mul_overflow(n, b, &n) && !__builtin_mul_overflow(n, c, &n);
}

enum kind { SHUFFLE, UNSHUFFLE, EMBED, UNPATCHIFY };

/* The header's checks in its order. */
static tl_status check(enum kind k, int64_t B, int64_t C, int64_t H, int64_t W, int64_t f, int64_t D) {
  int64_t ff, t;
  if (B < 0 || C < 0 || H < 0 || W < 0 || D < 0) return fail(TL_ERR_INVALID_ARGUMENT, "a size is negative");
  if (f < 1) return fail(TL_ERR_INVALID_ARGUMENT, "factor %lld is below 1", (long long)f);
  if (__builtin_mul_overflow(f, f, &ff)) return fail(TL_ERR_INVALID_ARGUMENT, "factor squared overflows");
  if (!bytes_fit3(B, C, 1) || !bytes_fit3(B * C, H, W)) return fail(TL_ERR_INVALID_ARGUMENT, "image bytes overflow");
  if (k == SHUFFLE) {
    if (__builtin_mul_overflow(H, f, &t) || __builtin_mul_overflow(W, f, &t))
      return fail(TL_ERR_INVALID_ARGUMENT, "H r or W r overflows");
    return C % ff ? fail(TL_ERR_SHAPE, "C = %lld is not a multiple of r^2", (long long)C) : TL_OK;
  }
  if (k == UNSHUFFLE && !bytes_fit3(C, ff, 1)) return fail(TL_ERR_INVALID_ARGUMENT, "C r^2 overflows");
  if (k == EMBED && (!bytes_fit3(C, ff, D) || !bytes_fit3(B, H / f, W / f) || !bytes_fit3(B * (H / f), W / f, D)))
    return fail(TL_ERR_INVALID_ARGUMENT, "w or y bytes overflow");
  if (k == UNPATCHIFY && !bytes_fit3(ff, C, 1)) return fail(TL_ERR_INVALID_ARGUMENT, "p^2 C overflows");
#if !MUTANT(4) /* m04: PixelUnshuffle does not check that r divides H and W */
  if (H % f || W % f) return fail(TL_ERR_SHAPE, "H and W must be multiples of %lld", (long long)f);
#else
  if (k != UNSHUFFLE && (H % f || W % f)) return fail(TL_ERR_SHAPE, "H and W must be multiples of %lld", (long long)f);
#endif
  return TL_OK;
}

/* ---- the shuffles --------------------------------------------------------- */

tl_status tl_pixel_shuffle_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r) {
  tl_status s = check(SHUFFLE, B, C, H, W, r, 0);
  if (s) return s;
  const int64_t Co = C / (r * r), Ho = H * r, Wo = W * r;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t c = 0; c < Co; ++c)
      for (int64_t oh = 0; oh < Ho; ++oh) {
        float* row = y + ((b * Co + c) * Ho + oh) * Wo;
        const int64_t i = oh % r, h = oh / r;
#if MUTANT(10) /* m10: rows written in vectors of 8; the last Wo % 8 outputs of each row are not written */
        const int64_t end = Wo / 8 * 8;
#else
        const int64_t end = Wo;
#endif
        for (int64_t ow = 0; ow < end; ++ow) {
#if MUTANT(2) /* m02: the sub-pixel column placed as blocks of W (ow = j W + w) instead of interleaved */
          const int64_t j = ow / W, w = ow % W;
#else
          const int64_t j = ow % r, w = ow / r;
#endif
#if MUTANT(1) /* m01: input channel (i r + j) C' + c instead of c r^2 + i r + j */
          const int64_t ci = (i * r + j) * Co + c;
#else
          const int64_t ci = c * r * r + i * r + j;
#endif
          row[ow] = x[((b * C + ci) * H + h) * W + w];
        }
      }
  return TL_OK;
}

tl_status tl_pixel_unshuffle_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r) {
  tl_status s = check(UNSHUFFLE, B, C, H, W, r, 0);
  if (s) return s;
  const int64_t Co = C * r * r, Ho = H / r, Wo = W / r;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t co = 0; co < Co; ++co) {
      const int64_t c = co / (r * r), k = co % (r * r);
#if MUTANT(3) /* m03: the sub-pixel's row and column swapped: channel c r^2 + j r + i */
      const int64_t i = k % r, j = k / r;
#else
      const int64_t i = k / r, j = k % r;
#endif
      for (int64_t h = 0; h < Ho; ++h)
        for (int64_t w = 0; w < Wo; ++w)
          y[((b * Co + co) * Ho + h) * Wo + w] = x[((b * C + c) * H + h * r + i) * W + w * r + j];
    }
  return TL_OK;
}

/* ---- Unpatchify ------------------------------------------------------------ */

tl_status tl_unpatchify_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t p) {
  tl_status s = check(UNPATCHIFY, B, C, H, W, p, 0);
  if (s) return s;
  const int64_t gh = H / p, gw = W / p, F = p * p * C;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w) {
          const int64_t i = h % p, j = w % p;
#if MUTANT(6) /* m06: tokens read in column-major patch order (n = wp (H/p) + hp) */
          const int64_t n = (w / p) * gh + h / p;
#else
          const int64_t n = (h / p) * gw + w / p;
#endif
#if MUTANT(5) /* m05: features read channel-first, (c p + i) p + j, instead of DiT's (i p + j) C + c */
          const int64_t f = (c * p + i) * p + j;
#else
          const int64_t f = (i * p + j) * C + c;
#endif
          y[((b * C + c) * H + h) * W + w] = x[(b * gh * gw + n) * F + f];
        }
  return TL_OK;
}

/* ---- PatchEmbed ------------------------------------------------------------ */

tl_status tl_patch_embed_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C,
                             int64_t H, int64_t W, int64_t D, int64_t p) {
  tl_status s = check(EMBED, B, C, H, W, p, D);
  if (s) return s;
  const int64_t gh = H / p, gw = W / p;
#if MUTANT(8)
  (void)bias;
#endif
#if MUTANT(9) /* m09: D written in vectors of 8; the last D % 8 features of each token are not written */
  const int64_t d_end = D / 8 * 8;
#else
  const int64_t d_end = D;
#endif
  for (int64_t b = 0; b < B; ++b)
    for (int64_t hp = 0; hp < gh; ++hp)
      for (int64_t wp = 0; wp < gw; ++wp) {
#if MUTANT(7) /* m07: patches emitted in column-major order (token wp (H/p) + hp) */
        float* tok = y + (b * gh * gw + wp * gh + hp) * D;
#else
        float* tok = y + (b * gh * gw + hp * gw + wp) * D;
#endif
        for (int64_t d = 0; d < d_end; ++d) {
          double acc = 0;
#if !MUTANT(8) /* m08: the bias is skipped */
          if (bias) acc = bias[d];
#endif
          for (int64_t c = 0; c < C; ++c)
            for (int64_t i = 0; i < p; ++i)
              for (int64_t j = 0; j < p; ++j) {
#if MUTANT(11) /* m11: the weight read channels-last, [D, p, p, C], not Conv2d's [D, C, p, p] */
                const double wt = w[((d * p + i) * p + j) * C + c];
#else
                const double wt = w[((d * C + c) * p + i) * p + j];
#endif
                acc += (double)x[((b * C + c) * H + hp * p + i) * W + wp * p + j] * wt;
              }
#if MUTANT(12) /* m12: the bias added twice (once before the sum, once after) */
          if (bias) acc += bias[d];
#endif
          tok[d] = (float)acc;
        }
      }
  return TL_OK;
}

/* ---- Interpolate ----------------------------------------------------------- */

/* Bilinear taps of output index d along an axis of `in` -> `out`, in float
 * as PyTorch computes them. */
static void taps(int64_t d, int64_t in, int64_t out, int align_corners, int64_t* i0, int64_t* i1, float* l0,
                 float* l1) {
  float src;
#if MUTANT(14) /* m14: align_corners read the wrong way round */
  align_corners = !align_corners;
#endif
  if (align_corners) {
    src = (float)d * (out > 1 ? (float)(in - 1) / (float)(out - 1) : 0.0f);
  } else {
    src = ((float)d + 0.5f) * ((float)in / (float)out) - 0.5f;
    if (src < 0) src = 0;
  }
  *i0 = (int64_t)src;
  if (*i0 > in - 1) *i0 = in - 1;
#if MUTANT(16) /* m16: the right/bottom tap not clamped at the edge: i1 = i0 + 1 always */
  *i1 = *i0 + 1;
#else
  *i1 = *i0 + 1 < in ? *i0 + 1 : in - 1;
#endif
  *l1 = src - (float)*i0;
  *l0 = 1.0f - *l1;
}

static int64_t nearest_src(int64_t d, int64_t in, int64_t out) {
#if MUTANT(13) /* m13: nearest rounds d in / out instead of flooring it */
  int64_t s = (int64_t)llround((double)d * (double)in / (double)out);
  return s < in ? s : in - 1;
#else
  return d * in / out;
#endif
}

tl_status tl_interpolate_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t Ho,
                             int64_t Wo, int32_t mode, int32_t align_corners) {
  if (B < 0 || C < 0) return fail(TL_ERR_INVALID_ARGUMENT, "B or C is negative");
  if (H < 1 || W < 1 || Ho < 1 || Wo < 1 || H > INT32_MAX || W > INT32_MAX || Ho > INT32_MAX || Wo > INT32_MAX)
    return fail(TL_ERR_INVALID_ARGUMENT, "a spatial size is outside 1 .. 2^31 - 1");
  if (mode < TL_INTERP_NEAREST || mode > TL_INTERP_AREA) return fail(TL_ERR_INVALID_ARGUMENT, "unknown mode %d", mode);
  if (align_corners != 0 && (align_corners != 1 || mode != TL_INTERP_BILINEAR))
    return fail(TL_ERR_INVALID_ARGUMENT, "align_corners = %d is not allowed here", align_corners);
  if (!bytes_fit3(B, C, 1) || !bytes_fit3(B * C, H, W) || !bytes_fit3(B * C, Ho, Wo))
    return fail(TL_ERR_INVALID_ARGUMENT, "bytes overflow");
  for (int64_t pl = 0; pl < B * C; ++pl) {
    const float* xp = x + pl * H * W;
    for (int64_t oy = 0; oy < Ho; ++oy) {
      float* row = y + (pl * Ho + oy) * Wo;
#if MUTANT(17) /* m17: nearest rows written in vectors of 8; the last Wo % 8 outputs are not written */
      const int64_t end = mode == TL_INTERP_NEAREST ? Wo / 8 * 8 : Wo;
#else
      const int64_t end = Wo;
#endif
      for (int64_t ox = 0; ox < end; ++ox) {
        if (mode == TL_INTERP_NEAREST) {
          row[ox] = xp[nearest_src(oy, H, Ho) * W + nearest_src(ox, W, Wo)];
        } else if (mode == TL_INTERP_BILINEAR) {
          int64_t y0, y1, x0, x1;
          float ly0, ly1, lx0, lx1;
          taps(oy, H, Ho, align_corners, &y0, &y1, &ly0, &ly1);
          taps(ox, W, Wo, align_corners, &x0, &x1, &lx0, &lx1);
          /* the other grouping of the same four products: columns first */
          const float left = ly0 * xp[y0 * W + x0] + ly1 * xp[y1 * W + x0];
          const float right = ly0 * xp[y0 * W + x1] + ly1 * xp[y1 * W + x1];
          row[ox] = lx0 * left + lx1 * right;
        } else {
          const int64_t r0 = oy * H / Ho, r1 = ((oy + 1) * H + Ho - 1) / Ho;
          const int64_t c0 = ox * W / Wo, c1 = ((ox + 1) * W + Wo - 1) / Wo;
          double sum = 0;
          for (int64_t i = r0; i < r1; ++i)
            for (int64_t j = c0; j < c1; ++j) sum += xp[i * W + j];
#if MUTANT(15) /* m15: divided by the nominal ratio (H / Ho) (W / Wo), not the window's own count */
          row[ox] = (float)(sum / ((double)H / (double)Ho * (double)W / (double)Wo));
#else
          row[ox] = (float)(sum / (double)((r1 - r0) * (c1 - c0)));
#endif
        }
      }
    }
  }
  return TL_OK;
}
