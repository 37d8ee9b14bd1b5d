// Host <-> device plumbing of libtl_cuda: device memory, copies, streams and
// the launch. The host ABI copies its inputs in, runs the device-pointer
// function on the default stream and copies its outputs back (host_call.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

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

// Waits for everything enqueued on `stream`.
inline void synchronize(cudaStream_t stream, const char* where) {
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize", where);
}

// count elements from device memory to device memory, enqueued on `stream`.
template <typename T>
void copy_on_device(T* dst, const T* src, size_t count, cudaStream_t stream, const char* where) {
  if (count > 0)
    check(cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync", where);
}

// count elements of device memory to host memory, after the default stream's work.
template <typename T>
void copy_to_host(T* host, const T* device, size_t count, const char* where) {
  if (count > 0)
    check(cudaMemcpy(host, device, count * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy from the device", where);
}

// A host copy of count elements of device memory, after the work before it on `stream`.
template <typename T>
std::vector<T> fetch(const T* device, size_t count, cudaStream_t stream, const char* where) {
  std::vector<T> host(count);
  if (count > 0) {
    check(cudaMemcpyAsync(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync",
          where);
    synchronize(stream, where);
  }
  return host;
}

// Device memory for `count` elements of T, freed when it goes out of scope.
// Scratch used on a stream (the constructors taking one) waits for that
// stream before it is freed, so that no kernel still reads it.
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
  DeviceBuffer(size_t count, const char* where, cudaStream_t stream) : DeviceBuffer(count, where) {
    waits_ = true;
    stream_ = stream;
  }
  // Scratch holding a copy of host memory, enqueued on `stream`.
  DeviceBuffer(const T* host, size_t count, const char* where, cudaStream_t stream)
      : DeviceBuffer(count, where, stream) {
    if (count_ > 0)
      check(cudaMemcpyAsync(ptr_, host, bytes(), cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync to the device",
            where_);
  }
  ~DeviceBuffer() {
    if (ptr_ == nullptr) return;
    if (waits_) synchronize(stream_, where_);
    cudaFree(ptr_);
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
  bool waits_ = false;
  cudaStream_t stream_ = nullptr;
};

// kernel<<<grid, block, 0, stream>>>(args...): the one place that launches,
// so that tests/cuda_emulation can run the host code on the CPU.
template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), unsigned grid, unsigned block, cudaStream_t stream, Args... args) {
  kernel<<<grid, block, 0, stream>>>(args...);
}

}  // namespace konform::cuda
