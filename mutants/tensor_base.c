/* tensor_base.c: the ops of tinyllm/tensor.h in plain C11, and their mutants.
 *
 * Compiled as is (KONFORM_MUTANT undefined or 0) this is a correct plugin
 * (konform_tensor_base): a third reading of the header, apart from the oracle
 * and libtl_kernels. With -DKONFORM_MUTANT=N it is mutant tensor_mNN: one
 * classic mistake switched on, everything else identical, so the harness has
 * one defect to find. mutants/manifest.tsv names the check that must catch
 * each. A mutant that ignores a refusal only ever writes within the buffers
 * the harness gives a bad case, so it is caught by its status, not by a crash.
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tinyllm/elementwise.h"
#include "tinyllm/tensor.h"

#ifndef KONFORM_MUTANT
#define KONFORM_MUTANT 0
#endif
#if KONFORM_MUTANT < 0 || KONFORM_MUTANT > 31
#error "KONFORM_MUTANT must be 0 (the correct base) or 1..31 (mutant tensor_m01..tensor_m31)"
#endif
#define MUTANT(n) (KONFORM_MUTANT == (n))
#define MAX_RANK TL_TENSOR_MAX_RANK

/* ---- status ------------------------------------------------------------- */

static _Thread_local char last_error[512];

const char* tl_last_error(void) { return last_error; }

static tl_status fail(tl_status status, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, args);
  va_end(args);
  return status;
}

/* A shape from the ABI: rank in [min_rank, MAX_RANK], dimensions >= 0, a byte
 * count that fits; *count gets the elements. */
static tl_status read_dims(const int64_t* shape, int64_t rank, int64_t min_rank, const char* what, int64_t* dims,
                           int64_t* count) {
  if (rank < min_rank || rank > MAX_RANK)
    return fail(TL_ERR_INVALID_ARGUMENT, "%s: rank %lld is not in %lld..%d", what, (long long)rank, (long long)min_rank,
                MAX_RANK);
  if (rank > 0 && shape == NULL) return fail(TL_ERR_INVALID_ARGUMENT, "%s: NULL shape", what);
  int has_zero = 0;
  for (int64_t i = 0; i < rank; ++i) {
    dims[i] = shape[i];
    if (dims[i] < 0) return fail(TL_ERR_INVALID_ARGUMENT, "%s: dimension %lld is negative", what, (long long)i);
    if (dims[i] == 0) has_zero = 1;
  }
  *count = has_zero ? 0 : 1;
  for (int64_t i = 0; i < rank && !has_zero; ++i) {
    if (dims[i] > (INT64_MAX / 4) / *count) return fail(TL_ERR_INVALID_ARGUMENT, "%s: too many elements", what);
    *count *= dims[i];
  }
  return TL_OK;
}

static tl_status need(const void* p, int64_t count, const char* what) {
  return p == NULL && count > 0 ? fail(TL_ERR_INVALID_ARGUMENT, "%s is NULL", what) : TL_OK;
}

static tl_status resolve_axis(int64_t axis, int64_t rank, int64_t* out) {
  if (axis < -rank || axis >= rank) return fail(TL_ERR_INVALID_ARGUMENT, "axis %lld out of range", (long long)axis);
  *out = axis < 0 ? axis + rank : axis;
  return TL_OK;
}

/* ---- Add, Sub, Mul, Div -------------------------------------------------- */

enum arith { ADD, SUB, MUL, DIV };

#if MUTANT(29)
/* m29: a Newton quotient taken as final without checking it: y from a 14-bit
 * reciprocal and one step, q = a y corrected once. Right almost always; one
 * ulp low where b's significand is all ones and a is a power of two. */
static float newton_quotient(float a, float b) {
  float y = 1.0f / b;
  uint32_t bits;
  memcpy(&bits, &y, sizeof bits);
  bits &= ~0x1FFu; /* 14 bits, as an estimate instruction gives */
  memcpy(&y, &bits, sizeof y);
  y = fmaf(fmaf(-b, y, 1.0f), y, y);
  const float q = a * y;
  return fmaf(fmaf(-b, q, a), y, q);
}
#endif

static float apply(enum arith op, float a, float b) {
  switch (op) {
    case ADD: return a + b;
#if MUTANT(3) /* m03: a - b as -(b - a): the same numbers, but x - x gives -0 */
    case SUB: return -(b - a);
#elif MUTANT(4) /* m04: operands swapped */
    case SUB: return b - a;
#else
    case SUB: return a - b;
#endif
    case MUL: return a * b;
#if MUTANT(7) /* m07: b / a */
    case DIV: return b / a;
#elif MUTANT(8)  /* m08: "safe" division: 0 where the divisor is 0 */
    case DIV: return b == 0.0f ? 0.0f : a / b;
#elif MUTANT(29) /* m29: an unchecked Newton quotient (above) for finite nonzero operands */
    case DIV: return isfinite(a) && isfinite(b) && a != 0.0f && b != 0.0f ? newton_quotient(a, b) : a / b;
#else
    case DIV: return a / b;
#endif
  }
  return a;
}

/* Strides of an operand over y's dimensions: 0 where it broadcasts (a missing
 * leading dimension, or an extent of 1). */
static void operand_strides(const int64_t* dims, int64_t rank, int64_t y_rank, int64_t* stride) {
  int64_t step = 1;
  for (int64_t i = y_rank - 1; i >= 0; --i) {
    const int64_t j = i - (y_rank - rank); /* this operand's own dimension */
    if (j < 0) {
      stride[i] = 0;
      continue;
    }
#if MUTANT(5) /* m05: the stride of a size-1 dimension is not zeroed */
    stride[i] = step;
#else
    stride[i] = dims[j] == 1 ? 0 : step;
#endif
    step *= dims[j];
  }
}

static tl_status broadcast(enum arith op, const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                           const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape, int64_t y_rank) {
  int64_t ad[MAX_RANK], bd[MAX_RANK], yd[MAX_RANK], an, bn, yn;
  tl_status s;
  if ((s = read_dims(a_shape, a_rank, 0, "a", ad, &an))) return s;
  if ((s = read_dims(b_shape, b_rank, 0, "b", bd, &bn))) return s;
  if ((s = read_dims(y_shape, y_rank, 0, "y", yd, &yn))) return s;
  const int64_t rank = a_rank > b_rank ? a_rank : b_rank;
  for (int64_t i = 0; i < rank; ++i) {
#if MUTANT(1) /* m01: shapes aligned at their first dimension, not their last */
    const int64_t da = i < a_rank ? ad[i] : 1, db = i < b_rank ? bd[i] : 1;
#else
    const int64_t da = i >= rank - a_rank ? ad[i - (rank - a_rank)] : 1;
    const int64_t db = i >= rank - b_rank ? bd[i - (rank - b_rank)] : 1;
#endif
    if (da != db && da != 1 && db != 1)
      return fail(TL_ERR_SHAPE, "a and b do not broadcast at dimension %lld", (long long)i);
    if (y_rank != rank || yd[i] != (da == 1 ? db : da)) return fail(TL_ERR_SHAPE, "y is not the broadcast shape");
  }
  if (y_rank != rank) return fail(TL_ERR_SHAPE, "y is not the broadcast shape");
  if ((s = need(a, an, "a")) || (s = need(b, bn, "b")) || (s = need(y, yn, "y"))) return s;
  if (yn == 0) return TL_OK;

  int64_t sa[MAX_RANK], sb[MAX_RANK];
#if MUTANT(1)
  /* m01 walks the operands with the same left alignment: pad on the right. */
  int64_t pa[MAX_RANK], pb[MAX_RANK];
  for (int64_t i = 0; i < rank; ++i) pa[i] = i < a_rank ? ad[i] : 1, pb[i] = i < b_rank ? bd[i] : 1;
  operand_strides(pa, rank, rank, sa);
  operand_strides(pb, rank, rank, sb);
#else
  operand_strides(ad, a_rank, rank, sa);
  operand_strides(bd, b_rank, rank, sb);
#endif
#if MUTANT(6) /* m06: the scalar fast path reads the wrong operand when a is the scalar */
  if (an == 1 && bn == yn) {
    for (int64_t k = 0; k < yn; ++k) y[k] = apply(op, b[k], b[k]);
    return TL_OK;
  }
#endif
#if MUTANT(2) /* m02: the same-shape path in blocks of 8, the tail left unwritten */
  if (an == yn && bn == yn) {
    for (int64_t k = 0; k + 8 <= yn; k += 8)
      for (int64_t l = 0; l < 8; ++l) y[k + l] = apply(op, a[k + l], b[k + l]);
    return TL_OK;
  }
#endif
  int64_t idx[MAX_RANK] = {0}, oa = 0, ob = 0;
  for (int64_t k = 0; k < yn; ++k) {
    y[k] = apply(op, a[oa], b[ob]);
    for (int64_t d = rank - 1; d >= 0; --d) { /* the odometer over y's index */
      oa += sa[d];
      ob += sb[d];
      if (++idx[d] < yd[d]) break;
      oa -= sa[d] * yd[d];
      ob -= sb[d] * yd[d];
      idx[d] = 0;
    }
  }
  return TL_OK;
}

tl_status tl_add_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return broadcast(ADD, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);
}
tl_status tl_sub_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return broadcast(SUB, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);
}
tl_status tl_mul_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return broadcast(MUL, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);
}
tl_status tl_div_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return broadcast(DIV, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);
}

/* ---- Clamp, NanToNum ------------------------------------------------------ */

tl_status tl_clamp_f32(const float* x, float* y, int64_t n, float lo, float hi) {
  if (isnan(lo) || isnan(hi)) return fail(TL_ERR_INVALID_ARGUMENT, "clamp: a NaN bound");
#if !MUTANT(11) /* m11: lo > hi accepted */
  if (lo > hi) return fail(TL_ERR_INVALID_ARGUMENT, "clamp: lo > hi");
#endif
  if (n < 0) return fail(TL_ERR_INVALID_ARGUMENT, "clamp: n < 0");
  tl_status s;
  if ((s = need(x, n, "x")) || (s = need(y, n, "y"))) return s;
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
#if MUTANT(9) /* m09: min and max swapped: max(min(x, lo), hi) */
    const float low = v > lo ? lo : v;
    y[i] = low < hi ? hi : low;
#elif MUTANT(10) /* m10: fmaxf/fminf, which return the number when x is NaN */
    y[i] = fminf(fmaxf(v, lo), hi);
#elif MUTANT(31) /* m31: x <= the float after lo taken as below lo: one ulp above lo becomes lo */
    y[i] = v <= nextafterf(lo, INFINITY) ? lo : (v > hi ? hi : v);
#else
    y[i] = v < lo ? lo : (v > hi ? hi : v);
#endif
  }
  return TL_OK;
}

tl_status tl_nan_to_num_f32(const float* x, float* y, int64_t n, float nan, float posinf, float neginf) {
#if MUTANT(12)
  (void)neginf;
#endif
  if (n < 0) return fail(TL_ERR_INVALID_ARGUMENT, "nan_to_num: n < 0");
  tl_status s;
  if ((s = need(x, n, "x")) || (s = need(y, n, "y"))) return s;
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    if (v != v) y[i] = nan;
#if MUTANT(12) /* m12: -Inf left as it is */
    else if (v == INFINITY) y[i] = posinf;
#elif MUTANT(13) /* m13: the two infinities' replacements swapped */
    else if (isinf(v)) y[i] = v > 0 ? neginf : posinf;
#else
    else if (isinf(v)) y[i] = v > 0 ? posinf : neginf;
#endif
#if MUTANT(14) /* m14: finite values "normalized" with + 0.0f: -0 becomes +0 */
    else y[i] = v + 0.0f;
#else
    else y[i] = v;
#endif
  }
  return TL_OK;
}

/* ---- Argmax along an axis ------------------------------------------------- */

tl_status tl_argmax_axis_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index) {
  int64_t d[MAX_RANK], n, ax = 0;
  tl_status s;
  if ((s = read_dims(shape, rank, 1, "x", d, &n))) return s;
  if ((s = resolve_axis(axis, rank, &ax))) return s;
  if (d[ax] > INT32_MAX) return fail(TL_ERR_INVALID_ARGUMENT, "argmax: the axis is too long for int32");
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) outer *= i < ax ? d[i] : 1, inner *= i > ax ? d[i] : 1;
  if ((s = need(x, n, "x")) || (s = need(index, outer * inner, "index"))) return s;
  const int64_t length = d[ax];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
#if MUTANT(15) /* m15: the slice walked along the contiguous axis, not the one asked */
      const float* slice = x + o * length * inner + i;
      const int64_t step = 1;
#else
      const float* slice = x + o * length * inner + i;
      const int64_t step = inner;
#endif
      int32_t best = -1;
      for (int64_t k = 0; k < length; ++k) {
        const float v = slice[k * step];
        if (v != v) continue;
#if MUTANT(16) /* m16: >= keeps the last of equal maxima */
        if (best < 0 || v >= slice[best * step]) best = (int32_t)k;
#elif MUTANT(30) /* m30: a relative tolerance, v > best (1 + FLT_EPSILON) for best > 0, meant to keep the first of \
                    "equal" maxima */
        if (best < 0 || v > (slice[best * step] > 0 ? slice[best * step] * (1.0f + FLT_EPSILON) : slice[best * step]))
          best = (int32_t)k;
#else
        if (best < 0 || v > slice[best * step]) best = (int32_t)k;
#endif
      }
      index[o * inner + i] = best;
    }
  return TL_OK;
}

/* ---- Transpose, Permute ---------------------------------------------------- */

/* y (contiguous, dims yd) gets x read through `src` strides, one per y dim. */
static void gather(const float* x, const int64_t* yd, const int64_t* src, int64_t rank, int64_t n, float* y) {
  int64_t idx[MAX_RANK] = {0}, off = 0;
  for (int64_t k = 0; k < n; ++k) {
    y[k] = x[off];
    for (int64_t d = rank - 1; d >= 0; --d) {
      off += src[d];
      if (++idx[d] < yd[d]) break;
      off -= src[d] * yd[d];
      idx[d] = 0;
    }
  }
}

static void row_major_strides(const int64_t* d, int64_t rank, int64_t* stride) {
  int64_t step = 1;
  for (int64_t i = rank - 1; i >= 0; --i) stride[i] = step, step *= d[i];
}

tl_status tl_transpose_f32(const float* x, const int64_t* shape, int64_t rank, float* y) {
  int64_t d[MAX_RANK], n;
  tl_status s;
  if ((s = read_dims(shape, rank, 2, "x", d, &n))) return s;
  if ((s = need(x, n, "x")) || (s = need(y, n, "y"))) return s;
  if (n == 0) return TL_OK;
  int64_t stride[MAX_RANK], yd[MAX_RANK], src[MAX_RANK];
  row_major_strides(d, rank, stride);
#if MUTANT(17) /* m17: the first two axes swapped instead of the last two */
  const int64_t p = 0, q = 1;
#else
  const int64_t p = rank - 2, q = rank - 1;
#endif
  for (int64_t i = 0; i < rank; ++i) yd[i] = d[i], src[i] = stride[i];
  yd[p] = d[q], yd[q] = d[p], src[p] = stride[q], src[q] = stride[p];
#if MUTANT(18) /* m18: transposed in 8 x 8 tiles; the rows past the last full tile are never written */
  const int64_t R = d[rank - 2], C = d[rank - 1], batch = n / (R * C);
  for (int64_t m = 0; m < batch; ++m)
    for (int64_t i0 = 0; i0 + 8 <= R; i0 += 8)
      for (int64_t j = 0; j < C; ++j)
        for (int64_t i = i0; i < i0 + 8; ++i) y[(m * C + j) * R + i] = x[(m * R + i) * C + j];
  (void)src;
  (void)yd;
#else
  gather(x, yd, src, rank, n, y);
#endif
  return TL_OK;
}

tl_status tl_permute_f32(const float* x, const int64_t* shape, int64_t rank, const int64_t* perm, float* y) {
  int64_t d[MAX_RANK], n, p[MAX_RANK];
  tl_status s;
  if ((s = read_dims(shape, rank, 0, "x", d, &n))) return s;
  if (rank > 0 && perm == NULL) return fail(TL_ERR_INVALID_ARGUMENT, "perm is NULL");
  int seen[MAX_RANK] = {0};
  for (int64_t i = 0; i < rank; ++i) {
    p[i] = perm[i];
#if MUTANT(20) /* m20: negative entries accepted, counted from the end */
    if (p[i] < 0) p[i] += rank;
#endif
    if (p[i] < 0 || p[i] >= rank || seen[p[i]]) return fail(TL_ERR_INVALID_ARGUMENT, "perm is not a permutation");
    seen[p[i]] = 1;
  }
  if ((s = need(x, n, "x")) || (s = need(y, n, "y"))) return s;
  if (n == 0) return TL_OK;
#if MUTANT(19) /* m19: the inverse permutation applied */
  int64_t inv[MAX_RANK];
  for (int64_t i = 0; i < rank; ++i) inv[p[i]] = i;
  for (int64_t i = 0; i < rank; ++i) p[i] = inv[i];
#endif
  int64_t stride[MAX_RANK], yd[MAX_RANK], src[MAX_RANK];
  row_major_strides(d, rank, stride);
  for (int64_t i = 0; i < rank; ++i) yd[i] = d[p[i]], src[i] = stride[p[i]];
  gather(x, yd, src, rank, n, y);
  return TL_OK;
}

/* ---- Reshape --------------------------------------------------------------- */

tl_status tl_reshape_f32(const float* x, const int64_t* shape, int64_t rank, float* y, const int64_t* new_shape,
                         int64_t new_rank) {
  int64_t d[MAX_RANK], nd[MAX_RANK], n, nn;
  tl_status s;
  if ((s = read_dims(shape, rank, 0, "x", d, &n))) return s;
  if ((s = read_dims(new_shape, new_rank, 0, "new_shape", nd, &nn))) return s;
#if MUTANT(21) /* m21: a count mismatch reported as an invalid argument, not a shape error */
  if (n != nn) return fail(TL_ERR_INVALID_ARGUMENT, "reshape: element counts differ");
#else
  if (n != nn) return fail(TL_ERR_SHAPE, "reshape: element counts differ");
#endif
  if ((s = need(x, n, "x")) || (s = need(y, n, "y"))) return s;
  if (y == x) return TL_OK;
#if MUTANT(22) /* m22: a 2-D to 2-D reshape copied in column-major (Fortran) order */
  if (rank == 2 && new_rank == 2 && n > 0) {
    for (int64_t k = 0; k < n; ++k) { /* element k in column-major order of both shapes */
      const int64_t xi = k % d[0], xj = k / d[0], yi = k % nd[0], yj = k / nd[0];
      y[yi * nd[1] + yj] = x[xi * d[1] + xj];
    }
    return TL_OK;
  }
#endif
  if (n > 0) memcpy(y, x, (size_t)n * sizeof(float));
  return TL_OK;
}

/* ---- Concat, Split, Chunk --------------------------------------------------- */

tl_status tl_concat_f32(const float* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis,
                        float* y) {
  if (count < 1) return fail(TL_ERR_INVALID_ARGUMENT, "concat: count < 1");
  if (rank < 1 || rank > MAX_RANK) return fail(TL_ERR_INVALID_ARGUMENT, "concat: rank out of range");
  if (xs == NULL || shapes == NULL) return fail(TL_ERR_INVALID_ARGUMENT, "concat: NULL xs or shapes");
  int64_t ax = 0, d[MAX_RANK], n, yd[MAX_RANK], yn;
  tl_status s;
#if MUTANT(24) /* m24: a negative axis counted one short (rank - 1 + axis) */
  if (axis < 0) axis += rank - 1;
  if (axis < 0 || axis >= rank) return fail(TL_ERR_INVALID_ARGUMENT, "concat: axis out of range");
  ax = axis;
#else
  if ((s = resolve_axis(axis, rank, &ax))) return s;
#endif
  for (int64_t k = 0; k < count; ++k)
    if ((s = read_dims(shapes + k * rank, rank, rank, "xs[k]", d, &n))) return s;
  for (int64_t i = 0; i < rank; ++i) yd[i] = i == ax ? 0 : shapes[i];
  for (int64_t k = 0; k < count; ++k) {
    for (int64_t i = 0; i < rank; ++i)
      if (i != ax && shapes[k * rank + i] != shapes[i]) return fail(TL_ERR_SHAPE, "concat: shapes differ off the axis");
    if (shapes[k * rank + ax] > INT64_MAX / 4 - yd[ax]) return fail(TL_ERR_INVALID_ARGUMENT, "concat: too large");
    yd[ax] += shapes[k * rank + ax];
  }
  if ((s = read_dims(yd, rank, rank, "y", yd, &yn))) return s;
  for (int64_t k = 0; k < count; ++k) {
    read_dims(shapes + k * rank, rank, rank, "xs[k]", d, &n);
    if ((s = need(xs[k], n, "xs[k]"))) return s;
  }
  if ((s = need(y, yn, "y"))) return s;
#if MUTANT(23) /* m23: the inputs laid end to end, as if the axis were 0 */
  for (int64_t k = 0, at = 0; k < count; ++k) {
    read_dims(shapes + k * rank, rank, rank, "xs[k]", d, &n);
    for (int64_t j = 0; j < n; ++j) y[at + j] = xs[k][j];
    at += n;
  }
  return TL_OK;
#endif
  int64_t outer = 1, inner = 1, total = 0;
  for (int64_t i = 0; i < rank; ++i) outer *= i < ax ? shapes[i] : 1, inner *= i > ax ? shapes[i] : 1;
  for (int64_t k = 0; k < count; ++k) total += shapes[k * rank + ax];
  int64_t start = 0;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t len = shapes[k * rank + ax];
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < len * inner; ++j) y[(o * total + start) * inner + j] = xs[k][o * len * inner + j];
    start += len;
  }
  return TL_OK;
}

/* Cuts x (dims d, axis ax) into parts of len[k]; part k starts at start[k]. */
static void cut(const float* x, const int64_t* d, int64_t rank, int64_t ax, const int64_t* len, const int64_t* start,
                int64_t count, float* const* ys) {
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) outer *= i < ax ? d[i] : 1, inner *= i > ax ? d[i] : 1;
  for (int64_t k = 0; k < count; ++k)
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < len[k] * inner; ++j)
        ys[k][o * len[k] * inner + j] = x[(o * d[ax] + start[k]) * inner + j];
}

static tl_status check_parts(float* const* ys, const int64_t* d, int64_t rank, int64_t ax, const int64_t* len,
                             int64_t count) {
  int64_t others = 1;
  for (int64_t i = 0; i < rank; ++i) others *= i == ax ? 1 : d[i];
  for (int64_t k = 0; k < count; ++k)
    if (others * len[k] > 0 && (ys == NULL || ys[k] == NULL)) return fail(TL_ERR_INVALID_ARGUMENT, "ys[k] is NULL");
  return TL_OK;
}

enum { MAX_PARTS = 4096 }; /* this plugin's own limit on parts per call */

tl_status tl_split_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,
                       int64_t count, float* const* ys) {
  int64_t d[MAX_RANK], n, ax = 0;
  tl_status s;
  if ((s = read_dims(shape, rank, 1, "x", d, &n))) return s;
  if ((s = resolve_axis(axis, rank, &ax))) return s;
  if (count < 1) return fail(TL_ERR_INVALID_ARGUMENT, "split: count < 1");
  if (count > MAX_PARTS) return fail(TL_ERR_UNSUPPORTED, "split: more than %d parts", MAX_PARTS);
  if (sizes == NULL) return fail(TL_ERR_INVALID_ARGUMENT, "split: sizes is NULL");
  for (int64_t k = 0; k < count; ++k)
    if (sizes[k] < 0) return fail(TL_ERR_INVALID_ARGUMENT, "split: a negative size");
  int64_t sum = 0, start[MAX_PARTS];
  for (int64_t k = 0; k < count; ++k) {
    if (sizes[k] > d[ax] - sum) return fail(TL_ERR_SHAPE, "split: sizes add up to more than the axis");
#if MUTANT(25) /* m25: every part after the first starts one element early */
    start[k] = sum > 0 ? sum - 1 : 0;
#else
    start[k] = sum;
#endif
    sum += sizes[k];
  }
#if !MUTANT(26) /* m26: sizes adding up to less than the axis accepted */
  if (sum != d[ax]) return fail(TL_ERR_SHAPE, "split: sizes do not add up to the axis");
#endif
  if ((s = need(x, n, "x")) || (s = check_parts(ys, d, rank, ax, sizes, count))) return s;
  cut(x, d, rank, ax, sizes, start, count, ys);
  return TL_OK;
}

tl_status tl_chunk_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                       float* const* ys) {
  int64_t d[MAX_RANK], n, ax = 0;
  tl_status s;
  if ((s = read_dims(shape, rank, 1, "x", d, &n))) return s;
  if ((s = resolve_axis(axis, rank, &ax))) return s;
  if (chunks < 1) return fail(TL_ERR_INVALID_ARGUMENT, "chunk: chunks < 1");
  if (chunks > MAX_PARTS) return fail(TL_ERR_UNSUPPORTED, "chunk: more than %d parts", MAX_PARTS);
  const int64_t L = d[ax], size = L / chunks + (L % chunks != 0);
  int64_t len[MAX_PARTS], start[MAX_PARTS], left = L;
  for (int64_t k = 0; k < chunks; ++k) {
#if MUTANT(27) /* m27: each part copies floor(L / chunks) rows at most: the remainder is never written */
    len[k] = left < size ? left : size;
    if (len[k] > L / chunks) len[k] = L / chunks;
    start[k] = L - left;
#elif MUTANT(28) /* m28: torch's lengths, but parts placed every floor(L / chunks) */
    len[k] = left < size ? left : size;
    start[k] = k * (L / chunks);
#else
    len[k] = left < size ? left : size;
    start[k] = L - left;
#endif
    left -= left < size ? left : size;
  }
  if ((s = need(x, n, "x")) || (s = check_parts(ys, d, rank, ax, len, chunks))) return s;
  cut(x, d, rank, ax, len, start, chunks, ys);
  return TL_OK;
}
