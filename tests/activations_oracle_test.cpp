// The oracle of the activations (reference/konform/reference/activations.hpp)
// tested like anything else (docs/design.md, "The oracle"):
//  - worked values with digits from mpmath (30 digits), from the double and
//    the float instantiations;
//  - the double oracle against the same templates on a 50-digit float, in
//    units of 2^-53 of the scale the harness judges with (harness/ops/
//    activations.cpp, gated.cpp, softmax.cpp), within bounds from forward
//    error analysis;
//  - the comparison can fail: the float instantiation is far outside them.
// A Boost.Multiprecision translation unit (~12 s to compile): the
// activations' only one.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "konform/reference/activations.hpp"
#include "konform/rng.hpp"

namespace {

namespace act = konform::reference::act;
using Big = boost::multiprecision::cpp_bin_float_50;
using konform::Rng;

// ---------------------------------------------------------------- worked values

// 7 significant digits, plus for the float instantiation 8 f32 roundoffs of
// `scale` (the harness's: |want|, or 0.5 |x| (1 + |t|) for the Gelus, whose
// f32 formula cancels below 0).
template <typename T>
void expect_digits(T got, double want, const char* what, double scale = 0) {
  if (scale == 0) scale = std::fabs(want);
  const double tol = 5e-7 * std::fabs(want) + (std::is_same_v<T, float> ? 8 * 0x1p-24 * scale : 0.0);
  EXPECT_NEAR(double(got), want, tol) << what;
}

template <typename T>
void worked_values() {
  expect_digits(act::silu<T>(T(1)), 0.7310585786, "silu(1)");
  expect_digits(act::silu<T>(T(-1)), -0.2689414214, "silu(-1)");
  expect_digits(act::sigmoid<T>(T(2)), 0.8807970780, "sigmoid(2)");
  expect_digits(act::sigmoid<T>(T(-2)), 0.1192029220, "sigmoid(-2)");
  expect_digits(act::gelu_erf<T>(T(1)), 0.8413447461, "gelu_erf(1)");
  expect_digits(act::gelu_erf<T>(T(-3)), -0.004049694095, "gelu_erf(-3)", 0.5 * 3 * (1 + 0.9973002039));
  expect_digits(act::gelu_tanh<T>(T(1)), 0.8411919906, "gelu_tanh(1)");
  expect_digits(act::gelu_tanh<T>(T(-3)), -0.003637392082, "gelu_tanh(-3)", 0.5 * 3 * (1 + 0.9975750720));
  const float logits[] = {1, 2, 3};
  T y[3];
  act::softmax<T>(logits, y, 1, 3, 1);
  expect_digits(y[0], 0.09003057317, "softmax[0]");
  expect_digits(y[1], 0.2447284711, "softmax[1]");
  expect_digits(y[2], 0.6652409558, "softmax[2]");
  // The limits: +-100 and -1e4 without NaN; relu and leaky at 0 and NaN.
  EXPECT_EQ(act::sigmoid<T>(T(100)), T(1));
  EXPECT_FALSE(std::isnan(double(act::sigmoid<T>(T(-1e4)))));
  EXPECT_EQ(act::silu<T>(T(-1e4)), T(0));
  EXPECT_EQ(act::relu<T>(T(-0.0)), T(0));
  EXPECT_TRUE(std::isnan(double(act::relu<T>(T(NAN)))));
  EXPECT_EQ(act::leaky_relu<T>(T(-2), T(0.5)), T(-1));
}
TEST(ActWorkedValues, Double) { worked_values<double>(); }
TEST(ActWorkedValues, Float) { worked_values<float>(); }

// The two-sided sigmoid keeps the subnormal tail the literal 1 / (1 + e^-x)
// flushes in f32: sigmoid(-100) = 3.72e-44 in the float instantiation.
TEST(ActWorkedValues, SigmoidTailInFloat) {
  EXPECT_NEAR(double(act::sigmoid<float>(-100.0f)), 3.7200759760208361e-44, 0x1p-149);
  EXPECT_GT(act::sigmoid<float>(-100.0f), 0.0f);
}

// ---------------------------------------------------------------- double against 50 digits

// |double - 50 digits| in units of 2^-53 of max(scale, DBL_MIN).
double units(double y, const Big& exact, double scale) {
  if (!std::isfinite(y)) return INFINITY;
  const Big diff = abs(Big(y) - exact);
  return static_cast<double>(diff / ldexp(Big(std::max(scale, DBL_MIN)), -53));
}

// Floats worth testing: log-uniform magnitudes 2^-30 .. 2^7 of both signs,
// the regime points of the f32 kernels, and some far beyond.
std::vector<float> inputs() {
  std::vector<float> x = {0.0f,     1.0f,   -1.0f,   0.55f,   -0.55f,  3.92f,   -3.92f,  5.87f,   -5.87f,
                          9.01f,    -9.01f, 17.33f,  -17.33f, 87.34f,  -87.34f, 88.72f,  -88.72f, 103.97f,
                          -103.97f, 500.0f, -500.0f, 1e-20f,  -1e-20f, FLT_MIN, -FLT_MIN};
  Rng rng(20261130);
  for (int i = 0; i < 6000; ++i) {
    const float v = static_cast<float>(std::exp2(rng.uniform(-30, 7)));
    x.push_back(rng.chance(0.5) ? v : -v);
  }
  return x;
}

struct Case {
  const char* name;
  std::function<double(float)> as_double;
  std::function<Big(float)> as_big;
  std::function<double(float, double)> scale;  // the harness's, from x and y*
  double bound;                                // units of 2^-53 of the scale
};

// Each bound from the double evaluation's roundings, in units of 2^-53 (a
// correctly rounded result is within 1, a 1-ulp one within 2): glibc's exp
// and erf within 1 ulp (2), its tanh within 2 ulp (4, its documented
// maximum on x86-64; 1.19 ulp seen here); sigmoid 1/(1 + e) or e/(1 + e): exp 2, sum 1,
// quotient 1, product 1 (+1 for x s in silu); the Gelus' argument x/sqrt(2)
// or sqrt(2/pi)(x + c x^3) (pi as 4 atan 1, its root, the cube: ~6 roundings,
// times the derivative's <= 0.5), then the function 2, 1 + t, the products:
// 5 (erf) and 8 (tanh) units of 0.5 |x| (1 + |t|).
std::vector<Case> cases() {
  return {
      {"sigmoid", [](float x) { return act::sigmoid<double>(x); }, [](float x) { return act::sigmoid<Big>(Big(x)); },
       [](float, double y) { return std::fabs(y); }, 5},
      {"silu", [](float x) { return act::silu<double>(x); }, [](float x) { return act::silu<Big>(Big(x)); },
       [](float, double y) { return std::fabs(y); }, 6},
      {"gelu_erf", [](float x) { return act::gelu_erf<double>(x); }, [](float x) { return act::gelu_erf<Big>(Big(x)); },
       [](float x, double) { return 0.5 * std::fabs(x) * (1 + std::fabs(std::erf(x / std::sqrt(2.0)))); }, 5},
      {"gelu_tanh", [](float x) { return act::gelu_tanh<double>(x); },
       [](float x) { return act::gelu_tanh<Big>(Big(x)); },
       [](float x, double) {
         return 0.5 * std::fabs(x) * (1 + std::fabs(std::tanh(act::gelu_tanh_argument<double>(x))));
       },
       8},
      {"tanh", [](float x) { return std::tanh(double(x)); }, [](float x) { return tanh(Big(x)); },
       [](float, double y) { return std::fabs(y); }, 4},
  };
}

TEST(ActFiftyDigits, ElementwiseWithinTheirBounds) {
  const auto xs = inputs();
  for (const Case& c : cases()) {
    double worst = 0;
    float at = 0;
    for (float x : xs) {
      const double y = c.as_double(x);
      const Big exact = c.as_big(x);
      const double u = units(y, exact, c.scale(x, y));
      if (u > worst) worst = u, at = x;
    }
    std::printf("%-9s worst %.3f units of 2^-53 (bound %.0f) at x = %.9g\n", c.name, worst, c.bound, double(at));
    EXPECT_LE(worst, c.bound) << c.name << " at x = " << at;
  }
}

// Softmax lines of several lengths and temperatures, the harness's scale
// y (1 + |d_i| + sum_j y_j |d_j|): bound the pairwise sum's depth (blocks of
// 8, then log2(L/8) levels) plus exp, the subtraction and the quotient.
TEST(ActFiftyDigits, SoftmaxWithinItsBound) {
  Rng rng(7);
  double worst_ratio = 0;
  for (int64_t length : {1, 2, 7, 8, 9, 100, 1000, 4097}) {
    for (double spread : {0.1, 1.0, 10.0, 100.0}) {
      std::vector<float> x(static_cast<size_t>(length));
      for (auto& v : x) v = static_cast<float>(rng.uniform(-spread, spread));
      std::vector<double> yd(x.size());
      std::vector<Big> yb(x.size());
      act::softmax<double>(x.data(), yd.data(), 1, length, 1);
      act::softmax<Big>(x.data(), yb.data(), 1, length, 1);
      const double m = *std::max_element(x.begin(), x.end());
      double spread_term = 0;
      for (int64_t i = 0; i < length; ++i) spread_term += yd[i] * std::fabs(x[i] - m);
      const double bound = std::ceil(std::log2(std::max<double>(1.0, double(length) / 8))) + 8 + 3;
      for (int64_t i = 0; i < length; ++i) {
        const double scale = yd[i] * (1 + std::fabs(x[i] - m) + spread_term);
        const double u = units(yd[i], yb[i], scale);
        worst_ratio = std::max(worst_ratio, u / bound);
        ASSERT_LE(u, bound) << "softmax L=" << length << " spread=" << spread << " [" << i << "]";
      }
    }
  }
  std::printf("softmax   worst %.2f of its bound\n", worst_ratio);
}

// The comparison sees f32 rounding: the float instantiation is ~2^29 units
// away, far beyond every bound above.
TEST(ActFiftyDigits, TheComparisonCatchesFloatPrecision) {
  double worst = 0;
  for (float x : {0.3f, 1.7f, -2.2f, 5.1f}) {
    worst = std::max(worst, units(act::gelu_erf<float>(x), act::gelu_erf<Big>(Big(x)),
                                  0.5 * std::fabs(x) * (1 + std::fabs(std::erf(x / std::sqrt(2.0))))));
    worst = std::max(worst, units(act::sigmoid<float>(x), act::sigmoid<Big>(Big(x)), act::sigmoid<double>(x)));
  }
  EXPECT_GT(worst, 1e6) << "the 50-digit comparison does not see f32 rounding";
}

}  // namespace
