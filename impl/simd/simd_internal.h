// Shared between the kernels' translation unit and dispatch.cpp.
#pragma once

#include <cstdint>

namespace konform::simd {

// The HWY_* bit of the target the kernels' next dispatched call runs.
int64_t DispatchedTarget();

}  // namespace konform::simd
