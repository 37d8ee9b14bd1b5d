// libtl_kernels' f32 -> bf16 rounding with vcvtneps2bf16 (half-inl.h's
// BF16Cvt, AVX3 target, where bf16_cvt.cpp's HasBf16Cvt() says so) against
// BF16::NarrowVec's integer rounding (the AVX2 target's cast) and the
// rounding written out here, on all 2^32 f32 bit patterns, through
// tl_cast_f32_to_bf16 (half::Narrow, the conversion of every bf16 loop that
// takes BF16Cvt). In order, 16 patterns a vector: every pattern that is
// neither subnormal nor a zero goes through the instruction; the subnormals,
// which it would read as zero, and the zeros beside them, through the
// guard's integer rounding. A few vectors after that put zeros and
// subnormals beside normal values.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "impl/simd/bf16_cvt.h"
#include "tinyllm/activations.h"
#include "tinyllm/dispatch.h"
#include "tinyllm/tensor.h"

namespace {

uint16_t to_bf16(uint32_t u) {  // to nearest even; a NaN's top half, quiet
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

bool has_target(const char* name) {
  for (int t = 0; t < tl_simd_target_count(); ++t)
    if (std::string(tl_simd_target_name(t)) == name) return true;
  return false;
}

// Casts x's patterns on AVX3 and on AVX2; counts the outputs that differ
// from each other or from to_bf16 (a loop the compiler vectorizes), and
// reports the first few.
int64_t count_wrong(const std::vector<float>& x, std::vector<uint16_t>& got, std::vector<uint16_t>& want) {
  const auto n = static_cast<int64_t>(x.size());
  tl_simd_force_target("AVX3");
  tl_cast_f32_to_bf16(x.data(), got.data(), n);
  tl_simd_force_target("AVX2");
  tl_cast_f32_to_bf16(x.data(), want.data(), n);
  auto bits = [&x](size_t i) {
    uint32_t u;
    std::memcpy(&u, &x[i], 4);
    return u;
  };
  int64_t wrong = 0;
  for (size_t i = 0; i < x.size(); ++i) wrong += (got[i] != want[i]) | (got[i] != to_bf16(bits(i)));
  for (size_t i = 0, shown = 0; wrong != 0 && i < x.size() && shown < 3; ++i)
    if (got[i] != want[i] || got[i] != to_bf16(bits(i))) {
      ADD_FAILURE() << std::hex << "f32 0x" << bits(i) << ": AVX3 (vcvtneps2bf16) 0x" << got[i] << ", AVX2 (integer) 0x"
                    << want[i] << ", to nearest even 0x" << to_bf16(bits(i));
      ++shown;
    }
  return wrong;
}

TEST(Bf16Cvt, EveryF32RoundsAsTheIntegerRounding) {
  if (!__builtin_cpu_supports("avx512bf16"))
    GTEST_SKIP() << "not run on this CPU: it lacks AVX512_BF16, so vcvtneps2bf16 (half-inl.h's BF16Cvt) never runs";
  if (!has_target("AVX3") || !has_target("AVX2")) GTEST_SKIP() << "not run on this CPU: no AVX3 or AVX2 target";
  ASSERT_TRUE(konform::simd::HasBf16Cvt())
      << "this CPU has AVX512_BF16, but bf16_cvt.cpp's probe found vcvtneps2bf16 rounding otherwise";
  constexpr uint64_t kChunk = uint64_t{1} << 22;
  std::vector<float> x(kChunk);
  std::vector<uint16_t> got(kChunk), want(kChunk);
  int64_t wrong = 0;
  for (uint64_t c = 0; c < (uint64_t{1} << 32); c += kChunk) {
    for (uint64_t i = 0; i < kChunk; ++i) {
      const auto u = static_cast<uint32_t>(c + i);
      std::memcpy(&x[i], &u, 4);
    }
    wrong += count_wrong(x, got, want);
  }
  // Zeros and subnormals beside normal values, NaNs and infinities: the
  // instruction on the zeros of the first two vectors, the guard on the others.
  const std::vector<uint32_t> bits = {
      0x00000000u, 0x80000000u, 0x3f808000u, 0x7fc00000u, 0x7f800001u, 0xff800000u, 0x00800000u, 0x3f818000u,
      0x80000000u, 0x00000000u, 0x7f7fffffu, 0xff7f8000u, 0x00ffffffu, 0x4b800000u, 0x80800000u, 0x00000000u,
      0x80000000u, 0x00000000u, 0x3f808000u, 0x7fc00000u, 0x7f800001u, 0xff800000u, 0x00800000u, 0x3f818000u,
      0x80000000u, 0x00000000u, 0x7f7fffffu, 0xff7f8000u, 0x00ffffffu, 0x4b800000u, 0x80800000u, 0x00000000u,
      0x00000001u, 0x3f808000u, 0x7fc00000u, 0x807fffffu, 0x00400000u, 0x3f818000u, 0x7f7fffffu, 0x00000000u,
      0x007f8000u, 0x80008000u, 0x3f800000u, 0xff800001u, 0x00018000u, 0x3f808001u, 0x80000001u, 0x7f80ffffu};
  x.resize(bits.size());
  std::memcpy(x.data(), bits.data(), bits.size() * 4);
  wrong += count_wrong(x, got, want);
  tl_simd_force_target(nullptr);
  EXPECT_EQ(wrong, 0);
}

// The bf16 loops' 64-byte steps (BF16Cvt::WidenPair, NarrowPair: 32 values
// as even and odd words, one vcvtne2ps2bf16, a vpermw; a subnormal among
// them rounded with integers) against the AVX2 target's 16-value integer
// rounding: Mul, Div and Add by scalars, by a tensor of the same shape and
// by a row, and LeakyRelu, over all 65536 patterns of a, at a length that leaves a
// partial step. IEEE operations, so both targets' f32 results are the same
// and only the rounding paths differ; the scalars make ties, subnormal
// products and overflow.
TEST(Bf16Cvt, SixtyFourByteStepsRoundAsTheIntegerRounding) {
  if (!__builtin_cpu_supports("avx512bf16"))
    GTEST_SKIP() << "not run on this CPU: it lacks AVX512_BF16, so the 64-byte bf16 steps never run";
  if (!has_target("AVX3") || !has_target("AVX2")) GTEST_SKIP() << "not run on this CPU: no AVX3 or AVX2 target";
  constexpr int64_t n = 65536 + 40;
  std::vector<uint16_t> a(n), b(n), got(n), want(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = static_cast<uint16_t>(i);
    b[i] = static_cast<uint16_t>((static_cast<uint32_t>(i) * 2654435761u) >> 13);
  }
  using Binary = tl_status (*)(const uint16_t*, const int64_t*, int64_t, const uint16_t*, const int64_t*, int64_t,
                               uint16_t*, const int64_t*, int64_t);
  const int64_t shape[1] = {n}, one[1] = {1};
  int64_t wrong = 0;
  auto compare = [&](const std::string& what, const auto& run) {
    tl_simd_force_target("AVX3");
    run(got.data());
    tl_simd_force_target("AVX2");
    run(want.data());
    for (int64_t i = 0, shown = 0; i < n; ++i)
      if (got[i] != want[i]) {
        ++wrong;
        if (shown++ < 3)
          ADD_FAILURE() << std::hex << what << ", a 0x" << a[i] << ": AVX3 (64-byte steps) 0x" << got[i]
                        << ", AVX2 (integer) 0x" << want[i];
      }
  };
  const std::pair<const char*, Binary> ops[] = {
      {"mul", tl_mul_broadcast_bf16}, {"div", tl_div_broadcast_bf16}, {"add", tl_add_broadcast_bf16}};
  // 1 + 2^-8, 3, 2^-100, 2^100, -1.5, 2^-126 (the least normal), 1.5 * 2^-120
  const uint16_t scalars[] = {0x3f81, 0x4040, 0x0d80, 0x7180, 0xbfc0, 0x0080, 0x03c0};
  for (const auto& [name, op] : ops) {
    for (uint16_t s : scalars)
      compare(std::string(name) + " by a scalar",
              [&](uint16_t* y) { op(a.data(), shape, 1, &s, one, 1, y, shape, 1); });
    compare(std::string(name) + " by a tensor",
            [&](uint16_t* y) { op(a.data(), shape, 1, b.data(), shape, 1, y, shape, 1); });
    // By a bias row (widened once for all the rows), 2049 columns: a partial step.
    const int64_t rows_shape[2] = {32, 2049}, row_shape[1] = {2049};
    compare(std::string(name) + " by a row",
            [&](uint16_t* y) { op(a.data(), rows_shape, 2, b.data(), row_shape, 1, y, rows_shape, 2); });
  }
  for (float alpha : {0.01f, 0.75f, 3.0f})
    compare("leaky_relu " + std::to_string(alpha), [&](uint16_t* y) { tl_leaky_relu_bf16(a.data(), y, n, alpha); });
  tl_simd_force_target(nullptr);
  EXPECT_EQ(wrong, 0);
}

}  // namespace
