// The oracle of the norm ops (reference/konform/reference/norm.hpp) tested like
// anything else (docs/design.md, "The oracle"):
//  - worked examples, in the double and the float instantiation;
//  - the double oracle against the same templates on a 50-digit float, on
//    random rows and on the ill-conditioned ones the sweep makes (rows far
//    from zero, |mean| / std up to 2^14; tiny variances under eps): within
//    64 units of 2^-53 of the harness's own scale for the element, i.e. the
//    double oracle is at least 2^-23 times finer than one f32 roundoff of it.
// A Boost.Multiprecision translation unit (~12 s to compile): the norm
// family's only one.
#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "konform/reference/norm.hpp"
#include "konform/rng.hpp"

namespace {

namespace ref = konform::reference;
using Big = boost::multiprecision::cpp_bin_float_50;
using konform::Rng;

// ---------------------------------------------------------------- worked examples

// The spec's numbers: [1, 2, 3, 4] has mean 2.5 and variance 1.25, so it
// normalizes to +-1.3416407864998738, +-0.44721359549995793.
template <typename T>
void layer_norm_example() {
  const float x[] = {1, 2, 3, 4}, g[] = {1, 2, 1, 0.5f}, b[] = {0, 1, 0, -1};
  T y[4];
  ref::layer_norm<T>(x, g, b, y, 1, 4, 0.0f);
  const double want[] = {-1.3416407864998738, 0.10557280900008414, 0.44721359549995793, -0.32917960675006309};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(double(y[i]), want[i], 4 * 0x1p-24) << i;
}
TEST(NormWorkedExample, LayerNormDouble) { layer_norm_example<double>(); }
TEST(NormWorkedExample, LayerNormFloat) { layer_norm_example<float>(); }

// Integers in, integers out: BatchNorm with running statistics, GroupNorm of
// two groups, InstanceNorm of two channels.
template <typename T>
void channel_examples() {
  const float x[] = {1, 3, 2, 6}, mean[] = {1, 2}, var[] = {4, 16}, g[] = {1, 2}, b[] = {0, 1};
  T y[4];
  ref::batch_norm<T>(x, mean, var, g, b, y, 1, 2, 2, 0.0f);
  const double bn[] = {0, 1, 1, 3};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(double(y[i]), bn[i]) << i;

  const float xg[] = {1, 3, 10, 14}, gg[] = {1, 1, 2, 2}, bg[] = {0, 0, 0, 1};
  ref::group_norm<T>(xg, gg, bg, y, 1, 4, 1, 2, 0.0f);
  const double gn[] = {-1, 1, -2, 3};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(double(y[i]), gn[i]) << i;

  ref::instance_norm<T>(xg, g, b, y, 1, 2, 2, 0.0f);
  const double in[] = {-1, 1, -1, 3};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(double(y[i]), in[i]) << i;
}
TEST(NormWorkedExample, ChannelsDouble) { channel_examples<double>(); }
TEST(NormWorkedExample, ChannelsFloat) { channel_examples<float>(); }

// AdaLN multiplies by (1 + scale); AdaLN-Zero's h is x + gate r.
template <typename T>
void adaptive_examples() {
  const float x[] = {1, 2, 3, 4}, scale[] = {0, 1, -1, 0.5f}, shift[] = {0, 0, 5, 1};
  T y[4];
  ref::ada_ln<T>(x, scale, shift, y, 1, 1, 4, 0.0f);
  const double ada[] = {-1.3416407864998738, -0.89442719099991586, 5, 3.0124611797498107};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(double(y[i]), ada[i], 8 * 0x1p-24) << i;

  const float r[] = {1, 1, 1, 1}, gate[] = {0, 1, 2, -1}, zero[] = {0, 0, 0, 0};
  float h[4];
  ref::ada_ln_zero<T>(x, r, gate, zero, zero, h, y, 1, 1, 4, 0.0f);
  const float hw[] = {1, 3, 5, 3};
  const double yw[] = {-1.4142135623730951, 0, 1.4142135623730951, 0};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(h[i], hw[i]) << i;
    EXPECT_NEAR(double(y[i]), yw[i], 4 * 0x1p-24) << i;
  }
}
TEST(NormWorkedExample, AdaptiveDouble) { adaptive_examples<double>(); }
TEST(NormWorkedExample, AdaptiveFloat) { adaptive_examples<float>(); }

// FusedSkipNorm of [1, 2] + [2, 2] is the rmsnorm example of [3, 4].
TEST(NormWorkedExample, FusedSkipNorm) {
  const float x[] = {1, 2}, skip[] = {2, 2}, g[] = {1, 0.5f};
  float sum[2];
  double y[2];
  ref::fused_skip_norm<double>(x, skip, g, sum, y, 1, 2, 0.0f);
  EXPECT_EQ(sum[0], 3.0f);
  EXPECT_EQ(sum[1], 4.0f);
  EXPECT_NEAR(y[0], 0.84852813742385702, 1e-15);
  EXPECT_NEAR(y[1], 0.56568542494923802, 1e-15);
}

// The gated residual's two roundings: Mul then Add, each rounded to float
// (with gate = r = 1 + 2^-12 the product 1 + 2^-11 + 2^-24 rounds, to even,
// to 1 + 2^-11, so x = -1 gives 2^-11), and one fused multiply-add, which
// keeps the 2^-24. The oracle accepts either bit for bit.
TEST(NormWorkedExample, GatedResidualRoundsTwiceOrOnce) {
  const float gate = 1.0f + 0x1p-12f, r = 1.0f + 0x1p-12f;
  EXPECT_EQ(ref::gated_residual(-1.0f, gate, r), 0x1p-11f);
  EXPECT_EQ(ref::gated_residual_fused(-1.0f, gate, r), 0x1p-11f + 0x1p-24f);
}

// ---------------------------------------------------------------- 50 digits

// Rows of the sweep's kinds: N(0, 1)-like, far from zero, of tiny spread
// (eps decides), sparse (one large value among zeros).
std::vector<float> make_row(Rng& rng, int kind, int64_t n) {
  std::vector<float> x(static_cast<size_t>(n));
  const double offset = kind == 1 ? std::ldexp(rng.chance(0.5) ? 1.0 : -1.0, static_cast<int>(rng.range(2, 12))) : 0;
  const double spread = kind == 1 ? std::ldexp(1.0, static_cast<int>(rng.range(-2, 2))) : kind == 2 ? 1e-5 : 1.0;
  for (auto& v : x) v = static_cast<float>(offset + spread * (rng.unit() + rng.unit() + rng.unit() - 1.5) * 2);
  if (kind == 3) {
    for (auto& v : x) v = 0.0f;
    x[static_cast<size_t>(rng.range(0, n - 1))] = 1000.0f;
  }
  return x;
}

// |y_double - y_50| in units of 2^-53 of the harness's scale for the element
// (harness/ops/norm_support.hpp: |g| (|x - mean| + mean|x| + FLT_MIN) inv + |b|).
double units(double y, const Big& exact, double scale) {
  const Big diff = abs(Big(y) - exact);
  return static_cast<double>(diff / ldexp(Big(std::max(scale, DBL_MIN)), -53));
}

// The scale of element xi of the range x[0, n) with gain g and bias b.
double scale(const float* x, int64_t n, float xi, float eps, float g, float b) {
  const auto m = ref::moments<double>(x, n);
  double mean_abs = 0;
  for (int64_t i = 0; i < n; ++i) mean_abs += std::fabs(double(x[i])) / double(n);
  return std::fabs(g) * (std::fabs(xi - m.mean) + mean_abs + FLT_MIN) * ref::inverse_std<double>(m.var, eps) +
         std::fabs(b);
}

TEST(NormFiftyDigits, LayerNormAndGroupNorm) {
  double worst = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Rng rng(seed);
    const int kind = static_cast<int>(seed % 4);
    const int64_t d = rng.range(2, 600);
    // eps = 0 only where every range has a spread (a sparse row's zeros have none)
    const float eps = rng.chance(0.5) || kind == 3 ? 1e-5f : 0.0f;
    const auto x = make_row(rng, kind, d);
    std::vector<float> g(static_cast<size_t>(d)), b(static_cast<size_t>(d));
    for (int64_t i = 0; i < d; ++i)
      g[i] = static_cast<float>(rng.uniform(-2, 2)), b[i] = static_cast<float>(rng.uniform(-1, 1));
    std::vector<double> yd(static_cast<size_t>(d));
    std::vector<Big> yb(static_cast<size_t>(d));
    ref::layer_norm<double>(x.data(), g.data(), b.data(), yd.data(), 1, d, eps);
    ref::layer_norm<Big>(x.data(), g.data(), b.data(), yb.data(), 1, d, eps);
    for (int64_t i = 0; i < d; ++i) {
      const double e = units(yd[i], yb[i], scale(x.data(), d, x[i], eps, g[i], b[i]));
      worst = std::max(worst, e);
      ASSERT_LE(e, 64) << "seed " << seed << " kind " << kind << " d " << d << " i " << i;
    }
    // GroupNorm of the same data as 2 groups of d/2 (its ranges are LayerNorm's).
    if (d % 2 == 0) {
      std::vector<float> gc = {g[0], g[1]}, bc = {b[0], b[1]};
      ref::group_norm<double>(x.data(), gc.data(), bc.data(), yd.data(), 1, 2, d / 2, 2, eps);
      ref::group_norm<Big>(x.data(), gc.data(), bc.data(), yb.data(), 1, 2, d / 2, 2, eps);
      for (int64_t i = 0; i < d; ++i) {
        const int64_t first = (i / (d / 2)) * (d / 2), j = i / (d / 2);
        const double s = scale(x.data() + first, d / 2, x[i], eps, gc[j], bc[j]);
        ASSERT_LE(units(yd[i], yb[i], s), 64) << "group seed " << seed << " i " << i;
      }
    }
  }
  RecordProperty("worst_units_of_2^-53", std::to_string(worst));
}

TEST(NormFiftyDigits, RmsNormAndBatchNorm) {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Rng rng(seed);
    const int64_t d = rng.range(1, 600);
    const float eps = rng.chance(0.5) ? 1e-6f : 1e-12f;
    const auto x = make_row(rng, static_cast<int>(seed % 4), d);
    std::vector<float> g(static_cast<size_t>(d));
    for (auto& v : g) v = static_cast<float>(rng.uniform(-2, 2));
    std::vector<double> yd(static_cast<size_t>(d));
    std::vector<Big> yb(static_cast<size_t>(d));
    ref::rms_norm<double>(x.data(), g.data(), yd.data(), 1, d, eps);
    ref::rms_norm<Big>(x.data(), g.data(), yb.data(), 1, d, eps);
    for (int64_t i = 0; i < d; ++i) ASSERT_LE(units(yd[i], yb[i], std::fabs(yd[i])), 64) << seed << " " << i;

    // BatchNorm: d samples of one channel, running mean near the data.
    const float mean[] = {x[0] + 0.5f}, var[] = {static_cast<float>(rng.uniform(0.01, 4))}, gc[] = {g[0]},
                bc[] = {0.25f};
    ref::batch_norm<double>(x.data(), mean, var, gc, bc, yd.data(), d, 1, 1, eps);
    ref::batch_norm<Big>(x.data(), mean, var, gc, bc, yb.data(), d, 1, 1, eps);
    const double inv = ref::inverse_std<double>(var[0], eps);
    for (int64_t i = 0; i < d; ++i) {
      const double s = std::fabs(gc[0]) * (std::fabs(x[i]) + std::fabs(mean[0]) + FLT_MIN) * inv + 0.25;
      ASSERT_LE(units(yd[i], yb[i], s), 64) << "batch " << seed << " " << i;
    }
  }
}

// A comparison that cannot fail is no check: the float instantiation is off
// by far more than 64 units of 2^-53 on rows far from zero.
TEST(NormFiftyDigits, TheComparisonCatchesFloatPrecision) {
  Rng rng(7);
  const int64_t d = 512;
  const auto x = make_row(rng, 1, d);
  std::vector<float> g(static_cast<size_t>(d), 1.0f), b(static_cast<size_t>(d), 0.0f);
  std::vector<float> yf(static_cast<size_t>(d));
  std::vector<Big> yb(static_cast<size_t>(d));
  ref::layer_norm<float>(x.data(), g.data(), b.data(), yf.data(), 1, d, 0.0f);
  ref::layer_norm<Big>(x.data(), g.data(), b.data(), yb.data(), 1, d, 0.0f);
  double worst = 0;
  for (int64_t i = 0; i < d; ++i) worst = std::max(worst, units(yf[i], yb[i], std::fabs(double(yb[i]))));
  EXPECT_GT(worst, 1e6);
}

}  // namespace
