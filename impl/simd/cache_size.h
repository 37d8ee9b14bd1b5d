// The sizes of this core's L1 data and L2 caches, for kernels whose best loop
// order depends on whether their working set fits in one. Read once (glibc
// takes them from CPUID); 32 KiB and 1 MiB where the system does not say.
#pragma once

#include <unistd.h>

#include <cstddef>

namespace konform::simd {

// sysconf(name) in bytes, or `fallback` where it says nothing.
inline size_t CacheBytes(int name, size_t fallback) {
  const long v = sysconf(name);
  return v > 0 ? static_cast<size_t>(v) : fallback;
}

inline size_t L1DataBytes() {
  static const size_t bytes = CacheBytes(_SC_LEVEL1_DCACHE_SIZE, size_t{32} << 10);
  return bytes;
}

inline size_t L2Bytes() {
  static const size_t bytes = CacheBytes(_SC_LEVEL2_CACHE_SIZE, size_t{1} << 20);
  return bytes;
}

}  // namespace konform::simd
