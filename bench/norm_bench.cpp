// konform_norm_bench: the norm ops of tinyllm/norm.h in libtl_kernels (simd)
// and in the scalar backend, each beside a bandwidth reference over the same
// bytes measured in the same run (measure.hpp). No assertions on time.
//
//   konform_norm_bench [--konform_target=AVX2] [Google Benchmark flags]
//
// Shapes: RmsNorm and LayerNorm at rows 1, 32 and 512 of 4096 and 11008 (the
// hidden and FFN widths of a 7B Llama; the and llama.cpp's comparison
// shapes), FusedSkipNorm and AdaLN at 32 x 4096, GroupNorm at Stable
// Diffusion's [1, 320, 64, 64] with 32 groups, BatchNorm and InstanceNorm at
// [8, 64, 56, 56].

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bandwidth_ref.h"
#include "bench_main.hpp"
#include "half_limit.hpp"
#include "measure.hpp"
#include "scalar/kernels.hpp"
#include "tinyllm/norm.h"

namespace {

using konform::bench::BestStream;
using konform::bench::RunWithReference;

// One backend's entry points (the C ABI's signatures).
struct Backend {
  const char* name;
  decltype(&tl_rms_norm_f32) rms_norm;
  decltype(&tl_layer_norm_f32) layer_norm;
  decltype(&tl_fused_skip_norm_f32) fused_skip_norm;
  decltype(&tl_ada_ln_f32) ada_ln;
  decltype(&tl_group_norm_f32) group_norm;
  decltype(&tl_batch_norm_f32) batch_norm;
  decltype(&tl_instance_norm_f32) instance_norm;
};

namespace scalar = konform::scalar;
const Backend kSimd = {"simd",        tl_rms_norm_f32,   tl_layer_norm_f32, tl_fused_skip_norm_f32,
                       tl_ada_ln_f32, tl_group_norm_f32, tl_batch_norm_f32, tl_instance_norm_f32};
const Backend kScalar = {
    "scalar",           scalar::rms_norm_f32,   scalar::layer_norm_f32, scalar::fused_skip_norm_f32,
    scalar::ada_ln_f32, scalar::group_norm_f32, scalar::batch_norm_f32, scalar::instance_norm_f32};

// A 64-byte aligned float array starting `seed` * 576 bytes past a 4 KiB
// boundary, so that arrays never share their address bits below 4 KiB (4K
// aliasing would slow kernel and reference alike). N(0, 1) contents.
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
    std::fprintf(stderr, "konform_norm_bench: a kernel refused its arguments (status %d)\n", static_cast<int>(s));
    std::abort();
  }
}

// Reference of a row op: per row, y = x | w over d (x and w read, y written),
// plus `extra` more vectors of d read once per call (LayerNorm's bias).
void RowsReference(const float* x, const float* w, float* y, int64_t rows, int64_t d, const float* extra) {
  const auto stream = BestStream();
  for (int64_t r = 0; r < rows; ++r) stream(x + r * d, w, y + r * d, static_cast<size_t>(d));
  if (extra != nullptr) benchmark::DoNotOptimize(stream(extra, nullptr, nullptr, static_cast<size_t>(d)));
}

// The bound of a two-pass row norm: per row, x read alone (the statistics),
// then the reference's y = x | w (the writing pass), plus `extra` read per
// row (LayerNorm's bias, which its writing pass reads beside the gain). No
// arithmetic: what a norm's memory traffic costs before any of its work.
void TwoPassBound(const float* x, const float* w, float* y, int64_t rows, int64_t d, const float* extra) {
  const auto stream = BestStream();
  const size_t n = static_cast<size_t>(d);
  for (int64_t r = 0; r < rows; ++r) {
    benchmark::DoNotOptimize(stream(x + r * d, nullptr, nullptr, n));
    stream(x + r * d, w, y + r * d, n);
    if (extra != nullptr) benchmark::DoNotOptimize(stream(extra, nullptr, nullptr, n));
  }
}

// Bytes: x read and y written once, g (RmsNorm) or g and b (LayerNorm) read once.
void RmsNorm(benchmark::State& state, const Backend* k, int64_t rows, int64_t d) {
  const size_t n = static_cast<size_t>(rows * d);
  Buffer x(n, 1), g(static_cast<size_t>(d), 2), y(n, 3);
  const int64_t shape[] = {rows, d};
  RunWithReference(
      state, 4.0 * double(2 * n + d), [&] { Check(k->rms_norm(x.get(), g.get(), y.get(), shape, 2, 1e-5f)); },
      [&] { RowsReference(x.get(), g.get(), y.get(), rows, d, nullptr); },
      [&] { TwoPassBound(x.get(), g.get(), y.get(), rows, d, nullptr); });
}

void LayerNorm(benchmark::State& state, const Backend* k, int64_t rows, int64_t d) {
  const size_t n = static_cast<size_t>(rows * d);
  Buffer x(n, 1), g(static_cast<size_t>(d), 2), b(static_cast<size_t>(d), 4), y(n, 3);
  const int64_t shape[] = {rows, d};
  RunWithReference(
      state, 4.0 * double(2 * n + 2 * d),
      [&] { Check(k->layer_norm(x.get(), g.get(), b.get(), y.get(), shape, 2, 1e-5f)); },
      [&] { RowsReference(x.get(), g.get(), y.get(), rows, d, b.get()); },
      [&] { TwoPassBound(x.get(), g.get(), y.get(), rows, d, b.get()); });
}

// x and skip read, sum and y written: 16 n bytes (+ g); the reference reads
// two arrays and writes one, then copies one (the same 16 n).
void FusedSkipNorm(benchmark::State& state, const Backend* k, int64_t rows, int64_t d) {
  const size_t n = static_cast<size_t>(rows * d);
  Buffer x(n, 1), skip(n, 5), g(static_cast<size_t>(d), 2), sum(n, 3), y(n, 6);
  const int64_t shape[] = {rows, d};
  const auto stream = BestStream();
  RunWithReference(
      state, 4.0 * double(4 * n + d),
      [&] { Check(k->fused_skip_norm(x.get(), skip.get(), g.get(), sum.get(), y.get(), shape, 2, 1e-5f)); },
      [&] {
        stream(x.get(), skip.get(), sum.get(), n);
        RowsReference(sum.get(), g.get(), y.get(), rows, d, nullptr);
      });
}

// One sample of `tokens` rows: x read, y written, scale and shift read once.
void AdaLN(benchmark::State& state, const Backend* k, int64_t tokens, int64_t d) {
  const size_t n = static_cast<size_t>(tokens * d);
  Buffer x(n, 1), scale(static_cast<size_t>(d), 2), shift(static_cast<size_t>(d), 4), y(n, 3);
  const int64_t shape[] = {1, tokens, d};
  RunWithReference(
      state, 4.0 * double(2 * n + 2 * d),
      [&] { Check(k->ada_ln(x.get(), scale.get(), shift.get(), y.get(), shape, 3, 1e-6f)); },
      [&] { RowsReference(x.get(), scale.get(), y.get(), tokens, d, shift.get()); });
}

// [N, C, H, W] ops: x read and y written (the per-channel vectors are noise).
enum class ChannelOp { batch, group, instance };

void Channels(benchmark::State& state, const Backend* k, ChannelOp op, std::vector<int64_t> shape) {
  const int64_t c = shape[1];
  const size_t n = static_cast<size_t>(shape[0] * c * shape[2] * shape[3]);
  Buffer x(n, 1), y(n, 3), g(static_cast<size_t>(c), 2), b(static_cast<size_t>(c), 4), mean(static_cast<size_t>(c), 5),
      var(static_cast<size_t>(c), 6);
  for (int64_t j = 0; j < c; ++j) var.get()[j] = 1.0f + std::abs(var.get()[j]);
  const auto stream = BestStream();
  RunWithReference(
      state, 8.0 * double(n),
      [&] {
        switch (op) {
          case ChannelOp::batch:
            Check(k->batch_norm(x.get(), mean.get(), var.get(), g.get(), b.get(), y.get(), shape.data(), 4, 1e-5f));
            break;
          case ChannelOp::group:
            Check(k->group_norm(x.get(), g.get(), b.get(), y.get(), shape.data(), 4, 32, 1e-5f));
            break;
          case ChannelOp::instance:
            Check(k->instance_norm(x.get(), g.get(), b.get(), y.get(), shape.data(), 4, 1e-5f));
            break;
        }
      },
      [&] { stream(x.get(), nullptr, y.get(), n); });
}

// RmsNorm's half twins (issue 29): f16 or bf16 x read and y written (2
// bytes a value each), the f32 gain read once: 4 n + 4 d bytes, against the
// copy limit over the rows plus a read of the gain (half_limit.hpp).
void HalfRmsNorm(benchmark::State& state, konform::bench::Half h, int64_t rows, int64_t d) {
  using namespace konform::bench;
  const size_t n = static_cast<size_t>(rows * d);
  HalfBuffer x(n, 1, h), y(n, 3, h);
  Buffer g(static_cast<size_t>(d), 2);
  const int64_t shape[] = {rows, d};
  const auto fn = h == Half::f16 ? tl_rms_norm_f16 : tl_rms_norm_bf16;
  RunAgainstLimit(
      state, std::string("RmsNorm") + SuffixOf(h), std::to_string(rows) + "x" + std::to_string(d),
      4.0 * double(n + static_cast<size_t>(d)), [&] { Check(fn(x.get(), g.get(), y.get(), shape, 2, 1e-5f)); },
      WithRead(copy_candidates(x.as_floats(), y.as_floats(), n / 2, 1), g.get(), static_cast<size_t>(d)));
}

template <class Fn, class... Args>
void Register(const std::string& op, const std::string& shape, Fn fn, Args... args) {
  for (const Backend* k : {&kSimd, &kScalar})
    benchmark::RegisterBenchmark((op + "/" + k->name + "/" + shape).c_str(), fn, k, args...);
}

void RegisterAll() {
  for (int64_t d : {4096, 11008})
    for (int64_t rows : {1, 32, 512}) {
      const std::string shape = std::to_string(rows) + "x" + std::to_string(d);
      Register("RmsNorm", shape, RmsNorm, rows, d);
      Register("LayerNorm", shape, LayerNorm, rows, d);
    }
  for (auto [h, tag] : {std::pair{konform::bench::Half::f16, "f16"}, {konform::bench::Half::bf16, "bf16"}})
    for (int64_t rows : {1, 32, 512})
      konform::bench::RegisterHalf(("RmsNorm_" + std::string(tag) + "/simd/" + std::to_string(rows) + "x4096"),
                                   HalfRmsNorm, h, rows, int64_t{4096});
  Register("FusedSkipNorm", "32x4096", FusedSkipNorm, int64_t{32}, int64_t{4096});
  Register("AdaLN", "1x256x1152", AdaLN, int64_t{256}, int64_t{1152});
  Register("GroupNorm", "1x320x64x64_G32", Channels, ChannelOp::group, std::vector<int64_t>{1, 320, 64, 64});
  Register("BatchNorm", "8x64x56x56", Channels, ChannelOp::batch, std::vector<int64_t>{8, 64, 56, 56});
  Register("InstanceNorm", "8x64x56x56", Channels, ChannelOp::instance, std::vector<int64_t>{8, 64, 56, 56});
}

}  // namespace

int main(int argc, char** argv) { return konform::bench::BenchMain(argc, argv, RegisterAll); }
