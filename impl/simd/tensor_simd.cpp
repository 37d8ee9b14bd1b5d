// libtl_kernels: the tensor ops of tinyllm/tensor.h that compute (Add, Sub,
// Mul, Div, Argmax) and the ones that reorder
// (Transpose, Permute), compiled once per Highway target and dispatched at
// run time. The wrappers check the arguments (impl/common/tensor_op_checks.hpp) before any
// kernel runs, so a refused call writes nothing. The plain copies (Reshape,
// Concat, Split, Chunk) are in tensor_copy.cpp, Clamp and NanToNum in
// tensor_select.cpp.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/simd/tensor_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "impl/simd/tensor_argmax-inl.h"
#include "impl/simd/tensor_arith-inl.h"
#include "impl/simd/tensor_move-inl.h"

#if HWY_ONCE
#include <algorithm>
#include <string>
#include <vector>

#include "impl/common/status.hpp"
#include "impl/common/tensor_op_checks.hpp"
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
HWY_EXPORT(HalfFlat);
HWY_EXPORT(ArgmaxAxis);
HWY_EXPORT(Move);
HWY_EXPORT(Move16);

}  // namespace konform::simd

namespace ks = konform::simd;
namespace kt = konform::impl::tensor;

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
tl_status Broadcast(Flat flat, General general, const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                    const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape, int64_t y_rank) {
  kt::FlatBroadcast common;
  if (!kt::PlanFlatBroadcast(a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank, &common))
    return BroadcastGeneral(general, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);
  flat()(a, b, y, common.rows, common.cols, common.sb);
  return TL_OK;
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

}  // extern "C"

namespace {

// f16 and bf16. The common calls (Broadcast's flat plans) in registers
// (tensor_arith-inl.h's ArithFlatHalf: each vector widened, the f32 op,
// rounded). Any other call: a and b widened whole by the library's own casts
// (cast_simd.cpp), the f32 op's general plan, y rounded back. Either way a
// value of y is written after the values of a and b it comes from are read,
// so y == a and y == b work.
using F32Broadcast = tl_status (*)(const float*, const int64_t*, int64_t, const float*, const int64_t*, int64_t, float*,
                                   const int64_t*, int64_t);
tl_status BroadcastHalf(F32Broadcast f32, int op, bool bf16, const uint16_t* a, const int64_t* a_shape, int64_t a_rank,
                        const uint16_t* b, const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape,
                        int64_t y_rank) {
  kt::FlatBroadcast flat;
  // (The plan reads the pointers for null only.)
  if (kt::PlanFlatBroadcast(reinterpret_cast<const float*>(a), a_shape, a_rank, reinterpret_cast<const float*>(b),
                            b_shape, b_rank, reinterpret_cast<const float*>(y), y_shape, y_rank, &flat)) {
    HWY_DYNAMIC_DISPATCH(ks::HalfFlat)(op, bf16, a, b, y, flat.rows, flat.cols, flat.sb);
    return TL_OK;
  }
  const auto widen = bf16 ? tl_cast_bf16_to_f32 : tl_cast_f16_to_f32;
  const auto narrow = bf16 ? tl_cast_f32_to_bf16 : tl_cast_f32_to_f16;
  kt::BroadcastPlan plan;
  if (tl_status s = kt::PlanBroadcast(a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank, &plan)) return s;
  const auto count = [](const int64_t* shape, int64_t rank) {
    int64_t n = 1;
    for (int64_t i = 0; i < rank; ++i) n *= shape[i];
    return n;
  };
  const int64_t na = count(a_shape, a_rank), nb = count(b_shape, b_rank);
  std::vector<float> wa(static_cast<size_t>(na)), wb(static_cast<size_t>(nb)), wy(static_cast<size_t>(plan.count));
  widen(a, wa.data(), na);
  widen(b, wb.data(), nb);
  if (tl_status s = f32(wa.data(), a_shape, a_rank, wb.data(), b_shape, b_rank, wy.data(), y_shape, y_rank)) return s;
  narrow(wy.data(), y, plan.count);
  return TL_OK;
}

}  // namespace

extern "C" {

#define KONFORM_BROADCAST_HALF(op, index, Dtype, is_bf16)                                                             \
  tl_status tl_##op##_broadcast_##Dtype(const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b, \
                                        const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape,  \
                                        int64_t y_rank) {                                                             \
    return BroadcastHalf(tl_##op##_broadcast_f32, index, is_bf16, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, \
                         y_rank);                                                                                     \
  }
KONFORM_BROADCAST_HALF(add, 0, f16, false)
KONFORM_BROADCAST_HALF(sub, 1, f16, false)
KONFORM_BROADCAST_HALF(mul, 2, f16, false)
KONFORM_BROADCAST_HALF(div, 3, f16, false)
KONFORM_BROADCAST_HALF(add, 0, bf16, true)
KONFORM_BROADCAST_HALF(sub, 1, bf16, true)
KONFORM_BROADCAST_HALF(mul, 2, bf16, true)
KONFORM_BROADCAST_HALF(div, 3, bf16, true)
#undef KONFORM_BROADCAST_HALF

tl_status tl_argmax_axis_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index) {
  kt::AxisPlan p;
  if (tl_status st = kt::PlanArgmaxAxis(x, shape, rank, axis, index, &p)) return st;
  // outer * inner may be non-zero with a zero-length axis: every slice is empty (-1).
  if (p.outer * p.inner > 0) HWY_DYNAMIC_DISPATCH(ks::ArgmaxAxis)(x, p.outer, p.length, p.inner, index);
  return TL_OK;
}

// f16 and bf16: x widened whole by the library's own casts (cast_simd.cpp:
// exact, every NaN payload a NaN), then the f32 walk.
static tl_status ArgmaxAxisHalf(bool bf16, const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis,
                                int32_t* index) {
  kt::AxisPlan p;
  if (tl_status st = kt::PlanArgmaxAxis(x, shape, rank, axis, index, &p)) return st;
  if (p.outer * p.inner == 0) return TL_OK;
  const int64_t count = p.outer * p.length * p.inner;
  std::vector<float> wide(static_cast<size_t>(count));
  (bf16 ? tl_cast_bf16_to_f32 : tl_cast_f16_to_f32)(x, wide.data(), count);
  HWY_DYNAMIC_DISPATCH(ks::ArgmaxAxis)(wide.data(), p.outer, p.length, p.inner, index);
  return TL_OK;
}

tl_status tl_argmax_axis_f16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index) {
  return ArgmaxAxisHalf(false, x, shape, rank, axis, index);
}

tl_status tl_argmax_axis_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index) {
  return ArgmaxAxisHalf(true, x, shape, rank, axis, index);
}

tl_status tl_transpose_f32(const float* x, const int64_t* shape, int64_t rank, float* y) {
  kt::MovePlan plan;
  if (tl_status st = kt::PlanTranspose(x, shape, rank, y, &plan)) return st;
  HWY_DYNAMIC_DISPATCH(ks::Move)(plan, x, y);
  return TL_OK;
}

tl_status tl_permute_f32(const float* x, const int64_t* shape, int64_t rank, const int64_t* perm, float* y) {
  kt::MovePlan plan;
  if (tl_status st = kt::PlanPermuteChecked(x, shape, rank, perm, y, &plan)) return st;
  HWY_DYNAMIC_DISPATCH(ks::Move)(plan, x, y);
  return TL_OK;
}

// The half twins: the 16-bit patterns moved as they are (tensor_move-inl.h's
// Move16), never through float, so that signalling NaNs stay signalling.
tl_status tl_transpose_f16(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y) {
  kt::MovePlan plan;
  if (tl_status st = kt::PlanTranspose(x, shape, rank, y, &plan)) return st;
  HWY_DYNAMIC_DISPATCH(ks::Move16)(plan, x, y);
  return TL_OK;
}

tl_status tl_transpose_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y) {
  return tl_transpose_f16(x, shape, rank, y);
}

tl_status tl_permute_f16(const uint16_t* x, const int64_t* shape, int64_t rank, const int64_t* perm, uint16_t* y) {
  kt::MovePlan plan;
  if (tl_status st = kt::PlanPermuteChecked(x, shape, rank, perm, y, &plan)) return st;
  HWY_DYNAMIC_DISPATCH(ks::Move16)(plan, x, y);
  return TL_OK;
}

tl_status tl_permute_bf16(const uint16_t* x, const int64_t* shape, int64_t rank, const int64_t* perm, uint16_t* y) {
  return tl_permute_f16(x, shape, rank, perm, y);
}

}  // extern "C"
#endif  // HWY_ONCE
