// konform_decode_bench: one decode step (one token) through a 7B-shaped
// decoder layer stack, built from libtl_kernels' ops, against the read limit
// of the same run (docs/benchmarks.md, "One token through a 7B-shaped layer
// stack").
//
// A layer (Llama 2 7B's shapes with Llama 3's grouped KV heads): hidden 4096,
// 32 query heads over 8 KV heads of 128, FFN 11008, at a context of 4096
// keys; per token:
//   h = RmsNorm(x); q, k, v = h W_q^T, h W_k^T, h W_v^T; Rope(q, k)
//   K, V cache rows of the token written; a = FlashAttention(q, K, V)
//   x, h = FusedSkipNorm(x, a W_o^T); y = SiluMul(h W_gate^T, h W_up^T) W_down^T
//   x = x + y
// with every weight in Q4_K (QMatmul_Q4_K: what llama.cpp runs for a Q4_K
// model, less its Q6_K tensors) or in f32 (Matmul), and an f32 KV cache.
//
// The bytes a token must read: every weight block once and the K and V of
// every layer at the context. The figure is tokens per second of the whole
// 32-layer stack, and the bytes it reads per second against the read limit
// (peaks.hpp: the best of the tuned read kernels and OpenBLAS sgemv) over a
// buffer past the caches, timed in the same rounds. The Q4_K stack holds its
// 32 layers (4.3 GB); the f32 stack holds 4 distinct layers (2.9 GB), a token
// being 8 passes over them, so that no weight is read from a cache.
//
// Counters: tokens_per_s, GBps (of weights and KV read per token),
// read_limit_GBps, pct_of_read_limit, and the share of a token's time in the
// matmuls, the attention and the rest (the best of 3 instrumented tokens).
// KONFORM_BENCH_JSON=path writes the figures as JSON (json_report.hpp).
// Usage: konform_decode_bench [--benchmark_filter=...]; TL_BENCH_QUICK=1
// shortens the batches.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bench/json_report.hpp"
#include "bench/peaks.hpp"
#include "tinyllm/attention.h"
#include "tinyllm/elementwise.h"
#include "tinyllm/linalg.h"
#include "tinyllm/norm.h"
#include "tinyllm/pos.h"
#include "tinyllm/quant.h"
#include "tinyllm/threads.h"

namespace {

using namespace konform::bench;

constexpr int64_t kHidden = 4096, kHeads = 32, kKvHeads = 8, kHeadDim = 128, kFfn = 11008, kContext = 4096;
constexpr int64_t kModelLayers = 32;
constexpr float kEps = 1e-5f;

enum class Weights { q4_k, f32 };

// Bytes of an N x K weight in the stack's format.
int64_t WeightBytes(Weights w, int64_t n, int64_t k) {
  return w == Weights::f32 ? n * k * 4 : n * (k / TL_QK_K) * TL_Q4_K_BLOCK_BYTES;
}

// A weight's storage, as floats (a Q4_K block is 36 of them).
struct Weight {
  std::vector<float> data;
  int64_t n = 0, k = 0;
};

// Random words, then Q4_K's two f16 scales of each block set to 2^-12 so that
// activations stay near 1 through the stack (values do not change the speed;
// no denormals, no overflow). f32 weights get values of about 1/sqrt(k).
Weight MakeWeight(Weights format, int64_t n, int64_t k, uint64_t seed) {
  Weight w{std::vector<float>(static_cast<size_t>(WeightBytes(format, n, k) / 4)), n, k};
  if (format == Weights::f32) {
    const float scale = 2.0f / float(k) * 16.0f;
    uint64_t s = seed;
    for (auto& v : w.data) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      v = (float(int32_t(s >> 32)) / 2147483648.0f) * scale;
    }
    return w;
  }
  auto* words = reinterpret_cast<uint64_t*>(w.data.data());
  uint64_t s = seed;
  for (size_t i = 0; i < w.data.size() / 2; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    words[i] = s ^ (s >> 29);
  }
  auto* bytes = reinterpret_cast<uint8_t*>(w.data.data());
  const uint16_t scale_bits = 0x0c00;  // f16 2^-12
  for (int64_t b = 0; b < n * (k / TL_QK_K); ++b) {
    std::memcpy(bytes + b * TL_Q4_K_BLOCK_BYTES, &scale_bits, 2);
    std::memcpy(bytes + b * TL_Q4_K_BLOCK_BYTES + 2, &scale_bits, 2);
  }
  return w;
}

struct Layer {
  Weight wq, wk, wv, wo, gate, up, down;
  std::vector<float> g_attn, g_ffn;
  std::vector<float> k_cache, v_cache;  // [kv_heads, context, head_dim]
};

// Where a token's time goes (seconds), for the instrumented tokens.
struct Split {
  double matmul = 0, attention = 0, other = 0;
};

class Stack {
 public:
  Stack(Weights format, int64_t layers) : format_(format) {
    for (int64_t l = 0; l < layers; ++l) {
      const uint64_t seed = 1000 * uint64_t(l + 1);
      Layer L;
      L.wq = MakeWeight(format, kHidden, kHidden, seed + 1);
      L.wk = MakeWeight(format, kKvHeads * kHeadDim, kHidden, seed + 2);
      L.wv = MakeWeight(format, kKvHeads * kHeadDim, kHidden, seed + 3);
      L.wo = MakeWeight(format, kHidden, kHidden, seed + 4);
      L.gate = MakeWeight(format, kFfn, kHidden, seed + 5);
      L.up = MakeWeight(format, kFfn, kHidden, seed + 6);
      L.down = MakeWeight(format, kHidden, kFfn, seed + 7);
      L.g_attn = filled(kHidden, 0.5f);
      L.g_ffn = filled(kHidden, 0.5f);
      for (auto* g : {&L.g_attn, &L.g_ffn})
        for (auto& v : *g) v += 1.0f;
      L.k_cache = filled(static_cast<size_t>(kKvHeads * kContext * kHeadDim), 2.0f);
      L.v_cache = filled(static_cast<size_t>(kKvHeads * kContext * kHeadDim), 2.0f);
      layers_.push_back(std::move(L));
    }
    x0_ = filled(kHidden, 2.0f);
    rope_.resize(static_cast<size_t>(kContext * kHeadDim));
    tl_rope_cache_f32(rope_.data(), kContext, kHeadDim, 10000.0f);
    x_.resize(kHidden);
    x_next_.resize(kHidden);
    h_.resize(kHidden);
    q_.resize(kHidden);
    k_.resize(kKvHeads * kHeadDim);
    v_.resize(kKvHeads * kHeadDim);
    attn_.resize(kHidden);
    o_.resize(kHidden);
    gate_.resize(kFfn);
    up_.resize(kFfn);
    act_.resize(kFfn);
    down_.resize(kHidden);
  }

  // Bytes one token reads: every weight of every model layer, and K and V
  // of every layer at the context.
  double BytesPerToken() const {
    const double weights = double(WeightBytes(format_, kHidden, kHidden)) * 2 +
                           double(WeightBytes(format_, kKvHeads * kHeadDim, kHidden)) * 2 +
                           double(WeightBytes(format_, kFfn, kHidden)) * 2 +
                           double(WeightBytes(format_, kHidden, kFfn));
    const double kv = 2.0 * 4.0 * double(kKvHeads * kContext * kHeadDim);
    return double(kModelLayers) * (weights + kv);
  }

  // One token through kModelLayers layers (the held layers in turn), from
  // the same input each time.
  void Token(Split* split = nullptr) {
    x_ = x0_;
    for (int64_t l = 0; l < kModelLayers; ++l) RunLayer(layers_[static_cast<size_t>(l) % layers_.size()], split);
    benchmark::DoNotOptimize(x_.data());
  }

 private:
  void Project(const Weight& w, const float* in, float* out) {
    if (format_ == Weights::f32) tl_matmul_f32(in, w.data.data(), out, 1, w.n, w.k);
    else tl_qmatmul_q4_k_f32(in, w.data.data(), out, 1, w.n, w.k);
  }

  void RunLayer(Layer& L, Split* split) {
    const int64_t shape[1] = {kHidden};
    const int32_t pos = int32_t(kContext - 1);
    double t = now();
    auto lap = [&](double Split::*part) {
      if (split == nullptr) return;
      const double t1 = now();
      split->*part += t1 - t;
      t = t1;
    };
    tl_rms_norm_f32(x_.data(), L.g_attn.data(), h_.data(), shape, 1, kEps);
    lap(&Split::other);
    Project(L.wq, h_.data(), q_.data());
    Project(L.wk, h_.data(), k_.data());
    Project(L.wv, h_.data(), v_.data());
    lap(&Split::matmul);
    tl_rope_apply_f32(q_.data(), q_.data(), &pos, 1, kHeads, kHeadDim, kHeadDim, rope_.data(), kContext, TL_ROPE_NEOX);
    tl_rope_apply_f32(k_.data(), k_.data(), &pos, 1, kKvHeads, kHeadDim, kHeadDim, rope_.data(), kContext,
                      TL_ROPE_NEOX);
    for (int64_t h = 0; h < kKvHeads; ++h) {  // the token's row of each KV head, at the last position
      const int64_t row = (h * kContext + pos) * kHeadDim;
      std::memcpy(L.k_cache.data() + row, k_.data() + h * kHeadDim, kHeadDim * sizeof(float));
      std::memcpy(L.v_cache.data() + row, v_.data() + h * kHeadDim, kHeadDim * sizeof(float));
    }
    lap(&Split::other);
    tl_flash_attention_f32(q_.data(), L.k_cache.data(), L.v_cache.data(), nullptr, attn_.data(), 1, kHeads, kKvHeads, 1,
                           kContext, kHeadDim, 1, TL_ATTN_MASK_NONE);
    lap(&Split::attention);
    Project(L.wo, attn_.data(), o_.data());
    lap(&Split::matmul);
    tl_fused_skip_norm_f32(x_.data(), o_.data(), L.g_ffn.data(), x_.data(), h_.data(), shape, 1, kEps);
    lap(&Split::other);
    Project(L.gate, h_.data(), gate_.data());
    Project(L.up, h_.data(), up_.data());
    lap(&Split::matmul);
    tl_silu_mul_f32(gate_.data(), up_.data(), act_.data(), kFfn);
    lap(&Split::other);
    Project(L.down, act_.data(), down_.data());
    lap(&Split::matmul);
    tl_add_f32(x_.data(), down_.data(), x_next_.data(), kHidden);
    std::swap(x_, x_next_);
    lap(&Split::other);
  }

  Weights format_;
  std::vector<Layer> layers_;
  std::vector<float> x0_, rope_, x_, x_next_, h_, q_, k_, v_, attn_, o_, gate_, up_, act_, down_;
};

void BM_DecodeToken(benchmark::State& state) {
  const auto format = static_cast<Weights>(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  const int64_t held = format == Weights::q4_k ? kModelLayers : 4;
  Stack stack(format, held);
  const double bytes = stack.BytesPerToken();
  tl_set_num_threads(threads);
  for (auto _ : state) stack.Token();

  Split best;
  double best_total = 0;
  for (int i = 0; i < 3; ++i) {
    Split s;
    stack.Token(&s);
    const double total = s.matmul + s.attention + s.other;
    if (best_total == 0 || total < best_total) best = s, best_total = total;
  }

  // The read limit over a buffer past the caches (8 passes of a token's
  // bytes / 8), taking its turns in the same rounds as the token.
  const int reps = 8;
  const size_t n = static_cast<size_t>(bytes / 4 / reps) / 4096 * 4096;
  const auto buf = filled(n, 1.0f);
  const double ref_bytes = 4.0 * double(n) * reps;
  const auto r = rate_against({[&] { stack.Token(); }}, read_candidates(buf.data(), n, threads, reps), bytes, 5);
  const double gbps = r.kernels[0] / 1e9, limit = r.limit * (ref_bytes / bytes) / 1e9;
  state.counters["layers_held"] = double(held);
  state.counters["GB_per_token"] = bytes / 1e9;
  state.counters["tokens_per_s"] = r.kernels[0] / bytes;
  state.counters["GBps"] = gbps;
  state.counters["read_limit_GBps"] = limit;
  state.counters["pct_of_read_limit"] = 100 * gbps / limit;
  state.counters["pct_time_matmul"] = 100 * best.matmul / best_total;
  state.counters["pct_time_attention"] = 100 * best.attention / best_total;
  state.counters["pct_time_other"] = 100 * best.other / best_total;
  state.SetLabel("read limit: " + r.limit_name);
  const std::string shape = std::string(format == Weights::q4_k ? "Q4_K" : "f32") + " weights, 32 layers, context " +
                            std::to_string(kContext);
  record("decode_token_7b", shape, threads, r.kernels[0] / bytes, "tokens/s", "read_limit:" + r.limit_name,
         limit * 1e9 / bytes);
  tl_set_num_threads(0);
}
// format: 0 Q4_K, 1 f32; threads: 1, 2.
BENCHMARK(BM_DecodeToken)
    ->ArgNames({"f32", "threads"})
    ->Args({0, 1})
    ->Args({0, 2})
    ->Args({1, 1})
    ->Args({1, 2})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
