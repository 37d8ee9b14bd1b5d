/* theirs.c: the six kernels of tinyllm/elementwise.h as someone outside the
 * project would write them, built with a plain compiler and handed to
 * `konform check --backend ./libtheirs.so` (see README.md). Correct: the
 * harness must pass it.
 *
 * Straightforward on purpose: double for the RMSNorm sum of squares and its
 * scale, a copy of each pair before it is rotated, a sigmoid that saturates to
 * 0 (so g = -1e4 gives -0, not NaN), a forward argmax with strict >.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "tinyllm/elementwise.h"

void tl_rmsnorm_f32(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps) {
  for (int64_t r = 0; r < rows; r++) {
    const float* in = &x[r * d];
    float* out = &y[r * d];
    double ss = 0;
    for (int64_t i = 0; i < d; i++) ss += (double)in[i] * in[i];
    double scale = 1 / sqrt(ss / (double)d + eps);
    for (int64_t i = 0; i < d; i++) out[i] = (float)(in[i] * scale * w[i]);
  }
}

void tl_rope_f32(float* x, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t d_rot, const float* inv_freq,
                 float attn_scaling, int layout) {
  int64_t npairs = d_rot / 2;
  for (int64_t t = 0; t < T; t++) {
    for (int64_t h = 0; h < H; h++) {
      float* v = &x[(t * H + h) * D];
      for (int64_t i = 0; i < npairs; i++) {
        float angle = (float)((double)pos[t] * inv_freq[i]);
        double cs = cos(angle), sn = sin(angle);
        int64_t j = layout == 1 ? 2 * i : i;
        int64_t k = layout == 1 ? 2 * i + 1 : i + npairs;
        double a = v[j], b = v[k];
        v[j] = (float)(attn_scaling * (a * cs - b * sn));
        v[k] = (float)(attn_scaling * (a * sn + b * cs));
      }
    }
  }
}

void tl_silu_mul_f32(const float* gate, const float* up, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    double g = gate[i];
    y[i] = (float)(g / (1 + exp(-g)) * up[i]);
  }
}

void tl_embedding_f32(const float* table, const int32_t* ids, float* out, int64_t n, int64_t d) {
  for (int64_t t = 0; t < n; t++) {
    const float* row = &table[(int64_t)ids[t] * d];
    for (int64_t i = 0; i < d; i++) out[t * d + i] = row[i];
  }
}

void tl_add_f32(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = a[i] + b[i];
}

int32_t tl_argmax_f32(const float* x, int64_t n) {
  int32_t best = -1;
  float best_value = -INFINITY;
  for (int64_t i = 0; i < n; i++) {
    if (isnan(x[i])) continue;
    if (best == -1 || x[i] > best_value) {
      best = (int32_t)i;
      best_value = x[i];
    }
  }
  return best;
}
