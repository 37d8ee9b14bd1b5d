// konform_linalg_bench: Matmul of libtl_kernels beside OpenBLAS and BLIS
// (Debian's libopenblas0 and libblis4, loaded with dlopen: both export sgemm_
// and cblas_sgemm, so neither is linked), this machine's FMA peak and its
// memory bandwidth, all measured in the same run.
//
//   sgemm  y = x W^T at 2048^3 and the linear layer 32 x 4096 x 4096, 1 and 2
//          threads: GFLOP/s of each library and ours as % of BLIS and of the
//          FMA peak measured here on as many threads;
//   hgemm  Matmul_f16 and Matmul_bf16 at the same shapes beside our f32
//          Matmul, measured in turn: GFLOP/s and % of the f32 rate;
//   gemv   decode, M = 1, W 4096 x 4096 and 11008 x 4096 (DRAM-bound): GB/s
//          of W read, against the peers' sgemv and the read limit (the best
//          of peaks.hpp's read candidates, OpenBLAS sgemv among them);
//   qgemv  Q8_0, Q4_0 and Q4_K decode over 11008 x 4096, from memory: GB/s
//          of blocks against the read limit over as many bytes;
//   qgemm  the same formats at M = 32 and 512: decoded-weight GFLOP/s
//          against the FMA peak.
// KONFORM_BENCH_JSON=path writes every figure as JSON (json_report.hpp).
//
// The machine is shared and noisy, and noise only slows a run down: every
// figure is the best of 7 batches of >= 0.3 s (wall clock), the contenders
// measured in turn within each batch round so they see the same machine.
// Usage: konform_linalg_bench [--benchmark_filter=...]; TL_BENCH_QUICK=1
// shortens the batches for a smoke run.
#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/blas_peer.hpp"
#include "bench/json_report.hpp"
#include "bench/onednn_peer.hpp"
#include "bench/peaks.hpp"
#include "impl/common/bf16.hpp"
#include "impl/common/f16.hpp"
#include "tinyllm/linalg.h"
#include "tinyllm/quant.h"
#include "tinyllm/threads.h"

namespace {

using namespace konform::bench;

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
  const std::string shape = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
  record("matmul_f32", shape, threads, r[0] / 1e9, "GFLOP/s", "fma_peak", peak);
  record("matmul_f32", shape, threads, r[0] / 1e9, "GFLOP/s", "openblas_sgemm", r[2] / 1e9);
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

// Matmul_f16 and Matmul_bf16 beside our f32 Matmul on the same values (f32
// inputs rounded to the dtype), the three measured in turn: GFLOP/s and the
// half rates as % of the f32 one.
void BM_HalfGemm(benchmark::State& state) {
  const int64_t M = state.range(0), N = state.range(1), K = state.range(2);
  const int threads = static_cast<int>(state.range(3));
  const auto x = filled(static_cast<size_t>(M * K), 1.0f), w = filled(static_cast<size_t>(N * K), 1.0f);
  const auto to = [](const std::vector<float>& v, uint16_t (*narrow)(float)) {
    std::vector<uint16_t> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) h[i] = narrow(v[i]);
    return h;
  };
  const auto xh = to(x, konform::impl::f16::F32ToF16), wh = to(w, konform::impl::f16::F32ToF16);
  const auto xb = to(x, konform::impl::bf16::F32ToBF16), wb = to(w, konform::impl::bf16::F32ToBF16);
  std::vector<float> y(static_cast<size_t>(M * N));
  std::vector<uint16_t> yh(static_cast<size_t>(M * N));
  tl_set_num_threads(threads);
  auto f32 = [&] { tl_matmul_f32(x.data(), w.data(), y.data(), M, N, K); };
  auto f16 = [&] { tl_matmul_f16(xh.data(), wh.data(), yh.data(), M, N, K); };
  auto bf16 = [&] { tl_matmul_bf16(xb.data(), wb.data(), yh.data(), M, N, K); };
  std::vector<uint16_t> y_peer(static_cast<size_t>(M * N));
  const auto onednn = onednn_bf16_matmul(xb.data(), wb.data(), y_peer.data(), M, N, K, threads);
  for (auto _ : state) f16();
  const double flops = 2.0 * double(M) * double(N) * double(K);
  const auto r = best_rates({f32, f16, bf16, onednn}, flops);
  state.counters["f32_GFLOPs"] = r[0] / 1e9;
  state.counters["f16_GFLOPs"] = r[1] / 1e9;
  state.counters["bf16_GFLOPs"] = r[2] / 1e9;
  state.counters["f16_pct_of_f32"] = 100 * r[1] / r[0];
  state.counters["bf16_pct_of_f32"] = 100 * r[2] / r[0];
  const std::string shape = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
  record("matmul_f16", shape, threads, r[1] / 1e9, "GFLOP/s", "matmul_f32", r[0] / 1e9);
  record("matmul_bf16", shape, threads, r[2] / 1e9, "GFLOP/s", "matmul_f32", r[0] / 1e9);
  if (onednn) {  // the peer: oneDNN's bf16 matmul, 0 without libdnnl-dev
    state.counters["onednn_bf16_GFLOPs"] = r[3] / 1e9;
    state.counters["bf16_pct_of_onednn"] = 100 * r[2] / r[3];
    record("matmul_bf16", shape, threads, r[2] / 1e9, "GFLOP/s", "onednn_bf16_matmul", r[3] / 1e9);
  }
  tl_set_num_threads(0);
}
BENCHMARK(BM_HalfGemm)
    ->ArgNames({"M", "N", "K", "threads"})
    ->Args({2048, 2048, 2048, 1})
    ->Args({32, 4096, 4096, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);

// Decode: y = W x for one token, W [N, K] read once from DRAM: GB/s of W
// against OpenBLAS's and BLIS's sgemv and against the read limit (the best
// read_candidates of peaks.hpp over W, in the same rounds: OpenBLAS's sgemv
// is one of them, so the limit is never below the peer).
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
      b.threads(threads);
      s(kRowMajor, kNoTrans, int(N), int(K), 1.0f, w.data(), int(K), x.data(), 1, 0.0f, y.data(), 1);
    };
  };
  for (auto _ : state) ours();
  const double bytes = 4.0 * double(N) * double(K);
  const auto r =
      rate_against({ours, peer(blis()), peer(openblas())}, read_candidates(w.data(), w.size(), threads), bytes);
  state.counters["ours_GBps"] = r.kernels[0] / 1e9;
  state.counters["blis_GBps"] = r.kernels[1] / 1e9;
  state.counters["openblas_GBps"] = r.kernels[2] / 1e9;
  state.counters["read_limit_GBps"] = r.limit / 1e9;
  state.counters["pct_of_openblas"] = r.kernels[2] > 0 ? 100 * r.kernels[0] / r.kernels[2] : 0;
  state.counters["pct_of_read_limit"] = 100 * r.kernels[0] / r.limit;
  state.SetLabel("read limit: " + r.limit_name);
  const std::string shape = std::to_string(N) + "x" + std::to_string(K);
  record("gemv_f32", shape, threads, r.kernels[0] / 1e9, "GB/s", "openblas_sgemv", r.kernels[2] / 1e9);
  record("gemv_f32", shape, threads, r.kernels[0] / 1e9, "GB/s", "read_limit:" + r.limit_name, r.limit / 1e9);
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

// ---------------------------------------------------------------- quantized

struct QFormatInfo {
  const char* name;
  int64_t qk, block_bytes;
  tl_status (*quantize)(const float*, void*, int64_t, int64_t);
  tl_status (*qmatmul)(const float*, const void*, float*, int64_t, int64_t, int64_t);
};
const QFormatInfo kQFormats[] = {
    {"q8_0", TL_QK8_0, TL_Q8_0_BLOCK_BYTES, tl_quantize_q8_0_f32, tl_qmatmul_q8_0_f32},
    {"q4_0", TL_QK4_0, TL_Q4_0_BLOCK_BYTES, tl_quantize_q4_0_f32, tl_qmatmul_q4_0_f32},
    {"q4_k", TL_QK_K, TL_Q4_K_BLOCK_BYTES, tl_quantize_q4_k_f32, tl_qmatmul_q4_k_f32},
    // ggml's form: x quantized to Q8 per block, integer dot products (fmt 3..5)
    {"q8_0_q8x", TL_QK8_0, TL_Q8_0_BLOCK_BYTES, tl_quantize_q8_0_f32, tl_qmatmul_q8_0_q8x_f32},
    {"q4_0_q8x", TL_QK4_0, TL_Q4_0_BLOCK_BYTES, tl_quantize_q4_0_f32, tl_qmatmul_q4_0_q8x_f32},
    {"q4_k_q8x", TL_QK_K, TL_Q4_K_BLOCK_BYTES, tl_quantize_q4_k_f32, tl_qmatmul_q4_k_q8x_f32},
};

// Quantized decode, W [N, K] as blocks (copies cycled from memory): GB/s of
// blocks against the read limit over as many bytes (the same copies).
void BM_QGemv(benchmark::State& state) {
  const int64_t N = state.range(0), K = state.range(1);
  const QFormatInfo& f = kQFormats[state.range(2)];
  const int threads = static_cast<int>(state.range(3));
  const auto x = filled(static_cast<size_t>(K), 1.0f), wf = filled(static_cast<size_t>(N * K), 1.0f);
  const size_t bytes = static_cast<size_t>(N * K / f.qk * f.block_bytes);
  const size_t copies = copies_past_cache(double(bytes));
  std::vector<std::vector<uint8_t>> w(copies, std::vector<uint8_t>(bytes));
  f.quantize(wf.data(), w[0].data(), N, K);
  for (size_t c = 1; c < copies; ++c) w[c] = w[0];
  std::vector<float> y(static_cast<size_t>(N));
  // The read candidates over float buffers of the same bytes (whole rows of 4096 for sgemv).
  const size_t floats = (bytes / 4 + 4095) / 4096 * 4096;
  std::vector<std::vector<float>> plain(copies, filled(floats, 1.0f));
  tl_set_num_threads(threads);
  size_t next = 0;
  auto ours = [&] { f.qmatmul(x.data(), w[next++ % copies].data(), y.data(), 1, N, K); };
  for (auto _ : state) ours();
  // Each candidate cycles through the copies as ours does.
  const auto refs = cycled_read_candidates(plain, floats, threads);
  const auto r = rate_against({ours}, refs, double(bytes));
  state.counters["copies"] = double(copies);
  state.counters["blocks_GBps"] = r.kernels[0] / 1e9;
  state.counters["Gweights_per_s"] = r.kernels[0] / double(bytes) * double(N * K) / 1e9;
  state.counters["read_limit_GBps"] = r.limit / 1e9;
  state.counters["pct_of_read_limit"] = 100 * r.kernels[0] / r.limit;
  state.SetLabel(std::string(f.name) + ", read limit: " + r.limit_name);
  record(std::string("qgemv_") + f.name, std::to_string(N) + "x" + std::to_string(K), threads, r.kernels[0] / 1e9,
         "GB/s of blocks", "read_limit:" + r.limit_name, r.limit / 1e9);
  tl_set_num_threads(0);
}
BENCHMARK(BM_QGemv)
    ->ArgNames({"N", "K", "fmt", "threads"})
    ->Args({11008, 4096, 0, 1})
    ->Args({11008, 4096, 1, 1})
    ->Args({11008, 4096, 2, 1})
    ->Args({11008, 4096, 0, 2})
    ->Args({11008, 4096, 1, 2})
    ->Args({11008, 4096, 2, 2})
    ->Args({11008, 4096, 3, 1})
    ->Args({11008, 4096, 4, 1})
    ->Args({11008, 4096, 5, 1})
    ->Args({11008, 4096, 3, 2})
    ->Args({11008, 4096, 4, 2})
    ->Args({11008, 4096, 5, 2})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);

// Quantized matmul with M rows (prefill, batched decode): GFLOP/s counting
// 2 M N K decoded-weight operations, against the FMA peak on as many threads.
void BM_QGemm(benchmark::State& state) {
  const int64_t M = state.range(0), N = state.range(1), K = state.range(2);
  const QFormatInfo& f = kQFormats[state.range(3)];
  const int threads = static_cast<int>(state.range(4));
  const auto x = filled(static_cast<size_t>(M * K), 1.0f), wf = filled(static_cast<size_t>(N * K), 1.0f);
  std::vector<uint8_t> w(static_cast<size_t>(N * K / f.qk * f.block_bytes));
  f.quantize(wf.data(), w.data(), N, K);
  std::vector<float> y(static_cast<size_t>(M * N));
  tl_set_num_threads(threads);
  auto ours = [&] { f.qmatmul(x.data(), w.data(), y.data(), M, N, K); };
  for (auto _ : state) ours();
  const double flops = 2.0 * double(M) * double(N) * double(K);
  const double peak = fma_peak(threads);
  const auto r = best_rates({ours}, flops, 3);
  state.counters["GFLOPs"] = r[0] / 1e9;
  state.counters["fma_peak_GFLOPs"] = peak;
  state.counters["pct_of_peak"] = 100 * r[0] / 1e9 / peak;
  state.SetLabel(f.name);
  record(std::string("qgemm_") + f.name, std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K), threads,
         r[0] / 1e9, "GFLOP/s", "fma_peak", peak);
  tl_set_num_threads(0);
}
BENCHMARK(BM_QGemm)
    ->ArgNames({"M", "N", "K", "fmt", "threads"})
    ->Args({4, 4096, 4096, 0, 1})  // batched decode (one copy of W: from L3 where it fits)
    ->Args({4, 4096, 4096, 1, 1})
    ->Args({4, 4096, 4096, 2, 1})
    ->Args({32, 4096, 4096, 0, 1})
    ->Args({32, 4096, 4096, 1, 1})
    ->Args({32, 4096, 4096, 2, 1})
    ->Args({512, 4096, 4096, 0, 1})
    ->Args({512, 4096, 4096, 1, 1})
    ->Args({512, 4096, 4096, 2, 1})
    ->Args({512, 4096, 4096, 0, 2})
    ->Args({512, 4096, 4096, 1, 2})
    ->Args({512, 4096, 4096, 2, 2})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
