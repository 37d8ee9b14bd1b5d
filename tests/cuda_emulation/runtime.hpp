// Just enough of CUDA to run impl/cuda/*.cu and their kernels on the CPU
// (KONFORM_CUDA_EMULATION): each CUDA thread of a block a fiber on the
// calling thread (fibers.cpp), the blocks of a launch in turn, __syncthreads
// a switch back to the block's scheduler, __shared__ a static (one block
// runs at a time), "device" memory a host allocation. Fibers, not OS
// threads: 256 threads per block meeting at barriers on 2 cores spent the
// time in the operating system's scheduler.
// It checks the library's logic (indexing, reductions, ties, the copies in
// and out) through konform without a GPU; not nvcc, not CUDA's math
// functions (cosf, expf are the host's here), not the real runtime.
#pragma once

#include <math.h>  // sqrtf, cosf, sinf, expf, isnan unqualified, as in CUDA device code

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

typedef struct CUstream_st* cudaStream_t;  // as cuda_runtime.h; streams are ignored here

struct EmulatedDim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline EmulatedDim3 threadIdx, blockIdx, blockDim, gridDim;

namespace konform::cuda {
void emulated_sync();  // fibers.cpp
void emulated_run_block(unsigned threads, void (*body)(void*), void* arg);
}  // namespace konform::cuda

inline void __syncthreads() { konform::cuda::emulated_sync(); }

#define __global__
#define __device__
#define __shared__ static

namespace konform::cuda {

inline std::mutex emulated_one_launch;

// Runs kernel(args...) as a grid of `grid` blocks of `block` threads, one
// block at a time, so that no block's __shared__ data is overwritten while
// still in use. One launch at a time: the statics are shared. Synchronous,
// whatever the stream: every stream's work is done when its call returns.
template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), unsigned grid, unsigned block, cudaStream_t, Args... args) {
  std::lock_guard<std::mutex> lock(emulated_one_launch);
  gridDim.x = grid;
  blockDim.x = block;
  auto body = [&] { kernel(args...); };
  for (unsigned b = 0; b < grid; ++b) {
    blockIdx.x = b;
    emulated_run_block(
        block, [](void* p) { (*static_cast<decltype(body)*>(p))(); }, &body);
  }
}

inline void check_launch(const char*) {}
inline void synchronize(cudaStream_t, const char*) {}

template <typename T>
void copy_on_device(T* dst, const T* src, size_t count, cudaStream_t, const char*) {
  if (count > 0) std::memmove(dst, src, count * sizeof(T));
}

template <typename T>
void copy_to_host(T* host, const T* device, size_t count, const char*) {
  if (count > 0) std::memcpy(host, device, count * sizeof(T));
}

template <typename T>
std::vector<T> fetch(const T* device, size_t count, cudaStream_t, const char*) {
  return std::vector<T>(device, device + count);
}

// "Device" memory: a host copy, so the host code's copies in and out run as
// they do on a GPU (and in-place calls see separate buffers, as there).
// Device pointers handed to the _dev functions are host memory here.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer(size_t count, const char*) : data_(count > 0 ? std::make_unique<T[]>(count) : nullptr), count_(count) {}
  DeviceBuffer(const T* host, size_t count, const char* where) : DeviceBuffer(count, where) {
    if (count_ > 0) std::memcpy(data_.get(), host, count_ * sizeof(T));
  }
  DeviceBuffer(size_t count, const char* where, cudaStream_t) : DeviceBuffer(count, where) {}
  DeviceBuffer(const T* host, size_t count, const char* where, cudaStream_t) : DeviceBuffer(host, count, where) {}
  T* get() const { return data_.get(); }
  void copy_to(T* host) const {
    if (count_ > 0) std::memcpy(host, data_.get(), count_ * sizeof(T));
  }

 private:
  std::unique_ptr<T[]> data_;
  size_t count_;
};

}  // namespace konform::cuda
