// Host <-> device plumbing of libtl_cuda: the C ABI takes host pointers, so
// every call copies its inputs in, launches, and copies its outputs back.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>

namespace konform::cuda {

// The ABI's functions are void: a CUDA failure cannot reach the caller, and
// returning would hand back unwritten outputs as results. Say what failed and
// stop; konform runs kernels in a child and reports that as crashed.
[[noreturn]] inline void die(const char* what, cudaError_t e, const char* where) {
  std::fprintf(stderr, "libtl_cuda: %s failed in %s: %s (%s)\n", what, where, cudaGetErrorName(e),
               cudaGetErrorString(e));
  std::fflush(stderr);
  std::abort();
}

inline void check(cudaError_t e, const char* what, const char* where) {
  if (e != cudaSuccess) die(what, e, where);
}

// A launch's own errors (bad configuration, no kernel image); errors while it
// runs surface at the copy back, which waits for it.
inline void check_launch(const char* where) { check(cudaGetLastError(), "a kernel launch", where); }

// Device memory for `count` elements of T, freed when it goes out of scope.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer(size_t count, const char* where) : count_(count), where_(where) {
    if (count_ > 0) check(cudaMalloc(reinterpret_cast<void**>(&ptr_), bytes()), "cudaMalloc", where_);
  }
  // Allocates and copies `count` elements from host memory.
  DeviceBuffer(const T* host, size_t count, const char* where) : DeviceBuffer(count, where) {
    if (count_ > 0) check(cudaMemcpy(ptr_, host, bytes(), cudaMemcpyHostToDevice), "cudaMemcpy to the device", where_);
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return ptr_; }
  // Copies the whole buffer back to host memory (and waits for the kernels before it).
  void copy_to(T* host) const {
    if (count_ > 0)
      check(cudaMemcpy(host, ptr_, bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy from the device", where_);
  }

 private:
  size_t bytes() const { return count_ * sizeof(T); }
  T* ptr_ = nullptr;
  size_t count_;
  const char* where_;
};

// kernel<<<grid, block>>>(args...): the one place that launches, so that
// tests/cuda_emulation can run elementwise.cu's host code on the CPU.
template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), unsigned grid, unsigned block, Args... args) {
  kernel<<<grid, block>>>(args...);
}

}  // namespace konform::cuda
