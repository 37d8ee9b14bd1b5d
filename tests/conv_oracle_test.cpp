// The oracle of the conv family (reference/konform/reference/conv.hpp) tested
// like anything else (docs/design.md, "The oracle"):
//  - worked examples by hand, in the double and the float instantiation: a
//    Conv2d, a ConvTranspose2d upsampling, CausalConv1d's replicated start,
//    avg Pool counting pads and max Pool's -inf pads and NaN;
//  - the double oracle against the same templates on a 50-digit float, on
//    random small cases of every variant (strides, dilations, paddings past
//    the kernel, groups): within 8 units of 2^-53 of the harness's scale.
// A Boost.Multiprecision translation unit (~12 s to compile): the family's only one.
#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "konform/reference/conv.hpp"
#include "konform/rng.hpp"

namespace {

namespace ref = konform::reference;
using Big = boost::multiprecision::cpp_bin_float_50;
using konform::Rng;
using ref::ConvEdge;
using ref::ConvShape;

ConvShape shape2d(int64_t C_in, int64_t C_out, int64_t groups, int64_t H, int64_t W, int64_t k, int64_t s, int64_t p,
                  int64_t d) {
  ConvShape sh;
  sh.nd = 2, sh.B = 1, sh.C_in = C_in, sh.C_out = C_out, sh.groups = groups;
  const int64_t in[2] = {H, W};
  for (int a = 0; a < 2; ++a) {
    sh.in[a] = in[a], sh.kernel[a] = k, sh.stride[a] = s, sh.pad[a] = p, sh.dil[a] = d;
    sh.out[a] = ref::conv_out_extent(in[a], k, s, p, d);
  }
  return sh;
}

// ---------------------------------------------------------------- worked examples

// x = 1..9 as 3x3, w = [[1, 0], [0, -1]]: each output is x[i, j] - x[i+1, j+1] = -4, plus bias 0.5.
template <typename T>
void conv2d_example() {
  const float x[] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[] = {1, 0, 0, -1}, bias[] = {0.5f};
  const ConvShape s = shape2d(1, 1, 1, 3, 3, 2, 1, 0, 1);
  ASSERT_EQ(s.out_elems(), 4);
  T y[4];
  ref::conv<T>(x, w, bias, y, s);
  for (T v : y) EXPECT_EQ(double(v), -3.5);
  // Padding 1, stride 2: output (i, j) reads x[2i - 1 + ki, 2j - 1 + kj], so
  // o(0,0) = -x[0,0], o(0,1) = -x[0,2], o(1,0) = -x[2,0] (the other taps
  // are pads) and o(1,1) = x[1,1] - x[2,2].
  const ConvShape p = shape2d(1, 1, 1, 3, 3, 2, 2, 1, 1);
  ref::conv<T>(x, w, nullptr, y, p);
  const double want[] = {-1, -3, -7, -4};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(double(y[i]), want[i]) << i;
}
TEST(ConvWorkedExample, Conv2dDouble) { conv2d_example<double>(); }
TEST(ConvWorkedExample, Conv2dFloat) { conv2d_example<float>(); }

// Stride 2 with a 2x2 kernel of ones: each input becomes a 2x2 block.
template <typename T>
void transpose_example() {
  const float x[] = {1, 2, 3, 4}, w[] = {1, 1, 1, 1};
  ConvShape s = shape2d(1, 1, 1, 2, 2, 2, 2, 0, 1);
  s.edge = ConvEdge::transpose, s.weight_in_major = true;
  s.out[0] = s.out[1] = 4;
  T y[16];
  ref::conv<T>(x, w, nullptr, y, s);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(double(y[i * 4 + j]), x[(i / 2) * 2 + j / 2]) << i << "," << j;
}
TEST(ConvWorkedExample, TransposeDouble) { transpose_example<double>(); }
TEST(ConvWorkedExample, TransposeFloat) { transpose_example<float>(); }

// x = [1, 2, 3, 4], w = [1, 1, 1]: two copies of x[0] on the left, so
// y = [1+1+1, 1+1+2, 1+2+3, 2+3+4].
template <typename T>
void causal_example() {
  const float x[] = {1, 2, 3, 4}, w[] = {1, 1, 1};
  ConvShape s;
  s.nd = 1, s.B = 1, s.edge = ConvEdge::replicate_left;
  s.in[0] = 4, s.kernel[0] = 3, s.pad[0] = 2, s.out[0] = 4;
  T y[4];
  ref::conv<T>(x, w, nullptr, y, s);
  const double want[] = {3, 4, 6, 9};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(double(y[i]), want[i]) << i;
}
TEST(ConvWorkedExample, CausalDouble) { causal_example<double>(); }
TEST(ConvWorkedExample, CausalFloat) { causal_example<float>(); }

// A 2x2 of ones, 2x2 window, stride 1, padding 1: avg counts the pads
// (corners 1/4, edges 2/4, centre 1); max sees -inf only where the window
// is all pad, never here; a NaN wins the windows it is in.
template <typename T>
void pool_example() {
  const float ones[] = {1, 1, 1, 1};
  ConvShape s = shape2d(1, 1, 1, 2, 2, 2, 1, 1, 1);
  T y[9];
  ref::pool<T>(ones, y, s, ref::PoolMode::avg);
  const double want[] = {0.25, 0.5, 0.25, 0.5, 1, 0.5, 0.25, 0.5, 0.25};
  for (int i = 0; i < 9; ++i) EXPECT_EQ(double(y[i]), want[i]) << i;
  const float x[] = {-1, std::numeric_limits<float>::quiet_NaN(), -3, -4};
  ref::pool<T>(x, y, s, ref::PoolMode::max);
  EXPECT_EQ(double(y[0]), -1);
  EXPECT_TRUE(std::isnan(double(y[1])));
  EXPECT_EQ(double(y[6]), -3);
  // Padding 2 with a 2x2 window: the first window is wholly pad.
  ConvShape far = shape2d(1, 1, 1, 2, 2, 2, 1, 2, 1);
  std::vector<T> z(static_cast<size_t>(far.out_elems()));
  ref::pool<T>(ones, z.data(), far, ref::PoolMode::max);
  EXPECT_EQ(double(z[0]), -std::numeric_limits<double>::infinity());
}
TEST(ConvWorkedExample, PoolDouble) { pool_example<double>(); }
TEST(ConvWorkedExample, PoolFloat) { pool_example<float>(); }

// ---------------------------------------------------------------- 50 digits

ConvShape random_shape(Rng& rng, int variant) {
  ConvShape s;
  s.nd = variant == 2 ? 1 : variant == 3 ? 3 : 2;
  s.edge = variant == 1 ? ConvEdge::transpose : variant == 2 ? ConvEdge::replicate_left : ConvEdge::zero;
  s.weight_in_major = variant == 1;
  s.B = rng.range(1, 2);
  s.groups = rng.range(1, 3);
  s.C_in = s.groups * rng.range(1, 3), s.C_out = s.groups * rng.range(1, 3);
  for (int a = 0; a < s.nd; ++a) {
    s.in[a] = rng.range(1, 7), s.kernel[a] = rng.range(1, 3), s.stride[a] = rng.range(1, 3);
    s.dil[a] = rng.range(1, 2), s.pad[a] = rng.range(0, 4);
    if (s.edge == ConvEdge::transpose) {
      s.out[a] = (s.in[a] - 1) * s.stride[a] - 2 * s.pad[a] + s.dil[a] * (s.kernel[a] - 1) + 1;
      if (s.out[a] < 1) s.pad[a] = 0, s.out[a] = (s.in[a] - 1) * s.stride[a] + s.dil[a] * (s.kernel[a] - 1) + 1;
    } else if (s.edge == ConvEdge::replicate_left) {
      s.pad[a] = s.dil[a] * (s.kernel[a] - 1);
      s.out[a] = (s.in[a] - 1) / s.stride[a] + 1;
    } else {
      s.in[a] = std::max(s.in[a], s.dil[a] * (s.kernel[a] - 1) + 1);
      s.out[a] = ref::conv_out_extent(s.in[a], s.kernel[a], s.stride[a], s.pad[a], s.dil[a]);
    }
  }
  return s;
}

std::vector<float> values(Rng& rng, int64_t n, bool wide) {
  std::vector<float> v(static_cast<size_t>(n));
  for (float& e : v) {
    const double m = wide ? std::ldexp(rng.uniform(1, 2), static_cast<int>(rng.range(-30, 30))) : rng.uniform(-1, 1);
    e = static_cast<float>(rng.chance(0.5) ? -m : m);
  }
  return v;
}

TEST(ConvFiftyDigits, DoubleMatchesBigOnEveryVariant) {
  Rng rng(20261203);
  for (int trial = 0; trial < 200; ++trial) {
    const int variant = trial % 4;
    const ConvShape s = random_shape(rng, variant);
    const bool wide = rng.chance(0.5);
    const int64_t wn = s.C_out * s.cin_g() * s.taps();
    const auto x = values(rng, s.B * s.C_in * s.in_elems(), wide), w = values(rng, wn, wide),
               bias = values(rng, s.C_out, wide);
    const size_t n = static_cast<size_t>(s.B * s.C_out * s.out_elems());
    std::vector<double> y(n), scale(n);
    std::vector<Big> big(n);
    ref::conv<double>(x.data(), w.data(), bias.data(), y.data(), s, scale.data());
    ref::conv<Big>(x.data(), w.data(), bias.data(), big.data(), s);
    for (size_t i = 0; i < n; ++i)
      ASSERT_LE(std::fabs(double(Big(y[i]) - big[i])), 8 * 0x1p-53 * std::fmax(scale[i], 1e-300))
          << "trial " << trial << " element " << i;
  }
}

TEST(ConvFiftyDigits, AvgPoolMatchesBig) {
  Rng rng(7);
  for (int trial = 0; trial < 100; ++trial) {
    ConvShape s = random_shape(rng, 0);
    s.C_out = s.groups = s.C_in;
    for (int a = 0; a < 2; ++a) {
      s.dil[a] = 1;
      s.out[a] = ref::conv_out_extent(s.in[a], s.kernel[a], s.stride[a], s.pad[a], 1);
    }
    const auto x = values(rng, s.B * s.C_in * s.in_elems(), rng.chance(0.5));
    const size_t n = static_cast<size_t>(s.B * s.C_in * s.out_elems());
    std::vector<double> y(n), scale(n);
    std::vector<Big> big(n);
    ref::pool<double>(x.data(), y.data(), s, ref::PoolMode::avg, scale.data());
    ref::pool<Big>(x.data(), big.data(), s, ref::PoolMode::avg);
    for (size_t i = 0; i < n; ++i)
      ASSERT_LE(std::fabs(double(Big(y[i]) - big[i])), 8 * 0x1p-53 * std::fmax(scale[i], 1e-300)) << trial;
  }
}

}  // namespace
