// The bandwidth reference of konform_bench: the simplest vector kernel that
// moves the same bytes as the kernel under test, so both run in the same
// cache regime (L1, L2, L3 or DRAM) and the ratio says how close a kernel
// comes to what the memory system delivers on this machine, in this run.
#pragma once

#include <cstddef>
#include <cstdint>

namespace konform::bench {

// y == nullptr: reads a (and b) and returns the OR of their bits (read-only
// traffic). Otherwise y[i] = a[i] | b[i], or y[i] = a[i] when b is null;
// y == a is allowed (in-place traffic).
using StreamFn = uint32_t (*)(const float* a, const float* b, float* y, size_t n);

// The best target's stream kernel, fixed on the first call: forcing a
// libtl_kernels target later (process-wide in libhwy) does not slow the
// reference down.
StreamFn BestStream();

// The tuned streaming kernels that compete for each access pattern's limit
// (bench/peaks.hpp): eight vectors a step in eight independent accumulators.
//   read(a, n, ahead)    the float sum of a, with a software prefetch `ahead`
//                        bytes in front of the loads (0: none)
//   copy(a, y, n, nt)    y = a; nt: non-temporal stores (past the caches)
//   rmw(y, n)            y += 1 in place
struct TunedKernels {
  float (*read)(const float* a, size_t n, size_t ahead);
  void (*copy)(const float* a, float* y, size_t n, bool nt);
  void (*rmw)(float* y, size_t n);
};
TunedKernels BestTuned();

}  // namespace konform::bench
