// The limits konform's compute benchmarks are read against, measured in the
// same run: the FMA peak and each access pattern's bandwidth limit, with the
// best-of-rounds timing both use (bench/peaks.hpp).
#include "bench/peaks.hpp"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "bench/bandwidth_ref.h"
#include "bench/blas_peer.hpp"

namespace konform::bench {

// ---------------------------------------------------------------- timing

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

static double batch_seconds() { return std::getenv("TL_BENCH_QUICK") ? 0.05 : 0.3; }

// Calls of fn that last about `seconds`.
static int64_t calls_for(const std::function<void()>& fn, double seconds) {
  for (int64_t calls = 1;; calls *= 2) {
    const double t0 = now();
    for (int64_t k = 0; k < calls; ++k) fn();
    const double dt = now() - t0;
    if (dt >= seconds / 4) return std::max<int64_t>(1, static_cast<int64_t>(double(calls) * seconds / dt));
  }
}

// The best rate (work / s) of each contender over rounds in which each runs
// one batch in turn.
std::vector<double> best_rates(const std::vector<std::function<void()>>& fns, double work, int rounds, double seconds) {
  const double batch = std::getenv("TL_BENCH_QUICK") ? batch_seconds() : seconds > 0 ? seconds : batch_seconds();
  std::vector<int64_t> calls;
  for (const auto& f : fns) calls.push_back(f ? calls_for(f, batch) : 0);
  std::vector<double> best(fns.size(), 0.0);
  for (int round = 0; round < rounds; ++round)
    for (size_t i = 0; i < fns.size(); ++i) {
      if (!fns[i]) continue;
      const double t0 = now();
      for (int64_t k = 0; k < calls[i]; ++k) fns[i]();
      best[i] = std::max(best[i], work * double(calls[i]) / (now() - t0));
    }
  return best;
}

// ---------------------------------------------------------------- limits

// Independent FMA chains, enough to cover the latency on any x86: the FMA peak.
namespace {

__attribute__((target("avx512f"))) float fma_loop_avx512(int64_t iters) {
  __m512 a[16];
  const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
  for (int i = 0; i < 16; ++i) a[i] = _mm512_set1_ps(float(i));
  for (int64_t it = 0; it < iters; ++it)
    for (int i = 0; i < 16; ++i) a[i] = _mm512_fmadd_ps(a[i], m, c);
  __m512 s = a[0];
  for (int i = 1; i < 16; ++i) s = _mm512_add_ps(s, a[i]);
  return _mm512_reduce_add_ps(s);
}

__attribute__((target("avx2,fma"))) float fma_loop_avx2(int64_t iters) {
  __m256 a[12];
  const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
  for (int i = 0; i < 12; ++i) a[i] = _mm256_set1_ps(float(i));
  for (int64_t it = 0; it < iters; ++it)
    for (int i = 0; i < 12; ++i) a[i] = _mm256_fmadd_ps(a[i], m, c);
  __m256 s = a[0];
  for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, a[i]);
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0];
}

// FLOPs of one iteration of either loop: its chains x lanes x 2.
constexpr double FlopsPerIter(bool wide) { return 2.0 * (wide ? 16 * 16 : 12 * 8); }

}  // namespace

// GFLOP/s of `threads` threads each running FMA chains, best of AVX-512 and AVX2.
double fma_peak(int threads) {
  static std::atomic<float> sink{0};
  auto run = [&](bool wide) {
    const int64_t iters = 2'000'000;
    auto one = [&] { sink = sink + (wide ? fma_loop_avx512(iters) : fma_loop_avx2(iters)); };
    const double flops = double(iters) * FlopsPerIter(wide) * threads;
    double best = 0;
    for (int r = 0; r < 5; ++r) {
      const double t0 = now();
      std::vector<std::thread> ts;
      for (int t = 1; t < threads; ++t) ts.emplace_back(one);
      one();
      for (auto& t : ts) t.join();
      best = std::max(best, flops / (now() - t0));
    }
    return best;
  };
  double peak = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? run(false) : 0;
  if (__builtin_cpu_supports("avx512f")) peak = std::max(peak, run(true));
  return peak / 1e9;
}

std::function<void()> fma_work(double flops) {
  static std::atomic<float> sink{0};
  const bool wide = __builtin_cpu_supports("avx512f");
  const auto iters = std::max<int64_t>(1, static_cast<int64_t>(flops / FlopsPerIter(wide)));
  return [wide, iters] { sink = sink + (wide ? fma_loop_avx512(iters) : fma_loop_avx2(iters)); };
}

// fn(begin, count) `reps` times on each of `threads` threads over [0, n):
// disjoint parts (reps > 1: a buffer in a core's own caches, whose passes
// must outlast a thread's start).
template <class Fn>
static void split(size_t n, int threads, int reps, const Fn& fn) {
  const size_t part = n / static_cast<size_t>(threads);
  auto passes = [&](size_t b, size_t k) {
    for (int r = 0; r < reps; ++r) fn(b, k);
  };
  std::vector<std::thread> ts;
  for (int t = 1; t < threads; ++t)
    ts.emplace_back([&, t] { passes(size_t(t) * part, t + 1 == threads ? n - size_t(t) * part : part); });
  passes(0, threads == 1 ? n : part);
  for (auto& t : ts) t.join();
}

std::vector<Candidate> read_candidates(const float* buf, size_t n, int threads, int reps) {
  static std::atomic<uint32_t> sink{0};
  static std::atomic<float> fsink{0};
  const auto stream = BestStream();
  const auto tuned = BestTuned();
  std::vector<Candidate> c;
  c.push_back({"or_stream", [=] {
                 split(n, threads, reps, [&](size_t b, size_t k) { sink += stream(buf + b, nullptr, nullptr, k); });
               }});
  c.push_back({"tuned_sum", [=] {
                 split(n, threads, reps, [&](size_t b, size_t k) { fsink = fsink + tuned.read(buf + b, k, 0); });
               }});
  c.push_back({"tuned_sum_prefetch", [=] {
                 split(n, threads, reps, [&](size_t b, size_t k) { fsink = fsink + tuned.read(buf + b, k, 1024); });
               }});
  const size_t cols = 4096;
  const Blas& ob = openblas();
  if (ob.sgemv && n % cols == 0) {
    auto x = std::make_shared<std::vector<float>>(filled(cols, 1.0f));
    auto y = std::make_shared<std::vector<float>>(n / cols);
    c.push_back({"openblas_sgemv", [=, &ob] {
                   ob.threads(threads);
                   for (int r = 0; r < reps; ++r)
                     ob.sgemv(kRowMajor, kNoTrans, int(n / cols), int(cols), 1.0f, buf, int(cols), x->data(), 1, 0.0f,
                              y->data(), 1);
                 }});
  }
  return c;
}

size_t copies_past_cache(double bytes) { return std::max<size_t>(1, size_t(std::ceil(268435456.0 / bytes))); }

std::vector<Candidate> cycled_read_candidates(const std::vector<std::vector<float>>& copies, size_t n, int threads) {
  auto lists = std::make_shared<std::vector<std::vector<Candidate>>>();
  for (const auto& c : copies) lists->push_back(read_candidates(c.data(), n, threads));
  std::vector<Candidate> refs;
  for (size_t i = 0; i < lists->front().size(); ++i)
    refs.push_back(
        {lists->front()[i].name, [lists, i, t = size_t(0)]() mutable { (*lists)[t++ % lists->size()][i].fn(); }});
  return refs;
}

std::vector<Candidate> copy_candidates(const float* a, float* y, size_t n, int threads, int reps) {
  const auto stream = BestStream();
  const auto tuned = BestTuned();
  std::vector<Candidate> c;
  c.push_back({"or_stream_copy",
               [=] { split(n, threads, reps, [&](size_t b, size_t k) { stream(a + b, nullptr, y + b, k); }); }});
  c.push_back({"tuned_copy",
               [=] { split(n, threads, reps, [&](size_t b, size_t k) { tuned.copy(a + b, y + b, k, false); }); }});
  c.push_back({"tuned_copy_nt",
               [=] { split(n, threads, reps, [&](size_t b, size_t k) { tuned.copy(a + b, y + b, k, true); }); }});
  c.push_back({"memcpy", [=] {
                 split(n, threads, reps, [&](size_t b, size_t k) { std::memcpy(y + b, a + b, k * sizeof(float)); });
               }});
  return c;
}

std::vector<Candidate> rmw_candidates(float* y, size_t n, int threads, int reps) {
  const auto stream = BestStream();
  const auto tuned = BestTuned();
  std::vector<Candidate> c;
  c.push_back({"or_stream_inplace",
               [=] { split(n, threads, reps, [&](size_t b, size_t k) { stream(y + b, nullptr, y + b, k); }); }});
  c.push_back({"tuned_rmw", [=] { split(n, threads, reps, [&](size_t b, size_t k) { tuned.rmw(y + b, k); }); }});
  return c;
}

Rated rate_against(const std::vector<std::function<void()>>& kernels, const std::vector<Candidate>& refs, double work,
                   int rounds, double seconds) {
  std::vector<std::function<void()>> fns = kernels;
  for (const auto& r : refs) fns.push_back(r.fn);
  const auto rates = best_rates(fns, work, rounds, seconds);
  Rated out;
  out.kernels.assign(rates.begin(), rates.begin() + std::ptrdiff_t(kernels.size()));
  out.candidates.assign(rates.begin() + std::ptrdiff_t(kernels.size()), rates.end());
  for (size_t i = 0; i < refs.size(); ++i)
    if (out.candidates[i] > out.limit) {
      out.limit = out.candidates[i];
      out.limit_name = refs[i].name;
    }
  return out;
}

double read_bandwidth(const std::vector<float>& buf, int threads) {
  return rate_against({}, read_candidates(buf.data(), buf.size(), threads), double(buf.size()) * 4).limit / 1e9;
}

std::vector<float> filled(size_t n, float scale) {
  std::vector<float> v(n);
  uint32_t s = 12345;
  for (auto& e : v) {
    s = s * 1664525u + 1013904223u;
    e = (float(s >> 8) * 0x1p-24f - 0.5f) * scale;
  }
  return v;
}

}  // namespace konform::bench
