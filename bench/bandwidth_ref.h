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

}  // namespace konform::bench
