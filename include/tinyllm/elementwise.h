/* tinyllm/elementwise.h: the C ABI of the six elementwise kernels.
 *
 * Contract (spec/elementwise-kernels.txt, section 4): every function is void
 * (argmax returns the index), the caller guarantees valid pointers and sizes,
 * tensors are contiguous row-major float32, sizes are int64_t.
 * Aliasing: y == x is allowed for rmsnorm, y == a for add; nothing else may
 * overlap. A row's result never depends on how many rows share the call.
 */
#ifndef TINYLLM_ELEMENTWISE_H
#define TINYLLM_ELEMENTWISE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y[r,i] = x[r,i] / sqrt(mean_i(x[r,i]^2) + eps) * w[i], for rows x d. */
void tl_rmsnorm_f32(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps);

/* Rotates, in place, the first d_rot entries of each head of x[T, H, D] by the
 * angle (float)((double)pos[t] * inv_freq[i]) for pair i, scaled by
 * attn_scaling. layout 0 pairs (x_i, x_{i+d_rot/2}); layout 1 pairs
 * (x_{2i}, x_{2i+1}). inv_freq has d_rot/2 entries. */
void tl_rope_f32(float* x, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t d_rot, const float* inv_freq,
                 float attn_scaling, int layout /* 0 half, 1 interleaved */);

/* y[i] = gate[i] / (1 + exp(-gate[i])) * up[i]. */
void tl_silu_mul_f32(const float* gate, const float* up, float* y, int64_t n);

/* out[t, :] = table[ids[t], :] for t < n; the caller checks 0 <= ids[t] < V. */
void tl_embedding_f32(const float* table, const int32_t* ids, float* out, int64_t n, int64_t d);

/* y[i] = a[i] + b[i]. */
void tl_add_f32(const float* a, const float* b, float* y, int64_t n);

/* Index of the largest x[i]: lowest index on ties, NaN skipped, -1 if no number. */
int32_t tl_argmax_f32(const float* x, int64_t n);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_ELEMENTWISE_H */
