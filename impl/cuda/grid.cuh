// The launch shape every libtl_cuda kernel of one thread per item shares.
#pragma once

namespace konform::cuda {

constexpr unsigned kThreads = 256;  // the block of the one-thread-per-item kernels and of argmax

// Blocks for a grid-stride loop over `n` items: enough to fill a GPU, never
// more than 65536 (each thread then takes several).
inline unsigned grid_for(long long n, unsigned threads) {
  const long long blocks = (n + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

}  // namespace konform::cuda
