/* base_kernels.c: the six kernels of tinyllm/elementwise.h, plain C11, and the
 * fifteen mutants of spec/elementwise-kernels.txt section 5.
 *
 * Compiled as is (KONFORM_MUTANT undefined or 0) this is a correct plugin
 * (konform_plugin_base). Compiled with -DKONFORM_MUTANT=N, 1 <= N <= 15, it is
 * mutant sNN: exactly one pitfall of the spec's table switched on, everything
 * else identical to the correct base, so the harness has one defect to find.
 * Every `#if MUTANT(N)` below is the whole of mutant sNN; mutants/manifest.tsv
 * names the test of the spec that must catch each one.
 *
 * The base is written the way the course's reference writes the kernels
 * (one pass per row, float arithmetic, strict > for argmax) with one change:
 * RMSNorm accumulates its sum of squares in double. A recursive float sum over
 * d = 4097 terms can drift by more than the harness's 16 units of 2^-24, and a
 * mutant must fail for its pitfall, not for rounding the base already has.
 */
#include <math.h>
#include <stdint.h>

#include "tinyllm/elementwise.h"

#ifndef KONFORM_MUTANT
#define KONFORM_MUTANT 0
#endif
#if KONFORM_MUTANT < 0 || KONFORM_MUTANT > 15
#error "KONFORM_MUTANT must be 0 (the correct base) or 1..15 (mutant s01..s15)"
#endif
#define MUTANT(n) (KONFORM_MUTANT == (n))

/* ---- rmsnorm: y = x / sqrt(mean(x^2) + eps) * w, row by row ---------------- */
void tl_rmsnorm_f32(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps) {
#if MUTANT(3)
  (void)w;
#endif
#if MUTANT(15) /* s15: the accumulator lives across rows: row r uses rows 0..r */
  double sum_sq = 0.0;
#endif
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * d;
    float* yr = y + r * d;
#if !MUTANT(15)
    double sum_sq = 0.0;
#endif
    /* The whole sum, in increasing i, before the first write: y == x works and
     * the order depends on d alone (batch invariance). */
    for (int64_t i = 0; i < d; ++i) sum_sq += (double)xr[i] * (double)xr[i];
#if MUTANT(2) /* s02: the sum of squares not divided by d */
    const double mean_sq = sum_sq;
#else
    const double mean_sq = sum_sq / (double)d;
#endif
#if MUTANT(1) /* s01: eps outside the root */
    const double inv = 1.0 / (sqrt(mean_sq) + (double)eps);
#else
    const double inv = 1.0 / sqrt(mean_sq + (double)eps);
#endif
    for (int64_t i = 0; i < d; ++i) {
#if MUTANT(3) /* s03: the gain w forgotten */
      yr[i] = (float)((double)xr[i] * inv);
#else
      yr[i] = (float)((double)xr[i] * inv * (double)w[i]);
#endif
    }
  }
}

/* ---- rope: rotate pairs of the first d_rot entries of each head in place --- */
void tl_rope_f32(float* x, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t d_rot, const float* inv_freq,
                 float attn_scaling, int layout) {
#if MUTANT(7) /* s07: all D entries rotate; inv_freq is read past d_rot/2 */
  const int64_t rot = D;
  (void)d_rot;
#else
  const int64_t rot = d_rot;
#endif
  const int64_t half = rot / 2;
#if MUTANT(8) /* s08: attn_scaling ignored */
  const float mu = 1.0f;
  (void)attn_scaling;
#else
  const float mu = attn_scaling;
#endif
#if MUTANT(4) /* s04: the layouts swapped: 0 pairs neighbours, 1 pairs halves */
  const int interleaved = layout == 0;
#else
  const int interleaved = layout != 0;
#endif
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t i = 0; i < half; ++i) {
      /* One angle per (token, pair), formed in double and rounded to float. */
      const float theta = (float)((double)pos[t] * (double)inv_freq[i]);
      const float c = cosf(theta), s = sinf(theta);
      const int64_t ia = interleaved ? 2 * i : i;
      const int64_t ib = interleaved ? 2 * i + 1 : i + half;
      for (int64_t h = 0; h < H; ++h) {
        float* head = x + (t * H + h) * D;
        float a = head[ia];
        const float b = head[ib];
#if MUTANT(5) /* s05: rotation by -theta */
        head[ia] = mu * (a * c + b * s);
        head[ib] = mu * (b * c - a * s);
#else
        head[ia] = mu * (a * c - b * s);
#if MUTANT(6) /* s06: b' computed from the new a' */
        a = head[ia];
#endif
        head[ib] = mu * (a * s + b * c);
#endif
      }
    }
  }
}

/* ---- silu_mul: y = g / (1 + e^-g) * u, saturating to -0 for g -> -inf ------ */
void tl_silu_mul_f32(const float* gate, const float* up, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float g = gate[i];
#if MUTANT(9) /* s09: SiLU as a sigmoid */
    y[i] = 1.0f / (1.0f + expf(-g)) * up[i];
#elif MUTANT(10) /* s10: e^g instead of e^-g */
    y[i] = g / (1.0f + expf(g)) * up[i];
#else
    y[i] = g / (1.0f + expf(-g)) * up[i];
#endif
  }
}

/* ---- embedding: out[t, :] = table[ids[t], :] ------------------------------- */
void tl_embedding_f32(const float* table, const int32_t* ids, float* out, int64_t n, int64_t d) {
  for (int64_t t = 0; t < n; ++t) {
#if MUTANT(11) /* s11: the row starts at ids[t], not ids[t] * d */
    const float* row = table + (int64_t)ids[t];
#else
    const float* row = table + (int64_t)ids[t] * d;
#endif
    for (int64_t i = 0; i < d; ++i) out[t * d + i] = row[i];
  }
}

/* ---- add: y = a + b; y == a allowed (element i is read before written) ---- */
void tl_add_f32(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

/* ---- argmax: lowest index of the largest number; NaN skipped; -1 if none --- */
int32_t tl_argmax_f32(const float* x, int64_t n) {
  int32_t best = -1;
  for (int64_t i = 0; i < n; ++i) {
#if !MUTANT(13) /* s13 drops this check: a NaN at index 0 wins forever */
    if (isnan(x[i])) continue;
#endif
#if MUTANT(12) /* s12: >= sends ties to the last index */
    if (best < 0 || x[i] >= x[best]) best = (int32_t)i;
#else
    if (best < 0 || x[i] > x[best]) best = (int32_t)i;
#endif
  }
#if MUTANT(14) /* s14: 0 instead of -1 for an empty or all-NaN row */
  if (best < 0) best = 0;
#endif
  return best;
}
