// The checks of the tensor.h wrappers that are not a shape reading or a plan
// alone (tensor_checks.hpp), shared with libtl_cuda (impl/cuda/tensor.cu),
// which refuses the same calls with the same words. Always inlined, so
// libtl_kernels' wrappers compile to the code they had when these lines were
// written in them (a small call's cost is counted in nanoseconds).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "impl/common/status.hpp"
#include "impl/common/tensor_checks.hpp"
#include "tinyllm/tensor.h"

namespace konform::impl::tensor {

// The checks of the elementwise ops: n >= 0, x and y not NULL unless n is 0;
// Clamp's bounds first (numbers, lo <= hi).
[[gnu::always_inline]] inline tl_status CheckElementwise(const void* x, const void* y, int64_t n) {
  if (n < 0) return impl::fail(TL_ERR_INVALID_ARGUMENT, "n = " + std::to_string(n) + " < 0");
  if (tl_status s = NeedData(x, n, "x")) return s;
  return NeedData(y, n, "y");
}

[[gnu::always_inline]] inline tl_status CheckClamp(const void* x, const void* y, int64_t n, float lo, float hi) {
  if (lo != lo || hi != hi)
    return impl::fail(TL_ERR_INVALID_ARGUMENT, "clamp bounds must be numbers (lo = " + std::to_string(lo) +
                                                   ", hi = " + std::to_string(hi) + ")");
  if (lo > hi)
    return impl::fail(TL_ERR_INVALID_ARGUMENT,
                      "clamp needs lo <= hi (lo = " + std::to_string(lo) + ", hi = " + std::to_string(hi) + ")");
  return CheckElementwise(x, y, n);
}

// Argmax along an axis: x seen as [outer, length, inner] around it, with the
// arguments checked (the axis at most INT32_MAX long, the data pointers).
struct AxisPlan {
  int64_t outer = 1, length = 1, inner = 1;
};
[[gnu::always_inline]] inline tl_status PlanArgmaxAxis(const void* x, const int64_t* shape, int64_t rank, int64_t axis,
                                                       const int32_t* index, AxisPlan* plan) {
  Dims s;
  int ax = 0;
  if (tl_status st = ReadDims(shape, rank, 1, "x", &s)) return st;
  if (tl_status st = ResolveAxis(axis, s.rank, &ax)) return st;
  if (s.d[ax] > INT32_MAX)
    return impl::fail(TL_ERR_INVALID_ARGUMENT, "axis " + std::to_string(axis) + " is " + std::to_string(s.d[ax]) +
                                                   " long; int32 indices stop at " + std::to_string(INT32_MAX));
  AxisPlan p;
  p.length = s.d[ax];
  for (int i = 0; i < s.rank; ++i) {
    if (i < ax) p.outer *= s.d[i];
    if (i > ax) p.inner *= s.d[i];
  }
  if (tl_status st = NeedData(x, s.count, "x")) return st;
  if (tl_status st = NeedData(index, p.outer * p.inner, "index")) return st;
  *plan = p;
  return TL_OK;
}

// Transpose's and Permute's checks, then their plans.
[[gnu::always_inline]] inline tl_status PlanTranspose(const void* x, const int64_t* shape, int64_t rank, const void* y,
                                                      MovePlan* plan) {
  Dims s;
  if (tl_status st = ReadDims(shape, rank, 2, "x", &s)) return st;
  if (tl_status st = NeedData(x, s.count, "x")) return st;
  if (tl_status st = NeedData(y, s.count, "y")) return st;
  int64_t perm[kMaxRank];
  for (int i = 0; i < s.rank; ++i) perm[i] = i;
  perm[s.rank - 2] = s.rank - 1;
  perm[s.rank - 1] = s.rank - 2;
  *plan = PlanPermute(s, perm);
  return TL_OK;
}

[[gnu::always_inline]] inline tl_status PlanPermuteChecked(const void* x, const int64_t* shape, int64_t rank,
                                                           const int64_t* perm, const void* y, MovePlan* plan) {
  Dims s;
  if (tl_status st = ReadDims(shape, rank, 0, "x", &s)) return st;
  if (s.rank > 0 && perm == nullptr) return impl::fail(TL_ERR_INVALID_ARGUMENT, "perm is NULL");
  bool seen[kMaxRank] = {};
  for (int i = 0; i < s.rank; ++i) {
    if (perm[i] < 0 || perm[i] >= s.rank || seen[perm[i]]) {
      std::string text;
      for (int k = 0; k < s.rank; ++k) text += (k ? ", " : "") + std::to_string(perm[k]);
      return impl::fail(TL_ERR_INVALID_ARGUMENT,
                        "perm [" + text + "] is not a permutation of 0.." + std::to_string(s.rank - 1));
    }
    seen[perm[i]] = true;
  }
  if (tl_status st = NeedData(x, s.count, "x")) return st;
  if (tl_status st = NeedData(y, s.count, "y")) return st;
  *plan = PlanPermute(s, perm);
  return TL_OK;
}

}  // namespace konform::impl::tensor
