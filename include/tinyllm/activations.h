/* tinyllm/activations.h: the activations of spec/operations.txt section 4
 * (Silu, Gelu_erf, Gelu_tanh, Relu, LeakyRelu, PRelu, Sigmoid, Tanh, Softmax)
 * and the gated elementwise middle of the FFNs (SwiGlu, GeGlu, Glu).
 *
 * Conventions of tinyllm/elementwise.h: contiguous row-major float32, int64_t
 * sizes, caller-validated sizes for the void functions. Functions that
 * validate an argument the caller cannot cheaply see (an axis, an enum)
 * return a tl_status and write nothing unless it is TL_OK (tinyllm/status.h).
 * Aliasing: every output may be the same pointer as one of its inputs
 * (y == x, or y == gate / y == up); any other overlap is undefined.
 * A row's or element's result never depends on how many others share a call.
 *
 * Special values follow each formula evaluated in IEEE arithmetic, as PyTorch
 * does: NaN in gives NaN out, and -Inf gives NaN for Silu and both Gelus
 * (-inf * 0). Where exp(-x) overflows (x < -88.72) Sigmoid, Silu and the
 * gates built on them may return 0 as the spec's f32 formula 1 / (1 + exp(-x))
 * does; the exact result there is below 2^-127 (times |x| for Silu).
 */
#ifndef TINYLLM_ACTIVATIONS_H
#define TINYLLM_ACTIVATIONS_H

#include <stdint.h>

#include "tinyllm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- elementwise, y[i] = f(x[i]) for i < n; y == x allowed --------------- */

/* Silu (Swish-1): x * sigmoid(x) = x / (1 + exp(-x)). */
void tl_silu_f32(const float* x, float* y, int64_t n);

/* Gelu_erf: x * 0.5 * (1 + erf(x / sqrt(2))), the exact GELU (BERT). */
void tl_gelu_erf_f32(const float* x, float* y, int64_t n);

/* Gelu_tanh: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))),
 * the approximation of GPT-2 and Gemma. */
void tl_gelu_tanh_f32(const float* x, float* y, int64_t n);

/* Relu: x if x > 0, else +0; a NaN stays NaN. */
void tl_relu_f32(const float* x, float* y, int64_t n);

/* LeakyRelu: x if x > 0, else alpha * x (any alpha, including alpha > 1). */
void tl_leaky_relu_f32(const float* x, float* y, int64_t n, float alpha);

/* PRelu, one slope per channel: x and y are [outer, channels, inner]
 * row-major, slope has `channels` entries, and
 *   y[o, c, i] = x[o, c, i] if x > 0, else slope[c] * x[o, c, i].
 * NCHW input: outer = N, channels = C, inner = H * W. Channels-last input
 * [..., C]: outer = the product of the leading dims, inner = 1. A single
 * shared slope: channels = 1, inner = the whole row. */
void tl_prelu_f32(const float* x, const float* slope, float* y, int64_t outer, int64_t channels, int64_t inner);

/* Sigmoid: 1 / (1 + exp(-x)). */
void tl_sigmoid_f32(const float* x, float* y, int64_t n);

/* Tanh: the hyperbolic tangent. */
void tl_tanh_f32(const float* x, float* y, int64_t n);

/* ---- the same in f16 and bf16: x and y are uint16_t bit patterns ---------
 * _f16: IEEE binary16; _bf16: bfloat16 (the top half of a binary32). Each
 * y[i] is f(x[i]) computed in float from the exact value of x[i], then
 * rounded once to the dtype, to nearest with ties to even (an overflow past
 * the largest finite value by half an ulp or more gives an infinity; a NaN
 * stays a NaN). LeakyRelu's alpha stays a float. y == x allowed. */
void tl_silu_f16(const uint16_t* x, uint16_t* y, int64_t n);
void tl_silu_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void tl_gelu_erf_f16(const uint16_t* x, uint16_t* y, int64_t n);
void tl_gelu_erf_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void tl_gelu_tanh_f16(const uint16_t* x, uint16_t* y, int64_t n);
void tl_gelu_tanh_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void tl_relu_f16(const uint16_t* x, uint16_t* y, int64_t n);
void tl_relu_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void tl_leaky_relu_f16(const uint16_t* x, uint16_t* y, int64_t n, float alpha);
void tl_leaky_relu_bf16(const uint16_t* x, uint16_t* y, int64_t n, float alpha);
void tl_sigmoid_f16(const uint16_t* x, uint16_t* y, int64_t n);
void tl_sigmoid_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void tl_tanh_f16(const uint16_t* x, uint16_t* y, int64_t n);
void tl_tanh_bf16(const uint16_t* x, uint16_t* y, int64_t n);

/* PRelu of f16 or bf16 x and y (uint16_t bit patterns) with f32 slopes, as
 * LeakyRelu's half twins keep alpha a float: each x widened exactly, the
 * product slope[c] * x in f32, y rounded once to the dtype (to nearest, ties
 * to even; an overflow past the largest finite value gives an infinity).
 * Rounding the slope to the dtype first (a kernel that holds its weights in
 * the activations' dtype) adds a second rounding and is outside this
 * contract. Shapes as tl_prelu_f32; y == x allowed. */
void tl_prelu_f16(const uint16_t* x, const float* slope, uint16_t* y, int64_t outer, int64_t channels, int64_t inner);
void tl_prelu_bf16(const uint16_t* x, const float* slope, uint16_t* y, int64_t outer, int64_t channels, int64_t inner);

/* ---- softmax along any axis ------------------------------------------------ */

/* Softmax(x, axis) for x of rank 1..4 with dims shape[0..rank), numerically
 * stable: m = max along the axis, e = exp(x - m), y = e / sum(e) along it.
 * axis may be negative (-1 is the last axis): -rank <= axis < rank.
 * TL_ERR_INVALID_ARGUMENT, writing nothing, for a rank outside 1..4, an axis
 * outside that range, a negative dim, or non-zero dims whose product is past
 * INT64_MAX.
 * y == x allowed. A line holding NaN or +Inf, or only -Inf, is all NaN (the
 * formula's own result); -Inf entries elsewhere give 0. */
tl_status tl_softmax_f32(const float* x, float* y, const int64_t* shape, int rank, int axis);
/* The same over f16 or bf16 (uint16_t bit patterns): each element widened
 * to f32, the max, exp(x - m) and the sum in f32 (never in the half dtype:
 * exp overflows f16 past x - m = 11.09, and a half sum loses a rounding per
 * term), y rounded once to the dtype, to nearest with ties to even. */
tl_status tl_softmax_f16(const uint16_t* x, uint16_t* y, const int64_t* shape, int rank, int axis);
tl_status tl_softmax_bf16(const uint16_t* x, uint16_t* y, const int64_t* shape, int rank, int axis);

/* ---- gated elementwise middle of the FFNs: y[i] = act(gate[i]) * up[i] ---- */
/* y may be gate or up. In FFN terms gate = x @ W_gate^T, up = x @ W_up^T. */

/* SwiGlu (Llama, Qwen, Mistral): silu(gate) * up. */
void tl_swiglu_f32(const float* gate, const float* up, float* y, int64_t n);

/* Which GELU GeGlu gates with. */
typedef enum tl_gelu_approximation {
  TL_GELU_ERF = 0, /* Gelu_erf, the exact form */
  TL_GELU_TANH = 1 /* Gelu_tanh */
} tl_gelu_approximation;

/* GeGlu: gelu(gate) * up with the GELU that `approximation` names;
 * TL_ERR_INVALID_ARGUMENT, writing nothing, for any other value. */
tl_status tl_geglu_f32(const float* gate, const float* up, float* y, int64_t n, int approximation);

/* Glu: sigmoid(gate) * up. PyTorch's glu(x, dim) splits x into halves (a, b)
 * and returns a * sigmoid(b): that is gate = b, up = a here. */
void tl_glu_f32(const float* gate, const float* up, float* y, int64_t n);

/* The same in f16 and bf16: gate, up and y are uint16_t bit patterns of the
 * dtype. Each gate[i] and up[i] widened to f32 exactly, act(gate) and the
 * product with up in f32 as the _f32 functions compute them (f32
 * accumulation: act(gate) is never rounded to the dtype before the
 * multiply), then y[i] rounded once to the dtype, to nearest with ties to
 * even (an overflow past the largest finite value by half an ulp or more
 * gives an infinity: f16 ends at 65504). Holding act(gate) in the half dtype
 * between the steps, as a half pipeline that stores the activation does,
 * adds a second rounding of 2^-11 (f16) or 2^-8 (bf16) and is outside this
 * contract. approximation as tl_geglu_f32. y may be gate or up. */
void tl_swiglu_f16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n);
void tl_swiglu_bf16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n);
tl_status tl_geglu_f16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, int approximation);
tl_status tl_geglu_bf16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, int approximation);
void tl_glu_f16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n);
void tl_glu_bf16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_ACTIVATIONS_H */
