// The checks of Reshape, Concat, Split and Chunk (tinyllm/tensor.h), for
// libtl_kernels' tensor_copy.cpp and libtl_cuda's tensor.cu alike, so both
// refuse the same calls with the same words; always inlined, as in
// tensor_op_checks.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "impl/common/status.hpp"
#include "impl/common/tensor_checks.hpp"
#include "tinyllm/tensor.h"

namespace konform::impl::tensor {

// A shape seen around one axis: [outer, axis, inner].
struct Around {
  int64_t outer = 1, inner = 1;
};

inline Around AroundAxis(const Dims& s, int axis) {
  Around a;
  for (int i = 0; i < s.rank; ++i) {
    if (i < axis) a.outer *= s.d[i];
    if (i > axis) a.inner *= s.d[i];
  }
  return a;
}

inline std::string ShapeText(const Dims& s) {
  std::string out = "[";
  for (int i = 0; i < s.rank; ++i) out += (i ? ", " : "") + std::to_string(s.d[i]);
  return out + "]";
}

// The parts' pointers: NULL only for a part without elements. E: the
// element (float, or the uint16_t patterns of the half twins), as below.
template <class E, class Length>
inline tl_status CheckParts(E* const* ys, const Dims& s, int axis, const Length& length, int64_t count) {
  int64_t others = 1;  // elements of one step along the axis
  for (int i = 0; i < s.rank; ++i)
    if (i != axis) others *= s.d[i];
  for (int64_t k = 0; k < count; ++k)
    if (others > 0 && length(k) > 0 && (ys == nullptr || ys[k] == nullptr))
      return impl::fail(TL_ERR_INVALID_ARGUMENT, "ys[" + std::to_string(k) + "] is NULL");
  return TL_OK;
}

// Reshape: the element counts agree; x and y not NULL unless empty.
[[gnu::always_inline]] inline tl_status CheckReshape(const void* x, const int64_t* shape, int64_t rank, const void* y,
                                                     const int64_t* new_shape, int64_t new_rank, int64_t* count) {
  Dims s, ns;
  if (tl_status st = ReadDims(shape, rank, 0, "x", &s)) return st;
  if (tl_status st = ReadDims(new_shape, new_rank, 0, "new_shape", &ns)) return st;
  if (s.count != ns.count)
    return impl::fail(TL_ERR_SHAPE, "cannot reshape " + ShapeText(s) + " (" + std::to_string(s.count) +
                                        " elements) to " + ShapeText(ns) + " (" + std::to_string(ns.count) +
                                        " elements)");
  if (tl_status st = NeedData(x, s.count, "x")) return st;
  if (tl_status st = NeedData(y, s.count, "y")) return st;
  *count = s.count;
  return TL_OK;
}

// Concat: every input's dims, y's, and the axis.
struct ConcatPlan {
  std::vector<Dims> in;
  Dims out;
  int axis = 0;
};
template <class E>
[[gnu::always_inline]] inline tl_status PlanConcat(const E* const* xs, const int64_t* shapes, int64_t count,
                                                   int64_t rank, int64_t axis, const E* y, ConcatPlan* plan) {
  if (count < 1)
    return impl::fail(TL_ERR_INVALID_ARGUMENT,
                      "concat needs at least one tensor (count = " + std::to_string(count) + ")");
  if (rank < 1 || rank > kMaxRank)
    return impl::fail(TL_ERR_INVALID_ARGUMENT,
                      "concat's rank is " + std::to_string(rank) + "; it must be 1.." + std::to_string(kMaxRank));
  if (xs == nullptr || shapes == nullptr) return impl::fail(TL_ERR_INVALID_ARGUMENT, "xs or shapes is NULL");
  int ax = 0;
  if (tl_status st = ResolveAxis(axis, static_cast<int>(rank), &ax)) return st;
  std::vector<Dims> in(static_cast<size_t>(count));
  Dims out;
  for (int64_t k = 0; k < count; ++k) {  // each shape on its own first
    const std::string name = "xs[" + std::to_string(k) + "]";
    if (tl_status st = ReadDims(shapes + k * rank, rank, static_cast<int>(rank), name.c_str(), &in[k])) return st;
  }
  for (int64_t k = 0; k < count; ++k) {
    for (int d = 0; d < in[k].rank; ++d)
      if (d != ax && in[k].d[d] != in[0].d[d])
        return impl::fail(TL_ERR_SHAPE, "cannot concat xs[" + std::to_string(k) + "] of shape " + ShapeText(in[k]) +
                                            " with xs[0] of " + ShapeText(in[0]) + " along axis " + std::to_string(ax) +
                                            ": dimension " + std::to_string(d) + " differs");
    if (k == 0) {
      out = in[0];
    } else if (in[k].d[ax] > (INT64_MAX / 4) - out.d[ax]) {
      return impl::fail(TL_ERR_INVALID_ARGUMENT, "the concatenation has too many elements");
    } else {
      out.d[ax] += in[k].d[ax];
    }
  }
  if (tl_status st = ReadDims(out.d, out.rank, out.rank, "y", &out)) return st;  // its element count
  for (int64_t k = 0; k < count; ++k)
    if (tl_status st = NeedData(xs[k], in[k].count, ("xs[" + std::to_string(k) + "]").c_str())) return st;
  if (tl_status st = NeedData(y, out.count, "y")) return st;
  plan->in = std::move(in);
  plan->out = out;
  plan->axis = ax;
  return TL_OK;
}

// Split and Chunk: x's dims and the axis they cut.
struct CutPlan {
  Dims x;
  int axis = 0;
};
template <class E>
[[gnu::always_inline]] inline tl_status CheckSplit(const E* x, const int64_t* shape, int64_t rank, int64_t axis,
                                                   const int64_t* sizes, int64_t count, E* const* ys, CutPlan* plan) {
  Dims s;
  int ax = 0;
  if (tl_status st = ReadDims(shape, rank, 1, "x", &s)) return st;
  if (tl_status st = ResolveAxis(axis, s.rank, &ax)) return st;
  if (count < 1)
    return impl::fail(TL_ERR_INVALID_ARGUMENT, "split needs at least one part (count = " + std::to_string(count) + ")");
  if (sizes == nullptr) return impl::fail(TL_ERR_INVALID_ARGUMENT, "sizes is NULL");
  for (int64_t k = 0; k < count; ++k)
    if (sizes[k] < 0)
      return impl::fail(TL_ERR_INVALID_ARGUMENT,
                        "split size " + std::to_string(k) + " is " + std::to_string(sizes[k]) + " < 0");
  int64_t sum = 0;
  for (int64_t k = 0; k < count; ++k) {
    if (sizes[k] > s.d[ax] - sum)
      return impl::fail(TL_ERR_SHAPE, "split sizes add up to more than axis " + std::to_string(ax) + "'s length " +
                                          std::to_string(s.d[ax]) + " (at size " + std::to_string(k) + ")");
    sum += sizes[k];
  }
  if (sum != s.d[ax])
    return impl::fail(TL_ERR_SHAPE, "split sizes add up to " + std::to_string(sum) + ", not axis " +
                                        std::to_string(ax) + "'s length " + std::to_string(s.d[ax]));
  const auto length = [sizes](int64_t k) { return sizes[k]; };
  if (tl_status st = NeedData(x, s.count, "x")) return st;
  if (tl_status st = CheckParts(ys, s, ax, length, count)) return st;
  *plan = CutPlan{s, ax};
  return TL_OK;
}

template <class E>
[[gnu::always_inline]] inline tl_status CheckChunk(const E* x, const int64_t* shape, int64_t rank, int64_t axis,
                                                   int64_t chunks, E* const* ys, CutPlan* plan) {
  Dims s;
  int ax = 0;
  if (tl_status st = ReadDims(shape, rank, 1, "x", &s)) return st;
  if (tl_status st = ResolveAxis(axis, s.rank, &ax)) return st;
  if (chunks < 1) return impl::fail(TL_ERR_INVALID_ARGUMENT, "chunks = " + std::to_string(chunks) + " < 1");
  const auto length = [&](int64_t k) { return tl_chunk_length(s.d[ax], chunks, k); };
  if (tl_status st = NeedData(x, s.count, "x")) return st;
  if (tl_status st = CheckParts(ys, s, ax, length, chunks)) return st;
  *plan = CutPlan{s, ax};
  return TL_OK;
}

}  // namespace konform::impl::tensor
