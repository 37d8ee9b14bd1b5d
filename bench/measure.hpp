// Runs one kernel under Google Benchmark beside its bandwidth reference,
// measured in the same process on the same buffers.
//
// The machine is shared and noisy (2 vCPUs, other jobs), and noise only ever
// slows a run down, so the comparison uses best rates: kernel and reference
// alternate in batches of >= 5 ms, 12 times each, and the counters report the
// fastest batch of each (GBps, ref_GBps) and their ratio (pct_of_bw).
// bytes_per_second is Google Benchmark's own mean over its timing loop.
// Times are this thread's CPU time, so preemption is not counted.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
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
  double best = 0, best_ref = 0, best_bound = 0;
  for (int k = 0; k < 12; ++k) {
    best_ref = std::max(best_ref, BatchRate(reference, bytes, ref_calls));
    if (bound) best_bound = std::max(best_bound, BatchRate(bound, bytes, bound_calls));
    best = std::max(best, BatchRate(kernel, bytes, calls));
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
