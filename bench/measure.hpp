// Runs one kernel under Google Benchmark beside its bandwidth reference,
// measured in the same process on the same buffers.
//
// The machine is shared and noisy (2 vCPUs, other jobs), and noise only ever
// slows a run down, so the comparison uses best rates: kernel and reference
// alternate in batches of >= 5 ms, 12 times each, and the counters report the
// fastest batch of each (GBps, ref_GBps) and their ratio (pct_of_bw).
// bytes_per_second is Google Benchmark's own mean over its timing loop.
// Times are this thread's CPU time, so preemption is not counted. On x86,
// GHz and ref_GHz are the core clock right after each contender's batches
// (the fastest seen): dense AVX-512 floating-point code runs at a lower
// clock than a copy on some Xeons, and there that shows as lost bandwidth.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <functional>

namespace konform::bench {

inline double ThreadSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// How many calls of `fn` last about `seconds` (reading the thread clock is a
// system call: it is read around batches, never around single calls).
inline int64_t CallsFor(const std::function<void()>& fn, double seconds) {
  for (int64_t calls = 1;; calls *= 2) {
    const double t0 = ThreadSeconds();
    for (int64_t k = 0; k < calls; ++k) fn();
    const double elapsed = ThreadSeconds() - t0;
    if (elapsed >= seconds / 4) return static_cast<int64_t>(double(calls) * seconds / elapsed) + 1;
  }
}

// Rate in bytes/s of `calls` back-to-back calls of `fn`, after one untimed
// call: a batch follows the other contender's, whose output may still sit in
// the caches dirty, and a kernel that streams its output past the caches
// would pay for that first (in batches of a call or two, at 32 MiB, most of
// the time).
inline double BatchRate(const std::function<void()>& fn, double bytes, int64_t calls) {
  fn();
  const double t0 = ThreadSeconds();
  for (int64_t k = 0; k < calls; ++k) fn();
  return bytes * double(calls) / (ThreadSeconds() - t0);
}

// The core clock in GHz now, from 4000 dependent 64-bit multiplies (3 cycles
// each on current x86 cores); 0 elsewhere. A clock lowered by the code just
// run stays low for milliseconds, so this reads the clock that code ran at.
inline double ClockGHz() {
#if defined(__x86_64__)
  uint64_t v = 3;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000; ++i) asm volatile("imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0" : "+r"(v));
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  return 12000.0 / ns;
#else
  return 0;
#endif
}

// `bytes` counts each byte the kernel must read and write once. `bound`, when
// given, is a second reference: the memory traffic the op's structure cannot
// avoid (a norm reads a row for its statistics before it can write any of
// it), timed in the same batches: bound_GBps and pct_of_bound.
inline void RunWithReference(benchmark::State& state, double bytes, const std::function<void()>& kernel,
                             const std::function<void()>& reference, const std::function<void()>& bound = {}) {
  kernel();
  for (auto _ : state) {
    kernel();
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
  const int64_t calls = CallsFor(kernel, 0.005), ref_calls = CallsFor(reference, 0.005);
  const int64_t bound_calls = bound ? CallsFor(bound, 0.005) : 0;
  double best = 0, best_ref = 0, best_bound = 0, ghz = 0, ref_ghz = 0;
  for (int k = 0; k < 12; ++k) {
    best_ref = std::max(best_ref, BatchRate(reference, bytes, ref_calls));
    ref_ghz = std::max(ref_ghz, ClockGHz());
    if (bound) best_bound = std::max(best_bound, BatchRate(bound, bytes, bound_calls));
    best = std::max(best, BatchRate(kernel, bytes, calls));
    ghz = std::max(ghz, ClockGHz());
  }
  if (ghz > 0) {
    state.counters["GHz"] = ghz;
    state.counters["ref_GHz"] = ref_ghz;
  }
  state.counters["GBps"] = best / 1e9;
  state.counters["ref_GBps"] = best_ref / 1e9;
  state.counters["pct_of_bw"] = 100.0 * best / best_ref;
  if (bound) {
    state.counters["bound_GBps"] = best_bound / 1e9;
    state.counters["pct_of_bound"] = 100.0 * best / best_bound;
  }
}

}  // namespace konform::bench
