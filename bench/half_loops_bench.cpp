// konform_half_loops_bench: what the half conversions alone cost (issue 29).
// Bare AVX-512 loops (four vectors a step, as l1_loops_bench.cpp's) that
// widen f16 or bf16 to f32 in the registers and round back, with the fewest
// operations each op needs, over the half benches' buffers and against the
// same limit (half_limit.hpp: HalfBuffer, the copy candidates, the OR
// stream, the gain's read), each beside the library's kernel in the same
// rounds:
//   round_trip          widen, narrow, store
//   relu_max            the same with a vmaxps (tl_relu_*)
//   relu_fixup          with the library's Relu op, a vfixupimmps (tl_relu_*)
//   leaky_relu          with a vmulps and a vmaxps (tl_leaky_relu_*)
//   add                 two widens, a vaddps, a narrow (tl_add_broadcast_*)
//   add_row             y = a + b with b a bias row widened once into floats:
//                       a widen, a vaddps with the row's floats, a narrow
//   rms_norm            pass 1: widen, FMA into 8 accumulators; pass 2: widen,
//                       times the scalar and the f32 gain, narrow (tl_rms_norm_*)
//   ..._fpclass         bf16: the library's subnormal test before each rounding
//   ..._wide            64-byte stores (UnaryWide, AddWideBf16)
//   copy32              no conversion, 32-byte moves (one rounding's width)
//   transpose_lines     Transpose's access alone: 32 x 32 blocks of 16-bit
//                       values, each of x's 32 lines moved whole to the line
//                       of y the block's transpose writes, no shuffles (wrong
//                       values); _by_rows in the library's order (a band of
//                       x's rows left to right), _by_columns down a band of
//                       x's columns (y written row by row) (tl_transpose_*)
// f16 widens with vcvtph2ps and rounds with vcvtps2ph; bf16 widens with
// vpmovzxwd and vpslld (half-inl.h's) and rounds with vcvtneps2bf16 (inline
// assembly, as half-inl.h's BF16Cvt: the target here lacks avx512bf16).
// Counters: loop_pct and kernel_pct (% of the limit), kernel_of_loop (the
// kernel's rate over the loop's; 0 where no kernel is beside it).
// docs/benchmarks.md, "What the conversions alone cost (bare loops)".
// AVX-512 (F, DQ, BW) and F16C only; bf16 needs AVX512_BF16.
//
//   konform_half_loops_bench [Google Benchmark flags]

#include <benchmark/benchmark.h>
#include <cpuid.h>
#include <immintrin.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <string>

#include "bench/half_limit.hpp"
#include "tinyllm/activations.h"
#include "tinyllm/norm.h"
#include "tinyllm/tensor.h"

namespace {

using konform::bench::Half;
using konform::bench::HalfBuffer;

constexpr size_t kD = 4096;  // the row: the half benches' 1x4096 and 32x4096

#define KONFORM_HALF_LOOPS_TARGET "avx512f,avx512dq,avx512bw"  // dq: vfpclassps, bw: vpermw

// 16 halves at p to f32.
template <Half H>
__attribute__((target(KONFORM_HALF_LOOPS_TARGET), always_inline)) inline __m512 Widen(const uint16_t* p) {
  const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  if constexpr (H == Half::f16) return _mm512_cvtph_ps(h);
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

// 16 f32 rounded to halves at p (bf16: with the library's test for
// subnormals when kClass, the integer rounding's branch never taken here).
template <Half H, bool kClass = false>
__attribute__((target(KONFORM_HALF_LOOPS_TARGET), always_inline)) inline void Narrow(__m512 v, uint16_t* p) {
  __m256i h;
  if constexpr (H == Half::f16) {
    h = _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);  // as Highway's
  } else {
    if constexpr (kClass)
      if (__builtin_expect(_mm512_fpclass_ps_mask(v, 0x20) != 0, 0)) __builtin_trap();
    asm("vcvtneps2bf16 {%1, %0|%0, %1}" : "=v"(h) : "v"(v));
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), h);
}

// max: Relu's minimum; fixup: the library's Relu on AVX3 (activations-inl.h's
// ReluVec); mul_max: LeakyRelu's.
enum class Op { none, max, fixup, mul_max };

template <Op O>
__attribute__((target(KONFORM_HALF_LOOPS_TARGET), always_inline)) inline __m512 Apply(__m512 v) {
  if constexpr (O == Op::max) return _mm512_max_ps(v, _mm512_setzero_ps());
  if constexpr (O == Op::fixup) return _mm512_fixupimm_ps(v, v, _mm512_set1_epi32(0x18181811), 0);
  if constexpr (O == Op::mul_max) return _mm512_max_ps(v, _mm512_mul_ps(_mm512_set1_ps(0.01f), v));
  return v;
}

// y = Narrow(Op(Widen(x))) over n halves.
template <Half H, Op O, bool kClass = false>
__attribute__((target(KONFORM_HALF_LOOPS_TARGET), noinline)) void Unary(const uint16_t* x, uint16_t* y, size_t n) {
  for (size_t i = 0; i < n; i += 64) {
    const __m512 a = Widen<H>(x + i), b = Widen<H>(x + i + 16), c = Widen<H>(x + i + 32), d = Widen<H>(x + i + 48);
    Narrow<H, kClass>(Apply<O>(a), y + i);
    Narrow<H, kClass>(Apply<O>(b), y + i + 16);
    Narrow<H, kClass>(Apply<O>(c), y + i + 32);
    Narrow<H, kClass>(Apply<O>(d), y + i + 48);
  }
}

// bf16 with 64-byte moves: the even and the odd values of 64 bytes widened in
// place (a shift, an and), and rounded back together by vcvtne2ps2bf16 and a
// vpermw that puts the values back in order.
struct EvenOdd {
  __m512 even, odd;
};

__attribute__((target(KONFORM_HALF_LOOPS_TARGET), always_inline)) inline EvenOdd WidenEvenOdd(const uint16_t* p) {
  const __m512i v = _mm512_loadu_si512(p);
  return {_mm512_castsi512_ps(_mm512_slli_epi32(v, 16)),
          _mm512_castsi512_ps(_mm512_and_si512(v, _mm512_set1_epi32(int(0xFFFF0000u))))};
}

template <bool kClass = false>
__attribute__((target(KONFORM_HALF_LOOPS_TARGET), always_inline)) inline void NarrowEvenOdd(EvenOdd v, uint16_t* p) {
  if constexpr (kClass)  // Narrow's test, once for both halves
    if (__builtin_expect((_mm512_fpclass_ps_mask(v.even, 0x20) | _mm512_fpclass_ps_mask(v.odd, 0x20)) != 0, 0))
      __builtin_trap();
  __m512i r;  // the even values' bf16 in words 0-15, the odd ones' in 16-31
  asm("vcvtne2ps2bf16 {%2, %1, %0|%0, %1, %2}" : "=v"(r) : "v"(v.odd), "v"(v.even));
  const __m512i order = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7, 22, 6, 21,
                                         5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  _mm512_storeu_si512(p, _mm512_permutexvar_epi16(order, r));
}

// Unary with 64-byte stores, as the copy's: f16 joins two roundings with a
// vinserti64x4; bf16 goes through EvenOdd.
template <Half H, Op O, bool kClass = false>
__attribute__((target(KONFORM_HALF_LOOPS_TARGET), noinline)) void UnaryWide(const uint16_t* x, uint16_t* y, size_t n) {
  for (size_t i = 0; i < n; i += 32) {
    if constexpr (H == Half::f16) {
      const __m512 a = Apply<O>(Widen<H>(x + i)), b = Apply<O>(Widen<H>(x + i + 16));
      const int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
      _mm512_storeu_si512(
          y + i, _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtps_ph(a, kRound)), _mm512_cvtps_ph(b, kRound), 1));
    } else {
      const EvenOdd v = WidenEvenOdd(x + i);
      NarrowEvenOdd<kClass>({Apply<O>(v.even), Apply<O>(v.odd)}, y + i);
    }
  }
}

// Add with bf16's 64-byte moves.
template <bool kClass = false>
__attribute__((target(KONFORM_HALF_LOOPS_TARGET), noinline)) void AddWideBf16(const uint16_t* a, const uint16_t* b,
                                                                              uint16_t* y, size_t n) {
  for (size_t i = 0; i < n; i += 32) {
    const EvenOdd u = WidenEvenOdd(a + i), v = WidenEvenOdd(b + i);
    NarrowEvenOdd<kClass>({_mm512_add_ps(u.even, v.even), _mm512_add_ps(u.odd, v.odd)}, y + i);
  }
}

// y = a + b with b one row of kD values over rows of a (n halves in all), b
// widened once into floats as the library's bias row (bf16: each 32-value
// step's even and odd values side by side, for the 64-byte moves).
template <Half H>
__attribute__((target(KONFORM_HALF_LOOPS_TARGET), noinline)) void AddRow(const uint16_t* a, const uint16_t* b,
                                                                         uint16_t* y, size_t n) {
  alignas(64) float row[kD];
  for (size_t i = 0; i < kD; i += 16) _mm512_store_ps(row + i, Widen<H>(b + i));
  for (size_t r = 0; r < n; r += kD)
    for (size_t i = 0; i < kD; i += 64)
      for (size_t k = 0; k < 64; k += 16)
        Narrow<H>(_mm512_add_ps(Widen<H>(a + r + i + k), _mm512_load_ps(row + i + k)), y + r + i + k);
}

template <bool kClass = false>
__attribute__((target(KONFORM_HALF_LOOPS_TARGET), noinline)) void AddRowWideBf16(const uint16_t* a, const uint16_t* b,
                                                                                 uint16_t* y, size_t n) {
  alignas(64) float row[kD];
  for (size_t i = 0; i < kD; i += 32) {
    const EvenOdd v = WidenEvenOdd(b + i);
    _mm512_store_ps(row + i, v.even);
    _mm512_store_ps(row + i + 16, v.odd);
  }
  for (size_t r = 0; r < n; r += kD)
    for (size_t i = 0; i < kD; i += 32) {
      const EvenOdd u = WidenEvenOdd(a + r + i);
      NarrowEvenOdd<kClass>(
          {_mm512_add_ps(u.even, _mm512_load_ps(row + i)), _mm512_add_ps(u.odd, _mm512_load_ps(row + i + 16))},
          y + r + i);
    }
}

// y = x in 32-byte moves, the width of one rounding's halves: what the
// narrow stores alone cost against the copy's 64-byte ones.
__attribute__((target(KONFORM_HALF_LOOPS_TARGET), noinline)) void Copy32(const uint16_t* x, uint16_t* y, size_t n) {
  for (size_t i = 0; i < n; i += 64) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i)),
                  b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i + 16)),
                  c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i + 32)),
                  d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i + 48));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), a);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i + 16), b);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i + 32), c);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i + 48), d);
  }
}

// y[j][i] = x[i][j] for a rows x cols matrix of 16-bit values, as far as the
// memory sees it: each 32 x 32 block's 32 lines of x (64 bytes of a row) are
// loaded whole and stored whole where the transpose puts that block in y.
__attribute__((target(KONFORM_HALF_LOOPS_TARGET), always_inline)) inline void BlockLines(const uint16_t* x, size_t xs,
                                                                                         uint16_t* y, size_t ys) {
  __m512i v[32];
  for (size_t k = 0; k < 32; ++k) v[k] = _mm512_loadu_si512(x + k * xs);
  for (size_t k = 0; k < 32; ++k) _mm512_storeu_si512(y + k * ys, v[k]);
}

template <bool kByColumns>
__attribute__((target(KONFORM_HALF_LOOPS_TARGET), noinline)) void TransposeLines(const uint16_t* x, uint16_t* y,
                                                                                 size_t rows, size_t cols) {
  if constexpr (kByColumns) {
    for (size_t j = 0; j < cols; j += 32)
      for (size_t i = 0; i < rows; i += 32) BlockLines(x + i * cols + j, cols, y + j * rows + i, rows);
  } else {
    for (size_t i = 0; i < rows; i += 32)
      for (size_t j = 0; j < cols; j += 32) BlockLines(x + i * cols + j, cols, y + j * rows + i, rows);
  }
}

// y = a + b over n halves.
template <Half H>
__attribute__((target(KONFORM_HALF_LOOPS_TARGET), noinline)) void Add(const uint16_t* a, const uint16_t* b, uint16_t* y,
                                                                      size_t n) {
  for (size_t i = 0; i < n; i += 64) {
    const __m512 s0 = _mm512_add_ps(Widen<H>(a + i), Widen<H>(b + i));
    const __m512 s1 = _mm512_add_ps(Widen<H>(a + i + 16), Widen<H>(b + i + 16));
    const __m512 s2 = _mm512_add_ps(Widen<H>(a + i + 32), Widen<H>(b + i + 32));
    const __m512 s3 = _mm512_add_ps(Widen<H>(a + i + 48), Widen<H>(b + i + 48));
    Narrow<H>(s0, y + i);
    Narrow<H>(s1, y + i + 16);
    Narrow<H>(s2, y + i + 32);
    Narrow<H>(s3, y + i + 48);
  }
}

// y = x / sqrt(mean(x^2) + eps) * g, row by row over rows x kD halves.
template <Half H>
__attribute__((target(KONFORM_HALF_LOOPS_TARGET), noinline)) void RmsNorm(const uint16_t* x, const float* g,
                                                                          uint16_t* y, size_t rows) {
  for (size_t r = 0; r < rows; ++r, x += kD, y += kD) {
    __m512 acc[8];
    for (auto& e : acc) e = _mm512_setzero_ps();
    for (size_t i = 0; i < kD; i += 128)
      for (size_t k = 0; k < 8; ++k) {
        const __m512 v = Widen<H>(x + i + 16 * k);
        acc[k] = _mm512_fmadd_ps(v, v, acc[k]);
      }
    const __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3])),
                                   _mm512_add_ps(_mm512_add_ps(acc[4], acc[5]), _mm512_add_ps(acc[6], acc[7])));
    const __m512 inv = _mm512_set1_ps(1.0f / __builtin_sqrtf(_mm512_reduce_add_ps(s) / float(kD) + 1e-5f));
    for (size_t i = 0; i < kD; i += 64)
      for (size_t k = 0; k < 64; k += 16)
        Narrow<H>(_mm512_mul_ps(_mm512_mul_ps(Widen<H>(x + i + k), inv), _mm512_loadu_ps(g + i + k)), y + i + k);
  }
}

using UnaryFn = void (*)(const uint16_t*, uint16_t*, size_t);
using KernelFn = std::function<void(const uint16_t*, uint16_t*, int64_t)>;

// x -> y against the copy limit, 4 n bytes (act_bench.cpp's HalfCopyLike).
void UnaryBench(benchmark::State& state, Half h, size_t rows, UnaryFn loop, KernelFn kernel) {
  const size_t n = rows * kD;
  HalfBuffer x(n, 1, h, 2.0f), y(n, 3, h);
  konform::bench::LoopBeside(
      state, 4.0 * double(n), [&] { loop(x.get(), y.get(), n); },
      kernel ? std::function<void()>([&] { kernel(x.get(), y.get(), int64_t(n)); }) : nullptr,
      konform::bench::copy_candidates(x.as_floats(), y.as_floats(), n / 2, 1));
}

// Transpose's lines beside the library's transpose, against the copy limit,
// 4 rows cols bytes (tensor_bench.cpp's half Transpose: 1024 x 1024 and
// 1056 x 1056).
void TransposeBench(benchmark::State& state, Half h, size_t rows, size_t cols, bool by_columns) {
  const size_t n = rows * cols;
  HalfBuffer x(n, 1, h), y(n, 3, h);
  const int64_t shape[] = {int64_t(rows), int64_t(cols)};
  const auto fn = h == Half::f16 ? tl_transpose_f16 : tl_transpose_bf16;
  konform::bench::LoopBeside(
      state, 4.0 * double(n),
      [&] { (by_columns ? TransposeLines<true> : TransposeLines<false>)(x.get(), y.get(), rows, cols); },
      [&] { fn(x.get(), shape, 2, y.get()); }, konform::bench::copy_candidates(x.as_floats(), y.as_floats(), n / 2, 1));
}

// y = a + b, same shapes, against the OR stream, 6 n bytes (tensor_bench.cpp's
// HalfAdd).
using AddFn = void (*)(const uint16_t*, const uint16_t*, uint16_t*, size_t);

template <Half H>
void AddBench(benchmark::State& state, size_t rows, AddFn loop) {
  const size_t n = rows * kD;
  HalfBuffer a(n, 1, H), b(n, 2, H), y(n, 3, H);
  const int64_t shape[] = {int64_t(rows), int64_t(kD)};
  const auto fn = H == Half::f16 ? tl_add_broadcast_f16 : tl_add_broadcast_bf16;
  konform::bench::LoopBeside(
      state, 6.0 * double(n), [&] { loop(a.get(), b.get(), y.get(), n); },
      [&] { fn(a.get(), shape, 2, b.get(), shape, 2, y.get(), shape, 2); },
      konform::bench::TwoInOneOut(a.as_floats(), b.as_floats(), y.as_floats(), n / 2));
}

// y = a + b with b a bias row of kD values, against the OR stream row by row
// with that row, 4 n + 2 kD bytes (tensor_bench.cpp's HalfAdd, row).
template <Half H>
void AddRowBench(benchmark::State& state, size_t rows, AddFn loop) {
  const size_t n = rows * kD;
  HalfBuffer a(n, 1, H), b(kD, 2, H), y(n, 3, H);
  const int64_t shape[] = {int64_t(rows), int64_t(kD)}, row_shape[] = {int64_t(kD)};
  const auto fn = H == Half::f16 ? tl_add_broadcast_f16 : tl_add_broadcast_bf16;
  konform::bench::LoopBeside(
      state, 4.0 * double(n) + 2.0 * double(kD), [&] { loop(a.get(), b.get(), y.get(), n); },
      [&] { fn(a.get(), shape, 2, b.get(), row_shape, 1, y.get(), shape, 2); },
      konform::bench::TwoInOneOut(a.as_floats(), b.as_floats(), y.as_floats(), n / 2, rows));
}

// RmsNorm against the copy limit plus the gain's read, 4 n + 4 d bytes
// (norm_bench.cpp's HalfRmsNorm; its gain: N(0, 1) from seed 2, 1152 bytes
// past a 4 KiB boundary).
template <Half H>
void RmsNormBench(benchmark::State& state, size_t rows) {
  const size_t n = rows * kD;
  HalfBuffer x(n, 1, H), y(n, 3, H), gain(2 * kD, 2, H);
  float* g = gain.as_floats();
  std::mt19937 rng(2);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  for (size_t i = 0; i < kD; ++i) g[i] = dist(rng);
  const int64_t shape[] = {int64_t(rows), int64_t(kD)};
  const auto fn = H == Half::f16 ? tl_rms_norm_f16 : tl_rms_norm_bf16;
  konform::bench::LoopBeside(
      state, 4.0 * double(n + kD), [&] { RmsNorm<H>(x.get(), g, y.get(), rows); },
      [&] { fn(x.get(), g, y.get(), shape, 2, 1e-5f); },
      konform::bench::WithRead(konform::bench::copy_candidates(x.as_floats(), y.as_floats(), n / 2, 1), g, kD));
}

// The wide loops give the plain ones' bits (else the bench stops).
template <Half H>
bool SameBits(AddFn wide, AddFn plain) {
  const size_t n = 4 * kD;
  HalfBuffer a(n, 1, H, 2.0f), b(n, 2, H), y(n, 3, H), z(n, 4, H);
  wide(a.get(), b.get(), y.get(), n);
  plain(a.get(), b.get(), z.get(), n);
  return std::equal(y.get(), y.get() + n, z.get());
}

template <UnaryFn F>
void Drop2nd(const uint16_t* x, const uint16_t*, uint16_t* y, size_t n) {
  F(x, y, n);
}

template <Half H>
bool RegisterAll(const char* tag) {
  if (!SameBits<H>(&Drop2nd<&UnaryWide<H, Op::none>>, &Drop2nd<&Unary<H, Op::none>>) ||
      !SameBits<H>(&Drop2nd<&UnaryWide<H, Op::fixup>>, &Drop2nd<&Unary<H, Op::fixup>>) ||
      (H == Half::bf16 && !SameBits<H>(&AddWideBf16<>, &Add<H>)))
    return false;
  const auto relu = H == Half::f16 ? tl_relu_f16 : tl_relu_bf16;
  const auto leaky = H == Half::f16 ? tl_leaky_relu_f16 : tl_leaky_relu_bf16;
  for (const size_t rows : {size_t{1}, size_t{32}}) {
    const std::string s = std::string(tag) + "/" + std::to_string(rows) + "x4096";
    const auto unary = [&](const char* loop, UnaryFn fn, KernelFn kernel) {
      konform::bench::RegisterHalf("HalfLoop/" + std::string(loop) + "_" + s, UnaryBench, H, rows, fn, kernel);
    };
    unary("round_trip", &Unary<H, Op::none>, nullptr);
    unary("round_trip_wide", &UnaryWide<H, Op::none>, nullptr);
    unary("relu_max", &Unary<H, Op::max>, relu);
    unary("relu_fixup", &Unary<H, Op::fixup>, relu);
    if constexpr (H == Half::bf16) unary("relu_fixup_fpclass", &Unary<H, Op::fixup, true>, relu);
    unary("relu_fixup_wide", &UnaryWide<H, Op::fixup>, relu);
    if constexpr (H == Half::bf16) unary("relu_fixup_wide_fpclass", &UnaryWide<H, Op::fixup, true>, relu);
    unary("leaky_relu", &Unary<H, Op::mul_max>,
          [leaky](const uint16_t* x, uint16_t* y, int64_t n) { leaky(x, y, n, 0.01f); });
    konform::bench::RegisterHalf("HalfLoop/add_" + s, AddBench<H>, rows, &Add<H>);
    if constexpr (H == Half::bf16)
      konform::bench::RegisterHalf("HalfLoop/add_wide_" + s, AddBench<H>, rows, &AddWideBf16<>);
    if constexpr (H == Half::bf16)
      konform::bench::RegisterHalf("HalfLoop/add_wide_fpclass_" + s, AddBench<H>, rows, &AddWideBf16<true>);
    konform::bench::RegisterHalf("HalfLoop/rms_norm_" + s, RmsNormBench<H>, rows);
  }
  // The bias row under 32 rows (L2).
  konform::bench::RegisterHalf(std::string("HalfLoop/add_row_") + tag + "/32x4096", AddRowBench<H>, size_t{32},
                               &AddRow<H>);
  if constexpr (H == Half::bf16) {
    konform::bench::RegisterHalf("HalfLoop/add_row_wide_bf16/32x4096", AddRowBench<H>, size_t{32}, &AddRowWideBf16<>);
    konform::bench::RegisterHalf("HalfLoop/add_row_wide_fpclass_bf16/32x4096", AddRowBench<H>, size_t{32},
                                 &AddRowWideBf16<true>);
  }
  for (const size_t side : {size_t{1024}, size_t{1056}})  // rows a power of two apart, and not
    for (const bool by_columns : {false, true})
      konform::bench::RegisterHalf(std::string("HalfLoop/transpose_lines_") +
                                       (by_columns ? "by_columns_" : "by_rows_") + tag + "/" + std::to_string(side) +
                                       "x" + std::to_string(side),
                                   TransposeBench, H, side, side, by_columns);
  for (const size_t rows : {size_t{1}, size_t{32}})
    if constexpr (H == Half::f16)
      konform::bench::RegisterHalf("HalfLoop/copy32/" + std::to_string(rows) + "x4096", UnaryBench, H, rows, &Copy32,
                                   nullptr);
  return true;
}

bool HasAvx512Bf16() {
  unsigned a, b, c, d;
  return __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a >> 5 & 1);  // CPUID.(7,1):EAX[5]
}

}  // namespace

int main(int argc, char** argv) {
  if (!konform::bench::RunsAvx512Loops("konform_half_loops_bench")) return 0;
  if (!RegisterAll<Half::f16>("f16") || (HasAvx512Bf16() && !RegisterAll<Half::bf16>("bf16"))) {
    std::fprintf(stderr, "konform_half_loops_bench: a wide loop's bits differ from the plain loop's\n");
    return 1;
  }
  if (!HasAvx512Bf16()) std::printf("konform_half_loops_bench: no AVX512_BF16; the bf16 loops not run\n");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
