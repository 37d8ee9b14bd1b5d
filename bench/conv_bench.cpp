// konform_conv_bench: the convolutions and Pool of tinyllm/conv.h in
// libtl_kernels (simd) and in the scalar backend, with the multiply-adds per
// second (wall clock: libtl_kernels may use threads) as a counter. No
// assertions on time.
//
//   konform_conv_bench [Google Benchmark flags]
//
// Shapes: a ResNet-50 stage-1 3x3 (64 -> 64 channels at 56 x 56, padding 1),
// a MobileNet depthwise 3x3 (128 channels at 56 x 56), a VAE decoder's
// ConvTranspose2d (64 -> 32, 4x4, stride 2, 28 x 28 -> 56 x 56), a causal
// temporal conv (256 channels, kernel 3, T = 64 x 16 batch), and 2x2 max and
// avg pools of 64 x 112 x 112.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "scalar/kernels.hpp"
#include "tinyllm/conv.h"

namespace {

std::vector<float> random_floats(size_t n) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& e : v) e = u(gen);
  return v;
}

template <typename Fn>
void Conv2d(benchmark::State& state, Fn fn) {
  const int64_t in[2] = {56, 56}, k[2] = {3, 3}, s[2] = {1, 1}, p[2] = {1, 1}, d[2] = {1, 1};
  const auto x = random_floats(64 * 56 * 56), w = random_floats(64 * 64 * 9), b = random_floats(64);
  std::vector<float> y(64 * 56 * 56);
  for (auto _ : state) {
    fn(x.data(), w.data(), b.data(), y.data(), 1, 64, 64, 1, 2, in, k, s, p, d);
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["MAC/s"] = benchmark::Counter(64.0 * 64 * 9 * 56 * 56, benchmark::Counter::kIsIterationInvariantRate);
}

template <typename Fn>
void Depthwise(benchmark::State& state, Fn fn) {
  const int64_t in[2] = {56, 56}, k[2] = {3, 3}, s[2] = {1, 1}, p[2] = {1, 1}, d[2] = {1, 1};
  const auto x = random_floats(128 * 56 * 56), w = random_floats(128 * 9);
  std::vector<float> y(128 * 56 * 56);
  for (auto _ : state) {
    fn(x.data(), w.data(), nullptr, y.data(), 1, 128, in, k, s, p, d);
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["MAC/s"] = benchmark::Counter(128.0 * 9 * 56 * 56, benchmark::Counter::kIsIterationInvariantRate);
}

template <typename Fn>
void Transpose(benchmark::State& state, Fn fn) {
  const int64_t in[2] = {28, 28}, k[2] = {4, 4}, s[2] = {2, 2}, p[2] = {1, 1}, op[2] = {0, 0}, d[2] = {1, 1};
  const auto x = random_floats(64 * 28 * 28), w = random_floats(64 * 32 * 16), b = random_floats(32);
  std::vector<float> y(32 * 56 * 56);
  for (auto _ : state) {
    fn(x.data(), w.data(), b.data(), y.data(), 1, 64, 32, 1, in, k, s, p, op, d);
    benchmark::DoNotOptimize(y.data());
  }
  // Each output gathers 64 channels x 4 of the 16 taps.
  state.counters["MAC/s"] = benchmark::Counter(32.0 * 56 * 56 * 64 * 4, benchmark::Counter::kIsIterationInvariantRate);
}

template <typename Fn>
void Causal(benchmark::State& state, Fn fn) {
  const auto x = random_floats(16 * 256 * 64), w = random_floats(256 * 256 * 3);
  std::vector<float> y(16 * 256 * 64);
  for (auto _ : state) {
    fn(x.data(), w.data(), nullptr, y.data(), 16, 256, 256, 1, 64, 3, 1, 1);
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["MAC/s"] =
      benchmark::Counter(16.0 * 256 * 256 * 3 * 64, benchmark::Counter::kIsIterationInvariantRate);
}

template <typename Fn>
void Pool(benchmark::State& state, Fn fn, int mode) {
  const int64_t in[2] = {112, 112}, k[2] = {2, 2};
  const auto x = random_floats(64 * 112 * 112);
  std::vector<float> y(64 * 56 * 56);
  for (auto _ : state) {
    fn(x.data(), y.data(), 1, 64, in, k, nullptr, nullptr, mode);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetBytesProcessed(state.iterations() * int64_t(sizeof(float)) * (64 * 112 * 112 + 64 * 56 * 56));
}

namespace sc = konform::scalar;

BENCHMARK_CAPTURE(Conv2d, simd, tl_conv_f32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(Conv2d, scalar, sc::conv_f32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(Depthwise, simd, tl_depthwise_conv2d_f32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(Depthwise, scalar, sc::depthwise_conv2d_f32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(Transpose, simd, tl_conv_transpose2d_f32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(Transpose, scalar, sc::conv_transpose2d_f32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(Causal, simd, tl_causal_conv1d_f32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(Causal, scalar, sc::causal_conv1d_f32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(Pool, max_simd, tl_pool_f32, TL_POOL_MAX)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(Pool, max_scalar, sc::pool_f32, TL_POOL_MAX)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(Pool, avg_simd, tl_pool_f32, TL_POOL_AVG)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(Pool, avg_scalar, sc::pool_f32, TL_POOL_AVG)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
