// konform_attention_bench: the attention kernels of libtl_kernels against
// this machine's limits, measured in the same run (docs/ops-attention.md).
//
//   prefill  FlashAttention, 32 query heads over 8 KV heads, head_dim 128,
//            Sq = Sk = 512 (the shape llama.cpp's CPU flash attention was
//            measured at: ~47% of the FMA peak here), causal and not:
//            GFLOP/s (4 * H * D per query-key pair attended: q.k and p.v,
//            a multiply and an add each; causal attends half the pairs plus
//            the diagonal) against the one-thread FMA peak;
//   decode   Sdpa and FlashAttention, Sq = 1 over Sk = 512 .. 8192 cached
//            keys: GB/s of K and V read against the read limit over as many
//            bytes (peaks.hpp), from memory (copies cycled past the
//            last-level cache) or not, on 1 and 2 threads.
//
// Prefill runs on one thread; decode on tinyllm/threads.h's count.
// KONFORM_BENCH_JSON=path writes the figures as JSON (json_report.hpp).
// Usage: konform_attention_bench [--benchmark_filter=...]; TL_BENCH_QUICK=1
// shortens the batches.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/bandwidth_ref.h"
#include "bench/json_report.hpp"
#include "bench/peaks.hpp"
#include "tinyllm/attention.h"
#include "tinyllm/tensor.h"
#include "tinyllm/threads.h"

namespace {

using namespace konform::bench;

void BM_FlashPrefill(benchmark::State& state) {
  const int64_t H = 32, KV = 8, D = 128, S = state.range(0);
  const bool causal = state.range(1) != 0;
  const auto q = filled(static_cast<size_t>(H * S * D), 1.0f), k = filled(static_cast<size_t>(KV * S * D), 1.0f),
             v = filled(static_cast<size_t>(KV * S * D), 1.0f);
  std::vector<float> y(q.size());
  auto flash = [&] {
    tl_flash_attention_f32(q.data(), k.data(), v.data(), nullptr, y.data(), 1, H, KV, S, S, D, causal ? 1 : 0,
                           TL_ATTN_MASK_NONE);
  };
  auto sdpa = [&] {
    tl_sdpa_f32(q.data(), k.data(), v.data(), nullptr, y.data(), 1, H, KV, S, S, D, causal ? 1 : 0, TL_ATTN_MASK_NONE);
  };
  for (auto _ : state) flash();
  const double pairs = causal ? double(S) * double(S + 1) / 2 : double(S) * double(S);
  const double flops = 4.0 * double(H) * double(D) * pairs;
  // This kernel's rate swings by up to a third between seconds on this shared
  // machine (the host's other guests). The FMA peak is a third contender of
  // the same 25 rounds of 0.1 s batches, each round running all three in
  // turn: the peak and the kernel are timed the same way on the same
  // machine. (fma_peak_short_GFLOPs, kept for comparison, is the best of ten
  // 8 ms loops before and after the rounds: short windows that catch quiet
  // moments the kernel's batches cannot, so the percentages do not use it.)
  const double peak_short = fma_peak(1);
  const auto r = best_rates({flash, sdpa, fma_work(flops)}, flops, 25, 0.1);
  const double peak = r[2] / 1e9;
  state.counters["flash_GFLOPs"] = r[0] / 1e9;
  state.counters["sdpa_GFLOPs"] = r[1] / 1e9;
  state.counters["fma_peak_GFLOPs"] = peak;
  state.counters["fma_peak_short_GFLOPs"] = std::max(peak_short, fma_peak(1));
  state.counters["flash_pct_of_peak"] = 100 * r[0] / 1e9 / peak;
  state.counters["sdpa_pct_of_peak"] = 100 * r[1] / 1e9 / peak;
  record("flash_attention_prefill", "S " + std::to_string(S) + (causal ? " causal" : ""), 1, r[0] / 1e9, "GFLOP/s",
         "fma_peak", peak);
}
BENCHMARK(BM_FlashPrefill)
    ->ArgNames({"S", "causal"})
    ->Args({512, 0})
    ->Args({512, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);

// Copies of a decode's K and V that one round cycles through, so that each
// call reads its bytes from memory: 256 MiB over the bytes of one copy, at
// least 1 (eight times a Zen 5 CCD's 32 MiB L3; in a guest sysconf's L3 is
// the host's, 508 MiB here, which made a round a gigabyte). (With one copy, 32 MiB of K and V read
// again and again stay partly in a 105 MiB L3, which the plain read gains
// more from than the kernel: the ratio then measured the cache, 63-100 %
// from run to run at Sk = 4096, not the memory.)
size_t CopiesFromMemory(double bytes) {
  return std::max<size_t>(1, static_cast<size_t>(std::ceil(268435456.0 / bytes)));
}

// The decode benchmark's element types: f32, and a half KV cache (f16 or
// bf16 q, k, v and y) through the half twins, its values the f32 run's
// rounded to the dtype by the library's own cast.
struct F32Cache {
  using T = float;
  static constexpr const char* kSuffix = "";
  static constexpr auto flash = tl_flash_attention_f32;
  static constexpr auto sdpa = tl_sdpa_f32;
  static std::vector<T> from(const std::vector<float>& x) { return x; }
};
template <auto Flash, auto Sdpa, auto Narrow, const char* Suffix>
struct HalfCache {
  using T = uint16_t;
  static constexpr const char* kSuffix = Suffix;
  static constexpr auto flash = Flash;
  static constexpr auto sdpa = Sdpa;
  static std::vector<T> from(const std::vector<float>& x) {
    std::vector<T> y(x.size());
    Narrow(x.data(), y.data(), static_cast<int64_t>(x.size()));
    return y;
  }
};
constexpr char kF16[] = "_f16", kBF16[] = "_bf16";
using F16Cache = HalfCache<tl_flash_attention_f16, tl_sdpa_f16, tl_cast_f32_to_f16, kF16>;
using BF16Cache = HalfCache<tl_flash_attention_bf16, tl_sdpa_bf16, tl_cast_f32_to_bf16, kBF16>;

// Decode: one query row per head over Sk cached keys. The bytes are the
// cache's as stored (sizeof(T) a value: 2 for a half cache), the read limit
// timed over a copy of K then V of that many bytes.
template <class Cache>
void BM_DecodeAttention(benchmark::State& state) {
  using T = typename Cache::T;
  const int64_t H = 32, KV = 8, D = 128, Sk = state.range(0);
  const bool from_memory = state.range(1) != 0;
  const int threads = static_cast<int>(state.range(2));
  const double bytes = 2.0 * double(sizeof(T)) * double(KV) * double(Sk) * double(D);
  const size_t copies = from_memory ? CopiesFromMemory(bytes) : 1;
  const auto q = Cache::from(filled(static_cast<size_t>(H * D), 1.0f));
  std::vector<std::vector<T>> k, v, kv;  // kv: a copy of k then v, for the read limit
  for (size_t c = 0; c < copies; ++c) {
    k.push_back(Cache::from(filled(static_cast<size_t>(KV * Sk * D), 1.0f)));
    v.push_back(Cache::from(filled(static_cast<size_t>(KV * Sk * D), 1.0f)));
    kv.push_back(k.back());
    kv.back().insert(kv.back().end(), v.back().begin(), v.back().end());
  }
  std::vector<T> y(q.size());
  tl_set_num_threads(threads);
  size_t next = 0;  // the copy the next call reads, shared: the contenders take turns
  auto turn = [&] { return next++ % copies; };
  auto flash = [&] {
    const size_t c = turn();
    Cache::flash(q.data(), k[c].data(), v[c].data(), nullptr, y.data(), 1, H, KV, 1, Sk, D, 1, TL_ATTN_MASK_NONE);
  };
  auto sdpa = [&] {
    const size_t c = turn();
    Cache::sdpa(q.data(), k[c].data(), v[c].data(), nullptr, y.data(), 1, H, KV, 1, Sk, D, 1, TL_ATTN_MASK_NONE);
  };
  for (auto _ : state) flash();
  // The read limit over as many bytes (peaks.hpp's read candidates, each
  // cycling through the copies) takes its turns in the same rounds as the
  // kernels, so all see the same machine.
  std::vector<std::vector<Candidate>> lists;
  for (size_t c = 0; c < copies; ++c)
    lists.push_back(
        read_candidates(reinterpret_cast<const float*>(kv[c].data()), kv[c].size() * sizeof(T) / 4, threads));
  std::vector<Candidate> refs;
  for (size_t i = 0; i < lists.front().size(); ++i)
    refs.push_back({lists.front()[i].name, [&lists, &turn, i] { lists[turn()][i].fn(); }});
  const auto r = rate_against({flash, sdpa}, refs, bytes, 25, 0.1);
  const double bw = r.limit / 1e9;
  state.counters["copies"] = double(copies);
  state.counters["flash_GBps"] = r.kernels[0] / 1e9;
  state.counters["sdpa_GBps"] = r.kernels[1] / 1e9;
  state.counters["read_limit_GBps"] = bw;
  state.counters["flash_pct_of_read_limit"] = 100 * r.kernels[0] / 1e9 / bw;
  state.counters["sdpa_pct_of_read_limit"] = 100 * r.kernels[1] / 1e9 / bw;
  state.SetLabel("read limit: " + r.limit_name);
  const std::string shape = "Sk " + std::to_string(Sk) + (from_memory ? " from memory" : " cached");
  const std::string unit = sizeof(T) == 4 ? "GB/s of K and V" : "GB/s of K and V (2 bytes a value)";
  record(std::string("decode_flash_attention") + Cache::kSuffix, shape, threads, r.kernels[0] / 1e9, unit,
         "read_limit:" + r.limit_name, bw);
  record(std::string("decode_sdpa") + Cache::kSuffix, shape, threads, r.kernels[1] / 1e9, unit,
         "read_limit:" + r.limit_name, bw);
  tl_set_num_threads(0);
}
// Sk 512 (4 MiB of f32, 2 MiB of half) reads K and V from the caches, as
// decode over a short context does; 4096 and 8192 from memory (from_memory:
// 1), the regime the bandwidth goal is about, on 1 and 2 threads (threads
// take whole KV heads). The half caches (issue 29: at least 85 % of the read
// limit in cache bytes) at the same shapes.
#define KONFORM_DECODE_SHAPES(name)                \
  BENCHMARK(name)                                  \
      ->ArgNames({"Sk", "from_memory", "threads"}) \
      ->Args({512, 0, 1})                          \
      ->Args({4096, 1, 1})                         \
      ->Args({8192, 1, 1})                         \
      ->Args({4096, 1, 2})                         \
      ->Args({8192, 1, 2})                         \
      ->Unit(benchmark::kMillisecond)              \
      ->Iterations(3)
KONFORM_DECODE_SHAPES(BM_DecodeAttention<F32Cache>)->Name("BM_DecodeAttention");
KONFORM_DECODE_SHAPES(BM_DecodeAttention<F16Cache>)->Name("BM_DecodeAttention_f16");
KONFORM_DECODE_SHAPES(BM_DecodeAttention<BF16Cache>)->Name("BM_DecodeAttention_bf16");

}  // namespace

BENCHMARK_MAIN();
