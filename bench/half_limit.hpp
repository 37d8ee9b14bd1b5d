// The half (f16, bf16) twins of the memory-bound ops against the limit of
// the level their data lives in, measured in the same run: the kernel and
// each candidate of its access pattern (peaks.hpp: copy_candidates, or the
// OR stream where no candidate moves the same pattern) over as many bytes,
// in the same rounds of best_rates (7 rounds of 0.1 s batches, wall clock).
// Bytes are those the kernel moves: 2 a half value, 4 an f32 gain.
#pragma once

#include <benchmark/benchmark.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench/bandwidth_ref.h"
#include "bench/json_report.hpp"
#include "bench/peaks.hpp"
#include "tinyllm/tensor.h"

namespace konform::bench {

enum class Half { f16, bf16 };

inline const char* SuffixOf(Half h) { return h == Half::f16 ? "_f16" : "_bf16"; }

// n half values rounded (by the library's casts) from N(0, scale) floats,
// 64-byte aligned and `seed` * 576 bytes past a 4 KiB boundary, as the f32
// benches' buffers (no 4K aliasing between arrays). n even: as_floats()
// views the bytes as n / 2 floats for the limit's candidates.
class HalfBuffer {
 public:
  HalfBuffer(size_t n, unsigned seed, Half h, float scale = 1.0f)
      : base_(static_cast<uint16_t*>(std::aligned_alloc(4096, (n * 2 + 8192) / 4096 * 4096))),
        data_(base_.get() + (seed % 7) * 576 / 2) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, scale);
    std::vector<float> x(n);
    for (auto& e : x) e = dist(rng);
    (h == Half::f16 ? tl_cast_f32_to_f16 : tl_cast_f32_to_bf16)(x.data(), data_, static_cast<int64_t>(n));
  }
  uint16_t* get() const { return data_; }
  float* as_floats() const { return reinterpret_cast<float*>(data_); }

 private:
  struct Free {
    void operator()(uint16_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint16_t[], Free> base_;
  uint16_t* data_;
};

// Each candidate followed by a read of `extra` (n floats: a norm's f32 gain),
// so that the candidates move the kernel's bytes.
inline std::vector<Candidate> WithRead(std::vector<Candidate> refs, const float* extra, size_t n) {
  const auto stream = BestStream();
  for (auto& c : refs)
    c = {c.name + "+read", [f = c.fn, stream, extra, n] {
           f();
           benchmark::DoNotOptimize(stream(extra, nullptr, nullptr, n));
         }};
  return refs;
}

// The OR stream y = a | b over n floats (row by row with a row b when rows >
// 1 and b_row): the one candidate of the two-inputs-one-output pattern.
inline std::vector<Candidate> TwoInOneOut(const float* a, const float* b, float* y, size_t n, size_t rows = 1) {
  const auto stream = BestStream();
  return {{"or_stream", [=] {
             const size_t m = n / rows;
             for (size_t r = 0; r < rows; ++r) stream(a + r * m, rows > 1 ? b : b + r * m, y + r * m, m);
           }}};
}

// fn once, then under Google Benchmark's loop, `bytes` a call.
inline void TimeUnder(benchmark::State& state, double bytes, const std::function<void()>& fn) {
  fn();
  for (auto _ : state) {
    fn();
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
}

// `kernel` under Google Benchmark's loop, then its best rate against the
// candidates: GBps, limit_GBps, pct_of_limit, the label the best candidate,
// and a JSON figure (json_report.hpp).
inline void RunAgainstLimit(benchmark::State& state, const std::string& name, const std::string& shape, double bytes,
                            const std::function<void()>& kernel, const std::vector<Candidate>& refs) {
  TimeUnder(state, bytes, kernel);
  const Rated r = rate_against({kernel}, refs, bytes, 7, 0.1);
  const double gbps = r.kernels[0] / 1e9, limit = r.limit / 1e9;
  state.counters["GBps"] = gbps;
  state.counters["limit_GBps"] = limit;
  state.counters["pct_of_limit"] = 100.0 * gbps / limit;
  state.SetLabel("limit: " + r.limit_name);
  record(name, shape, 1, gbps, "GB/s", "limit:" + r.limit_name, limit);
}

// A bare loop and the library's kernel over the same buffers, in the same
// rounds as the candidates (RunAgainstLimit's, with the loop as the
// benchmark's body and the kernel beside it; a null kernel gets 0):
// loop_pct and kernel_pct (% of the limit), kernel_of_loop, limit_GBps.
inline Rated LoopBeside(benchmark::State& state, double bytes, const std::function<void()>& loop,
                        const std::function<void()>& kernel, const std::vector<Candidate>& refs) {
  TimeUnder(state, bytes, loop);
  const Rated r = rate_against({loop, kernel}, refs, bytes, 7, 0.1);
  state.counters["loop_pct"] = 100.0 * r.kernels[0] / r.limit;
  state.counters["kernel_pct"] = 100.0 * r.kernels[1] / r.limit;
  state.counters["kernel_of_loop"] = r.kernels[1] / r.kernels[0];
  state.counters["limit_GBps"] = r.limit / 1e9;
  state.SetLabel("limit: " + r.limit_name);
  return r;
}

#if defined(__x86_64__) || defined(__i386__)
// Whether this CPU runs the bare AVX-512 loops (F, DQ, BW, and F16C); if
// not, `bench` says that nothing was measured. Fixes BestStream's target.
inline bool RunsAvx512Loops(const char* bench) {
  unsigned a, b, c, d;  // F16C: CPUID.1:ECX[29] (clang's __builtin_cpu_supports has no "f16c")
  const bool f16c = __get_cpuid(1, &a, &b, &c, &d) && (c >> 29 & 1);
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512dq") ||
      !__builtin_cpu_supports("avx512bw") || !f16c) {
    std::printf("%s: this CPU has no AVX-512 (F, DQ, BW) or F16C; nothing measured\n", bench);
    return false;
  }
  BestStream();
  return true;
}
#endif

// Registers a half benchmark with a fixed count of iterations: Google
// Benchmark then calls it once, so each run records each figure once (with
// its own choice of iterations it calls a benchmark several times).
template <class... Args>
benchmark::internal::Benchmark* RegisterHalf(const std::string& name, Args&&... args) {
  return benchmark::RegisterBenchmark(name.c_str(), std::forward<Args>(args)...)->Iterations(10);
}

}  // namespace konform::bench
