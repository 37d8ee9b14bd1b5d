// The oracle of the spatial ops (reference/konform/reference/spatial.hpp)
// tested like anything else (docs/design.md, "The oracle"):
//  - the permutations against examples worked by hand from PyTorch's and
//    DiT's documented layouts, and the header's refusals;
//  - PatchEmbed: an integer example, then the double oracle against the same
//    template on a 50-digit float, within 2^-40 of the harness's scale
//    sum |x w| + |bias| (the double's pairwise sum is within ~log2(K) 2^-53);
//  - Interpolate: PyTorch's outputs for small cases worked by hand, then
//    bilinear and area against 50 digits within 2^-40 of their scales.
// A Boost.Multiprecision translation unit (~12 s to compile): the spatial
// family's only one.
#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

#include "konform/reference/spatial.hpp"
#include "konform/rng.hpp"

namespace {

namespace sp = konform::reference::spatial;
using Big = boost::multiprecision::cpp_bin_float_50;
using konform::Rng;

std::vector<float> iota(int n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = float(i);
  return v;
}

// ---------------------------------------------------------------- permutations

// torch.nn.PixelShuffle(2) on arange(8).view(1, 8, 1, 1): output channel 0
// takes channels 0..3 as [[0, 1], [2, 3]], channel 1 takes 4..7.
TEST(SpatialWorkedExample, PixelShuffleChannelOrder) {
  const auto x = iota(8);
  double y[8];
  sp::pixel_shuffle<double>(x.data(), y, {1, 8, 1, 1, 2, 0});
  const double want[] = {0, 1, 2, 3, 4, 5, 6, 7};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(y[i], want[i]) << i;
}

// arange(8).view(1, 4, 1, 2), r = 2: rows interleave the sub-pixel columns,
// y[0, 0] = [[x0[0], x1[0], x0[1], x1[1]], [x2[0], x3[0], x2[1], x3[1]]].
TEST(SpatialWorkedExample, PixelShuffleInterleavesColumns) {
  const auto x = iota(8);
  float y[8];
  sp::pixel_shuffle<float>(x.data(), y, {1, 4, 1, 2, 2, 0});
  const float want[] = {0, 2, 1, 3, 4, 6, 5, 7};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(y[i], want[i]) << i;
}

// PixelUnshuffle(2) of arange(16).view(1, 1, 4, 4): channel i 2 + j holds
// the pixels at (2 h + i, 2 w + j).
TEST(SpatialWorkedExample, PixelUnshuffleOf4x4) {
  const auto x = iota(16);
  double y[16];
  sp::pixel_unshuffle<double>(x.data(), y, {1, 1, 4, 4, 2, 0});
  const double want[] = {0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15};
  for (int i = 0; i < 16; ++i) EXPECT_EQ(y[i], want[i]) << i;
}

// Unpatchify with p = 2, C = 2, H = 2, W = 4: two tokens of 8 features
// ordered (i, j, c); token 1 is the right-hand patch.
TEST(SpatialWorkedExample, UnpatchifyDiTOrder) {
  const auto x = iota(16);
  double y[16];
  sp::unpatchify<double>(x.data(), y, {1, 2, 2, 4, 2, 0});
  // channel 0: features 0, 2 (row 0) and 4, 6 (row 1) of each token
  const double want[] = {0, 2, 8, 10, 4, 6, 12, 14, 1, 3, 9, 11, 5, 7, 13, 15};
  for (int i = 0; i < 16; ++i) EXPECT_EQ(y[i], want[i]) << i;
}

TEST(SpatialRefusals, InTheHeadersOrder) {
  using sp::Op;
  EXPECT_EQ(sp::check(Op::pixel_shuffle, {1, 6, 2, 2, 2, 0}).status, TL_ERR_SHAPE);
  EXPECT_EQ(sp::check(Op::pixel_shuffle, {1, 8, 3, 5, 2, 0}).status, TL_OK);
  EXPECT_EQ(sp::check(Op::pixel_shuffle, {1, 8, 3, 5, 0, 0}).status, TL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sp::check(Op::pixel_unshuffle, {1, 1, 3, 4, 2, 0}).status, TL_ERR_SHAPE);
  EXPECT_EQ(sp::check(Op::pixel_unshuffle, {-1, 1, 3, 4, 2, 0}).status, TL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sp::check(Op::patch_embed, {1, 3, 8, 8, int64_t{1} << 32, 4}).status, TL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sp::check(Op::patch_embed, {0, 3, 0, 0, 4, 4}).status, TL_OK);
  EXPECT_EQ(sp::check(Op::unpatchify, {1, 3, 8, 6, 4, 0}).status, TL_ERR_SHAPE);
  // No elements, but (H/p)(W/p) past an int64_t: y's 4 B (H/p) (W/p) D
  // overflows left to right for B = 1 (refused), not for B = 0.
  const int64_t big = int64_t{1} << 40;
  EXPECT_EQ(sp::check(Op::patch_embed, {1, 0, big, big, 1, 0}).status, TL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sp::check(Op::patch_embed, {0, 3, big, big, 1, 5}).status, TL_OK);
  // Valid and empty: the oracle walks nothing (C outermost), at once.
  EXPECT_EQ(sp::check(Op::unpatchify, {1, 0, big, big, 1, 0}).status, TL_OK);
  sp::unpatchify<double>(nullptr, nullptr, {1, 0, big, big, 1, 0});
}

// ---------------------------------------------------------------- PatchEmbed

// x [1, 1, 2, 4] = 0..7, p = 2, w [2, 1, 2, 2] = {1, 1, 1, 1; 1, -1, 0, 2},
// bias {10, 0}: token 0 sees 0 1 / 4 5, token 1 sees 2 3 / 6 7.
TEST(SpatialWorkedExample, PatchEmbedIntegers) {
  const auto x = iota(8);
  const float w[] = {1, 1, 1, 1, 1, -1, 0, 2}, bias[] = {10, 0};
  double y[4];
  sp::patch_embed<double>(x.data(), w, bias, y, {1, 1, 2, 4, 2, 2});
  const double want[] = {20, 9, 28, 13};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(y[i], want[i]) << i;
  float yf[4];
  sp::patch_embed<float>(x.data(), w, nullptr, yf, {1, 1, 2, 4, 2, 2});
  const float want_nobias[] = {10, 9, 18, 13};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(yf[i], want_nobias[i]) << i;
}

TEST(SpatialOracle50Digits, PatchEmbed) {
  Rng rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t p = rng.range(1, 8);
    const sp::Sizes s{rng.range(1, 2), rng.range(1, 6), p * rng.range(1, 4), p * rng.range(1, 4), p, rng.range(1, 9)};
    auto draw = [&](int64_t n) {
      std::vector<float> v(static_cast<size_t>(n));
      for (float& f : v) f = float(std::ldexp(rng.unit() * 2 - 1, int(rng.range(-20, 20))));
      return v;
    };
    const auto x = draw(s.B * s.C * s.H * s.W), w = draw(s.D * s.C * p * p), bias = draw(s.D);
    const int64_t M = s.B * (s.H / p) * (s.W / p), K = s.C * p * p;
    std::vector<double> y(static_cast<size_t>(M * s.D));
    std::vector<Big> big(y.size());
    sp::patch_embed<double>(x.data(), w.data(), bias.data(), y.data(), s);
    sp::patch_embed<Big>(x.data(), w.data(), bias.data(), big.data(), s);
    const auto rows = sp::patch_rows(x.data(), s);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t d = 0; d < s.D; ++d) {
        double scale = std::fabs(double(bias[d]));
        for (int64_t k = 0; k < K; ++k) scale += std::fabs(double(rows[m * K + k]) * double(w[d * K + k]));
        const double err = std::fabs(double(Big(y[m * s.D + d]) - big[m * s.D + d]));
        EXPECT_LE(err, 0x1p-40 * scale) << "trial " << trial << " m " << m << " d " << d;
      }
  }
}

// ---------------------------------------------------------------- Interpolate

// F.interpolate of [[1, 2], [3, 4]] to 4 x 4 (bilinear, half-pixel centres):
// rows and columns at 1, 1.25, 1.75, 2 of the step, e.g. row 1 is
// 1.5, 1.75, 2.25, 2.5.
TEST(SpatialWorkedExample, BilinearUpscale2x2) {
  const float x[] = {1, 2, 3, 4};
  double y[16];
  sp::interpolate<double>(x, y, {1, 1, 2, 2, 4, 4, TL_INTERP_BILINEAR, 0});
  const double want[] = {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4};
  for (int i = 0; i < 16; ++i) EXPECT_EQ(y[i], want[i]) << i;
  sp::interpolate<double>(x, y, {1, 1, 2, 2, 3, 3, TL_INTERP_BILINEAR, 1});  // align_corners: the corners kept
  const double corners[] = {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4};
  for (int i = 0; i < 9; ++i) EXPECT_EQ(y[i], corners[i]) << i;
}

// Nearest 4 -> 3 takes floor(0), floor(4/3), floor(8/3) = 0, 1, 2; area
// 4 -> 3 averages [0, 2), [1, 3), [2, 4).
TEST(SpatialWorkedExample, NearestAndAreaDownscale) {
  const float x[] = {1, 2, 4, 8};
  double y[3];
  sp::interpolate<double>(x, y, {1, 1, 1, 4, 1, 3, TL_INTERP_NEAREST, 0});
  EXPECT_EQ(y[0], 1);
  EXPECT_EQ(y[1], 2);
  EXPECT_EQ(y[2], 4);
  sp::interpolate<double>(x, y, {1, 1, 1, 4, 1, 3, TL_INTERP_AREA, 0});
  EXPECT_EQ(y[0], 1.5);
  EXPECT_EQ(y[1], 3);
  EXPECT_EQ(y[2], 6);
}

TEST(SpatialRefusals, Interpolate) {
  EXPECT_EQ(sp::check_interpolate({1, 1, 4, 4, 0, 4, TL_INTERP_AREA, 0}).status, TL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sp::check_interpolate({1, 1, 4, 4, 2, 4, 3, 0}).status, TL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sp::check_interpolate({1, 1, 4, 4, 2, 4, TL_INTERP_NEAREST, 1}).status, TL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sp::check_interpolate({1, 1, 4, 4, 2, 4, TL_INTERP_BILINEAR, 1}).status, TL_OK);
}

TEST(SpatialOracle50Digits, BilinearAndArea) {
  Rng rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    const int32_t mode = trial % 2 ? TL_INTERP_BILINEAR : TL_INTERP_AREA;
    const sp::Resize r{1,
                       2,
                       rng.range(1, 13),
                       rng.range(1, 13),
                       rng.range(1, 29),
                       rng.range(1, 29),
                       mode,
                       mode == TL_INTERP_BILINEAR && rng.chance(0.5) ? 1 : 0};
    std::vector<float> x(static_cast<size_t>(r.C * r.H * r.W));
    for (float& f : x) f = float(std::ldexp(rng.unit() * 2 - 1, int(rng.range(-20, 20))));
    std::vector<double> y(static_cast<size_t>(r.C * r.Ho * r.Wo));
    std::vector<Big> big(y.size());
    sp::interpolate<double>(x.data(), y.data(), r);
    sp::interpolate<Big>(x.data(), big.data(), r);
    double mag = 0;  // a bound of every scale: the largest |x| (bilinear's taps, area's mean)
    for (float v : x) mag = std::fmax(mag, std::fabs(double(v)));
    for (size_t k = 0; k < y.size(); ++k)
      EXPECT_LE(std::fabs(double(Big(y[k]) - big[k])), 0x1p-40 * mag) << "trial " << trial << " k " << k;
  }
}

}  // namespace
