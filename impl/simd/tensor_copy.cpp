// libtl_kernels: Reshape, Concat, Split and Chunk of tinyllm/tensor.h. Each
// moves contiguous runs: seen as [outer, axis, inner], every input (or part)
// contributes one run of length * inner floats per outer index, which
// glibc's memcpy (already dispatched on the CPU) copies bit for bit. No
// Highway here: there is nothing to compute.

#include <cstring>
#include <string>
#include <vector>

#include "impl/common/status.hpp"
#include "impl/simd/tensor_checks.h"
#include "tinyllm/tensor.h"

namespace kt = konform::simd::tensor;
using konform::impl::fail;

namespace {

struct Around {
  int64_t outer = 1, inner = 1;
};

Around AroundAxis(const kt::Dims& s, int axis) {
  Around a;
  for (int i = 0; i < s.rank; ++i) {
    if (i < axis) a.outer *= s.d[i];
    if (i > axis) a.inner *= s.d[i];
  }
  return a;
}

std::string Text(const kt::Dims& s) {
  std::string out = "[";
  for (int i = 0; i < s.rank; ++i) out += (i ? ", " : "") + std::to_string(s.d[i]);
  return out + "]";
}

void CopyFloats(float* to, const float* from, int64_t n) {
  if (n > 0) std::memcpy(to, from, static_cast<size_t>(n) * sizeof(float));
}

// Cuts x along `axis` into parts of length(k) (already checked to add up to
// the axis); part k goes to ys[k].
template <class Length>
void Cut(const float* x, const kt::Dims& s, int axis, const Length& length, int64_t count, float* const* ys) {
  const Around a = AroundAxis(s, axis);
  int64_t start = 0;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t run = length(k) * a.inner;
    for (int64_t o = 0; o < a.outer && run > 0; ++o)
      CopyFloats(ys[k] + o * run, x + (o * s.d[axis] + start) * a.inner, run);
    start += length(k);
  }
}

// The parts' pointers: NULL only for a part without elements.
template <class Length>
tl_status CheckParts(float* const* ys, const kt::Dims& s, int axis, const Length& length, int64_t count) {
  int64_t others = 1;  // elements of one step along the axis
  for (int i = 0; i < s.rank; ++i)
    if (i != axis) others *= s.d[i];
  for (int64_t k = 0; k < count; ++k)
    if (others > 0 && length(k) > 0 && (ys == nullptr || ys[k] == nullptr))
      return fail(TL_ERR_INVALID_ARGUMENT, "ys[" + std::to_string(k) + "] is NULL");
  return TL_OK;
}

}  // namespace

extern "C" {

// y == x is the view: a contiguous tensor already holds its elements in the
// new shape's order, so nothing moves.
tl_status tl_reshape_f32(const float* x, const int64_t* shape, int64_t rank, float* y, const int64_t* new_shape,
                         int64_t new_rank) {
  kt::Dims s, ns;
  if (tl_status st = kt::ReadDims(shape, rank, 0, "x", &s)) return st;
  if (tl_status st = kt::ReadDims(new_shape, new_rank, 0, "new_shape", &ns)) return st;
  if (s.count != ns.count)
    return fail(TL_ERR_SHAPE, "cannot reshape " + Text(s) + " (" + std::to_string(s.count) + " elements) to " +
                                  Text(ns) + " (" + std::to_string(ns.count) + " elements)");
  if (tl_status st = kt::NeedData(x, s.count, "x")) return st;
  if (tl_status st = kt::NeedData(y, s.count, "y")) return st;
  if (y != x) CopyFloats(y, x, s.count);
  return TL_OK;
}

tl_status tl_concat_f32(const float* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis,
                        float* y) {
  if (count < 1) return fail(TL_ERR_INVALID_ARGUMENT, "concat needs at least one tensor (count = " +
                                                          std::to_string(count) + ")");
  if (rank < 1 || rank > kt::kMaxRank)
    return fail(TL_ERR_INVALID_ARGUMENT, "concat's rank is " + std::to_string(rank) + "; it must be 1.." +
                                             std::to_string(kt::kMaxRank));
  if (xs == nullptr || shapes == nullptr) return fail(TL_ERR_INVALID_ARGUMENT, "xs or shapes is NULL");
  int ax = 0;
  if (tl_status st = kt::ResolveAxis(axis, static_cast<int>(rank), &ax)) return st;
  std::vector<kt::Dims> in(static_cast<size_t>(count));
  kt::Dims out;
  for (int64_t k = 0; k < count; ++k) {  // each shape on its own first
    const std::string name = "xs[" + std::to_string(k) + "]";
    if (tl_status st = kt::ReadDims(shapes + k * rank, rank, static_cast<int>(rank), name.c_str(), &in[k])) return st;
  }
  for (int64_t k = 0; k < count; ++k) {
    for (int d = 0; d < in[k].rank; ++d)
      if (d != ax && in[k].d[d] != in[0].d[d])
        return fail(TL_ERR_SHAPE, "cannot concat xs[" + std::to_string(k) + "] of shape " + Text(in[k]) +
                                      " with xs[0] of " + Text(in[0]) + " along axis " + std::to_string(ax) +
                                      ": dimension " + std::to_string(d) + " differs");
    if (k == 0) {
      out = in[0];
    } else if (in[k].d[ax] > (INT64_MAX / 4) - out.d[ax]) {
      return fail(TL_ERR_INVALID_ARGUMENT, "the concatenation has too many elements");
    } else {
      out.d[ax] += in[k].d[ax];
    }
  }
  if (tl_status st = kt::ReadDims(out.d, out.rank, out.rank, "y", &out)) return st;  // its element count
  for (int64_t k = 0; k < count; ++k)
    if (tl_status st = kt::NeedData(xs[k], in[k].count, ("xs[" + std::to_string(k) + "]").c_str())) return st;
  if (tl_status st = kt::NeedData(y, out.count, "y")) return st;

  const Around a = AroundAxis(out, ax);
  int64_t start = 0;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t run = in[k].d[ax] * a.inner;
    for (int64_t o = 0; o < a.outer && run > 0; ++o)
      CopyFloats(y + (o * out.d[ax] + start) * a.inner, xs[k] + o * run, run);
    start += in[k].d[ax];
  }
  return TL_OK;
}

tl_status tl_split_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,
                       int64_t count, float* const* ys) {
  kt::Dims s;
  int ax = 0;
  if (tl_status st = kt::ReadDims(shape, rank, 1, "x", &s)) return st;
  if (tl_status st = kt::ResolveAxis(axis, s.rank, &ax)) return st;
  if (count < 1) return fail(TL_ERR_INVALID_ARGUMENT, "split needs at least one part (count = " +
                                                          std::to_string(count) + ")");
  if (sizes == nullptr) return fail(TL_ERR_INVALID_ARGUMENT, "sizes is NULL");
  for (int64_t k = 0; k < count; ++k)
    if (sizes[k] < 0)
      return fail(TL_ERR_INVALID_ARGUMENT, "split size " + std::to_string(k) + " is " + std::to_string(sizes[k]) +
                                               " < 0");
  int64_t sum = 0;
  for (int64_t k = 0; k < count; ++k) {
    if (sizes[k] > s.d[ax] - sum)
      return fail(TL_ERR_SHAPE, "split sizes add up to more than axis " + std::to_string(ax) + "'s length " +
                                    std::to_string(s.d[ax]) + " (at size " + std::to_string(k) + ")");
    sum += sizes[k];
  }
  if (sum != s.d[ax])
    return fail(TL_ERR_SHAPE, "split sizes add up to " + std::to_string(sum) + ", not axis " + std::to_string(ax) +
                                  "'s length " + std::to_string(s.d[ax]));
  const auto length = [sizes](int64_t k) { return sizes[k]; };
  if (tl_status st = kt::NeedData(x, s.count, "x")) return st;
  if (tl_status st = CheckParts(ys, s, ax, length, count)) return st;
  Cut(x, s, ax, length, count, ys);
  return TL_OK;
}

tl_status tl_chunk_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                       float* const* ys) {
  kt::Dims s;
  int ax = 0;
  if (tl_status st = kt::ReadDims(shape, rank, 1, "x", &s)) return st;
  if (tl_status st = kt::ResolveAxis(axis, s.rank, &ax)) return st;
  if (chunks < 1) return fail(TL_ERR_INVALID_ARGUMENT, "chunks = " + std::to_string(chunks) + " < 1");
  const auto length = [&](int64_t k) { return tl_chunk_length(s.d[ax], chunks, k); };
  if (tl_status st = kt::NeedData(x, s.count, "x")) return st;
  if (tl_status st = CheckParts(ys, s, ax, length, chunks)) return st;
  Cut(x, s, ax, length, chunks, ys);
  return TL_OK;
}

}  // extern "C"
