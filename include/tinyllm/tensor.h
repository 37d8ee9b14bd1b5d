/* tinyllm/tensor.h: the tensor ops of spec/operations.txt section 1.
 *
 *   Add, Sub, Mul, Div  elementwise with NumPy broadcasting
 *   Clamp, NanToNum     numerical stability, elementwise
 *   Argmax              index of the maximum along one axis
 *   Transpose, Permute, Reshape, Concat, Split, Chunk   layout (exact copies)
 *
 * Conventions (those of tinyllm/elementwise.h): float32 tensors, contiguous
 * row-major, int64_t sizes. A tensor is a pointer with a shape of `rank`
 * dimensions, 0 <= rank <= TL_TENSOR_MAX_RANK; rank 0 is a scalar holding one
 * element (its shape pointer may be NULL). A data pointer may be NULL only
 * when its tensor has no elements.
 *
 * Every function checks its arguments and returns a tl_status
 * (tinyllm/status.h): TL_ERR_SHAPE for shapes that do not fit together (no
 * broadcast, a wrong output shape, element counts that differ, split sizes
 * that do not add up), TL_ERR_INVALID_ARGUMENT for a value out of its range
 * (a rank, a negative size, an axis, lo > hi, a NULL pointer). On any status
 * but TL_OK nothing is written and tl_last_error() says what was wrong.
 * Where several things are wrong, the first in this order is reported: each
 * shape and parameter on its own (rank, dimensions, element count, axis,
 * sizes, bounds), then how the shapes fit together, then the data pointers.
 *
 * Axes: `axis` may be negative and then counts from the end (-1 is the last
 * axis), as in NumPy and PyTorch. Permute's entries may not.
 *
 * Aliasing: stated per function; buffers not named there must not overlap.
 * Special values: the arithmetic follows IEEE 754 (x/0 = +-Inf, 0/0 = NaN,
 * NaN in gives NaN out); the layout ops, Clamp and NanToNum copy the bits of
 * the values they keep, NaN payloads and the sign of zero included.
 */
#ifndef TINYLLM_TENSOR_H
#define TINYLLM_TENSOR_H

#include <float.h>
#include <stdint.h>

#include "tinyllm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TL_TENSOR_MAX_RANK 6

/* ---- Add, Sub, Mul, Div: y = a OP b, broadcast the NumPy way ------------
 *
 * Shapes are aligned at their last dimension; a missing leading dimension
 * counts as 1; two dimensions fit when they are equal or one of them is 1
 * (a dimension of 0 fits only 0 or 1). The caller passes y's shape, which
 * must be exactly the broadcast shape: rank max(a_rank, b_rank), and in each
 * dimension the larger of the two (the one that is not 1). Each element of y
 * is one correctly rounded float operation on the two elements it sees.
 * Aliasing: y == a when a's shape equals y's, y == b when b's shape equals
 * y's (the in-place residual add). */
tl_status tl_add_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank);
tl_status tl_sub_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank);
tl_status tl_mul_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank);
/* IEEE division: x/0 = +-Inf (the sign of x times the sign of the zero),
 * 0/0 = NaN, Inf/Inf = NaN. */
tl_status tl_div_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank);
/* The same over f16 or bf16 operands and result (uint16_t bit patterns):
 * each element pair widened to f32, the f32 operation, y rounded once to
 * the dtype, to nearest with ties to even (the f32 rounding and this one:
 * within 1 + 2^-13 of an f16 ulp's half, 1 + 2^-16 of a bf16 one's). */
tl_status tl_add_broadcast_f16(const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b,
                               const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape,
                               int64_t y_rank);
tl_status tl_add_broadcast_bf16(const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b,
                                const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape,
                                int64_t y_rank);
tl_status tl_sub_broadcast_f16(const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b,
                               const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape,
                               int64_t y_rank);
tl_status tl_sub_broadcast_bf16(const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b,
                                const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape,
                                int64_t y_rank);
tl_status tl_mul_broadcast_f16(const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b,
                               const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape,
                               int64_t y_rank);
tl_status tl_mul_broadcast_bf16(const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b,
                                const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape,
                                int64_t y_rank);
tl_status tl_div_broadcast_f16(const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b,
                               const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape,
                               int64_t y_rank);
tl_status tl_div_broadcast_bf16(const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b,
                                const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape,
                                int64_t y_rank);

/* ---- Clamp: y[i] = min(max(x[i], lo), hi) -------------------------------
 *
 * Exactly: y[i] = lo if x[i] < lo, hi if x[i] > hi, x[i] (its bits)
 * otherwise. NaN propagates (a NaN x is copied); a zero equal to the bound
 * keeps its own sign. lo and hi may be infinite (a one-sided clamp); a NaN
 * bound, or lo > hi, is TL_ERR_INVALID_ARGUMENT. y == x is allowed. */
tl_status tl_clamp_f32(const float* x, float* y, int64_t n, float lo, float hi);

/* Clamp of f16 or bf16 (uint16_t bit patterns, as the casts below): x is
 * compared in float with the float bounds as above, and the result is
 * rounded to the dtype, to nearest with ties to even. A kept x keeps its
 * value; a bound becomes its nearest value of the dtype (a bound beyond
 * 65504 in f16, an infinity). Same refusals; y == x is allowed. */
tl_status tl_clamp_f16(const uint16_t* x, uint16_t* y, int64_t n, float lo, float hi);
tl_status tl_clamp_bf16(const uint16_t* x, uint16_t* y, int64_t n, float lo, float hi);

/* Cast between f32 and the 16-bit floats, element by element (no aliasing:
 * the element sizes differ). x and y of a 16-bit dtype are uint16_t bit
 * patterns: _f16 IEEE binary16, _bf16 bfloat16 (the top half of a binary32).
 * f32 to f16 or bf16 rounds to nearest with ties to even: past the largest
 * finite value (65504 for f16) by half an ulp or more gives an infinity,
 * below half the smallest subnormal a zero of x's sign, a NaN a NaN.
 * f16 or bf16 to f32 is exact. */
void tl_cast_f32_to_f16(const float* x, uint16_t* y, int64_t n);
void tl_cast_f32_to_bf16(const float* x, uint16_t* y, int64_t n);
void tl_cast_f16_to_f32(const uint16_t* x, float* y, int64_t n);
void tl_cast_bf16_to_f32(const uint16_t* x, float* y, int64_t n);

/* ---- NanToNum: finite values kept, NaN and +-Inf replaced ---------------
 *
 * y[i] = nan for a NaN, posinf for +Inf, neginf for -Inf, x[i] (its bits)
 * otherwise. The replacements are any floats. y == x is allowed.
 *
 * The spec's defaults are nan = 0, posinf = F32_MAX, neginf = F32_MIN. The
 * spec's library is Rust, where f32::MIN is the most negative finite float,
 * -3.4028235e38 (C's FLT_MIN is the smallest positive normal, which would
 * turn -Inf into a tiny positive number); NumPy's nan_to_num agrees. */
#define TL_NAN_TO_NUM_DEFAULT_NAN 0.0f
#define TL_NAN_TO_NUM_DEFAULT_POSINF FLT_MAX
#define TL_NAN_TO_NUM_DEFAULT_NEGINF (-FLT_MAX)
tl_status tl_nan_to_num_f32(const float* x, float* y, int64_t n, float nan, float posinf, float neginf);

/* NanToNum of f16 or bf16: as above, with the replacement rounded to the
 * dtype (to nearest with ties to even; beyond its range, an infinity). The
 * defaults are the dtype's largest finite values, as NumPy and PyTorch take
 * them (FLT_MAX would round to an infinity): */
#define TL_NAN_TO_NUM_F16_DEFAULT_POSINF 65504.0f
#define TL_NAN_TO_NUM_F16_DEFAULT_NEGINF (-65504.0f)
#define TL_NAN_TO_NUM_BF16_DEFAULT_POSINF 3.38953139e38f /* 0x7f7f: (2 - 2^-7) 2^127 */
#define TL_NAN_TO_NUM_BF16_DEFAULT_NEGINF (-3.38953139e38f)
tl_status tl_nan_to_num_f16(const uint16_t* x, uint16_t* y, int64_t n, float nan, float posinf, float neginf);
tl_status tl_nan_to_num_bf16(const uint16_t* x, uint16_t* y, int64_t n, float nan, float posinf, float neginf);

/* ---- Argmax along one axis ---------------------------------------------
 *
 * For x of rank 1..TL_TENSOR_MAX_RANK, index gets shape[] without `axis`
 * (rank - 1 dimensions) as int32: for each slice along the axis, the rule of
 * tl_argmax_f32: the lowest index of the largest number (ties go first), NaN
 * skipped, -1 when the slice holds no number (all NaN, or an axis of length
 * 0). The axis may be at most INT32_MAX long. */
tl_status tl_argmax_axis_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index);
/* Argmax along one axis of f16 or bf16 x (16-bit patterns), as above on
 * the values: NaN is any pattern with the exponent all ones and a mantissa
 * not zero (every payload, either sign), skipped; -0 and +0 tie (the lower
 * index); the order is that of the numbers, not of the bit patterns. */
tl_status tl_argmax_axis_f16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index);
tl_status tl_argmax_axis_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index);

/* ---- Transpose: the last two axes swapped --------------------------------
 *
 * x of rank 2..TL_TENSOR_MAX_RANK, shape [..., R, C]; y has shape [..., C, R]
 * and y[..., j, i] = x[..., i, j] (a batch of matrix transposes). No aliasing. */
tl_status tl_transpose_f32(const float* x, const int64_t* shape, int64_t rank, float* y);
/* Transpose of f16 or bf16 x (16-bit patterns), as above. A copy: each
 * element of y is its element of x bit for bit: -0 and subnormals kept. A
 * NaN stays a NaN; its payload may be quieted or canonicalized, as in every
 * op (a kernel that widens to f32 and back quiets a signalling NaN). */
tl_status tl_transpose_f16(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y);
tl_status tl_transpose_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y);

/* ---- Permute: axes reordered ---------------------------------------------
 *
 * perm is a permutation of 0..rank-1 (rank 0..TL_TENSOR_MAX_RANK); output
 * axis i is input axis perm[i], as torch.permute and numpy.transpose: y has
 * shape[perm[0]], ..., shape[perm[rank-1]]. No aliasing. */
tl_status tl_permute_f32(const float* x, const int64_t* shape, int64_t rank, const int64_t* perm, float* y);
/* Permute of f16 or bf16 x (16-bit patterns), as above: a copy of the bit
 * patterns, as tl_transpose_f16 (-0 and subnormals kept, a NaN any NaN). */
tl_status tl_permute_f16(const uint16_t* x, const int64_t* shape, int64_t rank, const int64_t* perm, uint16_t* y);
tl_status tl_permute_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, const int64_t* perm, uint16_t* y);

/* ---- Reshape: same elements, same (row-major) order, a new shape ---------
 *
 * new_shape must hold as many elements as shape (no -1: the caller states
 * every dimension). A contiguous tensor can always be viewed with a new
 * shape, so no data has to move: y == x is that view, and the call only
 * checks the shapes. A distinct y receives a copy of x's elements in order.
 * Otherwise no aliasing. */
tl_status tl_reshape_f32(const float* x, const int64_t* shape, int64_t rank, float* y, const int64_t* new_shape,
                         int64_t new_rank);
/* Reshape of f16 or bf16 x (16-bit patterns), as above: y == x the view, a
 * distinct y a copy of the patterns, as tl_transpose_f16. */
tl_status tl_reshape_f16(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y, const int64_t* new_shape,
                         int64_t new_rank);
tl_status tl_reshape_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y, const int64_t* new_shape,
                          int64_t new_rank);

/* ---- Concat: count tensors glued along one axis --------------------------
 *
 * xs[k] has rank `rank` (1..TL_TENSOR_MAX_RANK) and shape shapes[k * rank ..
 * k * rank + rank - 1]; count >= 1. All shapes must match except along
 * `axis`; y has that shape with the axis as long as the sum of theirs, and
 * holds xs[0], xs[1], ... in order along it. No aliasing. */
tl_status tl_concat_f32(const float* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis,
                        float* y);
/* Concat of f16 or bf16 tensors (16-bit patterns), as above: a copy of the
 * patterns, as tl_transpose_f16 (-0 and subnormals kept, a NaN any NaN). */
tl_status tl_concat_f16(const uint16_t* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis,
                        uint16_t* y);
tl_status tl_concat_bf16(const uint16_t* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis,
                         uint16_t* y);

/* ---- Split: x cut along one axis into parts of explicit sizes ------------
 *
 * sizes[0..count) are >= 0 and add up to shape[axis] (count >= 1); ys[k]
 * has x's shape with the axis sizes[k] long and holds the k-th run of it.
 * ys[k] may be NULL when its part has no elements. No aliasing. */
tl_status tl_split_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,
                       int64_t count, float* const* ys);
/* Split of f16 or bf16 x (16-bit patterns), as above: a copy of the
 * patterns, as tl_transpose_f16. */
tl_status tl_split_f16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,
                       int64_t count, uint16_t* const* ys);
tl_status tl_split_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,
                        int64_t count, uint16_t* const* ys);

/* ---- Chunk: x cut along one axis into `chunks` parts of equal size --------
 *
 * The rule of torch.chunk: every part is ceil(L / chunks) long except the
 * last ones, which get what is left (L is shape[axis]; chunks >= 1). Where
 * torch.chunk returns fewer parts than asked (L = 6, chunks = 4 gives parts
 * of 2, 2, 2), the parts past the end here are empty (2, 2, 2, 0), so the
 * caller always gets `chunks` outputs. tl_chunk_length gives part i's length.
 * ys[i] may be NULL when its part has no elements. No aliasing. */
static inline int64_t tl_chunk_length(int64_t length, int64_t chunks, int64_t i) {
  const int64_t size = chunks > 0 ? length / chunks + (length % chunks != 0) : 0;
  if (size == 0 || i >= (length + size - 1) / size) return 0; /* past the end */
  return length - size * i < size ? length - size * i : size;
}
tl_status tl_chunk_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                       float* const* ys);
/* Chunk of f16 or bf16 x (16-bit patterns), as above: a copy of the
 * patterns, as tl_transpose_f16. */
tl_status tl_chunk_f16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                       uint16_t* const* ys);
tl_status tl_chunk_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                        uint16_t* const* ys);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_TENSOR_H */
