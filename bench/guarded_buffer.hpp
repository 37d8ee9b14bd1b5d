// A float array that ends right before a PROT_NONE page, so any read or write
// past its end faults, with a canary in front of it to catch writes before it.
// The start is only float-aligned (its alignment follows n), which is the
// alignment the kernels must accept.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace konform::bench {

class GuardedBuffer {
 public:
  explicit GuardedBuffer(size_t n) : n_(n) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t body = (n * sizeof(float) + kCanaryBytes + page - 1) / page * page;
    bytes_ = body + page;
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
    base_ = static_cast<unsigned char*>(p);
    if (mprotect(base_ + body, page, PROT_NONE) != 0) throw std::runtime_error("mprotect failed");
    data_ = reinterpret_cast<float*>(base_ + body - n * sizeof(float));
    std::memset(reinterpret_cast<unsigned char*>(data_) - kCanaryBytes, kCanary, kCanaryBytes);
  }
  ~GuardedBuffer() { munmap(base_, bytes_); }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  float* data() { return data_; }
  size_t size() const { return n_; }
  float& operator[](size_t i) { return data_[i]; }

  // True when the bytes before the array were never written.
  bool canary_intact() const {
    const unsigned char* c = reinterpret_cast<const unsigned char*>(data_) - kCanaryBytes;
    for (size_t i = 0; i < kCanaryBytes; ++i)
      if (c[i] != kCanary) return false;
    return true;
  }

 private:
  static constexpr size_t kCanaryBytes = 64;
  static constexpr unsigned char kCanary = 0xA5;
  size_t n_;
  size_t bytes_ = 0;
  unsigned char* base_ = nullptr;
  float* data_ = nullptr;
};

}  // namespace konform::bench
