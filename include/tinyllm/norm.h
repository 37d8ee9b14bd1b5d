/* tinyllm/norm.h: the normalization ops of spec/operations.txt section 2
 * (RmsNorm, LayerNorm, BatchNorm, GroupNorm, InstanceNorm, AdaLN, AdaLN-Zero)
 * and FusedSkipNorm of section 10.
 *
 * Conventions (as tinyllm/elementwise.h): float32 tensors, contiguous and
 * row-major; sizes are int64_t. A tensor's shape is passed as `shape[0..ndim)`;
 * "[..., D]" means any number of leading dimensions, flattened into rows.
 *
 * Every function validates its sizes and parameters and returns a tl_status
 * (tinyllm/status.h): on anything but TL_OK it has written nothing and
 * tl_last_error() says why. Data pointers are the caller's to get right.
 *   TL_ERR_INVALID_ARGUMENT  ndim out of range, a negative dimension, more
 *                            elements than an int64_t byte count holds, eps
 *                            negative or not finite, num_groups < 1
 *   TL_ERR_SHAPE             an empty reduction (D == 0, no spatial element,
 *                            C == 0 for GroupNorm), C not divisible by
 *                            num_groups
 *
 * Numerics: every statistic is a two-pass mean and variance (the variance
 * is the mean of (x - mean)^2, never mean(x^2) - mean^2), eps is added to the
 * variance (or mean square) inside the square root, and a row's result never
 * depends on the other rows of the call (batch invariance, bit for bit).
 */
#ifndef TINYLLM_NORM_H
#define TINYLLM_NORM_H

#include <stdint.h>

#include "tinyllm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most dimensions a shape may have. */
#define TL_NORM_MAX_DIMS 8

/* RmsNorm over the last dimension of x: [..., D] (1 <= ndim):
 *   y = x / sqrt(mean(x^2) + eps) * g,   g: [D].
 * y == x is allowed. */
tl_status tl_rms_norm_f32(const float* x, const float* g, float* y, const int64_t* shape, int32_t ndim, float eps);
/* The same with x and y f16 or bf16 (uint16_t bit patterns) and g f32, as
 * models keep their norm weights: each row widened to f32, its sum of
 * squares accumulated in f32 (never in the half dtype: f16 squares overflow
 * past |x| = 256), y rounded once to the dtype, to nearest with ties to
 * even. y == x is allowed. */
tl_status tl_rms_norm_f16(const uint16_t* x, const float* g, uint16_t* y, const int64_t* shape, int32_t ndim,
                          float eps);
tl_status tl_rms_norm_bf16(const uint16_t* x, const float* g, uint16_t* y, const int64_t* shape, int32_t ndim,
                           float eps);

/* LayerNorm over the last dimension of x: [..., D] (1 <= ndim):
 *   y = (x - mean) / sqrt(var + eps) * g + b,   g, b: [D].
 * y == x is allowed. */
tl_status tl_layer_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, float eps);
/* The same with x and y f16 or bf16 (uint16_t bit patterns), g and b f32:
 * the row widened to f32, both passes in f32, y rounded once. */
tl_status tl_layer_norm_f16(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                            int32_t ndim, float eps);
tl_status tl_layer_norm_bf16(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                             int32_t ndim, float eps);

/* BatchNorm in inference mode, x: [N, C, spatial...] (2 <= ndim), per channel c
 * with the running statistics, never the batch's own:
 *   y = (x - mean[c]) / sqrt(var[c] + eps) * g[c] + b[c],   mean, var, g, b: [C].
 * y == x is allowed. */
tl_status tl_batch_norm_f32(const float* x, const float* mean, const float* var, const float* g, const float* b,
                            float* y, const int64_t* shape, int32_t ndim, float eps);
/* The same with x and y f16 or bf16 (uint16_t bit patterns) and the running
 * statistics, g and b f32, as models keep them (a mixed signature): each
 * element widened to f32, x - mean and the affine map in f32 (never x - mean
 * in the half dtype: it overflows f16 past 65504 and drops the mean's low
 * bits), y rounded once to the dtype, to nearest with ties to even. */
tl_status tl_batch_norm_f16(const uint16_t* x, const float* mean, const float* var, const float* g, const float* b,
                            uint16_t* y, const int64_t* shape, int32_t ndim, float eps);
tl_status tl_batch_norm_bf16(const uint16_t* x, const float* mean, const float* var, const float* g, const float* b,
                             uint16_t* y, const int64_t* shape, int32_t ndim, float eps);

/* GroupNorm, x: [N, C, spatial...] (2 <= ndim): the C channels form num_groups
 * groups of C / num_groups consecutive channels; mean and variance are taken
 * per (sample, group) over its channels and spatial positions, then
 *   y = (x - mean) / sqrt(var + eps) * g[c] + b[c],   g, b: [C].
 * num_groups must divide C. y == x is allowed. */
tl_status tl_group_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, int64_t num_groups, float eps);
/* The same with x and y f16 or bf16 (uint16_t bit patterns), g and b f32
 * (a mixed signature): each group widened to f32, its mean and its sum of
 * squares about the mean accumulated in f32 (never in the half dtype: f16
 * squares overflow past |x - mean| = 256), y rounded once. */
tl_status tl_group_norm_f16(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                            int32_t ndim, int64_t num_groups, float eps);
tl_status tl_group_norm_bf16(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                             int32_t ndim, int64_t num_groups, float eps);

/* InstanceNorm, x: [N, C, spatial...] (2 <= ndim): GroupNorm with one group per
 * channel, statistics per (sample, channel) over the spatial positions.
 * y == x is allowed. */
tl_status tl_instance_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                               int32_t ndim, float eps);
/* The same with x and y f16 or bf16, g and b f32, as tl_group_norm_f16. */
tl_status tl_instance_norm_f16(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                               int32_t ndim, float eps);
tl_status tl_instance_norm_bf16(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                                int32_t ndim, float eps);

/* AdaLN (DiT), x: [B, ..., D] (2 <= ndim), every row of sample s modulated by
 * that sample's scale and shift, scale, shift: [B, D]:
 *   y = LayerNorm(x, g = 1, b = 0, eps) * (1 + scale[s]) + shift[s].
 * y == x is allowed. */
tl_status tl_ada_ln_f32(const float* x, const float* scale, const float* shift, float* y, const int64_t* shape,
                        int32_t ndim, float eps);
/* The same with x and y f16 or bf16, the conditioning (scale, shift) f32 as
 * DiTs compute it (a mixed signature): both passes in f32, the gain
 * 1 + scale and the shift in f32 (never rounded to the dtype), y rounded
 * once. */
tl_status tl_ada_ln_f16(const uint16_t* x, const float* scale, const float* shift, uint16_t* y, const int64_t* shape,
                        int32_t ndim, float eps);
tl_status tl_ada_ln_bf16(const uint16_t* x, const float* scale, const float* shift, uint16_t* y, const int64_t* shape,
                         int32_t ndim, float eps);

/* AdaLN-Zero: the gated residual of a DiT block, fused with the AdaLN that
 * follows it. x (the residual stream) and r (the branch output): [B, ..., D]
 * (2 <= ndim); gate, scale, shift: [B, D], per sample s:
 *   h = x + gate[s] * r        (the product and the sum each rounded to float,
 *                               as the unfused Mul then Add: bit for bit)
 *   y = AdaLN(h, scale, shift, eps)
 * gate = 0 (the zero-initialized conditioning) leaves the stream as it was:
 * h == x. h == x is allowed; y may not overlap anything. */
tl_status tl_ada_ln_zero_f32(const float* x, const float* r, const float* gate, const float* scale, const float* shift,
                             float* h, float* y, const int64_t* shape, int32_t ndim, float eps);
/* The same with x, r, h and y f16 or bf16, gate, scale and shift f32 (a
 * mixed signature): h is the f32 h above (Mul then Add, or one FMA) from the
 * widened x and r, rounded once to the dtype, to nearest with ties to even
 * (the residual stream is stored in the dtype); y is the f16 or bf16 AdaLN of
 * that stored h, as the unfused ops would give. h == x is allowed; y may not
 * overlap anything. */
tl_status tl_ada_ln_zero_f16(const uint16_t* x, const uint16_t* r, const float* gate, const float* scale,
                             const float* shift, uint16_t* h, uint16_t* y, const int64_t* shape, int32_t ndim,
                             float eps);
tl_status tl_ada_ln_zero_bf16(const uint16_t* x, const uint16_t* r, const float* gate, const float* scale,
                              const float* shift, uint16_t* h, uint16_t* y, const int64_t* shape, int32_t ndim,
                              float eps);

/* FusedSkipNorm, x and skip: [..., D] (1 <= ndim), g: [D]; returns both
 *   sum = x + skip             (rounded once to float: bit for bit)
 *   y   = RmsNorm(sum, g, eps)
 * as the unfused Add then RmsNorm would. sum == x or sum == skip is allowed; y
 * may not overlap anything. */
tl_status tl_fused_skip_norm_f32(const float* x, const float* skip, const float* g, float* sum, float* y,
                                 const int64_t* shape, int32_t ndim, float eps);
/* The same with x, skip, sum and y f16 or bf16, g f32 (a mixed signature):
 * sum is x + skip added in f32 and rounded once to the dtype (the correctly
 * rounded sum: bit for bit), and y is the f16 or bf16 RmsNorm of that stored
 * sum (its squares summed in f32), as the unfused Add then RmsNorm give;
 * never the norm of the unrounded f32 sum. sum == x or sum == skip is
 * allowed; y may not overlap anything. */
tl_status tl_fused_skip_norm_f16(const uint16_t* x, const uint16_t* skip, const float* g, uint16_t* sum, uint16_t* y,
                                 const int64_t* shape, int32_t ndim, float eps);
tl_status tl_fused_skip_norm_bf16(const uint16_t* x, const uint16_t* skip, const float* g, uint16_t* sum, uint16_t* y,
                                  const int64_t* shape, int32_t ndim, float eps);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_NORM_H */
