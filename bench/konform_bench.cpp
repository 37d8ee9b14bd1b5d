// konform_bench: the six kernels of libtl_kernels (simd) and of the scalar
// backend, at the shapes of docs/benchmarks.md, each beside a bandwidth
// reference over the same bytes (measure.hpp). No assertions on time.
//
//   konform_bench [--konform_target=AVX2] [Google Benchmark flags]
//
// --konform_target forces a libtl_kernels target (tinyllm/dispatch.h); the
// reference always runs on the best one.

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
#include "tinyllm/elementwise.h"

namespace {

using konform::bench::BestStream;
using konform::bench::RunWithReference;

// One backend's six entry points; both backends share the C ABI signatures.
struct Backend {
  const char* name;
  void (*rmsnorm)(const float*, const float*, float*, int64_t, int64_t, float);
  void (*rope)(float*, const int32_t*, int64_t, int64_t, int64_t, int64_t, const float*, float, int);
  void (*silu_mul)(const float*, const float*, float*, int64_t);
  void (*embedding)(const float*, const int32_t*, float*, int64_t, int64_t);
  void (*add)(const float*, const float*, float*, int64_t);
  int32_t (*argmax)(const float*, int64_t);
};

const Backend kSimd = {"simd",           tl_rmsnorm_f32, tl_rope_f32,  tl_silu_mul_f32,
                       tl_embedding_f32, tl_add_f32,     tl_argmax_f32};
const Backend kScalar = {"scalar",
                         konform::scalar::rmsnorm_f32,
                         konform::scalar::rope_f32,
                         konform::scalar::silu_mul_f32,
                         konform::scalar::embedding_f32,
                         konform::scalar::add_f32,
                         konform::scalar::argmax_f32};

// A float array, 64-byte aligned, that starts `seed` * 576 bytes past a
// 4 KiB boundary: arrays with different seeds do not share their address
// bits below 4 KiB, which would make loads falsely wait on stores to another
// array (4K aliasing) and slow kernel and reference alike.
class Buffer {
 public:
  Buffer(size_t n, unsigned seed)
      : base_(static_cast<float*>(std::aligned_alloc(4096, (n * sizeof(float) + 8192) / 4096 * 4096))),
        data_(base_.get() + (seed % 7) * 576 / sizeof(float)) {}
  float* get() const { return data_; }
  float& operator[](size_t i) const { return data_[i]; }

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float[], Free> base_;
  float* data_;
};

// Filled with N(0, scale) values.
Buffer Normal(size_t n, float scale = 1.0f, unsigned seed = 1) {
  Buffer b(n, seed);
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  for (size_t i = 0; i < n; ++i) b[i] = dist(rng);
  return b;
}

constexpr int64_t kD = 4096;

void RmsNorm(benchmark::State& state, const Backend* k, int64_t rows) {
  const size_t n = static_cast<size_t>(rows * kD);
  auto x = Normal(n), w = Normal(kD, 1.0f, 2), y = Normal(n, 1.0f, 3);
  const auto stream = BestStream();
  RunWithReference(
      state, 4.0 * double(2 * n + kD), [&] { k->rmsnorm(x.get(), w.get(), y.get(), rows, kD, 1e-5f); },
      [&] {
        for (int64_t r = 0; r < rows; ++r) stream(x.get() + r * kD, w.get(), y.get() + r * kD, kD);
      });
}

void SiluMul(benchmark::State& state, const Backend* k, int64_t rows) {
  const size_t n = static_cast<size_t>(rows * kD);
  auto g = Normal(n, 2.0f), u = Normal(n, 1.0f, 2), y = Normal(n, 1.0f, 3);
  const auto stream = BestStream();
  RunWithReference(
      state, 12.0 * double(n), [&] { k->silu_mul(g.get(), u.get(), y.get(), int64_t(n)); },
      [&] { stream(g.get(), u.get(), y.get(), n); });
}

void Add(benchmark::State& state, const Backend* k, int64_t rows) {
  const size_t n = static_cast<size_t>(rows * kD);
  auto a = Normal(n), b = Normal(n, 1.0f, 2), y = Normal(n, 1.0f, 3);
  const auto stream = BestStream();
  RunWithReference(
      state, 12.0 * double(n), [&] { k->add(a.get(), b.get(), y.get(), int64_t(n)); },
      [&] { stream(a.get(), b.get(), y.get(), n); });
}

// The table holds exactly the rows gathered, in shuffled order, so the
// kernel and the contiguous-copy reference touch the same bytes.
void Embedding(benchmark::State& state, const Backend* k, int64_t rows) {
  const size_t n = static_cast<size_t>(rows * kD);
  auto table = Normal(n), out = Normal(n, 1.0f, 2);
  std::vector<int32_t> ids(static_cast<size_t>(rows));
  std::iota(ids.begin(), ids.end(), 0);
  std::shuffle(ids.begin(), ids.end(), std::mt19937(4));
  const auto stream = BestStream();
  RunWithReference(
      state, 8.0 * double(n), [&] { k->embedding(table.get(), ids.data(), out.get(), rows, kD); },
      [&] { stream(table.get(), nullptr, out.get(), n); });
}

// Prefill shape: positions 0..T-1, HF Llama frequencies (base 10000).
void Rope(benchmark::State& state, const Backend* k, int layout) {
  constexpr int64_t T = 512, H = 32, D = 128;
  const size_t n = static_cast<size_t>(T * H * D);
  auto x = Normal(n);
  std::vector<int32_t> pos(T);
  std::iota(pos.begin(), pos.end(), 0);
  std::vector<float> inv_freq(D / 2);
  for (size_t i = 0; i < inv_freq.size(); ++i)
    inv_freq[i] = static_cast<float>(std::pow(10000.0, -2.0 * double(i) / double(D)));
  const auto stream = BestStream();
  RunWithReference(
      state, 8.0 * double(n), [&] { k->rope(x.get(), pos.data(), T, H, D, D, inv_freq.data(), 1.0f, layout); },
      [&] { stream(x.get(), nullptr, x.get(), n); });
}

void Argmax(benchmark::State& state, const Backend* k, int64_t n) {
  auto x = Normal(static_cast<size_t>(n));
  const auto stream = BestStream();
  RunWithReference(
      state, 4.0 * double(n), [&] { benchmark::DoNotOptimize(k->argmax(x.get(), n)); },
      [&] { benchmark::DoNotOptimize(stream(x.get(), nullptr, nullptr, size_t(n))); });
}

template <class Fn, class Arg>
void Register(const std::string& op, const std::string& shape, Fn fn, Arg arg) {
  for (const Backend* k : {&kSimd, &kScalar}) {
    benchmark::RegisterBenchmark((op + "/" + k->name + "/" + shape).c_str(), fn, k, arg);
  }
}

void RegisterAll() {
  for (int64_t rows : {1, 32, 512}) {
    const std::string shape = std::to_string(rows) + "x4096";
    Register("rmsnorm", shape, RmsNorm, rows);
    Register("silu_mul", shape, SiluMul, rows);
    Register("add", shape, Add, rows);
    Register("embedding", shape, Embedding, rows);
  }
  Register("rope_half", "T512_H32_D128", Rope, 0);
  Register("rope_interleaved", "T512_H32_D128", Rope, 1);
  Register("argmax", "32000", Argmax, int64_t{32000});
  Register("argmax", "128256", Argmax, int64_t{128256});
}

}  // namespace

int main(int argc, char** argv) { return konform::bench::BenchMain(argc, argv, RegisterAll); }
