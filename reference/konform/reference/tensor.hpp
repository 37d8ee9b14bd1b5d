// The tensor ops of tinyllm/tensor.h (spec/operations.txt section 1), written
// from the header's rules for clarity, not speed.
//
// Each op has a check_* function (the status the ABI must return, from the
// raw arguments; on TL_OK it also hands back the shapes) and a template on
// the scalar type T that computes the result from valid arguments: double is
// the oracle, float the `scalar` backend. Clamp, NanToNum, Argmax and the
// layout ops select or move values and never round, so T only carries them.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "konform/reference/bf16.hpp"
#include "konform/reference/elementwise.hpp"  // argmax: the rule of each slice
#include "konform/reference/f16.hpp"
#include "konform/reference/tensor_shape.hpp"

namespace konform::reference {

// ------------------------------------------------------ Add, Sub, Mul, Div

enum class Arith { add, sub, mul, div };

template <typename T>
T arith(Arith op, T a, T b) {
  switch (op) {
    case Arith::add: return a + b;
    case Arith::sub: return a - b;
    case Arith::mul: return a * b;
    case Arith::div: return a / b;
  }
  return a;
}

struct BroadcastShapes {
  Shape a, b, y;
};

// The arguments of tl_{add,sub,mul,div}_broadcast_f32.
inline Verdict check_broadcast(const void* a, const int64_t* a_dims, int64_t a_rank, const void* b,
                               const int64_t* b_dims, int64_t b_rank, const void* y, const int64_t* y_dims,
                               int64_t y_rank, BroadcastShapes* s) {
  Verdict v = read_shape(a_dims, a_rank, 0, TL_TENSOR_MAX_RANK, "a", &s->a);
  if (v.ok()) v = read_shape(b_dims, b_rank, 0, TL_TENSOR_MAX_RANK, "b", &s->b);
  if (v.ok()) v = read_shape(y_dims, y_rank, 0, TL_TENSOR_MAX_RANK, "y", &s->y);
  if (!v.ok()) return v;
  Shape want;
  v = broadcast_shapes(s->a, s->b, &want);
  if (!v.ok()) return v;
  if (s->y != want)
    return refuse(TL_ERR_SHAPE, "y has shape " + to_string(s->y) + " but a " + to_string(s->a) + " and b " +
                                    to_string(s->b) + " broadcast to " + to_string(want));
  if (v = check_data(a, s->a, "a"); !v.ok()) return v;
  if (v = check_data(b, s->b, "b"); !v.ok()) return v;
  return check_data(y, s->y, "y");
}

// y[k] = a[src_a(k)] OP b[src_b(k)] in T, each operand read where the
// broadcast puts it. In place (y == a with a's shape y's) works: element k
// is read before it is written.
template <typename T>
void broadcast_arith(Arith op, const float* a, const Shape& as, const float* b, const Shape& bs, T* y,
                     const Shape& ys) {
  const int64_t n = element_count(ys);
  Odometer walk(ys, {broadcast_strides(ys, as), broadcast_strides(ys, bs)});
  for (int64_t k = 0; k < n; ++k, walk.next()) y[k] = arith<T>(op, T(a[walk.offset(0)]), T(b[walk.offset(1)]));
}

// ------------------------------------------------------ Clamp, NanToNum

inline Verdict check_elementwise(const void* x, const void* y, int64_t n) {
  if (n < 0) return refuse(TL_ERR_INVALID_ARGUMENT, "n = " + std::to_string(n) + " < 0");
  if (n > 0 && x == nullptr) return refuse(TL_ERR_INVALID_ARGUMENT, "x is NULL");
  if (n > 0 && y == nullptr) return refuse(TL_ERR_INVALID_ARGUMENT, "y is NULL");
  return {};
}

inline Verdict check_clamp(const void* x, const void* y, int64_t n, float lo, float hi) {
  if (std::isnan(lo) || std::isnan(hi))
    return refuse(TL_ERR_INVALID_ARGUMENT,
                  "clamp bounds must be numbers (lo = " + std::to_string(lo) + ", hi = " + std::to_string(hi) + ")");
  if (lo > hi)
    return refuse(TL_ERR_INVALID_ARGUMENT,
                  "clamp needs lo <= hi (lo = " + std::to_string(lo) + ", hi = " + std::to_string(hi) + ")");
  return check_elementwise(x, y, n);
}

// lo below, hi above, x itself otherwise: NaN compares false and stays.
inline float clamp(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

template <typename T>
void clamp(const float* x, T* y, int64_t n, float lo, float hi) {
  for (int64_t i = 0; i < n; ++i) y[i] = T(clamp(x[i], lo, hi));
}

inline float nan_to_num(float x, float nan, float posinf, float neginf) {
  if (std::isnan(x)) return nan;
  if (std::isinf(x)) return x > 0 ? posinf : neginf;
  return x;
}

template <typename T>
void nan_to_num(const float* x, T* y, int64_t n, float nan, float posinf, float neginf) {
  for (int64_t i = 0; i < n; ++i) y[i] = T(nan_to_num(x[i], nan, posinf, neginf));
}

// ------------------------------------------------------ Argmax along an axis

// A tensor seen as [outer, length, inner] around one axis.
struct AxisView {
  int64_t outer = 1, length = 1, inner = 1;
};

inline AxisView around_axis(const Shape& s, int64_t axis) {
  AxisView v;
  for (int64_t i = 0; i < static_cast<int64_t>(s.size()); ++i) {
    if (i < axis) v.outer *= s[i];
    else if (i == axis) v.length = s[i];
    else v.inner *= s[i];
  }
  return v;
}

inline Verdict check_argmax_axis(const void* x, const int64_t* dims, int64_t rank, int64_t axis, const int32_t* index,
                                 Shape* s, int64_t* ax) {
  Verdict v = read_shape(dims, rank, 1, TL_TENSOR_MAX_RANK, "x", s);
  if (v.ok()) v = resolve_axis(axis, rank, ax);
  if (!v.ok()) return v;
  if ((*s)[*ax] > INT32_MAX)
    return refuse(TL_ERR_INVALID_ARGUMENT, "axis " + std::to_string(axis) + " is " + std::to_string((*s)[*ax]) +
                                               " long; int32 indices reach " + std::to_string(INT32_MAX));
  if (v = check_data(x, *s, "x"); !v.ok()) return v;
  Shape out = *s;
  out.erase(out.begin() + *ax);
  return check_data(index, out, "index");
}

// Each slice through the six-kernel rule (elementwise.hpp's argmax).
inline void argmax_axis(const float* x, const Shape& s, int64_t axis, int32_t* index) {
  const AxisView v = around_axis(s, axis);
  std::vector<float> slice(static_cast<size_t>(v.length));
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t i = 0; i < v.inner; ++i) {
      for (int64_t k = 0; k < v.length; ++k) slice[k] = x[(o * v.length + k) * v.inner + i];
      index[o * v.inner + i] = argmax(slice.data(), v.length);
    }
}

// ------------------------------------------------------ Transpose, Permute

inline Verdict check_transpose(const void* x, const int64_t* dims, int64_t rank, const void* y, Shape* s) {
  Verdict v = read_shape(dims, rank, 2, TL_TENSOR_MAX_RANK, "x", s);
  if (v.ok()) v = check_data(x, *s, "x");
  if (v.ok()) v = check_data(y, *s, "y");
  return v;
}

// y[..., j, i] = x[..., i, j]. S: x's element (float, or uint16_t bit
// patterns copied as they are).
template <typename T, typename S>
void transpose(const S* x, const Shape& s, T* y) {
  const int64_t rows = s[s.size() - 2], cols = s[s.size() - 1];
  const int64_t batch = element_count(s) / (rows * cols > 0 ? rows * cols : 1);
  if (rows * cols == 0) return;
  for (int64_t m = 0; m < batch; ++m)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) y[(m * cols + j) * rows + i] = T(x[(m * rows + i) * cols + j]);
}

inline Verdict check_permute(const void* x, const int64_t* dims, int64_t rank, const int64_t* perm, const void* y,
                             Shape* s, Shape* p) {
  Verdict v = read_shape(dims, rank, 0, TL_TENSOR_MAX_RANK, "x", s);
  if (!v.ok()) return v;
  if (rank > 0 && perm == nullptr) return refuse(TL_ERR_INVALID_ARGUMENT, "perm is NULL");
  p->assign(perm, perm + rank);
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t i = 0; i < rank; ++i) {
    if ((*p)[i] < 0 || (*p)[i] >= rank || seen[(*p)[i]])
      return refuse(TL_ERR_INVALID_ARGUMENT,
                    "perm " + to_string(*p) + " is not a permutation of 0.." + std::to_string(rank - 1));
    seen[(*p)[i]] = true;
  }
  if (v = check_data(x, *s, "x"); !v.ok()) return v;
  return check_data(y, *s, "y");
}

inline Shape permuted(const Shape& s, const Shape& perm) {
  Shape out(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) out[i] = s[perm[i]];
  return out;
}

// Output axis d walks input axis perm[d].
template <typename T, typename S>
void permute(const S* x, const Shape& s, const Shape& perm, T* y) {
  const Shape xstride = strides_of(s);
  Shape src(perm.size());  // output dimension d steps through x by x's stride of axis perm[d]
  for (size_t d = 0; d < perm.size(); ++d) src[d] = xstride[perm[d]];
  const int64_t n = element_count(s);
  Odometer walk(permuted(s, perm), {src});
  for (int64_t k = 0; k < n; ++k, walk.next()) y[k] = T(x[walk.offset(0)]);
}

// ------------------------------------------------------ Reshape

inline Verdict check_reshape(const void* x, const int64_t* dims, int64_t rank, const void* y, const int64_t* new_dims,
                             int64_t new_rank, Shape* s, Shape* ns) {
  Verdict v = read_shape(dims, rank, 0, TL_TENSOR_MAX_RANK, "x", s);
  if (v.ok()) v = read_shape(new_dims, new_rank, 0, TL_TENSOR_MAX_RANK, "new_shape", ns);
  if (!v.ok()) return v;
  if (element_count(*s) != element_count(*ns))
    return refuse(TL_ERR_SHAPE, "cannot reshape " + to_string(*s) + " (" + std::to_string(element_count(*s)) +
                                    " elements) to " + to_string(*ns) + " (" + std::to_string(element_count(*ns)) +
                                    " elements)");
  if (v = check_data(x, *s, "x"); !v.ok()) return v;
  return check_data(y, *s, "y");
}

// The flat order is the meaning of a row-major reshape: element k stays k.
template <typename T, typename S>
void reshape(const S* x, const Shape& s, T* y) {
  const int64_t n = element_count(s);
  for (int64_t k = 0; k < n; ++k) y[k] = T(x[k]);
}

// ------------------------------------------------------ Concat, Split, Chunk

// E: the element (float, or the uint16_t patterns of the half twins).
template <typename E>
Verdict check_concat(const E* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis, const E* y,
                     std::vector<Shape>* in, Shape* out, int64_t* ax) {
  if (count < 1)
    return refuse(TL_ERR_INVALID_ARGUMENT, "concat needs at least one tensor (count = " + std::to_string(count) + ")");
  if (rank < 1 || rank > TL_TENSOR_MAX_RANK)
    return refuse(TL_ERR_INVALID_ARGUMENT,
                  "concat's rank is " + std::to_string(rank) + "; it must be 1.." + std::to_string(TL_TENSOR_MAX_RANK));
  if (xs == nullptr || shapes == nullptr) return refuse(TL_ERR_INVALID_ARGUMENT, "xs or shapes is NULL");
  Verdict v = resolve_axis(axis, rank, ax);
  if (!v.ok()) return v;
  in->assign(static_cast<size_t>(count), {});
  for (int64_t k = 0; k < count; ++k)  // each shape on its own, then how they fit
    if (v = read_shape(shapes + k * rank, rank, rank, rank, "xs[" + std::to_string(k) + "]", &(*in)[k]); !v.ok())
      return v;
  int64_t total = 0;
  for (int64_t k = 0; k < count; ++k) {
    for (int64_t d = 0; d < rank; ++d)
      if (d != *ax && (*in)[k][d] != (*in)[0][d])
        return refuse(TL_ERR_SHAPE, "cannot concat xs[" + std::to_string(k) + "] of shape " + to_string((*in)[k]) +
                                        " with xs[0] of " + to_string((*in)[0]) + " along axis " + std::to_string(*ax) +
                                        ": dimension " + std::to_string(d) + " differs");
    total += (*in)[k][*ax];
    if (total > kMaxElements) return refuse(TL_ERR_INVALID_ARGUMENT, "the concatenation has too many elements");
  }
  Shape joined = (*in)[0];
  joined[*ax] = total;
  if (v = read_shape(joined.data(), rank, rank, rank, "y", out); !v.ok()) return v;  // its element count
  for (int64_t k = 0; k < count; ++k)
    if (v = check_data(xs[k], (*in)[k], "xs[" + std::to_string(k) + "]"); !v.ok()) return v;
  return check_data(y, *out, "y");
}

// Along the axis, each input's run follows the previous one's. S: x's
// element (float, or uint16_t bit patterns copied as they are).
template <typename T, typename S>
void concat(const S* const* xs, const std::vector<Shape>& in, int64_t axis, T* y) {
  Shape out = in[0];
  out[axis] = 0;
  for (const Shape& s : in) out[axis] += s[axis];
  const AxisView vy = around_axis(out, axis);
  int64_t offset = 0;  // where this input starts along the axis
  for (size_t k = 0; k < in.size(); ++k) {
    const AxisView vx = around_axis(in[k], axis);
    for (int64_t o = 0; o < vx.outer; ++o)
      for (int64_t j = 0; j < vx.length; ++j)
        for (int64_t i = 0; i < vx.inner; ++i)
          y[(o * vy.length + offset + j) * vy.inner + i] = T(xs[k][(o * vx.length + j) * vx.inner + i]);
    offset += vx.length;
  }
}

// Split and Chunk both cut x into runs along the axis; they differ in where
// the lengths come from.
inline Verdict check_cut(const void* x, const int64_t* dims, int64_t rank, int64_t axis, Shape* s, int64_t* ax) {
  Verdict v = read_shape(dims, rank, 1, TL_TENSOR_MAX_RANK, "x", s);
  if (v.ok()) v = resolve_axis(axis, rank, ax);
  return v;
}

// The pointers, last: x, then each part's (NULL only for an empty part).
template <typename E>
Verdict check_parts(const E* x, E* const* ys, const Shape& s, int64_t axis, const Shape& lengths) {
  if (Verdict v = check_data(x, s, "x"); !v.ok()) return v;
  for (size_t k = 0; k < lengths.size(); ++k) {
    Shape part = s;
    part[axis] = lengths[k];
    if (Verdict v = check_data(ys == nullptr ? nullptr : ys[k], part, "ys[" + std::to_string(k) + "]"); !v.ok())
      return v;
  }
  return {};
}

template <typename E>
Verdict check_split(const E* x, const int64_t* dims, int64_t rank, int64_t axis, const int64_t* sizes, int64_t count,
                    E* const* ys, Shape* s, int64_t* ax, Shape* lengths) {
  Verdict v = check_cut(x, dims, rank, axis, s, ax);
  if (!v.ok()) return v;
  if (count < 1)
    return refuse(TL_ERR_INVALID_ARGUMENT, "split needs at least one part (count = " + std::to_string(count) + ")");
  if (sizes == nullptr) return refuse(TL_ERR_INVALID_ARGUMENT, "sizes is NULL");
  lengths->assign(sizes, sizes + count);
  for (int64_t k = 0; k < count; ++k)
    if (sizes[k] < 0)
      return refuse(TL_ERR_INVALID_ARGUMENT,
                    "split size " + std::to_string(k) + " is " + std::to_string(sizes[k]) + " < 0");
  int64_t sum = 0;
  for (int64_t k = 0; k < count; ++k) {
    if (sizes[k] > (*s)[*ax] - sum)
      return refuse(TL_ERR_SHAPE, "split sizes " + to_string(*lengths) + " add up to more than axis " +
                                      std::to_string(*ax) + "'s length " + std::to_string((*s)[*ax]));
    sum += sizes[k];
  }
  if (sum != (*s)[*ax])
    return refuse(TL_ERR_SHAPE, "split sizes " + to_string(*lengths) + " add up to " + std::to_string(sum) +
                                    ", not axis " + std::to_string(*ax) + "'s length " + std::to_string((*s)[*ax]));
  return check_parts(x, ys, *s, *ax, *lengths);
}

inline Shape chunk_lengths(int64_t length, int64_t chunks) {
  Shape out(static_cast<size_t>(chunks));
  // torch.chunk: parts of ceil(L / chunks), the last ones shorter or empty.
  const int64_t size = length / chunks + (length % chunks != 0);
  int64_t left = length;
  for (auto& l : out) {
    l = left < size ? left : size;
    left -= l;
  }
  return out;
}

template <typename E>
Verdict check_chunk(const E* x, const int64_t* dims, int64_t rank, int64_t axis, int64_t chunks, E* const* ys, Shape* s,
                    int64_t* ax, Shape* lengths) {
  Verdict v = check_cut(x, dims, rank, axis, s, ax);
  if (!v.ok()) return v;
  if (chunks < 1) return refuse(TL_ERR_INVALID_ARGUMENT, "chunks = " + std::to_string(chunks) + " < 1");
  *lengths = chunk_lengths((*s)[*ax], chunks);
  return check_parts(x, ys, *s, *ax, *lengths);
}

// Part k holds the run [start_k, start_k + lengths[k]) of the axis. S: x's
// element, as concat's.
template <typename T, typename S>
void cut(const S* x, const Shape& s, int64_t axis, const Shape& lengths, T* const* ys) {
  const AxisView vx = around_axis(s, axis);
  int64_t start = 0;
  for (size_t k = 0; k < lengths.size(); ++k) {
    for (int64_t o = 0; o < vx.outer; ++o)
      for (int64_t j = 0; j < lengths[k]; ++j)
        for (int64_t i = 0; i < vx.inner; ++i)
          ys[k][(o * lengths[k] + j) * vx.inner + i] = T(x[(o * vx.length + start + j) * vx.inner + i]);
    start += lengths[k];
  }
}

// ------------------------------------------------ the scalar backend's entries

// Each tl_* function of tinyllm/tensor.h as the scalar backend runs it (the
// generated impl/scalar forwarders call these): the op's check, then its
// template in float. A refusal is the check's Verdict, which libtl_scalar
// turns into the status and tl_last_error's words.
namespace abi {

namespace detail {

inline Verdict broadcast(Arith op, const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                         const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape, int64_t y_rank) {
  BroadcastShapes s;
  const Verdict v = check_broadcast(a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank, &s);
  if (!v.ok()) return v;
  broadcast_arith<float>(op, a, s.a, b, s.b, y, s.y);
  return {};
}

// f16 and bf16: both operands widened whole, the float template, y rounded
// (y may be a or b: both are read before y is written).
template <float (*Widen)(uint16_t), uint16_t (*Narrow)(float)>
Verdict broadcast_half(Arith op, const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b,
                       const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape, int64_t y_rank) {
  BroadcastShapes s;
  const Verdict v = check_broadcast(a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank, &s);
  if (!v.ok()) return v;
  const auto widen = [](const uint16_t* h, int64_t n) {
    std::vector<float> f(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) f[static_cast<size_t>(k)] = Widen(h[k]);
    return f;
  };
  const std::vector<float> wa = widen(a, element_count(s.a)), wb = widen(b, element_count(s.b));
  std::vector<float> wy(static_cast<size_t>(element_count(s.y)));
  broadcast_arith<float>(op, wa.data(), s.a, wb.data(), s.b, wy.data(), s.y);
  for (size_t k = 0; k < wy.size(); ++k) y[k] = Narrow(wy[k]);
  return {};
}

}  // namespace detail

#define KONFORM_BROADCAST_HALF(name, op, Dtype)                                                                   \
  inline Verdict name##_broadcast_##Dtype(const uint16_t* a, const int64_t* a_shape, int64_t a_rank,              \
                                          const uint16_t* b, const int64_t* b_shape, int64_t b_rank, uint16_t* y, \
                                          const int64_t* y_shape, int64_t y_rank) {                               \
    return detail::broadcast_half<Dtype##_to_f32, f32_to_##Dtype>(op, a, a_shape, a_rank, b, b_shape, b_rank, y,  \
                                                                  y_shape, y_rank);                               \
  }
KONFORM_BROADCAST_HALF(add, Arith::add, f16)
KONFORM_BROADCAST_HALF(sub, Arith::sub, f16)
KONFORM_BROADCAST_HALF(mul, Arith::mul, f16)
KONFORM_BROADCAST_HALF(div, Arith::div, f16)
KONFORM_BROADCAST_HALF(add, Arith::add, bf16)
KONFORM_BROADCAST_HALF(sub, Arith::sub, bf16)
KONFORM_BROADCAST_HALF(mul, Arith::mul, bf16)
KONFORM_BROADCAST_HALF(div, Arith::div, bf16)
#undef KONFORM_BROADCAST_HALF

inline Verdict add_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                                 const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                                 int64_t y_rank) {
  return detail::broadcast(Arith::add, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);
}

inline Verdict sub_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                                 const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                                 int64_t y_rank) {
  return detail::broadcast(Arith::sub, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);
}

inline Verdict mul_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                                 const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                                 int64_t y_rank) {
  return detail::broadcast(Arith::mul, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);
}

inline Verdict div_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                                 const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                                 int64_t y_rank) {
  return detail::broadcast(Arith::div, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);
}

// y == x is allowed: element i is read before it is written.
inline Verdict clamp_f32(const float* x, float* y, int64_t n, float lo, float hi) {
  if (const Verdict v = check_clamp(x, y, n, lo, hi); !v.ok()) return v;
  clamp<float>(x, y, n, lo, hi);
  return {};
}

inline Verdict nan_to_num_f32(const float* x, float* y, int64_t n, float nan, float posinf, float neginf) {
  if (const Verdict v = check_elementwise(x, y, n); !v.ok()) return v;
  nan_to_num<float>(x, y, n, nan, posinf, neginf);
  return {};
}

// The f16 and bf16 twins: x widened exactly, the f32 rule, the result
// rounded to the dtype (x's value, or a bound or replacement rounded).
template <float (*Widen)(uint16_t), uint16_t (*Narrow)(float)>
Verdict clamp_half(const uint16_t* x, uint16_t* y, int64_t n, float lo, float hi) {
  if (const Verdict v = check_clamp(x, y, n, lo, hi); !v.ok()) return v;
  for (int64_t i = 0; i < n; ++i) y[i] = Narrow(clamp(Widen(x[i]), lo, hi));
  return {};
}

template <float (*Widen)(uint16_t), uint16_t (*Narrow)(float)>
Verdict nan_to_num_half(const uint16_t* x, uint16_t* y, int64_t n, float nan, float posinf, float neginf) {
  if (const Verdict v = check_elementwise(x, y, n); !v.ok()) return v;
  for (int64_t i = 0; i < n; ++i) y[i] = Narrow(nan_to_num(Widen(x[i]), nan, posinf, neginf));
  return {};
}

inline Verdict clamp_f16(const uint16_t* x, uint16_t* y, int64_t n, float lo, float hi) {
  return clamp_half<f16_to_f32, f32_to_f16>(x, y, n, lo, hi);
}
inline Verdict clamp_bf16(const uint16_t* x, uint16_t* y, int64_t n, float lo, float hi) {
  return clamp_half<bf16_to_f32, f32_to_bf16>(x, y, n, lo, hi);
}
inline Verdict nan_to_num_f16(const uint16_t* x, uint16_t* y, int64_t n, float nan, float posinf, float neginf) {
  return nan_to_num_half<f16_to_f32, f32_to_f16>(x, y, n, nan, posinf, neginf);
}
inline Verdict nan_to_num_bf16(const uint16_t* x, uint16_t* y, int64_t n, float nan, float posinf, float neginf) {
  return nan_to_num_half<bf16_to_f32, f32_to_bf16>(x, y, n, nan, posinf, neginf);
}

inline Verdict argmax_axis_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index) {
  Shape s;
  int64_t ax = 0;
  if (const Verdict v = check_argmax_axis(x, shape, rank, axis, index, &s, &ax); !v.ok()) return v;
  argmax_axis(x, s, ax, index);
  return {};
}

// f16 and bf16: each element widened exactly (every NaN payload a NaN), then
// the f32 rule.
template <float (*Widen)(uint16_t)>
Verdict argmax_axis_half(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index) {
  Shape s;
  int64_t ax = 0;
  if (const Verdict v = check_argmax_axis(x, shape, rank, axis, index, &s, &ax); !v.ok()) return v;
  std::vector<float> wide(static_cast<size_t>(element_count(s)));
  for (size_t k = 0; k < wide.size(); ++k) wide[k] = Widen(x[k]);
  argmax_axis(wide.data(), s, ax, index);
  return {};
}
inline Verdict argmax_axis_f16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index) {
  return argmax_axis_half<f16_to_f32>(x, shape, rank, axis, index);
}
inline Verdict argmax_axis_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index) {
  return argmax_axis_half<bf16_to_f32>(x, shape, rank, axis, index);
}

inline Verdict transpose_f32(const float* x, const int64_t* shape, int64_t rank, float* y) {
  Shape s;
  if (const Verdict v = check_transpose(x, shape, rank, y, &s); !v.ok()) return v;
  transpose<float>(x, s, y);
  return {};
}

inline Verdict permute_f32(const float* x, const int64_t* shape, int64_t rank, const int64_t* perm, float* y) {
  Shape s, p;
  if (const Verdict v = check_permute(x, shape, rank, perm, y, &s, &p); !v.ok()) return v;
  permute<float>(x, s, p, y);
  return {};
}

// The half twins move the 16-bit patterns as they are: NaN payloads,
// signalling NaNs, -0 and subnormals kept (no trip through float).
inline Verdict transpose_half(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y) {
  Shape s;
  if (const Verdict v = check_transpose(x, shape, rank, y, &s); !v.ok()) return v;
  transpose<uint16_t>(x, s, y);
  return {};
}
inline Verdict transpose_f16(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y) {
  return transpose_half(x, shape, rank, y);
}
inline Verdict transpose_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y) {
  return transpose_half(x, shape, rank, y);
}

inline Verdict permute_half(const uint16_t* x, const int64_t* shape, int64_t rank, const int64_t* perm, uint16_t* y) {
  Shape s, p;
  if (const Verdict v = check_permute(x, shape, rank, perm, y, &s, &p); !v.ok()) return v;
  permute<uint16_t>(x, s, p, y);
  return {};
}
inline Verdict permute_f16(const uint16_t* x, const int64_t* shape, int64_t rank, const int64_t* perm, uint16_t* y) {
  return permute_half(x, shape, rank, perm, y);
}
inline Verdict permute_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, const int64_t* perm, uint16_t* y) {
  return permute_half(x, shape, rank, perm, y);
}

// y == x is the view: the elements are already where the new shape wants them.
inline Verdict reshape_f32(const float* x, const int64_t* shape, int64_t rank, float* y, const int64_t* new_shape,
                           int64_t new_rank) {
  Shape s, ns;
  if (const Verdict v = check_reshape(x, shape, rank, y, new_shape, new_rank, &s, &ns); !v.ok()) return v;
  if (y != x) reshape<float>(x, s, y);
  return {};
}

inline Verdict reshape_half(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y,
                            const int64_t* new_shape, int64_t new_rank) {
  Shape s, ns;
  if (const Verdict v = check_reshape(x, shape, rank, y, new_shape, new_rank, &s, &ns); !v.ok()) return v;
  if (y != x) reshape<uint16_t>(x, s, y);
  return {};
}
inline Verdict reshape_f16(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y, const int64_t* new_shape,
                           int64_t new_rank) {
  return reshape_half(x, shape, rank, y, new_shape, new_rank);
}
inline Verdict reshape_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y,
                            const int64_t* new_shape, int64_t new_rank) {
  return reshape_half(x, shape, rank, y, new_shape, new_rank);
}

// E: float, or the 16-bit patterns of the half twins, moved as they are
// (as Transpose's).
template <typename E>
Verdict concat_any(const E* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis, E* y) {
  std::vector<Shape> in;
  Shape out;
  int64_t ax = 0;
  if (const Verdict v = check_concat(xs, shapes, count, rank, axis, y, &in, &out, &ax); !v.ok()) return v;
  concat<E>(xs, in, ax, y);
  return {};
}

template <typename E>
Verdict split_any(const E* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes, int64_t count,
                  E* const* ys) {
  Shape s, lengths;
  int64_t ax = 0;
  if (const Verdict v = check_split(x, shape, rank, axis, sizes, count, ys, &s, &ax, &lengths); !v.ok()) return v;
  cut<E>(x, s, ax, lengths, ys);
  return {};
}

template <typename E>
Verdict chunk_any(const E* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks, E* const* ys) {
  Shape s, lengths;
  int64_t ax = 0;
  if (const Verdict v = check_chunk(x, shape, rank, axis, chunks, ys, &s, &ax, &lengths); !v.ok()) return v;
  cut<E>(x, s, ax, lengths, ys);
  return {};
}

inline Verdict concat_f32(const float* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis,
                          float* y) {
  return concat_any(xs, shapes, count, rank, axis, y);
}
inline Verdict concat_f16(const uint16_t* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis,
                          uint16_t* y) {
  return concat_any(xs, shapes, count, rank, axis, y);
}
inline Verdict concat_bf16(const uint16_t* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis,
                           uint16_t* y) {
  return concat_any(xs, shapes, count, rank, axis, y);
}

inline Verdict split_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,
                         int64_t count, float* const* ys) {
  return split_any(x, shape, rank, axis, sizes, count, ys);
}
inline Verdict split_f16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,
                         int64_t count, uint16_t* const* ys) {
  return split_any(x, shape, rank, axis, sizes, count, ys);
}
inline Verdict split_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,
                          int64_t count, uint16_t* const* ys) {
  return split_any(x, shape, rank, axis, sizes, count, ys);
}

inline Verdict chunk_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                         float* const* ys) {
  return chunk_any(x, shape, rank, axis, chunks, ys);
}
inline Verdict chunk_f16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                         uint16_t* const* ys) {
  return chunk_any(x, shape, rank, axis, chunks, ys);
}
inline Verdict chunk_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                          uint16_t* const* ys) {
  return chunk_any(x, shape, rank, axis, chunks, ys);
}

}  // namespace abi

}  // namespace konform::reference
