// f16 and bf16 in the harness: the dtype's rounding (konform/dtype.hpp)
// against the oracle's conversions and the kernels' own (impl/common), and
// the comparator judging in units of the output dtype's u.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include "impl/common/bf16.hpp"
#include "impl/common/f16.hpp"
#include "konform/compare.hpp"
#include "konform/dtype.hpp"
#include "konform/op.hpp"
#include "konform/rng.hpp"
#include "konform/values.hpp"
#include "konform/reference/bf16.hpp"
#include "konform/reference/f16.hpp"

namespace konform {
namespace {

float float_of(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

bool is_nan_bits(DType t, uint16_t h) {
  return t == DType::f16 ? (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0 : (h & 0x7f80u) == 0x7f80u && (h & 0x7fu) != 0;
}

TEST(HalfDType, EveryPatternReadsAndWritesBack) {
  for (DType t : {DType::f16, DType::bf16})
    for (uint32_t k = 0; k < 65536; ++k) {
      const auto h = static_cast<uint16_t>(k);
      const double v = half_value(t, h);
      if (is_nan_bits(t, h)) {
        EXPECT_TRUE(std::isnan(v)) << dtype_name(t) << " " << k;
        EXPECT_TRUE(is_nan_bits(t, half_bits(t, v))) << dtype_name(t) << " " << k;
        continue;
      }
      ASSERT_EQ(half_bits(t, v), h) << dtype_name(t) << " " << k << " = " << v;
      ASSERT_EQ(round_to(t, v), v) << dtype_name(t) << " " << k;
    }
}

// Every way to round a float to f16 or bf16 in the tree agrees: the
// harness's (from the double), the oracle's by bits, the kernels' by the FPU
// or a rounding bias. On the values half way between two neighbours (ties to
// even), and on random floats of every exponent.
TEST(HalfDType, RoundingAgreesWithTheOraclesAndTheKernels) {
  auto check = [](float f) {
    const uint16_t h = half_bits(DType::f16, f), b = half_bits(DType::bf16, f);
    if (std::isnan(f)) {
      EXPECT_TRUE(is_nan_bits(DType::f16, reference::f32_to_f16(f)));
      EXPECT_TRUE(is_nan_bits(DType::f16, impl::f16::F32ToF16(f)));
      EXPECT_TRUE(is_nan_bits(DType::bf16, reference::f32_to_bf16(f)));
      EXPECT_TRUE(is_nan_bits(DType::bf16, impl::bf16::F32ToBF16(f)));
      return;
    }
    ASSERT_EQ(reference::f32_to_f16(f), h) << f;
    ASSERT_EQ(impl::f16::F32ToF16(f), h) << f;
    ASSERT_EQ(reference::f32_to_bf16(f), b) << f;
    ASSERT_EQ(impl::bf16::F32ToBF16(f), b) << f;
    ASSERT_EQ(reference::f16_to_f32(h), half_value(DType::f16, h));
    ASSERT_EQ(impl::f16::F16ToF32(h), half_value(DType::f16, h));
    ASSERT_EQ(impl::bf16::BF16ToF32(b), half_value(DType::bf16, b));
  };
  for (DType t : {DType::f16, DType::bf16})
    for (uint32_t k = 0; k + 1 < 0x7c00u; ++k) {  // midpoints of neighbours, both signs
      const double lo = half_value(t, static_cast<uint16_t>(k)), hi = half_value(t, static_cast<uint16_t>(k + 1));
      if (!std::isfinite(hi)) break;
      const auto mid = static_cast<float>((lo + hi) / 2);  // exact: a float holds it
      ASSERT_EQ(double(mid), (lo + hi) / 2);
      check(mid);
      check(-mid);
      const uint16_t even = (k % 2 == 0) ? static_cast<uint16_t>(k) : static_cast<uint16_t>(k + 1);
      ASSERT_EQ(half_bits(t, mid), even) << dtype_name(t) << " tie between patterns " << k << " and " << k + 1;
    }
  std::mt19937 gen(7);
  for (int i = 0; i < 1 << 20; ++i) check(float_of(static_cast<uint32_t>(gen())));
  for (float f : {65504.0f, 65519.996f, 65520.0f, 0x1p-24f, 0x1p-25f, 0x1.000002p-25f, 0x1p-14f, 3.4028235e38f,
                  0x1.fefffep127f, 0x1.ff0000p127f, 1e-45f, INFINITY, -INFINITY, NAN})
    check(f);
}

// One output element of dtype t holding the value `got`, judged against y*.
ElementVerdict judged(DType t, double got, double want, double limit) {
  Tensor y = Tensor::zeros(t, {1});
  const uint16_t h = half_bits(t, got);
  std::memcpy(y.bytes.data(), &h, 2);
  Expected e{{want}, {std::fabs(want)}};
  return compare_tolerance(y, e, limit).worst;
}

TEST(HalfDType, JudgedInUnitsOfTheOutputDtype) {
  const double third = 1.0 / 3;  // f16: 0x3555 = 0.333251953125 is the nearest
  EXPECT_TRUE(judged(DType::f16, 0.333251953125, third, 1.0).ok);
  EXPECT_DOUBLE_EQ(judged(DType::f16, 0.333251953125, third, 1.0).error, (third - 0.333251953125) / (0x1p-11 * third));
  EXPECT_FALSE(judged(DType::f16, 0.333251953125 - 0x1p-12, third, 1.0).ok);  // one ulp off
  EXPECT_FALSE(judged(DType::bf16, 0.33203125 - 0x1p-9, third, 1.0).ok);
  EXPECT_TRUE(judged(DType::bf16, 0.333984375, third, 1.0).ok);  // bf16's nearest above
  // Past 65504 by half an ulp or more the value is an infinity in f16.
  EXPECT_TRUE(judged(DType::f16, INFINITY, 70000, 1.0).ok);
  EXPECT_FALSE(judged(DType::f16, 65504, 70000, 1.0).ok);
  EXPECT_TRUE(judged(DType::f16, 65504, 65519, 1.0).ok);
  // The subnormal floor: half of f16's spacing 2^-24.
  EXPECT_TRUE(judged(DType::f16, 0x1p-24, 0x1.8p-25, 1.0).ok);
  EXPECT_FALSE(judged(DType::f16, 0x1p-23, 0x1.8p-25, 1.0).ok);
}

}  // namespace
}  // namespace konform

// --exhaustive makes case 0 of the binary half ops the denser grid: every
// pattern of a against 512 values of b, 256 exponents with both signs, where
// the default grid has 32.
TEST(HalfGrid, ExhaustiveIsTheDenserGrid) {
  const konform::OpSpec* op = konform::find_op("Add_f16");
  ASSERT_NE(op, nullptr);
  for (const bool exhaustive : {false, true}) {
    konform::set_exhaustive_grids(exhaustive);
    konform::Rng rng(1);
    const konform::Case c = op->make_case(rng, 0);
    const int64_t columns = exhaustive ? 512 : 32;
    EXPECT_EQ(c.in("a").elements(), konform::kHalfPatterns);
    EXPECT_EQ(c.in("b").elements(), columns);
    std::set<uint32_t> exponents;
    for (int64_t k = 0; k < columns; ++k) exponents.insert((c.in("b").bits(k) >> 10) & 31);
    EXPECT_EQ(exponents.size(), exhaustive ? 32u : 17u);  // every f16 exponent (with -Inf's) under --exhaustive
  }
  konform::set_exhaustive_grids(false);
}
