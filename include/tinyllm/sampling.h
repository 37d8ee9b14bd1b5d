/* tinyllm/sampling.h: the Sample op of spec/operations.txt section 8 (Greedy,
 * Temperature, TopK, TopP, MinP), batched over rows of logits.
 *
 * Conventions (as tinyllm/elementwise.h): float32 logits, contiguous and
 * row-major, [rows, vocab]; sizes are int64_t; one int32_t token per row.
 *
 * tl_sample_f32 validates its sizes and the settings its method reads and
 * returns a tl_status (tinyllm/status.h): on anything but TL_OK it has
 * written nothing and tl_last_error() says why.
 *   TL_ERR_INVALID_ARGUMENT  rows < 0, vocab < 1, vocab > INT32_MAX, a byte
 *                            count rows * vocab * 4 that does not fit an
 *                            int64_t, an unknown method; for every method but
 *                            Greedy: temperature NaN, <= 0 or infinite; TopK:
 *                            top_k < 1 or top_k > vocab; TopP: top_p NaN or
 *                            outside (0, 1]; MinP: min_p NaN or outside [0, 1]
 * A setting the method does not read is not validated. rows == 0 writes
 * nothing and is TL_OK.
 *
 * Greedy: tl_argmax_f32 of the row (lowest index of the largest number, NaN
 * skipped, -1 when the row has no number). No draw.
 *
 * The other methods, per row (m = the row's largest non-NaN logit):
 *   weight w_i = exp((l_i - m) / t)    (the max subtracted before dividing by
 *                                       t: never inf - inf; w of the max is 1)
 *   NaN and -Inf logits have weight 0. If m is +Inf, the +Inf logits have
 *   weight 1 and every other logit 0. A row with no positive weight (all
 *   NaN or -Inf) gives token -1.
 * The kept tokens and their order:
 *   Temperature  every token, in index order
 *   TopK         the sorted order (logit descending, ties by lower index
 *                first, NaN last) cut to its first top_k positions
 *   TopP         the sorted order cut to its first L positions, L = the
 *                number of positions j with C_j <= top_p, at least 1 (the
 *                first token is always kept), C_j = (w of positions 0..j)
 *                / (sum of all w): "cumsum <= p", inclusive
 *   MinP         every token with w_i >= min_p * max(w) (= min_p, max(w) = 1),
 *                in index order: "probs >= p * max(probs)"
 * Renormalisation is implicit: the draw uses the kept weights' own sum Z.
 *
 * The draw (machine-independent): PCG32 XSH-RR (O'Neill's pcg32_srandom_r),
 *   inc = (r << 1) | 1 with r = the row index (row r is its own stream);
 *   state = 0; step; state += seed; step;
 *   step: state = state * 6364136223846793005 + inc (mod 2^64);
 *   next32: old = state, step, xorshifted = ((old >> 18) ^ old) >> 27,
 *           rot = old >> 59, return rotr32(xorshifted, rot).
 * u = (next32() >> 8) * 2^-24 in [0, 1), one draw per row. The token is the
 * first kept position j with u * Z < (w of kept positions 0..j); if rounding
 * leaves none, the last kept position whose weight is positive.
 * seed == 0: not reproducible (the seed is drawn from the clock and a
 * counter); any other seed gives the same tokens on every machine, up to a
 * u that lands within float rounding of a cumulative boundary.
 */
#ifndef TINYLLM_SAMPLING_H
#define TINYLLM_SAMPLING_H

#include <stdint.h>

#include "tinyllm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The [sampling] config's method, by value. */
typedef enum tl_sample_method {
  TL_SAMPLE_GREEDY = 0,
  TL_SAMPLE_TEMPERATURE = 1,
  TL_SAMPLE_TOP_K = 2,
  TL_SAMPLE_TOP_P = 3,
  TL_SAMPLE_MIN_P = 4
} tl_sample_method;

/* tokens[r] = Sample(logits[r, :], method) for r < rows, as above.
 * logits: [rows, vocab]; tokens: [rows]. temperature is read by every method
 * but Greedy (the [sampling] default is 1.0); top_k by TopK only, top_p by
 * TopP only, min_p by MinP only. */
tl_status tl_sample_f32(const float* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                        float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed);

/* The same op on f16 or bf16 logits (their 16-bit patterns, as
 * tinyllm/tensor.h stores them), tokens int32, the same methods, settings,
 * refusals (the byte count rows * vocab * 4 is that of the logits widened to
 * float) and draw. Each logit is widened to float exactly, and the weights,
 * sums and comparisons are tl_sample_f32's, in float, on those values: a
 * half NaN (exponent all ones, mantissa not zero: any payload, either sign)
 * has weight 0 and is skipped by Greedy, +-Inf are the infinities, -0 ties
 * with +0. */
tl_status tl_sample_f16(const uint16_t* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                        float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed);
tl_status tl_sample_bf16(const uint16_t* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                         float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_SAMPLING_H */
