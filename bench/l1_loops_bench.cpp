// konform_l1_loops_bench: what one or two vector operations per vector cost
// in L1, beside the copy that is the elementwise benches' reference. Issue 4
// asks 80 % of that copy from LeakyRelu at 1 x 4096 (16 KiB in, 16 KiB out);
// these bare loops (AVX-512, four vectors a step, the shape the kernels use)
// show what any kernel with that many operations can reach on this machine,
// and the GHz counters show how much of it is the core's clock
// (docs/ops-activations.md, "LeakyRelu at 1 x 4096 is bound by its two
// operations"). AVX-512 only; elsewhere it says so.
//
//   konform_l1_loops_bench [Google Benchmark flags]

#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "bandwidth_ref.h"
#include "measure.hpp"
#include "tinyllm/activations.h"

namespace {

constexpr size_t kN = 4096;

enum class Loop { one_fp_op, two_fp_ops, two_int_ops, compare_masked_mul };

template <Loop L>
__attribute__((target("avx512f"), always_inline)) inline __m512 Op(__m512 v) {
  const __m512 alpha = _mm512_set1_ps(0.01f);
  const __m512i one = _mm512_set1_epi32(1);
  if constexpr (L == Loop::one_fp_op) return _mm512_max_ps(v, alpha);
  if constexpr (L == Loop::two_fp_ops) return _mm512_max_ps(v, _mm512_mul_ps(alpha, v));  // LeakyRelu's
  if constexpr (L == Loop::two_int_ops)
    return _mm512_castsi512_ps(_mm512_add_epi32(one, _mm512_add_epi32(one, _mm512_castps_si512(v))));
  // LeakyRelu with an integer compare choosing its lanes
  return _mm512_mask_mul_ps(v, _mm512_cmple_epi32_mask(_mm512_castps_si512(v), _mm512_setzero_si512()), alpha, v);
}

// y[i] = Op(x[i]) over kN floats, four 64-byte vectors a step.
template <Loop L>
__attribute__((target("avx512f"), noinline)) void Run(const float* x, float* y) {
  for (size_t i = 0; i < kN; i += 64) {
    const __m512 a = _mm512_loadu_ps(x + i), b = _mm512_loadu_ps(x + i + 16), c = _mm512_loadu_ps(x + i + 32),
                 d = _mm512_loadu_ps(x + i + 48);
    _mm512_storeu_ps(y + i, Op<L>(a));
    _mm512_storeu_ps(y + i + 16, Op<L>(b));
    _mm512_storeu_ps(y + i + 32, Op<L>(c));
    _mm512_storeu_ps(y + i + 48, Op<L>(d));
  }
}

struct Free {
  void operator()(float* p) const { std::free(p); }
};

// x at a 4 KiB boundary, y 2 KiB past one: no 4K aliasing between them.
struct Buffers {
  std::unique_ptr<float[], Free> xb{static_cast<float*>(std::aligned_alloc(4096, 4 * kN + 4096))};
  std::unique_ptr<float[], Free> yb{static_cast<float*>(std::aligned_alloc(4096, 4 * kN + 4096))};
  float* x = xb.get();
  float* y = yb.get() + 512;
  Buffers() {
    for (size_t i = 0; i < kN; ++i) x[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
  }
};

void Loops(benchmark::State& state, void (*loop)(const float*, float*)) {
  Buffers b;
  const auto stream = konform::bench::BestStream();
  konform::bench::RunWithReference(
      state, 8.0 * kN, [&] { loop(b.x, b.y); }, [&] { stream(b.x, nullptr, b.y, kN); });
}

void LeakyReluKernel(benchmark::State& state) {
  Buffers b;
  const auto stream = konform::bench::BestStream();
  konform::bench::RunWithReference(
      state, 8.0 * kN, [&] { tl_leaky_relu_f32(b.x, b.y, kN, 0.01f); }, [&] { stream(b.x, nullptr, b.y, kN); });
}

}  // namespace

int main(int argc, char** argv) {
  if (!__builtin_cpu_supports("avx512f")) {
    std::printf("konform_l1_loops_bench: this CPU has no AVX-512; nothing measured\n");
    return 0;
  }
  konform::bench::BestStream();
  benchmark::RegisterBenchmark("L1Loop/one_fp_op/1x4096", Loops, &Run<Loop::one_fp_op>);
  benchmark::RegisterBenchmark("L1Loop/two_fp_ops/1x4096", Loops, &Run<Loop::two_fp_ops>);
  benchmark::RegisterBenchmark("L1Loop/two_int_ops/1x4096", Loops, &Run<Loop::two_int_ops>);
  benchmark::RegisterBenchmark("L1Loop/compare_masked_mul/1x4096", Loops, &Run<Loop::compare_masked_mul>);
  benchmark::RegisterBenchmark("LeakyRelu/simd/1x4096", LeakyReluKernel);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
