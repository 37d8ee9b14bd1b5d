// konform_pos_bench: the position ops of tinyllm/pos.h in libtl_kernels (simd)
// and in the scalar backend, each beside a bandwidth reference over the same
// bytes measured in the same run (measure.hpp). No assertions on time.
//
//   konform_pos_bench [--konform_target=AVX2] [Google Benchmark flags]
//
// Shapes: RoPE at T=512 H=32 D=128 (a Llama-7B prefill's queries; the spec's
// and llama.cpp's comparison shape), the embeddings at rows 1, 32, 512 of
// 4096, T5's bias at H=32, 512 x 512, and the one-off tables (the cos/sin
// cache of a 4096-token context, a batch of timestep embeddings).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "bandwidth_ref.h"
#include "bench_main.hpp"
#include "measure.hpp"
#include "scalar/kernels.hpp"
#include "tinyllm/pos.h"

namespace {

using konform::bench::BestStream;
using konform::bench::RunWithReference;

// One backend's entry points (the C ABI's signatures).
struct Backend {
  const char* name;
  decltype(&tl_rope_cache_f32) rope_cache;
  decltype(&tl_rope_apply_f32) rope;
  decltype(&tl_multi_axis_rope_f32) multi_axis_rope;
  decltype(&tl_sinusoidal_embed_f32) sinusoidal;
  decltype(&tl_token_embed_f32) token_embed;
  decltype(&tl_pos_embed_f32) pos_embed;
  decltype(&tl_relative_pos_embedding_f32) relative;
};

namespace scalar = konform::scalar;
const Backend kSimd = {"simd",
                       tl_rope_cache_f32,
                       tl_rope_apply_f32,
                       tl_multi_axis_rope_f32,
                       tl_sinusoidal_embed_f32,
                       tl_token_embed_f32,
                       tl_pos_embed_f32,
                       tl_relative_pos_embedding_f32};
const Backend kScalar = {"scalar",
                         scalar::rope_cache_f32,
                         scalar::rope_apply_f32,
                         scalar::multi_axis_rope_f32,
                         scalar::sinusoidal_embed_f32,
                         scalar::token_embed_f32,
                         scalar::pos_embed_f32,
                         scalar::relative_pos_embedding_f32};

// 64-byte aligned floats starting `seed` * 576 bytes past a 4 KiB boundary,
// so that no two arrays alias modulo 4 KiB (which would stall loads on
// stores to the other array and slow kernel and reference alike).
class Buffer {
 public:
  Buffer(size_t n, unsigned seed)
      : base_(static_cast<float*>(std::aligned_alloc(4096, (n * sizeof(float) + 8192) / 4096 * 4096))),
        data_(base_.get() + (seed % 7) * 576 / sizeof(float)) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    for (size_t i = 0; i < n; ++i) data_[i] = dist(rng);
  }
  float* get() const { return data_; }

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float[], Free> base_;
  float* data_;
};

void Check(tl_status s) {
  if (s != TL_OK) {
    std::fprintf(stderr, "konform_pos_bench: a kernel refused its arguments: %s\n", tl_last_error());
    std::exit(1);
  }
}

constexpr int64_t kT = 512, kH = 32, kD = 128, kMaxSeq = 4096;

// RoPE at the prefill shape, positions 0..T-1, from a 4096-position cache of
// base 10000; in place (like the reference) or into a separate y.
void Rope(benchmark::State& state, const Backend* k, int layout, bool in_place) {
  const size_t n = static_cast<size_t>(kT * kH * kD);
  Buffer x(n, 1), y(n, 2), cache(static_cast<size_t>(kMaxSeq * kD), 3);
  Check(tl_rope_cache_f32(cache.get(), kMaxSeq, kD, 10000.0f));
  std::vector<int32_t> pos(kT);
  std::iota(pos.begin(), pos.end(), 0);
  float* out = in_place ? x.get() : y.get();
  const auto stream = BestStream();
  // x read and written once, plus the T rows of the cache.
  RunWithReference(
      state, 8.0 * double(n) + 4.0 * double(kT * kD),
      [&] { Check(k->rope(x.get(), out, pos.data(), kT, kH, kD, kD, cache.get(), kMaxSeq, layout)); },
      [&] { stream(x.get(), nullptr, out, n); });
}

// A video DiT's 8 x 8 x 8 token grid, head_dim split [32, 48, 48].
void MultiAxisRope(benchmark::State& state, const Backend* k, int layout) {
  const size_t n = static_cast<size_t>(kT * kH * kD);
  Buffer x(n, 1);
  std::vector<int32_t> pos(static_cast<size_t>(kT * 3));
  for (int64_t t = 0; t < kT; ++t) {
    pos[t * 3] = static_cast<int32_t>(t / 64);
    pos[t * 3 + 1] = static_cast<int32_t>(t / 8 % 8);
    pos[t * 3 + 2] = static_cast<int32_t>(t % 8);
  }
  const int64_t dims[] = {32, 48, 48};
  const float bases[] = {10000.0f, 10000.0f, 10000.0f};
  const auto stream = BestStream();
  RunWithReference(
      state, 8.0 * double(n),
      [&] { Check(k->multi_axis_rope(x.get(), x.get(), pos.data(), kT, kH, kD, 3, dims, bases, layout)); },
      [&] { stream(x.get(), nullptr, x.get(), n); });
}

// The cos/sin cache of a 4096-token context, head_dim 128: written once per
// model load, computed in double. The reference writes the same bytes.
void RopeCache(benchmark::State& state, const Backend* k) {
  const size_t n = static_cast<size_t>(kMaxSeq * kD);
  Buffer cache(n, 1), src(n, 2);
  const auto stream = BestStream();
  RunWithReference(
      state, 4.0 * double(n), [&] { Check(k->rope_cache(cache.get(), kMaxSeq, kD, 10000.0f)); },
      [&] { stream(src.get(), nullptr, cache.get(), n / 2); });
}

// A batch of 64 timesteps, dim 1280 (SD's time embedding width).
void Sinusoidal(benchmark::State& state, const Backend* k) {
  constexpr int64_t n = 64, dim = 1280;
  Buffer y(static_cast<size_t>(n * dim), 1), src(static_cast<size_t>(n * dim), 2);
  std::vector<float> t(n);
  for (int64_t i = 0; i < n; ++i) t[i] = static_cast<float>(i * 15);
  const auto stream = BestStream();
  RunWithReference(
      state, 4.0 * double(n * dim),
      [&] { Check(k->sinusoidal(t.data(), y.get(), n, dim, 10000.0f, 1.0f, TL_SINUSOIDAL_COS_SIN)); },
      [&] { stream(src.get(), nullptr, y.get(), size_t(n * dim / 2)); });
}

// rows gathered from a table holding exactly those rows, shuffled, so the
// gather and the contiguous copy move the same bytes.
void Embed(benchmark::State& state, const Backend* k, bool token, int64_t rows) {
  constexpr int64_t d = 4096;
  const size_t n = static_cast<size_t>(rows * d);
  Buffer table(n, 1), out(n, 2);
  std::vector<int32_t> index(static_cast<size_t>(rows));
  std::iota(index.begin(), index.end(), 0);
  std::shuffle(index.begin(), index.end(), std::mt19937(4));
  const auto stream = BestStream();
  const auto fn = token ? k->token_embed : k->pos_embed;
  RunWithReference(
      state, 8.0 * double(n), [&] { Check(fn(table.get(), index.data(), out.get(), rows, rows, d)); },
      [&] { stream(table.get(), nullptr, out.get(), n); });
}

// T5-XL's bias: 32 heads, 512 queries against 512 keys, 32 buckets, max
// distance 128. The bias is written once (the table is 4 KiB); the reference
// copies half as many floats, the same bytes in and out.
void Relative(benchmark::State& state, const Backend* k) {
  constexpr int64_t L = 512, H = 32, nb = 32;
  const size_t n = static_cast<size_t>(H * L * L);
  Buffer bias(n, 1), src(n, 2), table(static_cast<size_t>(nb * H), 3);
  std::vector<int32_t> pos(L);
  std::iota(pos.begin(), pos.end(), 0);
  const auto stream = BestStream();
  RunWithReference(
      state, 4.0 * double(n),
      [&] { Check(k->relative(table.get(), pos.data(), pos.data(), bias.get(), L, L, H, nb, 128, 1)); },
      [&] { stream(src.get(), nullptr, bias.get(), n / 2); });
}

template <class Fn, class... Args>
void Register(const std::string& name, Fn fn, Args... args) {
  for (const Backend* k : {&kSimd, &kScalar})
    benchmark::RegisterBenchmark((name + "/" + k->name).c_str(), fn, k, args...);
}

void RegisterAll() {
  Register("Rope_neox_inplace/T512_H32_D128", Rope, int{TL_ROPE_NEOX}, true);
  Register("Rope_interleaved_inplace/T512_H32_D128", Rope, int{TL_ROPE_INTERLEAVED}, true);
  Register("Rope_neox/T512_H32_D128", Rope, int{TL_ROPE_NEOX}, false);
  Register("MultiAxisRope_neox/T512_H32_D128", MultiAxisRope, int{TL_ROPE_NEOX});
  Register("MultiAxisRope_interleaved/T512_H32_D128", MultiAxisRope, int{TL_ROPE_INTERLEAVED});
  Register("Rope_cache/4096x128", RopeCache);
  Register("SinusoidalEmbed/64x1280", Sinusoidal);
  for (int64_t rows : {1, 32, 512}) {
    Register("TokenEmbed/" + std::to_string(rows) + "x4096", Embed, true, rows);
    Register("PosEmbed/" + std::to_string(rows) + "x4096", Embed, false, rows);
  }
  Register("RelativePosEmbedding/H32_512x512", Relative);
}

}  // namespace

int main(int argc, char** argv) { return konform::bench::BenchMain(argc, argv, RegisterAll); }
