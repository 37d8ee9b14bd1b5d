// libtl_kernels: Reshape, Concat, Split and Chunk of tinyllm/tensor.h. Each
// moves contiguous runs: seen as [outer, axis, inner], every input (or part)
// contributes one run of length * inner elements per outer index, which
// glibc's memcpy (already dispatched on the CPU) copies bit for bit. No
// Highway here: there is nothing to compute.

#include <cstring>
#include <string>
#include <vector>

#include "impl/common/status.hpp"
#include "impl/common/tensor_cut_checks.hpp"
#include "tinyllm/tensor.h"

namespace kt = konform::impl::tensor;

namespace {

// n elements of E (float, or the 16-bit patterns of the half twins) as bytes.
template <class E>
void CopyElements(E* to, const E* from, int64_t n) {
  if (n > 0) std::memcpy(to, from, static_cast<size_t>(n) * sizeof(E));
}

// Cuts x along `axis` into parts of length(k) (already checked to add up to
// the axis); part k goes to ys[k].
template <class E, class Length>
void Cut(const E* x, const kt::Dims& s, int axis, const Length& length, int64_t count, E* const* ys) {
  const kt::Around a = kt::AroundAxis(s, axis);
  int64_t start = 0;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t run = length(k) * a.inner;
    for (int64_t o = 0; o < a.outer && run > 0; ++o)
      CopyElements(ys[k] + o * run, x + (o * s.d[axis] + start) * a.inner, run);
    start += length(k);
  }
}

// Each input's runs into their place along y's axis.
template <class E>
tl_status Concat(const E* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis, E* y) {
  kt::ConcatPlan plan;
  if (tl_status st = kt::PlanConcat(xs, shapes, count, rank, axis, y, &plan)) return st;
  const int ax = plan.axis;
  const kt::Around a = kt::AroundAxis(plan.out, ax);
  int64_t start = 0;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t run = plan.in[k].d[ax] * a.inner;
    for (int64_t o = 0; o < a.outer && run > 0; ++o)
      CopyElements(y + (o * plan.out.d[ax] + start) * a.inner, xs[k] + o * run, run);
    start += plan.in[k].d[ax];
  }
  return TL_OK;
}

// y == x is the view: a contiguous tensor already holds its elements in the
// new shape's order, so nothing moves.
template <class E>
tl_status Reshape(const E* x, const int64_t* shape, int64_t rank, E* y, const int64_t* new_shape, int64_t new_rank) {
  int64_t count = 0;
  if (tl_status st = kt::CheckReshape(x, shape, rank, y, new_shape, new_rank, &count)) return st;
  if (y != x) CopyElements(y, x, count);
  return TL_OK;
}

template <class E>
tl_status Split(const E* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes, int64_t count,
                E* const* ys) {
  kt::CutPlan p;
  if (tl_status st = kt::CheckSplit(x, shape, rank, axis, sizes, count, ys, &p)) return st;
  Cut(
      x, p.x, p.axis, [sizes](int64_t k) { return sizes[k]; }, count, ys);
  return TL_OK;
}

template <class E>
tl_status Chunk(const E* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks, E* const* ys) {
  kt::CutPlan p;
  if (tl_status st = kt::CheckChunk(x, shape, rank, axis, chunks, ys, &p)) return st;
  const int64_t length = p.x.d[p.axis];
  Cut(
      x, p.x, p.axis, [&](int64_t k) { return tl_chunk_length(length, chunks, k); }, chunks, ys);
  return TL_OK;
}

}  // namespace

extern "C" {

tl_status tl_reshape_f32(const float* x, const int64_t* shape, int64_t rank, float* y, const int64_t* new_shape,
                         int64_t new_rank) {
  return Reshape(x, shape, rank, y, new_shape, new_rank);
}

// The half twins: the patterns copied as bytes, never through float.
tl_status tl_reshape_f16(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y, const int64_t* new_shape,
                         int64_t new_rank) {
  return Reshape(x, shape, rank, y, new_shape, new_rank);
}

tl_status tl_reshape_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y, const int64_t* new_shape,
                          int64_t new_rank) {
  return tl_reshape_f16(x, shape, rank, y, new_shape, new_rank);
}

// f32, and the half twins' 16-bit patterns copied as bytes (never through
// float): one body each, Elem the element.
#define KONFORM_CUT(Dtype, Elem)                                                                                       \
  tl_status tl_concat_##Dtype(const Elem* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis, \
                              Elem* y) {                                                                               \
    return Concat(xs, shapes, count, rank, axis, y);                                                                   \
  }                                                                                                                    \
  tl_status tl_split_##Dtype(const Elem* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,    \
                             int64_t count, Elem* const* ys) {                                                         \
    return Split(x, shape, rank, axis, sizes, count, ys);                                                              \
  }                                                                                                                    \
  tl_status tl_chunk_##Dtype(const Elem* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,          \
                             Elem* const* ys) {                                                                        \
    return Chunk(x, shape, rank, axis, chunks, ys);                                                                    \
  }
KONFORM_CUT(f32, float)
KONFORM_CUT(f16, uint16_t)
KONFORM_CUT(bf16, uint16_t)
#undef KONFORM_CUT

}  // extern "C"
