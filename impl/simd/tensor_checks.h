// Argument checks of tinyllm/tensor.h for libtl_kernels, and the plans the
// kernels run from: shapes with their size-1 dimensions dropped and
// neighbouring dimensions merged wherever the memory walk allows, so a
// [32, 4096] + [4096] bias add is one loop of rows over one contiguous row.
//
// Written apart from the oracle's checks (reference/.../tensor_shape.hpp):
// a rule read differently in the two places shows up as a finding.
#pragma once

#include <cstdint>

#include "tinyllm/tensor.h"

namespace konform::simd::tensor {

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
tl_status PlanBroadcast(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                        const int64_t* b_shape, int64_t b_rank, const float* y, const int64_t* y_shape,
                        int64_t y_rank, BroadcastPlan* plan);

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

}  // namespace konform::simd::tensor
