// libtl_kernels: the tensor ops of tinyllm/tensor.h that compute or select
// (Add, Sub, Mul, Div, Clamp, NanToNum, Argmax) and the ones that reorder
// (Transpose, Permute), compiled once per Highway target and dispatched at
// run time. The wrappers check the arguments (tensor_checks.h) before any
// kernel runs, so a refused call writes nothing. The plain copies (Reshape,
// Concat, Split, Chunk) are in tensor_copy.cpp.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/simd/tensor_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "impl/simd/tensor_argmax-inl.h"
#include "impl/simd/tensor_arith-inl.h"
#include "impl/simd/tensor_move-inl.h"
#include "impl/simd/tensor_select-inl.h"

#if HWY_ONCE
#include <string>

#include "impl/common/status.hpp"
#include "impl/simd/tensor_checks.h"
#include "tinyllm/tensor.h"

namespace konform::simd {

HWY_EXPORT(AddBroadcast);
HWY_EXPORT(SubBroadcast);
HWY_EXPORT(MulBroadcast);
HWY_EXPORT(DivBroadcast);
HWY_EXPORT(AddFlat);
HWY_EXPORT(SubFlat);
HWY_EXPORT(MulFlat);
HWY_EXPORT(DivFlat);
HWY_EXPORT(Clamp);
HWY_EXPORT(NanToNum);
HWY_EXPORT(ArgmaxAxis);
HWY_EXPORT(Move);

}  // namespace konform::simd

namespace ks = konform::simd;
namespace kt = konform::simd::tensor;

namespace {

// Any other call: the general plan (its 200-byte frame kept off the common
// path, whose call would touch those lines too).
template <class General>
[[gnu::noinline]] tl_status BroadcastGeneral(General general, const float* a, const int64_t* a_shape, int64_t a_rank,
                                             const float* b, const int64_t* b_shape, int64_t b_rank, float* y,
                                             const int64_t* y_shape, int64_t y_rank) {
  kt::BroadcastPlan plan;
  if (tl_status s = kt::PlanBroadcast(a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank, &plan)) return s;
  general()(plan, a, b, y);
  return TL_OK;
}

// One op's two kernels, each looked up only when its plan is taken.
template <class Flat, class General>
tl_status Broadcast(Flat flat, General general, const float* a, const int64_t* a_shape, int64_t a_rank,
                    const float* b, const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                    int64_t y_rank) {
  kt::FlatBroadcast common;
  if (!kt::PlanFlatBroadcast(a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank, &common))
    return BroadcastGeneral(general, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);
  flat()(a, b, y, common.rows, common.cols, common.sb);
  return TL_OK;
}

tl_status CheckElementwise(const float* x, const float* y, int64_t n) {
  if (n < 0) return konform::impl::fail(TL_ERR_INVALID_ARGUMENT, "n = " + std::to_string(n) + " < 0");
  if (tl_status s = kt::NeedData(x, n, "x")) return s;
  return kt::NeedData(y, n, "y");
}

}  // namespace

extern "C" {

tl_status tl_add_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return Broadcast([] { return HWY_DYNAMIC_DISPATCH(ks::AddFlat); },
                   [] { return HWY_DYNAMIC_DISPATCH(ks::AddBroadcast); }, a, a_shape, a_rank, b, b_shape, b_rank, y,
                   y_shape, y_rank);
}

tl_status tl_sub_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return Broadcast([] { return HWY_DYNAMIC_DISPATCH(ks::SubFlat); },
                   [] { return HWY_DYNAMIC_DISPATCH(ks::SubBroadcast); }, a, a_shape, a_rank, b, b_shape, b_rank, y,
                   y_shape, y_rank);
}

tl_status tl_mul_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return Broadcast([] { return HWY_DYNAMIC_DISPATCH(ks::MulFlat); },
                   [] { return HWY_DYNAMIC_DISPATCH(ks::MulBroadcast); }, a, a_shape, a_rank, b, b_shape, b_rank, y,
                   y_shape, y_rank);
}

tl_status tl_div_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return Broadcast([] { return HWY_DYNAMIC_DISPATCH(ks::DivFlat); },
                   [] { return HWY_DYNAMIC_DISPATCH(ks::DivBroadcast); }, a, a_shape, a_rank, b, b_shape, b_rank, y,
                   y_shape, y_rank);
}

tl_status tl_clamp_f32(const float* x, float* y, int64_t n, float lo, float hi) {
  if (lo != lo || hi != hi)
    return konform::impl::fail(TL_ERR_INVALID_ARGUMENT, "clamp bounds must be numbers (lo = " + std::to_string(lo) +
                                                            ", hi = " + std::to_string(hi) + ")");
  if (lo > hi)
    return konform::impl::fail(TL_ERR_INVALID_ARGUMENT, "clamp needs lo <= hi (lo = " + std::to_string(lo) +
                                                            ", hi = " + std::to_string(hi) + ")");
  if (tl_status s = CheckElementwise(x, y, n)) return s;
  HWY_DYNAMIC_DISPATCH(ks::Clamp)(x, y, n, lo, hi);
  return TL_OK;
}

tl_status tl_nan_to_num_f32(const float* x, float* y, int64_t n, float nan, float posinf, float neginf) {
  if (tl_status s = CheckElementwise(x, y, n)) return s;
  HWY_DYNAMIC_DISPATCH(ks::NanToNum)(x, y, n, nan, posinf, neginf);
  return TL_OK;
}

tl_status tl_argmax_axis_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index) {
  kt::Dims s;
  int ax = 0;
  if (tl_status st = kt::ReadDims(shape, rank, 1, "x", &s)) return st;
  if (tl_status st = kt::ResolveAxis(axis, s.rank, &ax)) return st;
  if (s.d[ax] > INT32_MAX)
    return konform::impl::fail(TL_ERR_INVALID_ARGUMENT, "axis " + std::to_string(axis) + " is " +
                                                            std::to_string(s.d[ax]) + " long; int32 indices stop at " +
                                                            std::to_string(INT32_MAX));
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < s.rank; ++i) {
    if (i < ax) outer *= s.d[i];
    if (i > ax) inner *= s.d[i];
  }
  if (tl_status st = kt::NeedData(x, s.count, "x")) return st;
  if (tl_status st = kt::NeedData(index, outer * inner, "index")) return st;
  // outer * inner may be non-zero with a zero-length axis: every slice is empty (-1).
  if (outer * inner > 0) HWY_DYNAMIC_DISPATCH(ks::ArgmaxAxis)(x, outer, s.d[ax], inner, index);
  return TL_OK;
}

tl_status tl_transpose_f32(const float* x, const int64_t* shape, int64_t rank, float* y) {
  kt::Dims s;
  if (tl_status st = kt::ReadDims(shape, rank, 2, "x", &s)) return st;
  if (tl_status st = kt::NeedData(x, s.count, "x")) return st;
  if (tl_status st = kt::NeedData(y, s.count, "y")) return st;
  int64_t perm[kt::kMaxRank];
  for (int i = 0; i < s.rank; ++i) perm[i] = i;
  perm[s.rank - 2] = s.rank - 1;
  perm[s.rank - 1] = s.rank - 2;
  HWY_DYNAMIC_DISPATCH(ks::Move)(kt::PlanPermute(s, perm), x, y);
  return TL_OK;
}

tl_status tl_permute_f32(const float* x, const int64_t* shape, int64_t rank, const int64_t* perm, float* y) {
  kt::Dims s;
  if (tl_status st = kt::ReadDims(shape, rank, 0, "x", &s)) return st;
  if (s.rank > 0 && perm == nullptr) return konform::impl::fail(TL_ERR_INVALID_ARGUMENT, "perm is NULL");
  bool seen[kt::kMaxRank] = {};
  for (int i = 0; i < s.rank; ++i) {
    if (perm[i] < 0 || perm[i] >= s.rank || seen[perm[i]]) {
      std::string text;
      for (int k = 0; k < s.rank; ++k) text += (k ? ", " : "") + std::to_string(perm[k]);
      return konform::impl::fail(TL_ERR_INVALID_ARGUMENT, "perm [" + text + "] is not a permutation of 0.." +
                                                              std::to_string(s.rank - 1));
    }
    seen[perm[i]] = true;
  }
  if (tl_status st = kt::NeedData(x, s.count, "x")) return st;
  if (tl_status st = kt::NeedData(y, s.count, "y")) return st;
  HWY_DYNAMIC_DISPATCH(ks::Move)(kt::PlanPermute(s, perm), x, y);
  return TL_OK;
}

}  // extern "C"
#endif  // HWY_ONCE
