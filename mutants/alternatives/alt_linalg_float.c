/* alt_linalg_float.c: tinyllm/linalg.h computed the plain way, all in float:
 * every dot product a recursive float sum in k order (no FMA, no blocking,
 * no double), the gates with expf, erff and tanhf, RmsNorm's sum of squares
 * in float. Correct, and rounded differently from everything else here: the
 * tolerances must admit it (a false alarm on it is a harness bug).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "tinyllm/linalg.h"

static int bad_sizes(int64_t a, int64_t b, int64_t c) {
  const int64_t s[3] = {a, b, c};
  for (int i = 0; i < 3; ++i)
    if (s[i] < 0) return 1;
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j)
      if ((double)s[i] * (double)s[j] > (double)(INT64_MAX / 4)) return 1;
  return 0;
}

static void matmul(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K) {
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      float acc = 0.0f;
      for (int64_t k = 0; k < K; ++k) {
        const float p = x[m * K + k] * w[n * K + k];
        acc += p;
      }
      y[m * N + n] = acc;
    }
}

tl_status tl_matmul_f32(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K) {
  if (bad_sizes(M, N, K)) return TL_ERR_INVALID_ARGUMENT;
  matmul(x, w, y, M, N, K);
  return TL_OK;
}

enum gate { SILU, GELU_ERF, GELU_TANH, SIGMOID };

static float act(enum gate g, float v) {
  switch (g) {
    case SILU: return v / (1.0f + expf(-v));
    case SIGMOID: return 1.0f / (1.0f + expf(-v));
    case GELU_ERF: return 0.5f * v * (1.0f + erff(v * 0.70710678f));
    case GELU_TANH: return 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
  }
  return v;
}

static int hidden(const float* x, const float* wg, const float* wu, float* h, int64_t M, int64_t D, int64_t H,
                  enum gate g) {
  float *gate = malloc(sizeof(float) * (size_t)(M * H + 1)), *up = malloc(sizeof(float) * (size_t)(M * H + 1));
  if (gate == NULL || up == NULL) {
    free(gate);
    free(up);
    return 0;
  }
  matmul(x, wg, gate, M, H, D);
  matmul(x, wu, up, M, H, D);
  for (int64_t i = 0; i < M * H; ++i) h[i] = act(g, gate[i]) * up[i];
  free(gate);
  free(up);
  return 1;
}

static tl_status ffn(const float* x, const float* wg, const float* wu, const float* wd, float* y, int64_t M, int64_t D,
                     int64_t H, enum gate g) {
  if (bad_sizes(M, D, H)) return TL_ERR_INVALID_ARGUMENT;
  float* h = malloc(sizeof(float) * (size_t)(M * H + 1));
  if (h == NULL || !hidden(x, wg, wu, h, M, D, H, g)) {
    free(h);
    return TL_ERR_UNSUPPORTED;
  }
  matmul(h, wd, y, M, D, H);
  free(h);
  return TL_OK;
}

tl_status tl_swiglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                            int64_t M, int64_t D, int64_t H) {
  return ffn(x, w_gate, w_up, w_down, y, M, D, H, SILU);
}

tl_status tl_geglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                           int64_t M, int64_t D, int64_t H, tl_ffn_gelu gelu) {
  if (gelu != TL_FFN_GELU_ERF && gelu != TL_FFN_GELU_TANH) return TL_ERR_INVALID_ARGUMENT;
  return ffn(x, w_gate, w_up, w_down, y, M, D, H, gelu == TL_FFN_GELU_ERF ? GELU_ERF : GELU_TANH);
}

tl_status tl_glu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                         int64_t M, int64_t D, int64_t H) {
  return ffn(x, w_gate, w_up, w_down, y, M, D, H, SIGMOID);
}

tl_status tl_fused_swiglu_f32(const float* x, const float* w_gate, const float* w_up, float* h, int64_t M, int64_t D,
                              int64_t H) {
  if (bad_sizes(M, D, H)) return TL_ERR_INVALID_ARGUMENT;
  return hidden(x, w_gate, w_up, h, M, D, H, SILU) ? TL_OK : TL_ERR_UNSUPPORTED;
}

tl_status tl_fused_norm_matmul_f32(const float* x, const float* norm_w, const float* w, float* y, int64_t M, int64_t N,
                                   int64_t K, float eps) {
  if (bad_sizes(M, N, K) || !(eps >= 0.0f) || isinf(eps)) return TL_ERR_INVALID_ARGUMENT;
  if (K == 0) return TL_ERR_SHAPE;
  float* z = malloc(sizeof(float) * (size_t)(M * K + 1));
  if (z == NULL) return TL_ERR_UNSUPPORTED;
  for (int64_t m = 0; m < M; ++m) {
    float sum_sq = 0.0f;
    for (int64_t k = 0; k < K; ++k) sum_sq += x[m * K + k] * x[m * K + k];
    const float inv = 1.0f / sqrtf(sum_sq / (float)K + eps);
    for (int64_t k = 0; k < K; ++k) z[m * K + k] = x[m * K + k] * inv * norm_w[k];
  }
  matmul(z, w, y, M, N, K);
  free(z);
  return TL_OK;
}
