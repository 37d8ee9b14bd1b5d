// The BLAS peers of the compute benchmarks: Debian's libopenblas0 and
// libblis4, loaded with dlopen (both export cblas_sgemm and cblas_sgemv, so
// neither is linked). A library that is not installed has null functions.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace konform::bench {

// cblas from a library opened on its own (RTLD_LOCAL: its symbols stay its own).
struct Blas {
  std::string name;
  void* handle = nullptr;
  using Sgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
  using Sgemv = void (*)(int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
  Sgemm sgemm = nullptr;
  Sgemv sgemv = nullptr;
  void (*set_threads)(int) = nullptr;
  void (*set_threads_blis)(int64_t) = nullptr;

  void threads(int n) const {
    if (set_threads) set_threads(n);
    if (set_threads_blis) set_threads_blis(n);
  }
};

constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

// A peer's idle threads must not spin on the cores that the next kernel of
// the same round runs on. OpenBLAS's pthread server spins 2^28 cycles (tens
// of milliseconds) after each call by default: timed right after it, our
// two-thread GEMV read half the bandwidth it reads alone (36-39 against
// 72-73 GB/s at 4096^2 on the Zen 5 guest). OpenBLAS reads the timeout once,
// when it loads; a value the user set is kept. (GNU OpenMP, under BLIS and
// oneDNN, spins about 300000 times, a fraction of a millisecond.)
inline void quiet_peer_threads() {
  setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);  // 2^4 cycles, the least it takes
}

inline Blas open_blas(const std::string& name, const char* soname) {
  Blas b;
  b.name = name;
  quiet_peer_threads();
  b.handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (b.handle == nullptr) return b;
  b.sgemm = reinterpret_cast<Blas::Sgemm>(dlsym(b.handle, "cblas_sgemm"));
  b.sgemv = reinterpret_cast<Blas::Sgemv>(dlsym(b.handle, "cblas_sgemv"));
  b.set_threads = reinterpret_cast<void (*)(int)>(dlsym(b.handle, "openblas_set_num_threads"));
  b.set_threads_blis = reinterpret_cast<void (*)(int64_t)>(dlsym(b.handle, "bli_thread_set_num_threads"));
  return b;
}

inline const Blas& openblas() {
  static const Blas b = open_blas("OpenBLAS", "libopenblas.so.0");
  return b;
}
inline const Blas& blis() {
  static const Blas b = open_blas("BLIS", "libblis.so.4");
  return b;
}

}  // namespace konform::bench
