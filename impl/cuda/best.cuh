// Argmax's candidate and its order, for tl_argmax_f32 (kernels.cuh) and
// tl_argmax_axis_f32 (tensor.cu): the rule of tinyllm/elementwise.h, the
// lowest index of the largest number, NaN skipped, -1 for none.
#pragma once

#include <cstdint>

namespace konform::cuda {

// A candidate for argmax: index -1 means "no number seen".
struct Best {
  float value;
  int64_t index;
};

// The larger value; on equal values (+0 == -0 included) the lower index.
// NaN never enters a Best, so this order is total and the reduction's shape
// cannot change the answer.
__device__ inline Best better(Best a, Best b) {
  if (b.index < 0) return a;
  if (a.index < 0) return b;
  if (b.value > a.value || (b.value == a.value && b.index < a.index)) return b;
  return a;
}

// A thread's walk takes indices in rising order: a strict > keeps the first
// of equal values; NaN is skipped.
__device__ inline Best consider(Best mine, float v, int64_t k) {
  if (isnan(v)) return mine;
  return mine.index < 0 || v > mine.value ? Best{v, k} : mine;
}

}  // namespace konform::cuda
