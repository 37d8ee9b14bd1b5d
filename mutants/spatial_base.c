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
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "tinyllm/spatial.h"

#ifndef KONFORM_MUTANT
#define KONFORM_MUTANT 0
#endif
#if KONFORM_MUTANT < 0 || KONFORM_MUTANT > 12
#error "KONFORM_MUTANT must be 0 (the correct base) or 1..12 (mutant spatial_m01..spatial_m12)"
#endif
#define MUTANT(n) (KONFORM_MUTANT == (n))

/* ---- status ------------------------------------------------------------- */

static _Thread_local char last_error[512];

const char *tl_last_error(void) { return last_error; }

static tl_status fail(tl_status status, const char *fmt, ...) {
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
  if (k == EMBED && (!bytes_fit3(D, C, ff) || !bytes_fit3(B, (H / f) * (W / f), D)))
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

tl_status tl_pixel_shuffle_f32(const float *x, float *y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r) {
  tl_status s = check(SHUFFLE, B, C, H, W, r, 0);
  if (s) return s;
  const int64_t Co = C / (r * r), Ho = H * r, Wo = W * r;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t c = 0; c < Co; ++c)
      for (int64_t oh = 0; oh < Ho; ++oh) {
        float *row = y + ((b * Co + c) * Ho + oh) * Wo;
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

tl_status tl_pixel_unshuffle_f32(const float *x, float *y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r) {
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
        for (int64_t w = 0; w < Wo; ++w) y[((b * Co + co) * Ho + h) * Wo + w] = x[((b * C + c) * H + h * r + i) * W + w * r + j];
    }
  return TL_OK;
}

/* ---- Unpatchify ------------------------------------------------------------ */

tl_status tl_unpatchify_f32(const float *x, float *y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t p) {
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

tl_status tl_patch_embed_f32(const float *x, const float *w, const float *bias, float *y, int64_t B, int64_t C,
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
        float *tok = y + (b * gh * gw + wp * gh + hp) * D;
#else
        float *tok = y + (b * gh * gw + hp * gw + wp) * D;
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
