// The launch shapes of libtl_cuda's kernels.
#pragma once

namespace konform::cuda {

constexpr unsigned kThreads = 256;  // the block of the one-thread-per-item kernels and of argmax
// The block of the kernels that give a block to each line (Softmax, Argmax
// along an axis): a warp, fixed so that a line's result never depends on the
// batch (and small, since each block costs the emulation a barrier per tree level).
constexpr unsigned kLineThreads = 32;

// Blocks for a grid-stride loop over `n` items: enough to fill a GPU, never
// more than 65536 (each thread then takes several).
inline unsigned grid_for(long long n, unsigned threads) {
  const long long blocks = (n + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

// Blocks for a kernel of one block per line (grid-striding past 65536 lines).
inline unsigned grid_for_lines(long long lines) { return static_cast<unsigned>(lines < 65536 ? lines : 65536); }

}  // namespace konform::cuda
