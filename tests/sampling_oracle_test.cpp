// The oracle of the Sample op (reference/konform/reference/sampling.hpp)
// tested like anything else (docs/design.md, "The oracle"):
//  - the draw: PCG32 XSH-RR against the published pcg32-demo stream
//    (pcg32_srandom(42, 54)), and u's 24 bits;
//  - worked examples of every method, in the double and float instantiation;
//  - the double oracle against the same template on a 50-digit float, on the
//    sweep's kinds of rows (N(0, s), ties, an offset of 1e3, -Inf masks):
//    every cumulative boundary C_j / Z within 2^-40 (far below the harness's
//    2 * 2^-24 * s), and the same token for every u farther than 2^-40 from
//    a boundary.
#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

#include "konform/reference/sampling.hpp"
#include "konform/rng.hpp"

namespace {

namespace ref = konform::reference::sampling;
using Big = boost::multiprecision::cpp_bin_float_50;
using konform::Rng;

TEST(SamplingOracle, Pcg32MatchesThePublishedStream) {
  ref::Pcg32 g(42u, 54u);
  const uint32_t want[] = {0xa15c02b7u, 0x7b47f409u, 0xba1d3330u, 0x83d2f293u, 0xbfa4784bu, 0xcbed606eu};
  for (uint32_t w : want) EXPECT_EQ(g.next32(), w);
}

TEST(SamplingOracle, UIsTheTop24BitsOfTheRowsFirstOutput) {
  for (int64_t r = 0; r < 5; ++r) {
    ref::Pcg32 g(7u, static_cast<uint64_t>(r));
    EXPECT_EQ(ref::draw_u(7u, r), static_cast<double>(g.next32() >> 8) / 16777216.0);
  }
  EXPECT_NE(ref::draw_u(7u, 0), ref::draw_u(7u, 1));
  EXPECT_NE(ref::draw_u(7u, 0), ref::draw_u(8u, 0));
}

// logits (0, ln 3): p = (1/4, 3/4); u < 1/4 draws 0, u >= 1/4 draws 1.
template <typename T>
void two_tokens() {
  const float l[] = {0.0f, 1.0986122886681098f};
  EXPECT_EQ(ref::sample_row<T>(l, 2, ref::kTemperature, 1.0f, 0, 0, 0, T(0.2)), 0);
  EXPECT_EQ(ref::sample_row<T>(l, 2, ref::kTemperature, 1.0f, 0, 0, 0, T(0.3)), 1);
  // TopK k = 1 and TopP p = 0.5 (0.75 > p: only the first kept): always 1.
  EXPECT_EQ(ref::sample_row<T>(l, 2, ref::kTopK, 1.0f, 1, 0, 0, T(0.0)), 1);
  EXPECT_EQ(ref::sample_row<T>(l, 2, ref::kTopP, 1.0f, 0, 0.5f, 0, T(0.0)), 1);
  // MinP 0.3: 1/4 >= 0.3 * 3/4 = 0.225 keeps both; 0.4 keeps only token 1.
  EXPECT_EQ(ref::sample_row<T>(l, 2, ref::kMinP, 1.0f, 0, 0, 0.3f, T(0.2)), 0);
  EXPECT_EQ(ref::sample_row<T>(l, 2, ref::kMinP, 1.0f, 0, 0, 0.4f, T(0.2)), 1);
  // t = 2: weights (1, sqrt 3), p0 = 1 / (1 + sqrt 3) = 0.366.
  EXPECT_EQ(ref::sample_row<T>(l, 2, ref::kTemperature, 2.0f, 0, 0, 0, T(0.36)), 0);
  EXPECT_EQ(ref::sample_row<T>(l, 2, ref::kTemperature, 2.0f, 0, 0, 0, T(0.37)), 1);
}
TEST(SamplingOracle, TwoTokensDouble) { two_tokens<double>(); }
TEST(SamplingOracle, TwoTokensFloat) { two_tokens<float>(); }

// Four equal logits and p = 0.5: cumsums 0.25, 0.5, 0.75, 1: "<= p" keeps two.
TEST(SamplingOracle, TopPBoundaryIsInclusive) {
  const float l[] = {1, 1, 1, 1};
  EXPECT_EQ(ref::sample_row<double>(l, 4, ref::kTopP, 1.0f, 0, 0.5f, 0, 0.99), 1);
  EXPECT_EQ(ref::sample_row<float>(l, 4, ref::kTopP, 1.0f, 0, 0.5f, 0, 0.99f), 1);
}

// Ties sort by lower index; NaN last and never drawn; no number gives -1.
TEST(SamplingOracle, OrderNaNAndEmptyRows) {
  const float l[] = {NAN, 2, 5, 2, 5};
  const auto order = ref::sorted_order(l, 5);
  EXPECT_EQ(order, (std::vector<int64_t>{2, 4, 1, 3, 0}));
  EXPECT_EQ(ref::sample_row<double>(l, 5, ref::kTopK, 1.0f, 1, 0, 0, 0.9), 2);
  EXPECT_EQ(ref::sample_row<double>(l, 5, ref::kTemperature, 1e-3f, 0, 0, 0, 0.7), 4);  // two tied maxima
  const float none[] = {NAN, -INFINITY};
  EXPECT_EQ(ref::sample_row<double>(none, 2, ref::kTemperature, 1.0f, 0, 0, 0, 0.5), -1);
  const float inf[] = {1, INFINITY, 3, INFINITY};
  EXPECT_EQ(ref::sample_row<double>(inf, 4, ref::kTemperature, 1.0f, 0, 0, 0, 0.4), 1);
  EXPECT_EQ(ref::sample_row<double>(inf, 4, ref::kTemperature, 1.0f, 0, 0, 0, 0.6), 3);
}

std::vector<float> row(Rng& rng, int64_t n, int kind) {
  std::vector<float> x(static_cast<size_t>(n));
  for (float& e : x) {
    const double g = rng.uniform(-3.0, 3.0);
    switch (kind) {
      case 0: e = static_cast<float>(g); break;
      case 1: e = static_cast<float>(8 * g); break;
      case 2: e = static_cast<float>(std::round(g)); break;
      case 3: e = static_cast<float>(1000 + g); break;
      default: e = rng.chance(0.3) ? -INFINITY : static_cast<float>(g);
    }
  }
  return x;
}

TEST(SamplingOracle, DoubleAgreesWith50Digits) {
  Rng rng(20261201);
  for (int trial = 0; trial < 60; ++trial) {
    const int64_t n = rng.range(1, 300);
    const auto l = row(rng, n, trial % 5);
    const float t = static_cast<float>(rng.pick(std::vector<double>{0.1, 0.6, 1.0, 2.0, 7.0}));
    const auto wd = ref::weights<double>(l.data(), n, t);
    const auto wb = ref::weights<Big>(l.data(), n, t);
    for (int method : {ref::kTemperature, ref::kTopK, ref::kTopP, ref::kMinP}) {
      const int64_t k = rng.range(1, n);
      const float p = static_cast<float>(rng.uniform(0.05, 1.0)), min_p = static_cast<float>(rng.uniform(0.0, 0.5));
      const auto kept = ref::kept_positions<double>(l.data(), n, wd, method, k, p, min_p);
      // Boundaries C_j / Z in double and at 50 digits.
      double zd = 0;
      Big zb = 0;
      for (int64_t i : kept) zd += wd[static_cast<size_t>(i)], zb += wb[static_cast<size_t>(i)];
      double cd = 0;
      Big cb = 0;
      std::vector<double> bounds;
      for (int64_t i : kept) {
        cd += wd[static_cast<size_t>(i)], cb += wb[static_cast<size_t>(i)];
        if (zb > 0) {
          EXPECT_NEAR(cd / zd, static_cast<double>(Big(cb / zb)), 0x1p-40) << trial << " method " << method;
          bounds.push_back(static_cast<double>(Big(cb / zb)));
        }
      }
      for (int d = 0; d < 20; ++d) {
        const double u = static_cast<double>(rng.range(0, (1 << 24) - 1)) * 0x1p-24;
        bool near_boundary = false;
        for (double b : bounds) near_boundary = near_boundary || std::fabs(u - b) <= 0x1p-40;
        if (near_boundary) continue;
        EXPECT_EQ(ref::sample_row<double>(l.data(), n, method, t, k, p, min_p, u),
                  ref::sample_row<Big>(l.data(), n, method, t, k, p, min_p, Big(u)))
            << trial << " method " << method << " u " << u;
      }
    }
  }
}

}  // namespace
