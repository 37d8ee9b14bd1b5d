/* tinyllm/quant.h: quantized weights (spec/operations.txt section 9) in
 * ggml's block layouts Q8_0, Q4_0 and Q4_K, byte for byte, so blocks move
 * between this library and GGUF files unchanged: Quantize, Dequantize, and a
 * quantized matmul that reads the blocks directly.
 *
 * A row of k values is k / QK consecutive blocks (QK = 32, or 256 for Q4_K);
 * rows follow each other. Scales are IEEE binary16 ("f16"), little-endian.
 *
 * Q8_0, 34 bytes per 32 values: f16 d, int8 qs[32];  value j = qs[j] * d.
 * Q4_0, 18 bytes per 32 values: f16 d, uint8 qs[16]; value j = ((qs[j] & 15) - 8) * d
 *       and value j + 16 = ((qs[j] >> 4) - 8) * d, for j < 16.
 * Q4_K, 144 bytes per 256 values: f16 d, f16 dmin, uint8 scales[12], uint8 qs[128].
 *       Eight sub-blocks of 32 values, each with a 6-bit scale sc and a 6-bit
 *       min m packed in scales[] (sub-block j < 4: sc = scales[j] & 63,
 *       m = scales[j + 4] & 63; j >= 4: sc = (scales[j + 4] & 15) | (scales[j - 4] >> 6) << 4,
 *       m = (scales[j + 4] >> 4) | (scales[j] >> 6) << 4). Sub-blocks 2i and
 *       2i + 1 take the low and the high nibbles q of qs[32 i .. 32 i + 31];
 *       value = (f32(d) * sc) * q - f32(dmin) * m, rounded once to float.
 *
 * Dequantize is exact: every value is the float the formulas above give.
 * Quantize is ggml's reference quantizer, bit for bit (its rounding rules
 * are in docs/ops-linalg.md): Q8_0 d = max|x| / 127 and q = round(x * (1 / d)),
 * halves away from zero; Q4_0 d = x_max / -8 with x_max the value of largest
 * magnitude (the first of equals) and q = min(15, floor(x * (1 / d) + 8.5)); Q4_K
 * the search of quantize_row_q4_K_ref for each sub-block's scale and min,
 * evaluated in float in program order with no fused multiply-add. The scale
 * stored is the f32 scale rounded to f16 (to nearest, ties to even); the
 * quants are computed with the f32 scale, as ggml does. Where ggml is
 * undefined, a choice: a block whose f32 scale d is so small that 1 / d
 * overflows (|d| < 2^-128; its f16 scale is 0) gets the zero quant.
 *
 * Every function validates and returns a tl_status (tinyllm/status.h); on
 * anything but TL_OK it has written nothing and tl_last_error() says why.
 *   TL_ERR_INVALID_ARGUMENT  a negative size, a byte count past int64_t, a
 *                            value to quantize that is not finite, or a block
 *                            whose scale does not fit f16 (Q8_0: max|x| / 127
 *                            rounds past 65504; Q4_0: max|x| / 8; Q4_K: the
 *                            largest fitted scale or min over 63)
 *   TL_ERR_SHAPE             k (or K) not a multiple of the block's length
 * No output may overlap an input.
 */
#ifndef TINYLLM_QUANT_H
#define TINYLLM_QUANT_H

#include <stdint.h>

#include "tinyllm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TL_QK8_0 32
#define TL_Q8_0_BLOCK_BYTES 34
#define TL_QK4_0 32
#define TL_Q4_0_BLOCK_BYTES 18
#define TL_QK_K 256
#define TL_Q4_K_BLOCK_BYTES 144

/* Quantize rows x k floats into rows * k / QK blocks. */
tl_status tl_quantize_q8_0_f32(const float* x, void* blocks, int64_t rows, int64_t k);
tl_status tl_quantize_q4_0_f32(const float* x, void* blocks, int64_t rows, int64_t k);
tl_status tl_quantize_q4_k_f32(const float* x, void* blocks, int64_t rows, int64_t k);

/* Quantize f16 or bf16 values (uint16_t bit patterns): each value widened
 * to f32, which holds it exactly, then quantized as tl_quantize_*_f32
 * quantizes those floats (the same blocks, the same refusals): an infinity
 * or a NaN of the dtype is refused, as is a block whose f16 scale would
 * overflow (bf16 values reach it; f16's 65504 does not: Q8_0's scale is then
 * 515.8). An f16 subnormal is its exact value, not 0. The scale is computed
 * in f32 from the widened values and rounded to f16 once, the quants are
 * computed with the f32 scale, as for f32 input. */
tl_status tl_quantize_q8_0_f16(const uint16_t* x, void* blocks, int64_t rows, int64_t k);
tl_status tl_quantize_q4_0_f16(const uint16_t* x, void* blocks, int64_t rows, int64_t k);
tl_status tl_quantize_q4_k_f16(const uint16_t* x, void* blocks, int64_t rows, int64_t k);
tl_status tl_quantize_q8_0_bf16(const uint16_t* x, void* blocks, int64_t rows, int64_t k);
tl_status tl_quantize_q4_0_bf16(const uint16_t* x, void* blocks, int64_t rows, int64_t k);
tl_status tl_quantize_q4_k_bf16(const uint16_t* x, void* blocks, int64_t rows, int64_t k);

/* Dequantize rows * k / QK blocks into rows x k floats. */
tl_status tl_dequantize_q8_0_f32(const void* blocks, float* y, int64_t rows, int64_t k);
tl_status tl_dequantize_q4_0_f32(const void* blocks, float* y, int64_t rows, int64_t k);
tl_status tl_dequantize_q4_k_f32(const void* blocks, float* y, int64_t rows, int64_t k);

/* Dequantize into f16 or bf16 (uint16_t bit patterns): each value is the
 * float the formulas above give (tl_dequantize_*_f32's, bit for bit),
 * rounded once to the dtype, to nearest with ties to even; past 65504 an
 * f16 value is an infinity (a Q8_0 scale of 65504 times 127 is), below
 * 2^-14 an f16 subnormal. For Q8_0 and Q4_0 the float is the exact product
 * of the scale and the quant, so y is the exact value rounded once. Q4_K's
 * float is itself one rounding of (d sc) q - dmin m (both products exact):
 * the value here is that float rounded again, as ggml's half dequantizers
 * compute it (in f32, then converted). It differs from the exact difference
 * rounded once only where the float rounding lands exactly on a tie of the
 * dtype that the exact difference lies beside, within half an f32 ulp
 * (e.g. d sc q = 1 + 3 * 2^-11 and dmin m = 2^-24: the float is the tie,
 * which goes to even, 1 + 2^-9; the exact value is below it, 1 + 2^-10). */
tl_status tl_dequantize_q8_0_f16(const void* blocks, uint16_t* y, int64_t rows, int64_t k);
tl_status tl_dequantize_q4_0_f16(const void* blocks, uint16_t* y, int64_t rows, int64_t k);
tl_status tl_dequantize_q4_k_f16(const void* blocks, uint16_t* y, int64_t rows, int64_t k);
tl_status tl_dequantize_q8_0_bf16(const void* blocks, uint16_t* y, int64_t rows, int64_t k);
tl_status tl_dequantize_q4_0_bf16(const void* blocks, uint16_t* y, int64_t rows, int64_t k);
tl_status tl_dequantize_q4_k_bf16(const void* blocks, uint16_t* y, int64_t rows, int64_t k);

/* The quantized matmul y = x @ Dequantize(w)^T, reading the blocks of w
 * directly (no f32 copy of w is made); x: [M, K] f32, w: N rows of K / QK
 * blocks, y: [M, N] f32. Activations stay f32 (unlike ggml's CPU backend,
 * which quantizes x to Q8 first): the result is the dot product with the
 * dequantized weights, within the tolerance of Matmul. */
tl_status tl_qmatmul_q8_0_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K);
tl_status tl_qmatmul_q4_0_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K);
tl_status tl_qmatmul_q4_k_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K);

/* The quantized matmul of ggml's CPU backend ("q8x": activations quantized
 * too): each row of x is first quantized per block, then every block of w
 * meets its block of x in an integer dot product, and the blocks' scaled
 * integer sums are added in f32. x: [M, K] f32, w: N rows of K / QK blocks,
 * y: [M, N] f32, as tl_qmatmul_*_f32.
 *
 * x's quantizer (ggml's, evaluated in float in program order, no fused
 * multiply-add):
 *   Q8_0 and Q4_0 weights: x as Q8_0 blocks of 32 (quantize_row_q8_0_ref,
 *     tl_quantize_q8_0_f32's rule): dx = max|x| / 127, qx = roundf(x * (1 / dx))
 *     (halves away from zero; 0 where 1 / dx overflows), dx then rounded to f16
 *     (to nearest, ties to even): x ~ f16(dx) qx.
 *   Q4_K weights: x as Q8_K blocks of 256 (quantize_row_q8_K_ref): x_max the
 *     value of largest magnitude (the first of equals); a block of zeros
 *     has dx = 0 and qx = 0; else iscale = -127 / x_max,
 *     qx = min(127, nearest_int(iscale * x)) (ties to even), dx = 1 / iscale
 *     kept in f32; where iscale overflows (|x_max| below about 2^-121) qx = 0 and
 *     dx = 0. bsums[j] = the sum of qx over values 16 j .. 16 j + 15.
 * The dot product, each integer sum exact in int32:
 *   Q8_0: t_b = (f16(dw) * dx) * float(sum_j qw_j qx_j)
 *   Q4_0: t_b = (f16(dw) * dx) * float(sum_j (qw_j - 8) qx_j)
 *   Q4_K: t_b = (f16(d) * dx) * float(sum_s sc_s sum_{j in s} q_j qx_j)
 *             - (f16(dmin) * dx) * float(sum_s m_s (bsums[2 s] + bsums[2 s + 1]))
 *   y = t_0 + t_1 + ..., added in f32 in block order from +0. Every rounding
 *   here depends on K alone: rows are batch and thread invariant.
 * konform judges these ops against the exact product of the unquantized x
 * with the dequantized w, within the error any round-to-nearest Q8
 * quantizer of x may make (docs/ops-linalg.md, "The q8x matmuls"); ggml's
 * quantizer bit for bit is the strict profile's demand.
 *
 * Refused (TL_ERR_INVALID_ARGUMENT) beside the sizes and K % QK: a value of
 * x that is not finite, and (Q8_0 and Q4_0 weights) a block of 32 values of
 * x whose scale max|x| / 127 does not fit f16 (rounds to 65520 or more). */
tl_status tl_qmatmul_q8_0_q8x_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K);
tl_status tl_qmatmul_q4_0_q8x_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K);
tl_status tl_qmatmul_q4_k_q8x_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_QUANT_H */
