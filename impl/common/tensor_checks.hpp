// Argument checks of tinyllm/tensor.h for the kernel libraries (libtl_kernels,
// libtl_cuda) and the peer adapters, and the plans the kernels run from: shapes with their size-1 dimensions dropped
// and neighbouring dimensions merged wherever the memory walk allows, so a [32, 4096] + [4096] bias add is one loop of
// rows over one contiguous row.
//
// Written apart from the oracle's checks (reference/.../tensor_shape.hpp):
// a rule read differently in the two places shows up as a finding.
#pragma once

#include <cstdint>

#include "tinyllm/tensor.h"

namespace konform::impl::tensor {

constexpr int kMaxRank = TL_TENSOR_MAX_RANK;

// (The arrays are left uninitialized: only their first `rank` entries are
// ever read, and zeroing them cost a measurable share of a small call.)
struct Dims {
  int rank = 0;
  int64_t d[kMaxRank];
  int64_t count = 1;  // elements
};

// Reads a shape from the ABI (rank in [min_rank, kMaxRank]); on failure sets
// the last error, naming `what`, and returns its status.
tl_status ReadDims(const int64_t* shape, int64_t rank, int min_rank, const char* what, Dims* out);
// NULL is only allowed for a tensor without elements.
tl_status NeedData(const void* p, int64_t count, const char* what);
// A possibly negative axis into [0, rank).
tl_status ResolveAxis(int64_t axis, int rank, int* out);

// y[k] = a[sa . idx(k)] OP b[sb . idx(k)] over an odometer of `rank` loops;
// the innermost strides are 0 (broadcast) or 1 (contiguous).
struct BroadcastPlan {
  int rank = 0;
  int64_t n[kMaxRank];
  int64_t sa[kMaxRank], sb[kMaxRank];
  int64_t count = 0;
};
tl_status PlanBroadcast(const void* a, const int64_t* a_shape, int64_t a_rank, const void* b, const int64_t* b_shape,
                        int64_t b_rank, const void* y, const int64_t* y_shape, int64_t y_rank, BroadcastPlan* plan);

// The calls most made: y and a of one shape, b of that shape, a trailing part
// of it (a bias) or a scalar, a not empty, no NULL. They run as `rows` rows of
// `cols` elements of a, each against b's row of `cols` (sb 1) or its one
// value (sb 0), planned from the caller's arrays alone: at 1 x 4096 the three
// arrays fill the L1, and each other line a call touches (the general plan,
// its frames) cost ~4 ns there. False for anything else, whose general plan
// or error PlanBroadcast gives.
struct FlatBroadcast {
  int64_t rows, cols, sb;
};
// (Inline: a call and its frame are lines the call would touch.)
inline bool PlanFlatBroadcast(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                              const int64_t* b_shape, int64_t b_rank, const float* y, const int64_t* y_shape,
                              int64_t y_rank, FlatBroadcast* plan) {
  if (a == nullptr || b == nullptr || y == nullptr || a_rank < 0 || a_rank > kMaxRank || y_rank != a_rank ||
      b_rank < 0 || b_rank > a_rank)
    return false;
  const int rank = static_cast<int>(a_rank), lead = rank - static_cast<int>(b_rank);
  if (rank > 0 && (a_shape == nullptr || y_shape == nullptr || (b_rank > 0 && b_shape == nullptr))) return false;
  int64_t count = 1, outer = 1, inner = 1;  // a's elements: a's dimensions left of b's times b's
  for (int i = 0; i < rank; ++i) {
    const int64_t n = a_shape[i];
    if (n <= 0 || y_shape[i] != n || (i >= lead && b_shape[i - lead] != n)) return false;
    if (__builtin_mul_overflow(count, n, &count) || count > INT64_MAX / 4) return false;
    if (i < lead) outer = count;  // (no overflow: inner is at most count)
    else inner *= n;
  }
  // b along all of a, one value of b for all of a, or rows of b's length.
  *plan = outer == 1   ? FlatBroadcast{1, count, 1}
          : inner == 1 ? FlatBroadcast{1, count, 0}
                       : FlatBroadcast{outer, inner, 1};
  return true;
}

// y (contiguous, extents n) gets x[src . idx]; src holds the input stride of
// each output dimension. A transpose or any permutation.
struct MovePlan {
  int rank = 0;
  int64_t n[kMaxRank];
  int64_t src[kMaxRank];
  int64_t count = 0;
};
// Output axis i is input axis perm[i]; perm already validated.
MovePlan PlanPermute(const Dims& x, const int64_t* perm);

}  // namespace konform::impl::tensor
