// konform_linalg_bench: Matmul of libtl_kernels beside OpenBLAS and BLIS
// (Debian's libopenblas0 and libblis4, loaded with dlopen: both export sgemm_
// and cblas_sgemm, so neither is linked), this machine's FMA peak and its
// memory bandwidth, all measured in the same run.
//
//   sgemm  y = x W^T at 2048^3 and the linear layer 32 x 4096 x 4096, 1 and 2
//          threads: GFLOP/s of each library and ours as % of BLIS and of the
//          FMA peak measured here on as many threads;
//   gemv   decode, M = 1, W 4096 x 4096 and 11008 x 4096 (DRAM-bound): GB/s
//          of W read, against a plain read of as many bytes (the bandwidth);
//   qgemv  Q4_K and Q8_0 decode over the same W, for the record.
//
// The machine is shared and noisy, and noise only slows a run down: every
// figure is the best of 7 batches of >= 0.3 s (wall clock), the contenders
// measured in turn within each batch round so they see the same machine.
// Usage: konform_linalg_bench [--benchmark_filter=...]; TL_BENCH_QUICK=1
// shortens the batches for a smoke run.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "bench/peaks.hpp"
#include "tinyllm/linalg.h"
#include "tinyllm/quant.h"
#include "tinyllm/threads.h"

namespace {

using namespace konform::bench;

// ---------------------------------------------------------------- peers

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

Blas open_blas(const std::string& name, const char* soname) {
  Blas b;
  b.name = name;
  b.handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (b.handle == nullptr) return b;
  b.sgemm = reinterpret_cast<Blas::Sgemm>(dlsym(b.handle, "cblas_sgemm"));
  b.sgemv = reinterpret_cast<Blas::Sgemv>(dlsym(b.handle, "cblas_sgemv"));
  b.set_threads = reinterpret_cast<void (*)(int)>(dlsym(b.handle, "openblas_set_num_threads"));
  b.set_threads_blis = reinterpret_cast<void (*)(int64_t)>(dlsym(b.handle, "bli_thread_set_num_threads"));
  return b;
}

const Blas& openblas() {
  static const Blas b = open_blas("OpenBLAS", "libopenblas.so.0");
  return b;
}
const Blas& blis() {
  static const Blas b = open_blas("BLIS", "libblis.so.4");
  return b;
}

// ---------------------------------------------------------------- benchmarks

// y = x W^T, x [M, K], W [N, K]: ours against both libraries, `threads` each.
void BM_Sgemm(benchmark::State& state) {
  const int64_t M = state.range(0), N = state.range(1), K = state.range(2);
  const int threads = static_cast<int>(state.range(3));
  const auto x = filled(static_cast<size_t>(M * K), 1.0f), w = filled(static_cast<size_t>(N * K), 1.0f);
  std::vector<float> y(static_cast<size_t>(M * N));
  tl_set_num_threads(threads);
  openblas().threads(threads);
  blis().threads(threads);
  auto ours = [&] { tl_matmul_f32(x.data(), w.data(), y.data(), M, N, K); };
  auto peer = [&](const Blas& b) -> std::function<void()> {
    if (!b.sgemm) return nullptr;
    return [&, s = b.sgemm] {
      s(kRowMajor, kNoTrans, kTrans, int(M), int(N), int(K), 1.0f, x.data(), int(K), w.data(), int(K), 0.0f, y.data(),
        int(N));
    };
  };
  for (auto _ : state) ours();
  const double flops = 2.0 * double(M) * double(N) * double(K);
  const auto r = best_rates({ours, peer(blis()), peer(openblas())}, flops);
  const double peak = fma_peak(threads);
  state.counters["ours_GFLOPs"] = r[0] / 1e9;
  state.counters["blis_GFLOPs"] = r[1] / 1e9;
  state.counters["openblas_GFLOPs"] = r[2] / 1e9;
  state.counters["fma_peak_GFLOPs"] = peak;
  state.counters["pct_of_blis"] = r[1] > 0 ? 100 * r[0] / r[1] : 0;
  state.counters["pct_of_peak"] = 100 * r[0] / 1e9 / peak;
  state.counters["blis_pct_of_peak"] = 100 * r[1] / 1e9 / peak;
  tl_set_num_threads(0);
}
BENCHMARK(BM_Sgemm)
    ->ArgNames({"M", "N", "K", "threads"})
    ->Args({2048, 2048, 2048, 1})
    ->Args({2048, 2048, 2048, 2})
    ->Args({32, 4096, 4096, 1})
    ->Args({32, 4096, 4096, 2})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);

// Decode: y = W x for one token, W [N, K] read once from DRAM; GB/s of W
// against a plain read of the same number of bytes.
void BM_Gemv(benchmark::State& state) {
  const int64_t N = state.range(0), K = state.range(1);
  const int threads = static_cast<int>(state.range(2));
  const auto x = filled(static_cast<size_t>(K), 1.0f), w = filled(static_cast<size_t>(N * K), 1.0f);
  std::vector<float> y(static_cast<size_t>(N));
  tl_set_num_threads(threads);
  openblas().threads(threads);
  blis().threads(threads);
  auto ours = [&] { tl_matmul_f32(x.data(), w.data(), y.data(), 1, N, K); };
  auto peer = [&](const Blas& b) -> std::function<void()> {
    if (!b.sgemv) return nullptr;
    return [&, s = b.sgemv] {
      s(kRowMajor, kNoTrans, int(N), int(K), 1.0f, w.data(), int(K), x.data(), 1, 0.0f, y.data(), 1);
    };
  };
  for (auto _ : state) ours();
  const double bytes = 4.0 * double(N) * double(K);
  const auto r = best_rates({ours, peer(blis()), peer(openblas())}, bytes);
  const double bw = read_bandwidth(w, threads);
  state.counters["ours_GBps"] = r[0] / 1e9;
  state.counters["blis_GBps"] = r[1] / 1e9;
  state.counters["openblas_GBps"] = r[2] / 1e9;
  state.counters["read_GBps"] = bw;
  state.counters["pct_of_bw"] = 100 * r[0] / 1e9 / bw;
  tl_set_num_threads(0);
}
BENCHMARK(BM_Gemv)
    ->ArgNames({"N", "K", "threads"})
    ->Args({4096, 4096, 1})
    ->Args({4096, 4096, 2})
    ->Args({11008, 4096, 1})
    ->Args({11008, 4096, 2})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

// Quantized decode, W [N, K] as blocks: weights per second and GB/s of blocks.
void BM_QGemv(benchmark::State& state) {
  const int64_t N = state.range(0), K = state.range(1);
  const bool q4k = state.range(2) == 1;
  const int threads = static_cast<int>(state.range(3));
  const auto x = filled(static_cast<size_t>(K), 1.0f), wf = filled(static_cast<size_t>(N * K), 1.0f);
  const int64_t block_bytes = q4k ? TL_Q4_K_BLOCK_BYTES : TL_Q8_0_BLOCK_BYTES, qk = q4k ? TL_QK_K : TL_QK8_0;
  std::vector<uint8_t> w(static_cast<size_t>(N * K / qk * block_bytes));
  if (q4k) tl_quantize_q4_k_f32(wf.data(), w.data(), N, K);
  else tl_quantize_q8_0_f32(wf.data(), w.data(), N, K);
  std::vector<float> y(static_cast<size_t>(N));
  tl_set_num_threads(threads);
  auto ours = [&] {
    if (q4k) tl_qmatmul_q4_k_f32(x.data(), w.data(), y.data(), 1, N, K);
    else tl_qmatmul_q8_0_f32(x.data(), w.data(), y.data(), 1, N, K);
  };
  for (auto _ : state) ours();
  const auto r = best_rates({ours}, double(w.size()));
  state.counters["blocks_GBps"] = r[0] / 1e9;
  state.counters["Gweights_per_s"] = r[0] / double(w.size()) * double(N * K) / 1e9;
  tl_set_num_threads(0);
}
BENCHMARK(BM_QGemv)
    ->ArgNames({"N", "K", "q4k", "threads"})
    ->Args({11008, 4096, 1, 1})
    ->Args({11008, 4096, 0, 1})
    ->Args({11008, 4096, 1, 2})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
