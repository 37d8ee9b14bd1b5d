/* conv_base.c: tinyllm/conv.h in plain C11 (Conv1d/2d/3d, DepthwiseConv,
 * ConvTranspose2d, CausalConv1d, Pool), and its mutants.
 *
 * Compiled as is (KONFORM_MUTANT undefined or 0) this is the correct plugin
 * konform_conv_base: every output accumulated in double over the spec's
 * loops and rounded once. With -DKONFORM_MUTANT=N it is mutant conv_mNN: one
 * classic convolution mistake switched on, everything else identical.
 * mutants/manifest.tsv names the check that must catch each.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "tinyllm/conv.h"

#ifndef KONFORM_MUTANT
#define KONFORM_MUTANT 0
#endif
#if KONFORM_MUTANT < 0 || KONFORM_MUTANT > 19
#error "KONFORM_MUTANT must be 0 (the correct base) or 1..19 (conv_m01..m19)"
#endif
#define MUTANT(n) (KONFORM_MUTANT == (n))
/* KONFORM_SKIP_PADS 1: the correct alternative alt_conv_skip_pads, whose
 * zero-padded taps contribute nothing instead of 0 * w (they differ where w
 * is Inf or NaN: 0 * Inf is NaN). The spec leaves the choice open. */
#ifndef KONFORM_SKIP_PADS
#define KONFORM_SKIP_PADS 0
#endif

static _Thread_local char last_error[256];

const char* tl_last_error(void) { return last_error; }

static tl_status fail(tl_status s, const char* what) {
  snprintf(last_error, sizeof last_error, "%s", what);
  return s;
}

enum edge { ZERO, REPLICATE_LEFT, TRANSPOSE };

/* The geometry of one call: up to 3 spatial dimensions, outermost first. */
struct shape {
  int nd;
  int64_t B, C_in, C_out, groups;
  int64_t in[3], k[3], s[3], p[3], d[3], out[3];
  enum edge edge;
  int in_major;            /* W [C_in, C_out/groups, k...] (ConvTranspose2d) */
  int pool_default_stride; /* Pool called with stride NULL */
};

static int64_t prod(const int64_t* v, int nd) {
  int64_t p = 1;
  for (int a = 0; a < nd; ++a) p *= v[a];
  return p;
}

/* ---- argument checks (the header's rules, in the order the header lists) -- */

static int bad_size(int64_t v, int64_t lo) { return v < lo || v > TL_CONV_MAX_SIZE; }

static tl_status check_common(struct shape* s, const int64_t* in, const int64_t* k, const int64_t* st, const int64_t* p,
                              const int64_t* d) {
  if (bad_size(s->B, 0) || bad_size(s->C_in, 1) || bad_size(s->C_out, 1) || bad_size(s->groups, 1))
    return fail(TL_ERR_INVALID_ARGUMENT, "bad batch, channel or group count");
  for (int a = 0; a < s->nd; ++a) {
#if MUTANT(18) /* conv_m18: a negative padding accepted (PyTorch refuses it; so does the header) */
    const int pad_bad = 0;
#else
    const int pad_bad = p && bad_size(p[a], 0);
#endif
    if (bad_size(in[a], 1) || bad_size(k[a], 1) || (st && bad_size(st[a], 1)) || pad_bad || (d && bad_size(d[a], 1)))
      return fail(TL_ERR_INVALID_ARGUMENT, "bad extent, kernel, stride, padding or dilation");
    s->in[a] = in[a], s->k[a] = k[a];
    s->s[a] = st ? st[a] : k[a];
    s->p[a] = p ? p[a] : 0;
    s->d[a] = d ? d[a] : 1;
  }
  return TL_OK;
}

static tl_status check_fit(const struct shape* s, int64_t w_elems) {
  if (s->C_in % s->groups != 0 || s->C_out % s->groups != 0)
    return fail(TL_ERR_SHAPE, "C_in and C_out must be multiples of groups");
  for (int a = 0; a < s->nd; ++a)
    if (s->out[a] < 1) return fail(TL_ERR_SHAPE, "output extent < 1");
  double x = (double)s->B * s->C_in * 4, y = (double)s->B * s->C_out * 4, w = (double)w_elems * 4;
  for (int a = 0; a < s->nd; ++a) x *= s->in[a], y *= s->out[a], w *= s->k[a];
  if (x > (double)INT64_MAX || y > (double)INT64_MAX || w > (double)INT64_MAX)
    return fail(TL_ERR_INVALID_ARGUMENT, "tensor too large");
  return TL_OK;
}

static int64_t out_extent(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  return span < 0 ? 0 : span / s + 1;
}

/* ---- the spec's loops ------------------------------------------------------ */

/* The input index of dimension a that output index o reads at tap t, or -1. */
static int64_t source(const struct shape* s, int a, int64_t o, int64_t t) {
  int64_t d = s->d[a];
  int64_t step = s->s[a];
#if MUTANT(17) /* conv_m17: Pool's default stride (stride NULL) taken from the other axis's kernel */
  if (s->pool_default_stride) step = s->k[1 - a];
#endif
#if MUTANT(2) /* conv_m02: dilation ignored (taps adjacent) */
  if (s->edge == ZERO) d = 1;
#endif
#if MUTANT(9) /* conv_m09: a depthwise kernel (groups = C_in = C_out, 2-d) ignores the dilation in its taps */
  if (s->edge == ZERO && s->nd == 2 && s->groups == s->C_in && s->C_in == s->C_out) d = 1;
#endif
  if (s->edge == TRANSPOSE) {
#if MUTANT(10) /* conv_m10: ConvTranspose2d flips the kernel (a Conv2d habit) */
    t = s->k[a] - 1 - t;
#endif
#if MUTANT(11) /* conv_m11: output_padding added at the start (the output shifted by it) */
    const int64_t full = (s->in[a] - 1) * s->s[a] - 2 * s->p[a] + d * (s->k[a] - 1) + 1;
    o -= s->out[a] - full;
    if (o < 0) return -1;
#endif
    const int64_t num = o + s->p[a] - t * d;
    if (num < 0 || num % s->s[a] != 0 || num / s->s[a] >= s->in[a]) return -1;
    return num / s->s[a];
  }
  int64_t pad = s->p[a];
#if MUTANT(1) /* conv_m01: padding applied on the far side only (never subtracted) */
  if (s->edge == ZERO) pad = 0;
#endif
#if MUTANT(6) /* conv_m06: Conv3d's depth padding ignored */
  if (s->nd == 3 && a == 0) pad = 0;
#endif
#if MUTANT(14) /* conv_m14: CausalConv1d pads half on each side (centred, reads the future) */
  if (s->edge == REPLICATE_LEFT) pad /= 2;
#endif
#if MUTANT(5) /* conv_m05: the stride applied to the kernel index too */
  int64_t i = (o + t * d) * step - pad;
#else
  int64_t i = o * step + t * d - pad;
#endif
  if (s->edge == REPLICATE_LEFT && i < 0) {
#if MUTANT(13) /* conv_m13: CausalConv1d zero-pads where the spec replicates */
    return -1;
#else
    i = 0;
#endif
  }
  return i >= 0 && i < s->in[a] ? i : -1;
}

/* The flat spatial input index of output o at tap kk, or -1 (a pad). */
static int64_t flat_source(const struct shape* s, int64_t o, int64_t kk) {
  int64_t oi[3], ki[3], flat = 0;
  for (int a = s->nd - 1; a >= 0; --a) oi[a] = o % s->out[a], o /= s->out[a], ki[a] = kk % s->k[a], kk /= s->k[a];
  for (int a = 0; a < s->nd; ++a) {
    const int64_t i = source(s, a, oi[a], ki[a]);
    if (i < 0) return -1;
    flat = flat * s->in[a] + i;
  }
  return flat;
}

static void conv(const float* x, const float* w, const float* bias, float* y, const struct shape* s) {
  const int64_t KS = prod(s->k, s->nd), OS = prod(s->out, s->nd), IS = prod(s->in, s->nd);
  const int64_t cg = s->C_in / s->groups, cog = s->C_out / s->groups;
  for (int64_t b = 0; b < s->B; ++b)
    for (int64_t co = 0; co < s->C_out; ++co) {
#if MUTANT(3) /* conv_m03: the group of an output channel taken as co % groups */
      const int64_t g = co % s->groups;
#else
      const int64_t g = co / cog;
#endif
      for (int64_t o = 0; o < OS; ++o) {
#if MUTANT(7) /* conv_m07: a vector tail left unwritten: the last output of a row when the row is not a multiple of 8 \
               */
        if (s->out[s->nd - 1] % 8 != 0 && o % s->out[s->nd - 1] == s->out[s->nd - 1] - 1) continue;
#endif
        double acc = 0.0;
        for (int64_t ci = 0; ci < cg; ++ci)
          for (int64_t kk = 0; kk < KS; ++kk) {
            int64_t wi = (co * cg + ci) * KS + kk;
            if (s->in_major) wi = ((g * cg + ci) * cog + co % cog) * KS + kk;
#if MUTANT(12) /* conv_m12: ConvTranspose2d's W read as [C_out, C_in/groups, k] */
            if (s->in_major) wi = (co * cg + ci) * KS + kk;
#endif
#if MUTANT(8) /* conv_m08: DepthwiseConv applies channel 0's filter to every channel */
            if (s->groups == s->C_in && s->C_in == s->C_out && s->nd == 2 && s->edge == ZERO) wi = kk;
#endif
            const int64_t i = flat_source(s, o, kk);
            if (i >= 0) acc += (double)x[(b * s->C_in + g * cg + ci) * IS + i] * (double)w[wi];
            else if (s->edge == ZERO && !KONFORM_SKIP_PADS)
              acc += 0.0 * (double)w[wi]; /* a zero pad times an Inf weight is NaN, as in the spec's loop */
          }
#if !MUTANT(4) /* conv_m04: the bias skipped */
        if (bias) acc += (double)bias[co];
#else
        (void)bias;
#endif
        y[(b * s->C_out + co) * OS + o] = (float)acc;
      }
    }
}

/* ---- the C functions --------------------------------------------------------- */

/* Static, so tl_depthwise_conv2d_f32 runs this file's convolution: a call to
 * the exported tl_conv_f32 could bind to another library's (the harness
 * links libtl_kernels). */
static tl_status conv_nd(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                         int64_t C_out, int64_t groups, int64_t n_dims, const int64_t* in_size, const int64_t* kernel,
                         const int64_t* stride, const int64_t* padding, const int64_t* dilation) {
  if (n_dims < 1 || n_dims > 3) return fail(TL_ERR_INVALID_ARGUMENT, "n_dims must be 1, 2 or 3");
  struct shape s = {(int)n_dims, B,   C_in,      C_out,     groups, {1, 1, 1}, {1, 1, 1},
                    {1, 1, 1},   {0}, {1, 1, 1}, {1, 1, 1}, ZERO,   0,         0};
  tl_status st = check_common(&s, in_size, kernel, stride, padding, dilation);
  if (st != TL_OK) return st;
  for (int a = 0; a < s.nd; ++a) s.out[a] = out_extent(s.in[a], s.k[a], s.s[a], s.p[a], s.d[a]);
  if ((st = check_fit(&s, C_out * (C_in / groups))) != TL_OK) return st;
  conv(x, w, bias, y, &s);
  return TL_OK;
}

tl_status tl_conv_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                      int64_t C_out, int64_t groups, int64_t n_dims, const int64_t* in_size, const int64_t* kernel,
                      const int64_t* stride, const int64_t* padding, const int64_t* dilation) {
  return conv_nd(x, w, bias, y, B, C_in, C_out, groups, n_dims, in_size, kernel, stride, padding, dilation);
}

tl_status tl_depthwise_conv2d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C,
                                  const int64_t in_size[2], const int64_t kernel[2], const int64_t stride[2],
                                  const int64_t padding[2], const int64_t dilation[2]) {
  return conv_nd(x, w, bias, y, B, C, C, C, 2, in_size, kernel, stride, padding, dilation);
}

tl_status tl_conv_transpose2d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                                  int64_t C_out, int64_t groups, const int64_t in_size[2], const int64_t kernel[2],
                                  const int64_t stride[2], const int64_t padding[2], const int64_t output_padding[2],
                                  const int64_t dilation[2]) {
  struct shape s = {2,         B,   C_in,      C_out,     groups,    {1, 1, 1}, {1, 1, 1},
                    {1, 1, 1}, {0}, {1, 1, 1}, {1, 1, 1}, TRANSPOSE, 1,         0};
  tl_status st = check_common(&s, in_size, kernel, stride, padding, dilation);
  if (st != TL_OK) return st;
  for (int a = 0; a < 2; ++a) {
    const int64_t lim = s.s[a] > s.d[a] ? s.s[a] : s.d[a];
    if (output_padding[a] < 0 || output_padding[a] >= lim)
      return fail(TL_ERR_INVALID_ARGUMENT, "output_padding outside 0 .. max(stride, dilation) - 1");
    s.out[a] = (s.in[a] - 1) * s.s[a] - 2 * s.p[a] + s.d[a] * (s.k[a] - 1) + output_padding[a] + 1;
  }
  if ((st = check_fit(&s, C_in * (C_out / groups))) != TL_OK) return st;
  conv(x, w, bias, y, &s);
  return TL_OK;
}

tl_status tl_causal_conv1d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                               int64_t C_out, int64_t groups, int64_t T, int64_t kernel, int64_t stride,
                               int64_t dilation) {
  struct shape s = {1,         B,   C_in,      C_out,     groups,         {1, 1, 1}, {1, 1, 1},
                    {1, 1, 1}, {0}, {1, 1, 1}, {1, 1, 1}, REPLICATE_LEFT, 0,         0};
  const int64_t zero = 0;
  tl_status st = check_common(&s, &T, &kernel, &stride, &zero, &dilation);
  if (st != TL_OK) return st;
  s.p[0] = dilation * (kernel - 1);
  s.out[0] = (T - 1) / stride + 1;
  if ((st = check_fit(&s, C_out * (C_in / groups))) != TL_OK) return st;
  conv(x, w, bias, y, &s);
  return TL_OK;
}

tl_status tl_pool_f32(const float* x, float* y, int64_t B, int64_t C, const int64_t in_size[2], const int64_t kernel[2],
                      const int64_t* stride, const int64_t* padding, int mode) {
  if (mode != TL_POOL_MAX && mode != TL_POOL_AVG) return fail(TL_ERR_INVALID_ARGUMENT, "unknown pool mode");
  struct shape s = {2, B, C, C, C, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0}, {1, 1, 1}, {1, 1, 1}, ZERO, 0, 0};
  tl_status st = check_common(&s, in_size, kernel, stride, padding, NULL);
  if (st != TL_OK) return st;
  s.pool_default_stride = stride == NULL;
  for (int a = 0; a < 2; ++a) s.out[a] = out_extent(s.in[a], s.k[a], s.s[a], s.p[a], 1);
  if ((st = check_fit(&s, C)) != TL_OK) return st;
  const int64_t KS = prod(s.k, 2), OS = prod(s.out, 2), IS = prod(s.in, 2);
  for (int64_t bc = 0; bc < B * C; ++bc)
    for (int64_t o = 0; o < OS; ++o) {
      double acc = mode == TL_POOL_MAX ? -INFINITY : 0.0;
      int64_t inside = 0;
      for (int64_t kk = 0; kk < KS; ++kk) {
        const int64_t i = flat_source(&s, o, kk);
#if MUTANT(16) /* conv_m16: max Pool pads with 0 instead of -inf */
        const float v = i < 0 ? 0.0f : x[bc * IS + i];
        if (mode == TL_POOL_AVG && i < 0) continue;
#else
        if (i < 0) continue;
        const float v = x[bc * IS + i];
#endif
        ++inside;
        if (mode == TL_POOL_AVG) {
          acc += v;
#if MUTANT(19) /* conv_m19: max Pool as fmax, which drops a NaN */
        } else if (1) {
          acc = fmax(acc, v);
#endif
        } else if (isnan(v)) {
          acc = v + 0.0f; /* the first NaN, quieted */
          break;
        } else if (v > acc) {
          acc = v;
        }
      }
      (void)inside;
#if MUTANT(15) /* conv_m15: avg Pool divides by the in-bounds count, not kH kW */
      if (mode == TL_POOL_AVG) acc /= (double)(inside > 0 ? inside : 1);
#else
      if (mode == TL_POOL_AVG) acc /= (double)KS;
#endif
      y[bc * OS + o] = (float)acc;
    }
  return TL_OK;
}
