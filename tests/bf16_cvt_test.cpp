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
#include <vector>

#include "impl/simd/bf16_cvt.h"
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

}  // namespace
