/* alt_lanes8.c: a correct plugin shaped like a SIMD kernel written in plain C
 * (konform_alt_lanes8, expected verdict: pass).
 *
 * Different code paths from mutants/base_kernels.c, same meaning:
 *  - rmsnorm: the squares are summed in float in 8 lanes (element i goes to
 *    lane i % 8), each lane compensated (Kahan), the lanes combined in a fixed
 *    order, then the d % 8 tail. The row is first scaled by a power of two so
 *    that every square stays a normal float; the scale is undone on the mean.
 *  - silu_mul: its own e^x (Cody-Waite reduction and a degree-6 polynomial,
 *    about 1 ulp), saturating to +inf above ln(FLT_MAX), so g = -1e4 gives
 *    g / inf = -0, never NaN.
 *  - rope: cosf/sinf and fmaf for the two products of each member.
 *  - embedding: memcpy of whole rows; add: unrolled by 8 with a tail.
 *  - argmax: scans from the end with >=, which keeps the lowest index among
 *    equal values, as the forward strict > does; NaN is skipped.
 * The contract it keeps: eps inside the root, one fixed summation order per
 * row (batch invariance), y == x for rmsnorm and y == a for add, both members
 * of a RoPE pair read before either is written, inv_freq read only below
 * d_rot / 2. The harness must accept it; a false alarm here is a harness bug.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "tinyllm/elementwise.h"

enum { kLanes = 8 };

/* Adds v to the compensated sum (*sum, *comp); the value is *sum - *comp. */
static void kahan_add(float* sum, float* comp, float v) {
  const float y = v - *comp;
  const float t = *sum + y;
  *comp = (t - *sum) - y;
  *sum = t;
}

/* ---- rmsnorm ----------------------------------------------------------------- */
void tl_rmsnorm_f32(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * d;
    float* yr = y + r * d;

    /* Pass 0: the largest |x| picks the scale 2^-e that brings it into
     * [0.5, 1); an Inf or NaN decides the sum without arithmetic. */
    float amax = 0.0f;
    int has_inf = 0, has_nan = 0;
    for (int64_t i = 0; i < d; ++i) {
      const float a = fabsf(xr[i]);
      if (a != a) has_nan = 1;
      else if (a > FLT_MAX) has_inf = 1;
      else if (a > amax) amax = a;
    }
    int e = 0;
    if (amax > 0.0f) (void)frexpf(amax, &e);

    /* Pass 1: the scaled sum of squares, 8 compensated lanes, then the tail. */
    double sum_sq;
    if (has_nan) {
      sum_sq = NAN;
    } else if (has_inf) {
      sum_sq = INFINITY;
    } else {
      float lane[kLanes] = {0}, comp[kLanes] = {0};
      int64_t i = 0;
      for (; i + kLanes <= d; i += kLanes) {
        for (int l = 0; l < kLanes; ++l) {
          const float v = ldexpf(xr[i + l], -e);
          kahan_add(&lane[l], &comp[l], v * v);
        }
      }
      float total = 0.0f, total_comp = 0.0f;
      for (int l = 0; l < kLanes; ++l) {
        kahan_add(&total, &total_comp, lane[l]);
        kahan_add(&total, &total_comp, -comp[l]);
      }
      for (; i < d; ++i) {
        const float v = ldexpf(xr[i], -e);
        kahan_add(&total, &total_comp, v * v);
      }
      sum_sq = ldexp((double)total - (double)total_comp, 2 * e);
    }

    /* Pass 2: the writes, after the whole sum, so y == x is safe. */
    const double inv = 1.0 / sqrt(sum_sq / (double)d + (double)eps);
    for (int64_t i = 0; i < d; ++i) yr[i] = (float)((double)xr[i] * (double)w[i] * inv);
  }
}

/* ---- rope -------------------------------------------------------------------- */
void tl_rope_f32(float* x, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t d_rot, const float* inv_freq,
                 float attn_scaling, int layout) {
  const int64_t half = d_rot / 2;
  /* Offsets of the two members of pair i: (i, i + half) or (2i, 2i + 1). */
  const int64_t step = layout == 0 ? 1 : 2;
  const int64_t partner = layout == 0 ? half : 1;
  for (int64_t t = 0; t < T; ++t) {
    float* token = x + t * H * D;
    for (int64_t i = 0; i < half; ++i) {
      const float theta = (float)((double)pos[t] * (double)inv_freq[i]);
      const float c = cosf(theta), s = sinf(theta);
      for (int64_t h = 0; h < H; ++h) {
        float* pa = token + h * D + i * step;
        float* pb = pa + partner;
        const float a = *pa, b = *pb;
        *pa = attn_scaling * fmaf(a, c, -(b * s));
        *pb = attn_scaling * fmaf(a, s, b * c);
      }
    }
  }
}

/* ---- silu_mul ---------------------------------------------------------------- */

/* e^x in float: x = n ln2 + r with |r| <= ln2 / 2 (ln2 split in two so that
 * n * kLn2Hi is exact), e^r from the Cephes expf polynomial, times 2^n by
 * ldexpf, which also rounds the overflow to +inf and the underflow to 0. */
static float lanes_expf(float x) {
  static const float kLog2e = 1.44269504088896341f;
  static const float kLn2Hi = 0.693359375f;    /* 355 / 512: 9 bits */
  static const float kLn2Lo = -2.12194440e-4f; /* ln2 - kLn2Hi */
  if (x != x) return x;
  if (x > 89.0f) return INFINITY; /* e^89 > FLT_MAX */
  if (x < -104.0f) return 0.0f;   /* e^-104 < 2^-150 */
  const float n = floorf(x * kLog2e + 0.5f);
  float r = x - n * kLn2Hi;
  r = r - n * kLn2Lo;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  return ldexpf(p, (int)n);
}

void tl_silu_mul_f32(const float* gate, const float* up, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float g = gate[i];
    y[i] = g / (1.0f + lanes_expf(-g)) * up[i];
  }
}

/* ---- embedding ---------------------------------------------------------------- */
void tl_embedding_f32(const float* table, const int32_t* ids, float* out, int64_t n, int64_t d) {
  if (n <= 0 || d <= 0) return;
  const size_t row_bytes = (size_t)d * sizeof(float);
  for (int64_t t = 0; t < n; ++t) memcpy(out + t * d, table + (int64_t)ids[t] * d, row_bytes);
}

/* ---- add ---------------------------------------------------------------------- */
void tl_add_f32(const float* a, const float* b, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    float v[kLanes];
    for (int l = 0; l < kLanes; ++l) v[l] = a[i + l] + b[i + l];
    for (int l = 0; l < kLanes; ++l) y[i + l] = v[l];
  }
  for (; i < n; ++i) y[i] = a[i] + b[i];
}

/* ---- argmax -------------------------------------------------------------------- */
int32_t tl_argmax_f32(const float* x, int64_t n) {
  int64_t best = -1;
  for (int64_t i = n - 1; i >= 0; --i) {
    if (isnan(x[i])) continue;
    if (best < 0 || x[i] >= x[best]) best = i;
  }
  return (int32_t)best;
}
