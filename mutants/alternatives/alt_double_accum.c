/* alt_double_accum.c: a correct plugin that carries every step in double and
 * rounds once at the end (konform_alt_double_accum, expected verdict: pass).
 *
 * It differs from mutants/base_kernels.c in rounding, not in meaning: SiLU is
 * g * (1 / (1 + exp(-g))) in double, RoPE uses double cos and sin of the
 * contract's float angle and a double rotation, RMSNorm scales by w * inv.
 * The harness must accept it: a false alarm here is a harness bug. What it
 * keeps from the contract: eps inside the root, one fixed summation order per
 * row (batch invariance), y == x for rmsnorm and y == a for add, both members
 * of a RoPE pair read before either is written, inv_freq read only below
 * d_rot / 2.
 */
#include <math.h>
#include <stdint.h>

#include "tinyllm/elementwise.h"

/* ---- rmsnorm ----------------------------------------------------------------- */
void tl_rmsnorm_f32(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * d;
    float* yr = y + r * d;
    double sum_sq = 0.0; /* increasing i; complete before any write */
    for (int64_t i = 0; i < d; ++i) {
      const double v = xr[i];
      sum_sq += v * v;
    }
    const double inv = 1.0 / sqrt(sum_sq / (double)d + (double)eps);
    for (int64_t i = 0; i < d; ++i) yr[i] = (float)((double)xr[i] * ((double)w[i] * inv));
  }
}

/* ---- rope -------------------------------------------------------------------- */
void tl_rope_f32(float* x, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t d_rot, const float* inv_freq,
                 float attn_scaling, int layout) {
  const int64_t half = d_rot / 2;
  const double mu = attn_scaling;
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t i = 0; i < half; ++i) {
      const float theta = (float)((double)pos[t] * (double)inv_freq[i]);
      const double c = mu * cos((double)theta), s = mu * sin((double)theta);
      const int64_t ia = layout == 0 ? i : 2 * i;
      const int64_t ib = layout == 0 ? i + half : 2 * i + 1;
      for (int64_t h = 0; h < H; ++h) {
        float* head = x + (t * H + h) * D;
        const double a = head[ia], b = head[ib];
        head[ia] = (float)(a * c - b * s);
        head[ib] = (float)(a * s + b * c);
      }
    }
  }
}

/* ---- silu_mul: g * sigmoid(g) in double; exp(-g) = inf gives g * 0 = -0 ---- */
void tl_silu_mul_f32(const float* gate, const float* up, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double g = gate[i];
    const double sigmoid = 1.0 / (1.0 + exp(-g));
    y[i] = (float)(g * sigmoid * (double)up[i]);
  }
}

/* ---- embedding ---------------------------------------------------------------- */
void tl_embedding_f32(const float* table, const int32_t* ids, float* out, int64_t n, int64_t d) {
  float* dst = out;
  for (int64_t t = 0; t < n; ++t) {
    const float* src = table + (int64_t)ids[t] * d;
    for (int64_t i = 0; i < d; ++i) *dst++ = src[i];
  }
}

/* ---- add: the sum of two floats is exact in double, so one rounding --------- */
void tl_add_f32(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = (float)((double)a[i] + (double)b[i]);
}

/* ---- argmax: forward, strict >, NaN never compares and is skipped ----------- */
int32_t tl_argmax_f32(const float* x, int64_t n) {
  int64_t best = -1;
  double best_v = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    if (v != v) continue;
    if (best < 0 || v > best_v) {
      best = i;
      best_v = v;
    }
  }
  return (int32_t)best;
}
