// Just enough of CUDA to run impl/cuda/elementwise.cu and kernels.cuh on the
// CPU (KONFORM_CUDA_EMULATION): one std::thread per CUDA thread of a block,
// the blocks of a launch in turn, __syncthreads a std::barrier, __shared__
// a static (one block runs at a time), "device" memory a host allocation.
// It checks the library's logic (indexing, reductions, ties, the copies in
// and out) through konform without a GPU; not nvcc, not CUDA's math
// functions (cosf, expf are the host's here), not the real runtime.
#pragma once

#include <math.h>  // sqrtf, cosf, sinf, expf, isnan unqualified, as in CUDA device code

#include <barrier>
#include <cstddef>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

struct EmulatedDim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local EmulatedDim3 threadIdx, blockIdx;
inline EmulatedDim3 blockDim, gridDim;
inline std::barrier<>* emulated_block_barrier = nullptr;

inline void __syncthreads() { emulated_block_barrier->arrive_and_wait(); }

#define __global__
#define __device__
#define __shared__ static

namespace konform::cuda {

// Runs kernel(args...) as a grid of `grid` blocks of `block` threads: each
// thread walks the blocks in order, and all meet at a barrier between blocks
// so that no block's __shared__ data is overwritten while still in use.
template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), unsigned grid, unsigned block, Args... args) {
  gridDim.x = grid;
  blockDim.x = block;
  std::barrier<> barrier(block);
  emulated_block_barrier = &barrier;
  std::vector<std::thread> threads;
  threads.reserve(block);
  for (unsigned t = 0; t < block; ++t)
    threads.emplace_back([&, t] {
      threadIdx.x = t;
      for (unsigned b = 0; b < grid; ++b) {
        blockIdx.x = b;
        kernel(args...);
        barrier.arrive_and_wait();
      }
    });
  for (auto& th : threads) th.join();
  emulated_block_barrier = nullptr;
}

inline void check_launch(const char*) {}

// "Device" memory: a host copy, so the host code's copies in and out run as
// they do on a GPU (and in-place calls see separate buffers, as there).
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer(size_t count, const char*) : data_(count > 0 ? std::make_unique<T[]>(count) : nullptr), count_(count) {}
  DeviceBuffer(const T* host, size_t count, const char* where) : DeviceBuffer(count, where) {
    if (count_ > 0) std::memcpy(data_.get(), host, count_ * sizeof(T));
  }
  T* get() const { return data_.get(); }
  void copy_to(T* host) const {
    if (count_ > 0) std::memcpy(host, data_.get(), count_ * sizeof(T));
  }

 private:
  std::unique_ptr<T[]> data_;
  size_t count_;
};

}  // namespace konform::cuda
