// The size of this core's L1 data cache, for kernels whose best loop order
// depends on whether their working set fits in it. Read once (glibc takes it
// from CPUID); 32 KiB where the system does not say.
#pragma once

#include <unistd.h>

#include <cstddef>

namespace konform::simd {

inline size_t L1DataBytes() {
  static const size_t bytes = [] {
    const long v = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    return v > 0 ? static_cast<size_t>(v) : size_t{32} << 10;
  }();
  return bytes;
}

}  // namespace konform::simd
