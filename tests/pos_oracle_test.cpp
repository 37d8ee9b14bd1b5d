// The oracle of the position ops (reference/konform/reference/pos.hpp) tested
// like anything else (docs/design.md, "The oracle"):
//  - worked examples with digits from mpmath, double and float instantiations;
//  - the double oracle against the same templates on a 50-digit float, at
//    angles up to 2^24: within the 2^-28 = 0.0625 u (of 2^-24) the tolerance
//    table grants a double angle's own rounding (the frequency's half-ulp
//    times the position, plus the product's half-ulp);
//  - T5's buckets against big-integer arithmetic (Boost cpp_int), exactly.
// A second translation unit with Boost.Multiprecision (~12 s to compile):
// the position family's only one.
#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "konform/reference/pos.hpp"
#include "konform/rng.hpp"

namespace {

namespace ref = konform::reference;
using Big = boost::multiprecision::cpp_bin_float_50;
using BigInt = boost::multiprecision::cpp_int;
using konform::Rng;
constexpr double kU = 0x1p-24;

// ---------------------------------------------------------------- worked examples

template <typename T>
void cache_example() {
  T cache[8];
  ref::rope_cache<T>(cache, 2, 4, 10000.0f);
  const double want[] = {
      1, 1, 0, 0, 0.54030230586813972, 0.99995000041666528, 0.84147098480789651, 0.0099998333341666665};
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(double(cache[i]), want[i], 0.5 * kU) << i;
}
TEST(PosWorkedExample, RopeCacheDouble) { cache_example<double>(); }
TEST(PosWorkedExample, RopeCacheFloat) { cache_example<float>(); }

// MultiAxisRope of x = [1..6], widths [2, 4], positions [3, 2], bases
// [10000, 100]: mpmath at 30 digits.
TEST(PosWorkedExample, MultiAxisRope) {
  const float x[] = {1, 2, 3, 4, 5, 6};
  const int32_t pos[] = {3, 2};
  const int64_t dims[] = {2, 4};
  const float bases[] = {10000.0f, 100.0f};
  double y[6];
  ref::multi_axis_rope<double>(x, y, pos, 1, 1, 6, 2, dims, bases, 0);
  const double neox[] = {-1.2722325127201799, -1.8388649851410237, -5.7949276437698356,
                         2.7282503265945992,  0.64715809774133315, 6.6750767902276946};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(y[i], neox[i], 1e-15 * 8) << i;
}

// The spec's interleaved form at t = 1, dim = 4.
TEST(PosWorkedExample, SinusoidalEmbed) {
  const float t[] = {1.0f};
  double y[4];
  ref::sinusoidal_embed<double>(t, y, 1, 4, 10000.0f, 0.0f, 0);
  const double want[] = {0.84147098480789651, 0.54030230586813972, 0.0099998333341666665, 0.99995000041666528};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(y[i], want[i], 1e-16) << i;
}

// T5's defaults, from HF's _relative_position_bucket.
TEST(PosWorkedExample, T5Buckets) {
  const int64_t r[] = {0, 1, -1, 7, -7, 8, -8, 11, -11, 12, -12, 16, -16, 32, -32, 64, -64, 128, -128, -1000};
  const int64_t bidir[] = {0, 17, 1, 23, 7, 24, 8, 24, 8, 25, 9, 26, 10, 28, 12, 30, 14, 31, 15, 15};
  const int64_t causal[] = {0, 0, 1, 0, 7, 0, 8, 0, 11, 0, 12, 0, 16, 0, 21, 0, 26, 0, 31, 31};
  for (size_t i = 0; i < std::size(r); ++i) {
    EXPECT_EQ(ref::t5_bucket(r[i], 32, 128, true), bidir[i]) << r[i];
    EXPECT_EQ(ref::t5_bucket(r[i], 32, 128, false), causal[i]) << r[i];
  }
}

// ---------------------------------------------------------------- 50 digits

// cos and sin of p * base^(-2j/d) through rope_direct on x = (1, 0) pairs:
// the double oracle against 50 digits, absolute, in units of 2^-24.
double worst_trig_error(float base, int64_t rot, int32_t p) {
  std::vector<float> x(static_cast<size_t>(rot), 0.0f);
  for (int64_t j = 0; j < rot / 2; ++j) x[j] = 1.0f;  // NeoX: (1, 0) in every pair
  std::vector<double> yd(x.size());
  std::vector<Big> yb(x.size());
  ref::rope_direct<double>(x.data(), yd.data(), &p, 1, 1, rot, rot, base, 0);
  ref::rope_direct<Big>(x.data(), yb.data(), &p, 1, 1, rot, rot, base, 0);
  double worst = 0;
  for (size_t k = 0; k < x.size(); ++k) worst = std::max(worst, static_cast<double>(abs(Big(yd[k]) - yb[k])) / kU);
  return worst;
}

TEST(PosFiftyDigits, RopeAnglesUpTo2To24) {
  Rng rng(7);
  const float bases[] = {10000.0f, 500000.0f, 1e6f, 100.0f, 2.5f, 1e9f, 1e10f, 1.0f};
  double worst = 0;
  for (int i = 0; i < 300; ++i) {
    const int64_t rot = 2 * rng.range(1, 64);
    const int32_t p = static_cast<int32_t>(rng.chance(0.5) ? rng.range(0, 1 << 24) : rng.range(0, 4096));
    worst = std::max(worst, worst_trig_error(rng.pick(bases), rot, p));
  }
  std::printf("rope cos/sin: the double oracle is within %.4f u (2^-24) of 50 digits\n", worst);
  EXPECT_LE(worst, 0.0625);
}

// Small bases (< 1, extreme): frequencies above 1, angles kept <= 2^24.
TEST(PosFiftyDigits, RopeSmallBases) {
  double worst = 0;
  for (float base : {0.5f, 0.9f}) {
    const int64_t rot = 16;
    const double fmax = std::pow(double(base), -double(rot - 2) / double(rot));
    worst = std::max(worst, worst_trig_error(base, rot, static_cast<int32_t>(16777216.0 / fmax)));
  }
  EXPECT_LE(worst, 0.0625);
}

TEST(PosFiftyDigits, MultiAxisRope) {
  Rng rng(11);
  double worst = 0;
  for (int i = 0; i < 200; ++i) {
    const int64_t n_axes = rng.range(1, 4);
    std::vector<int64_t> dims(static_cast<size_t>(n_axes));
    std::vector<float> bases(static_cast<size_t>(n_axes));
    int64_t D = 0;
    for (int64_t a = 0; a < n_axes; ++a) {
      dims[a] = 2 * rng.range(1, 24);
      const float options[] = {10000.0f, 100.0f, 256.0f, 1e6f};
      bases[a] = rng.pick(options);
      D += dims[a];
    }
    std::vector<int32_t> pos(static_cast<size_t>(n_axes));
    for (auto& p : pos) p = static_cast<int32_t>(rng.range(-(1 << 24), 1 << 24));
    std::vector<float> x(static_cast<size_t>(D));
    for (auto& v : x) v = static_cast<float>(rng.uniform(-4, 4));
    std::vector<double> yd(x.size());
    std::vector<Big> yb(x.size());
    ref::multi_axis_rope<double>(x.data(), yd.data(), pos.data(), 1, 1, D, n_axes, dims.data(), bases.data(), 1);
    ref::multi_axis_rope<Big>(x.data(), yb.data(), pos.data(), 1, 1, D, n_axes, dims.data(), bases.data(), 1);
    for (int64_t k = 0; k < D; ++k) {
      const double pair = std::fabs(x[k]) + std::fabs(x[k ^ 1]);  // interleaved partner
      worst = std::max(worst, static_cast<double>(abs(Big(yd[k]) - yb[k])) / (kU * pair));
    }
  }
  std::printf("multi-axis rope: the double oracle is within %.4f u of 50 digits, of |a| + |b|\n", worst);
  EXPECT_LE(worst, 0.0625);
}

TEST(PosFiftyDigits, SinusoidalEmbed) {
  Rng rng(13);
  double worst = 0;
  for (int i = 0; i < 200; ++i) {
    const int64_t dim = 2 * rng.range(1, 64);
    const float periods[] = {10000.0f, 1000.0f, 100.0f};
    const float shifts[] = {0.0f, 1.0f};
    const float period = rng.pick(periods), shift = dim == 2 ? 0.0f : rng.pick(shifts);
    const float t[] = {static_cast<float>(rng.uniform(-16777216.0, 16777216.0)), static_cast<float>(rng.range(0, 999))};
    const int layout = static_cast<int>(rng.range(0, 2));
    std::vector<double> yd(static_cast<size_t>(2 * dim));
    std::vector<Big> yb(yd.size());
    ref::sinusoidal_embed<double>(t, yd.data(), 2, dim, period, shift, layout);
    ref::sinusoidal_embed<Big>(t, yb.data(), 2, dim, period, shift, layout);
    for (size_t k = 0; k < yd.size(); ++k) worst = std::max(worst, static_cast<double>(abs(Big(yd[k]) - yb[k])) / kU);
  }
  std::printf("sinusoidal: the double oracle is within %.4f u of 50 digits\n", worst);
  EXPECT_LE(worst, 0.0625);
}

// ---------------------------------------------------------------- T5, exactly

// The largest k <= m - 1 with n^m >= me^(m-k) md^k, in big integers.
int64_t exact_log_bucket(uint64_t n, int64_t m, int64_t me, int64_t md) {
  const BigInt lhs = boost::multiprecision::pow(BigInt(n), static_cast<unsigned>(m));
  int64_t k = 0;
  while (k + 1 <= m - 1 && lhs >= boost::multiprecision::pow(BigInt(me), static_cast<unsigned>(m - k - 1)) *
                                      boost::multiprecision::pow(BigInt(md), static_cast<unsigned>(k + 1)))
    ++k;
  return k;
}

TEST(PosExact, T5BucketsAgainstBigIntegers) {
  Rng rng(17);
  int64_t checked = 0, on_integer_boundaries = 0;
  for (int i = 0; i < 250; ++i) {
    const int64_t options[] = {4, 8, 16, 32, 64, 128, 320, 1024, 17, 3};
    const bool bidir = rng.chance(0.5);
    int64_t nb = rng.pick(options);
    if (bidir && nb < 4) nb = 4;
    const int64_t side = bidir ? nb / 2 : nb, me = side / 2, m = side - me;
    const int64_t md = rng.chance(0.5) ? me * (int64_t{1} << rng.range(1, 6)) : rng.range(me + 1, 5000);
    // Distances near every boundary (me (md/me)^(k/m)), and at random.
    std::vector<int64_t> ns;
    const size_t most = m > 64 ? 24 : 60;  // big powers are slow in cpp_int
    for (int64_t k = 1; k < m && ns.size() < most; ++k) {
      const double x = double(me) * std::pow(double(md) / double(me), double(k) / double(m));
      for (int64_t d = -1; d <= 1; ++d) ns.push_back(std::max<int64_t>(0, int64_t(std::llround(x)) + d));
    }
    for (int k = 0; k < (m > 64 ? 4 : 20); ++k) ns.push_back(rng.range(0, 3 * md));
    for (int64_t n : ns) {
      const int64_t want = n < me ? n : me + exact_log_bucket(uint64_t(n), m, me, md);
      ASSERT_EQ(ref::t5_bucket(-n, nb, md, bidir), want) << "n=" << n << " nb=" << nb << " md=" << md;
      if (bidir && n > 0) ASSERT_EQ(ref::t5_bucket(n, nb, md, bidir), side + want);
      if (!bidir) ASSERT_EQ(ref::t5_bucket(n, nb, md, bidir), 0);
      ++checked;
      // An integer boundary: n^m == me^(m-k) md^k exactly.
      if (n >= me && want > me &&
          boost::multiprecision::pow(BigInt(n), static_cast<unsigned>(m)) ==
              boost::multiprecision::pow(BigInt(me), static_cast<unsigned>(m - (want - me))) *
                  boost::multiprecision::pow(BigInt(md), static_cast<unsigned>(want - me)))
        ++on_integer_boundaries;
    }
  }
  std::printf("t5 buckets: %lld distances exact, %lld of them on an integer boundary\n",
              static_cast<long long>(checked), static_cast<long long>(on_integer_boundaries));
  EXPECT_GT(on_integer_boundaries, 0);  // the hard cases were met
}

}  // namespace
