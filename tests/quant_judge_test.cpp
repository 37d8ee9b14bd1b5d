// The Quantize oracle's tiny-block rule and the default judging rules of
// harness/ops/quant_judge.hpp, on hand-made blocks: what each rule admits
// and what it refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "konform/reference/f16.hpp"
#include "konform/reference/quant.hpp"
#include "ops/quant_judge.hpp"

namespace {

namespace rq = konform::reference::quant;
namespace qj = konform::ops::qjudge;
using rq::Format;

std::vector<uint8_t> encode(Format f, const std::vector<float>& x) {
  std::vector<uint8_t> b(static_cast<size_t>(rq::row_bytes(f, static_cast<int64_t>(x.size()))));
  rq::quantize(f, x.data(), b.data(), static_cast<int64_t>(x.size()));
  return b;
}

// Subnormal blocks: 1 / d and 15 / range overflow; every quant is the zero
// quant and every scale 0, never a converted infinity.
TEST(QuantTinyBlocks, ZeroQuantsAndZeroScales) {
  std::vector<float> x(256);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::ldexp(static_cast<float>(i % 7) - 3.0f, -140);
  const auto q4 = encode(Format::q4_0, std::vector<float>(x.begin(), x.begin() + 32));
  EXPECT_EQ(rq::load_u16(q4.data()) & 0x7fff, 0);
  for (int j = 0; j < 16; ++j) EXPECT_EQ(q4[2 + j], 0x88) << j;
  const auto q8 = encode(Format::q8_0, std::vector<float>(x.begin(), x.begin() + 32));
  for (int j = 0; j < 32; ++j) EXPECT_EQ(q8[2 + j], 0) << j;
  const auto qk = encode(Format::q4_k, x);
  for (int i = 0; i < 144; ++i) EXPECT_EQ(qk[i], 0) << i;  // d, dmin, 6-bit codes and levels all 0
}

// About 2^-125: 15 / range is finite for some sub-blocks, (14 + 0.1 step) /
// range or 63 / max overflows for others; the block still decodes to values
// within its f16 scales (here zeros) and the levels stay in 0..15.
TEST(QuantTinyBlocks, AroundTheOverflow) {
  std::vector<float> x(256);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::ldexp(static_cast<float>(i % 11) / 10.0f - 0.5f, -123 - static_cast<int>(i / 32) % 3);
  const auto qk = encode(Format::q4_k, x);
  float y[256];
  rq::dequantize_block(Format::q4_k, qk.data(), y);
  for (float v : y) EXPECT_EQ(v, 0.0f);
}

// (a): bytes that decode alike pass, zeros of either sign alike.
TEST(QuantJudge, DecodedAlikePasses) {
  std::vector<float> x(32, 0.0f);
  auto ref = encode(Format::q4_0, x);
  auto got = ref;
  ASSERT_EQ(rq::load_u16(ref.data()), 0x8000);     // d = 0 / -8 = -0, the nibbles 8: 0 * -0 = -0
  for (int j = 0; j < 16; ++j) got[2 + j] = 0x00;  // nibble 0 (ggml on x86): -8 * -0 = +0
  EXPECT_TRUE(qj::judge_block(Format::q4_0, x.data(), got.data(), ref.data()).ok);
}

// (b): at a boundary either neighbour passes; one step off elsewhere fails.
TEST(QuantJudge, Q8CodesAtABoundary) {
  std::vector<float> x(32, 0.0f);
  const float d = 3.0f * 0x1p-8f;  // not a power of two
  x[0] = 127 * d;
  x[1] = 10.5f * d;   // exactly on a boundary
  x[2] = 20.25f * d;  // a quarter step from one
  const auto ref = encode(Format::q8_0, x);
  auto got = ref;
  got[2 + 1] = static_cast<uint8_t>(static_cast<int8_t>(ref[2 + 1]) == 11 ? 10 : 11);
  EXPECT_TRUE(qj::judge_block(Format::q8_0, x.data(), got.data(), ref.data()).ok);
  got = ref;
  got[2 + 2] = static_cast<uint8_t>(static_cast<int8_t>(ref[2 + 2]) + 1);
  const qj::BlockVerdict v = qj::judge_block(Format::q8_0, x.data(), got.data(), ref.data());
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.value, 2);
}

// (b): Q4_0's scale x_max / -8 is exact: another f16 scale fails.
TEST(QuantJudge, Q4_0ScaleIsDetermined) {
  std::vector<float> x(32, 0.5f);
  x[3] = -6.0f;
  const auto ref = encode(Format::q4_0, x);
  auto got = ref;
  rq::store_u16(got.data(), static_cast<uint16_t>(rq::load_u16(ref.data()) + 1));
  EXPECT_FALSE(qj::judge_block(Format::q4_0, x.data(), got.data(), ref.data()).ok);
}

std::vector<float> q4_k_values() {
  std::vector<float> x(256);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::sin(static_cast<float>(i) * 0.37f) * (1.0f + static_cast<float>(i / 32));
  return x;
}

// (c): a level moved off the nearest one fails; a grid whose error passes
// three times the oracle's fails.
TEST(QuantJudge, Q4KNearestLevelAndError) {
  const auto x = q4_k_values();
  const auto ref = encode(Format::q4_k, x);
  auto got = ref;
  got[16 + 5] = static_cast<uint8_t>((got[16 + 5] & 0xf0) | ((got[16 + 5] & 15) ^ 8));  // value 5, level far off
  EXPECT_FALSE(qj::judge_block(Format::q4_k, x.data(), got.data(), ref.data()).ok);
  // d quartered: sub-block steps a quarter as wide, the levels refitted; the
  // grid no longer reaches the values.
  got = ref;
  rq::store_u16(got.data(),
                konform::reference::f32_to_f16(konform::reference::f16_to_f32(rq::load_u16(ref.data())) / 4));
  for (int i = 0; i < 256; ++i) {
    float dj, mj;
    rq::q4_k_sub_block(got.data(), i / 32, &dj, &mj);
    const int l = dj == 0 ? 0 : static_cast<int>(std::fmin(15, std::fmax(0, std::nearbyint((x[i] + mj) / dj))));
    uint8_t& byte = got[16 + 32 * (i / 64) + i % 32];
    byte = static_cast<uint8_t>((i % 64) < 32 ? (byte & 0xf0) | l : (byte & 0x0f) | (l << 4));
  }
  const qj::BlockVerdict v = qj::judge_block(Format::q4_k, x.data(), got.data(), ref.data());
  EXPECT_FALSE(v.ok);
  EXPECT_GT(v.error, qj::kQ4KErrorFactor);
  // The oracle's own block passes with ratio 0 (it decodes alike).
  EXPECT_TRUE(qj::judge_block(Format::q4_k, x.data(), ref.data(), ref.data()).ok);
}

}  // namespace
