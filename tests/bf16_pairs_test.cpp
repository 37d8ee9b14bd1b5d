// libtl_kernels' Matmul_bf16 on a CPU with AVX512_BF16 (AVX3 target): bit
// for bit the pair order of impl/simd/matmul_pairs-inl.h, computed here in
// IEEE one output at a time, at every M (the strip-sized batches take the
// emulated tiles, larger ones vdpbf16ps) and on tiles where the instruction
// would flush: a row of x with a subnormal, and a row of x and a row of W
// whose products all fall below 2^-126. Such tiles must take the emulated
// path; a guard that let the instruction run there gives zeros where this
// order gives subnormals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "konform/rng.hpp"
#include "tinyllm/dispatch.h"
#include "tinyllm/linalg.h"

namespace {

float widen(uint16_t h) {
  const uint32_t u = uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t to_bf16(float f) {  // to nearest even; NaN stays NaN
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40);
  return static_cast<uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}

// The documented order: per block of 128 pairs a chain from zero, each pair
// its odd product then its even one by fma; the blocks added in order.
uint16_t pair_order(const uint16_t* x, const uint16_t* w, int64_t K) {
  auto at = [K](const uint16_t* row, int64_t k) { return k < K ? widen(row[k]) : 0.0f; };
  float y = 0.0f;
  const int64_t pairs = (K + 1) / 2;
  for (int64_t p0 = 0; p0 < pairs; p0 += 128) {
    float chain = 0.0f;
    for (int64_t p = p0; p < std::min(pairs, p0 + 128); ++p) {
      chain = std::fma(at(x, 2 * p + 1), at(w, 2 * p + 1), chain);
      chain = std::fma(at(x, 2 * p), at(w, 2 * p), chain);
    }
    y = p0 == 0 ? chain : y + chain;
  }
  return to_bf16(y);
}

// Normal values of exponents -7 .. 7 with random signs (products and partial
// sums cancel). Row `special` of x is of [1, 2) 2^-20 and holds a subnormal,
// row `special` of W is of [1, 2) 2^-110: their products lie in
// [2^-130, 2^-128), all subnormal floats, which the instruction would flush.
std::vector<uint16_t> values(konform::Rng& rng, int64_t rows, int64_t K, int64_t special, bool x) {
  std::vector<uint16_t> v(static_cast<size_t>(rows * K));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < K; ++k) {
      const int e = r == special ? (x ? -20 : -110) : static_cast<int>(rng.uniform(-7.0, 7.0));
      float f = std::ldexp(static_cast<float>(rng.uniform(1.0, 2.0)), e);
      if (rng.uniform(0.0, 1.0) < 0.5) f = -f;
      v[static_cast<size_t>(r * K + k)] = to_bf16(f);
    }
  if (x && special < rows && K > 0) v[static_cast<size_t>(special * K + K / 2)] = 0x0003;  // subnormal
  return v;
}

TEST(Bf16Pairs, EveryShapeHasThePairOrderBits) {
  if (!__builtin_cpu_supports("avx512bf16")) GTEST_SKIP() << "no AVX512_BF16 on this CPU: the pair path does not run";
  bool have_avx3 = false;
  for (int t = 0; t < tl_simd_target_count(); ++t) have_avx3 |= std::string(tl_simd_target_name(t)) == "AVX3";
  if (!have_avx3) GTEST_SKIP() << "no AVX3 target on this CPU";
  ASSERT_EQ(tl_simd_force_target("AVX3"), 0);
  konform::Rng rng(7);
  for (const int64_t M : {1, 5, 8, 9, 13, 40, 250})
    for (const int64_t N : {1, 33, 70})
      for (const int64_t K : {1, 2, 255, 256, 257, 600}) {
        const auto x = values(rng, M, K, M / 2, true), w = values(rng, N, K, N - 1, false);
        std::vector<uint16_t> y(static_cast<size_t>(M * N));
        ASSERT_EQ(tl_matmul_bf16(x.data(), w.data(), y.data(), M, N, K), TL_OK);
        int64_t wrong = 0;
        for (int64_t m = 0; m < M; ++m)
          for (int64_t n = 0; n < N; ++n) {
            const uint16_t want = pair_order(x.data() + m * K, w.data() + n * K, K);
            const uint16_t got = y[static_cast<size_t>(m * N + n)];
            if (got != want && wrong++ < 3)
              ADD_FAILURE() << "M " << M << " N " << N << " K " << K << ": y[" << m << ", " << n << "] = " << widen(got)
                            << ", the pair order gives " << widen(want);
          }
        EXPECT_EQ(wrong, 0) << "M " << M << " N " << N << " K " << K;
      }
  tl_simd_force_target(nullptr);
}

}  // namespace
