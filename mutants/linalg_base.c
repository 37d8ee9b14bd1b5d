/* linalg_base.c: tinyllm/linalg.h in plain C11 (Matmul, the three
 * feed-forwards, FusedNormMatmul, FusedSwiGlu), and its mutants.
 *
 * Compiled as is (KONFORM_MUTANT undefined or 0) this is the correct plugin
 * konform_linalg_base: every dot product accumulated in double,
 * rounded once, and the hidden layers of the feed-forwards rounded to float
 * as a real kernel keeps them. With -DKONFORM_MUTANT=N it is mutant
 * linalg_mNN: one defect from the spec's warnings switched on, everything
 * else identical, so the harness has one thing to find. mutants/manifest.tsv
 * names the check that must catch each.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "tinyllm/linalg.h"

#ifndef KONFORM_MUTANT
#define KONFORM_MUTANT 0
#endif
#if KONFORM_MUTANT < 0 || KONFORM_MUTANT > 18
#error "KONFORM_MUTANT must be 0 (the correct base) or 1..18 (linalg_m01..m18)"
#endif
#define MUTANT(n) (KONFORM_MUTANT == (n))

/* ---- argument checks (the header's rules) ---------------------------------- */

static int bad_sizes(int64_t a, int64_t b, int64_t c) {
  const int64_t s[3] = {a, b, c};
  for (int i = 0; i < 3; ++i)
    if (s[i] < 0) return 1;
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j)
      if ((double)s[i] * (double)s[j] > (double)(INT64_MAX / 4)) return 1;
  return 0;
}

/* ---- Matmul ---------------------------------------------------------------- */

/* y[m, n] = sum_k x[m, k] w[n, k], x: [M, K], w: [N, K]. */
static void matmul(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K) {
  for (int64_t m = 0; m < M; ++m) {
#if MUTANT(4) /* m04: x's row stride taken from N (kept in bounds when N > K) */
    const float* xm = x + m * (N < K ? N : K);
#else
    const float* xm = x + m * K;
#endif
    for (int64_t n = 0; n < N; ++n) {
#if MUTANT(1) /* m01: W used as [K, N], untransposed: y = x @ W (k outer: W read in order) */
      if (n > 0) continue;
      for (int64_t j = 0; j < N; ++j) y[m * N + j] = 0.0f;
      for (int64_t k = 0; k < K; ++k)
        for (int64_t j = 0; j < N; ++j) y[m * N + j] += xm[k] * w[k * N + j];
      continue;
      double acc = 0.0;
#elif MUTANT(2) /* m02: unrolled by 4, the K % 4 tail forgotten */
      double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
      const float* wn = w + n * K;
      for (int64_t k = 0; k + 4 <= K; k += 4) {
        a0 += (double)xm[k] * wn[k];
        a1 += (double)xm[k + 1] * wn[k + 1];
        a2 += (double)xm[k + 2] * wn[k + 2];
        a3 += (double)xm[k + 3] * wn[k + 3];
      }
      const double acc = (a0 + a1) + (a2 + a3);
#elif MUTANT(3) /* m03: accumulates onto y's old contents, never zeroed */
      double acc = y[m * N + n];
      for (int64_t k = 0; k < K; ++k) acc += (double)xm[k] * (double)w[n * K + k];
#elif MUTANT(5) /* m05: a decode path for M == 1 that sums in float, backwards */
      double acc;
      if (M == 1) {
        float f = 0.0f;
        for (int64_t k = K; k-- > 0;) f += xm[k] * w[n * K + k];
        acc = f;
      } else {
        acc = 0.0;
        for (int64_t k = 0; k < K; ++k) acc += (double)xm[k] * (double)w[n * K + k];
      }
#else
      double acc = 0.0;
      for (int64_t k = 0; k < K; ++k) acc += (double)xm[k] * (double)w[n * K + k];
#endif
      y[m * N + n] = (float)acc;
    }
  }
}

tl_status tl_matmul_f32(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K) {
  if (bad_sizes(M, N, K)) return TL_ERR_INVALID_ARGUMENT;
#if MUTANT(6) /* m06: K == 0 taken as nothing to do: the empty sums never written */
  if (K == 0) return TL_OK;
#endif
  matmul(x, w, y, M, N, K);
  return TL_OK;
}

/* ---- the gates --------------------------------------------------------------- */

enum gate { SILU, GELU_ERF, GELU_TANH, SIGMOID };

static double act(enum gate g, double v) {
  switch (g) {
    case SILU: return v / (1.0 + exp(-v));
#if MUTANT(13) /* m13: Sigmoid with e^g for e^-g */
    case SIGMOID: return 1.0 / (1.0 + exp(v));
#else
    case SIGMOID: return 1.0 / (1.0 + exp(-v));
#endif
    case GELU_ERF: return v * 0.5 * (1.0 + erf(v / sqrt(2.0)));
    case GELU_TANH: return 0.5 * v * (1.0 + tanh(sqrt(2.0 / 3.14159265358979323846) * (v + 0.044715 * v * v * v)));
  }
  return v;
}

/* h = act(x Wg^T) * (x Wu^T) rounded to float; h: [M, H]. `fused`: called
 * by FusedSwiGlu (its mutants are its own), else by a feed-forward. */
static int hidden(const float* x, const float* wg, const float* wu, float* h, int64_t M, int64_t D, int64_t H,
                  enum gate g, int fused) {
  (void)fused;
  float *gate = malloc(sizeof(float) * (size_t)(M * H + 1)), *up = malloc(sizeof(float) * (size_t)(M * H + 1));
  if (gate == NULL || up == NULL) {
    free(gate);
    free(up);
    return 0;
  }
  matmul(x, wg, gate, M, H, D);
  matmul(x, wu, up, M, H, D);
  for (int64_t i = 0; i < M * H; ++i) {
#if MUTANT(7) || MUTANT(17) /* m07 (feed-forwards), m17 (FusedSwiGlu): gate and up swapped: act(up) * gate */
    if (MUTANT(7) != fused) {
      h[i] = (float)(act(g, up[i]) * gate[i]);
      continue;
    }
#elif MUTANT(11) /* m11 (feed-forwards): the activation applied after the product: act(gate * up) */
    if (!fused) {
      h[i] = (float)act(g, (double)gate[i] * up[i]);
      continue;
    }
#elif MUTANT(12) /* m12 (feed-forwards): the up projection never multiplied in: act(gate) */
    if (!fused) {
      h[i] = (float)act(g, gate[i]);
      continue;
    }
#endif
    h[i] = (float)(act(g, gate[i]) * up[i]);
  }
  free(gate);
  free(up);
  return 1;
}

static tl_status ffn(const float* x, const float* wg, const float* wu, const float* wd, float* y, int64_t M, int64_t D,
                     int64_t H, enum gate g) {
  if (bad_sizes(M, D, H)) return TL_ERR_INVALID_ARGUMENT;
  float* h = malloc(sizeof(float) * (size_t)(M * H + 1));
  if (h == NULL || !hidden(x, wg, wu, h, M, D, H, g, 0)) {
    free(h);
    return TL_ERR_UNSUPPORTED;
  }
#if MUTANT(8) /* m08: W_down read as [H, D], untransposed */
  for (int64_t m = 0; m < M; ++m)
    for (int64_t i = 0; i < D; ++i) {
      double acc = 0.0;
      for (int64_t j = 0; j < H; ++j) acc += (double)h[m * H + j] * wd[j * D + i];
      y[m * D + i] = (float)acc;
    }
#else
  matmul(h, wd, y, M, D, H);
#endif
  free(h);
  return TL_OK;
}

tl_status tl_swiglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                            int64_t M, int64_t D, int64_t H) {
  return ffn(x, w_gate, w_up, w_down, y, M, D, H, SILU);
}

tl_status tl_geglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                           int64_t M, int64_t D, int64_t H, tl_ffn_gelu gelu) {
#if MUTANT(9) /* m09: the GELU variant ignored: always erf (and never refused) */
  (void)gelu;
  return ffn(x, w_gate, w_up, w_down, y, M, D, H, GELU_ERF);
#else
  if (gelu != TL_FFN_GELU_ERF && gelu != TL_FFN_GELU_TANH) return TL_ERR_INVALID_ARGUMENT;
  return ffn(x, w_gate, w_up, w_down, y, M, D, H, gelu == TL_FFN_GELU_ERF ? GELU_ERF : GELU_TANH);
#endif
}

tl_status tl_glu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                         int64_t M, int64_t D, int64_t H) {
#if MUTANT(10) /* m10: Glu gated by Silu, not Sigmoid */
  return ffn(x, w_gate, w_up, w_down, y, M, D, H, SILU);
#else
  return ffn(x, w_gate, w_up, w_down, y, M, D, H, SIGMOID);
#endif
}

/* ---- the fused ops ------------------------------------------------------------ */

tl_status tl_fused_swiglu_f32(const float* x, const float* w_gate, const float* w_up, float* h, int64_t M, int64_t D,
                              int64_t H) {
  if (bad_sizes(M, D, H)) return TL_ERR_INVALID_ARGUMENT;
#if MUTANT(18) /* m18: Silu taken for Sigmoid: sigmoid(gate) * up */
  return hidden(x, w_gate, w_up, h, M, D, H, SIGMOID, 1) ? TL_OK : TL_ERR_UNSUPPORTED;
#else
  return hidden(x, w_gate, w_up, h, M, D, H, SILU, 1) ? TL_OK : TL_ERR_UNSUPPORTED;
#endif
}

tl_status tl_fused_norm_matmul_f32(const float* x, const float* norm_w, const float* w, float* y, int64_t M, int64_t N,
                                   int64_t K, float eps) {
  if (bad_sizes(M, N, K) || !(eps >= 0.0f) || isinf(eps)) return TL_ERR_INVALID_ARGUMENT;
  if (K == 0) return TL_ERR_SHAPE;
  float* z = malloc(sizeof(float) * (size_t)(M * K + 1));
  if (z == NULL) return TL_ERR_UNSUPPORTED;
  for (int64_t m = 0; m < M; ++m) {
    double sum_sq = 0.0;
    for (int64_t k = 0; k < K; ++k) sum_sq += (double)x[m * K + k] * x[m * K + k];
#if MUTANT(15) /* m15: eps outside the root */
    const double inv = 1.0 / (sqrt(sum_sq / (double)K) + (double)eps);
#else
    const double inv = 1.0 / sqrt(sum_sq / (double)K + (double)eps);
#endif
    for (int64_t k = 0; k < K; ++k) {
#if MUTANT(14) /* m14: the norm left for after the matmul (x goes in raw) */
      (void)inv;
      z[m * K + k] = x[m * K + k] * norm_w[k];
#elif MUTANT(16) /* m16: the norm's gain forgotten */
      (void)norm_w;
      z[m * K + k] = (float)((double)x[m * K + k] * inv);
#else
      z[m * K + k] = (float)((double)x[m * K + k] * inv * norm_w[k]);
#endif
    }
  }
  matmul(z, w, y, M, N, K);
#if MUTANT(14) /* ... and applied to each output row instead */
  for (int64_t m = 0; m < M; ++m) {
    double sum_sq = 0.0;
    for (int64_t n = 0; n < N; ++n) sum_sq += (double)y[m * N + n] * y[m * N + n];
    const double inv = N > 0 ? 1.0 / sqrt(sum_sq / (double)N + (double)eps) : 1.0;
    for (int64_t n = 0; n < N; ++n) y[m * N + n] = (float)(y[m * N + n] * inv);
  }
#endif
  free(z);
  return TL_OK;
}
