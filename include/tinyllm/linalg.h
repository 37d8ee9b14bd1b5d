/* tinyllm/linalg.h: Matmul (spec/operations.txt section 1), the gated
 * feed-forwards SwiGlu, GeGlu and Glu with their three matmuls (section 4),
 * and the fused ops FusedNormMatmul and FusedSwiGlu (section 10).
 *
 * Conventions (as tinyllm/elementwise.h): float32 tensors, contiguous and
 * row-major; sizes are int64_t. "x: [..., K]" means any number of leading
 * dimensions, flattened by the caller into M rows. Weights are stored as the
 * spec writes them, W: [N, K] (out features by in features), and used
 * transposed: y = x @ W^T. No output may overlap an input.
 *
 * Every function validates its sizes and parameters and returns a tl_status
 * (tinyllm/status.h): on anything but TL_OK it has written nothing and
 * tl_last_error() says why. Data pointers are the caller's to get right.
 *   TL_ERR_INVALID_ARGUMENT  a negative size, a tensor whose byte count does
 *                            not fit an int64_t, eps negative or not finite,
 *                            an unknown GELU variant
 *   TL_ERR_SHAPE             K == 0 for FusedNormMatmul (an empty RmsNorm)
 * Zero sizes are otherwise legal: K == 0 gives y = 0 (the empty sum), M == 0
 * or N == 0 writes nothing.
 *
 * Numerics: every output element is a dot product whose terms are summed in
 * an order that depends on K alone (never on M, N, the position of the
 * element, or the thread count): a row of a batch has the bits it has alone
 * (batch invariance), and reruns give the same bits. libtl_kernels sums
 * chains of 128 multiply-adds (fused where the target has FMA: AVX2 and
 * AVX-512; a product then a sum on SSE4 and older, so their bits differ from
 * those targets') and adds the chains in order; the error
 * against the exact sum is then within a few units of roundoff of
 * sum_k |x[k] * w[k]| in practice (see docs/ops-linalg.md for the bound).
 * Threads: tinyllm/threads.h.
 */
#ifndef TINYLLM_LINALG_H
#define TINYLLM_LINALG_H

#include <stdint.h>

#include "tinyllm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Matmul: y[m, n] = sum_k x[m, k] * w[n, k],
 *   x: [M, K], w: [N, K], y: [M, N]. */
tl_status tl_matmul_f32(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K);

/* The same with x, w and y f16 or bf16 (uint16_t bit patterns: IEEE binary16,
 * or bfloat16, the top half of a binary32): each product and every sum in
 * f32, y rounded once to the dtype, to nearest with ties to even (past the
 * largest finite f16, 65504, an infinity), which is what PyTorch's CPU half
 * matmul and cuBLAS with an f32 compute type give. The products of two half
 * values are exact in f32 (11- or 8-bit significands; a bf16 product below
 * 2^-126 aside), so only the K - 1 additions and the final rounding err;
 * the order of the additions depends on K alone, as tl_matmul_f32's (batch
 * invariance, determinism), and any order (pairs first, as AVX512_BF16's
 * vdpbf16ps sums them, chains, blocks) is within the rule of
 * docs/tolerances.md. A kernel that accumulates in the
 * half dtype (f16 or bf16 FMAs, GPUs' fast half mode) is outside it: each
 * addition rounds at 2^-11 (f16) or 2^-8 (bf16) of the partial sum instead
 * of 2^-24, and an f16 partial sum past 65504 is an infinity even where the
 * whole sum is in range. */
tl_status tl_matmul_f16(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N, int64_t K);
tl_status tl_matmul_bf16(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N, int64_t K);

/* The GELU of GeGlu: the exact one, or the tanh approximation. Any other
 * value is refused (TL_ERR_INVALID_ARGUMENT). The last enumerator is none
 * to pass: it makes every non-negative int a value of the type in C++ too,
 * so a C caller's 2 reaches the kernels' check defined, not as undefined
 * behaviour (a C++ enum of 0 and 1 alone holds only 0 and 1). */
typedef enum tl_ffn_gelu {
  TL_FFN_GELU_ERF = 0,  /* x * 0.5 * (1 + erf(x / sqrt(2))) */
  TL_FFN_GELU_TANH = 1, /* 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))) */
  TL_FFN_GELU_RANGE_ = 0x7fffffff
} tl_ffn_gelu;

/* The gated feed-forwards, x: [M, D], w_gate and w_up: [H, D], w_down: [D, H],
 * y: [M, D]:
 *   gate = x @ w_gate^T, up = x @ w_up^T     ([M, H])
 *   y    = (act(gate) * up) @ w_down^T
 * with act = Silu (SwiGlu: Llama, Qwen, Mistral), Gelu (GeGlu) or Sigmoid
 * (Glu). */
tl_status tl_swiglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                            int64_t M, int64_t D, int64_t H);
tl_status tl_geglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                           int64_t M, int64_t D, int64_t H, tl_ffn_gelu gelu);
tl_status tl_glu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                         int64_t M, int64_t D, int64_t H);

/* FusedSwiGlu, the gate and up projections and their product without the
 * [M, H] gate and up tensors in memory; x: [M, D], w_gate and w_up: [H, D],
 * h: [M, H]:
 *   h = Silu(x @ w_gate^T) * (x @ w_up^T) */
tl_status tl_fused_swiglu_f32(const float* x, const float* w_gate, const float* w_up, float* h, int64_t M, int64_t D,
                              int64_t H);

/* FusedNormMatmul, RmsNorm of each row of x then the matmul; x: [M, K],
 * norm_w: [K], w: [N, K], y: [M, N]:
 *   y = Matmul(RmsNorm(x, norm_w, eps), w),  RmsNorm(x) = x / sqrt(mean(x^2) + eps) * norm_w */
tl_status tl_fused_norm_matmul_f32(const float* x, const float* norm_w, const float* w, float* y, int64_t M, int64_t N,
                                   int64_t K, float eps);

/* The feed-forwards and the fused ops in f16 and bf16: x, the weights and the
 * output as uint16_t bit patterns (IEEE binary16, or bfloat16), FusedNormMatmul's
 * norm_w f32 (llama.cpp keeps a half model's norm gains in f32, and the gain
 * is used as given, not rounded to the dtype). Every product and sum in f32,
 * as tl_matmul_f16 computes them (the products of two half values are exact
 * in f32), the activation and RmsNorm in f32 as the f32 functions compute
 * them, and the output rounded once to the dtype, to nearest even (past
 * 65504 an f16 infinity).
 *
 * Between the two steps, the feed-forwards' hidden layer act(g) * u and
 * FusedNormMatmul's normalized rows z are f32 values that a kernel may keep
 * in f32 or round once to the dtype: llama.cpp computes them in f32 and
 * rounds them to the weights' type as the next matmul's input (ggml converts
 * that operand to the vec_dot type, f16 or bf16), PyTorch's half modules
 * store them in the dtype. Either is within the limit of docs/tolerances.md,
 * which carries that one rounding (u of the value, half the subnormal spacing
 * below the smallest normal). A hidden value past 65504, an f16 infinity when
 * rounded and finite when kept, is left open (the checks' cases keep hidden
 * values and z below 2^15). Accumulating a dot product or the norm's sum of
 * squares in the half dtype is outside the contract: each addition rounds at
 * 2^-11 (f16) or 2^-8 (bf16), long sums stagnate, and an f16 partial sum
 * past 65504 is an infinity (x^2 of |x| > 256 already is). */
tl_status tl_swiglu_ffn_f16(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, const uint16_t* w_down,
                            uint16_t* y, int64_t M, int64_t D, int64_t H);
tl_status tl_swiglu_ffn_bf16(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, const uint16_t* w_down,
                             uint16_t* y, int64_t M, int64_t D, int64_t H);
tl_status tl_geglu_ffn_f16(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, const uint16_t* w_down,
                           uint16_t* y, int64_t M, int64_t D, int64_t H, tl_ffn_gelu gelu);
tl_status tl_geglu_ffn_bf16(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, const uint16_t* w_down,
                            uint16_t* y, int64_t M, int64_t D, int64_t H, tl_ffn_gelu gelu);
tl_status tl_glu_ffn_f16(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, const uint16_t* w_down,
                         uint16_t* y, int64_t M, int64_t D, int64_t H);
tl_status tl_glu_ffn_bf16(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, const uint16_t* w_down,
                          uint16_t* y, int64_t M, int64_t D, int64_t H);
tl_status tl_fused_swiglu_f16(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, uint16_t* h, int64_t M,
                              int64_t D, int64_t H);
tl_status tl_fused_swiglu_bf16(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, uint16_t* h, int64_t M,
                               int64_t D, int64_t H);
tl_status tl_fused_norm_matmul_f16(const uint16_t* x, const float* norm_w, const uint16_t* w, uint16_t* y, int64_t M,
                                   int64_t N, int64_t K, float eps);
tl_status tl_fused_norm_matmul_bf16(const uint16_t* x, const float* norm_w, const uint16_t* w, uint16_t* y, int64_t M,
                                    int64_t N, int64_t K, float eps);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_LINALG_H */
