// The sizes and mask of one validated attention call, as the kernels of
// attention-inl.h read them: one type for every Highway target (a struct of
// the per-target namespace would be a different type on each).
#pragma once

#include <cstdint>

namespace konform::simd {

struct AttnGeometry {
  int64_t batch, heads, kv_heads, sq, sk, d;
  bool causal;
  const float* mask;               // nullptr: no mask
  int64_t mask_b, mask_h, mask_i;  // element strides along b, h, i (0 broadcasts); j's is 1
};

}  // namespace konform::simd
