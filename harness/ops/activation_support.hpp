// What the declarations of the activations share (activations.cpp,
// gated.cpp, softmax.cpp, silu_mul.cpp): the inputs worth feeding an
// activation, lengths, the status output of the ops that validate, and the
// scale terms of the sigmoid's flush and subnormal tail.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "konform/op.hpp"
#include "konform/values.hpp"

namespace konform::ops::act {

// The points where an activation's formula changes regime in f32: e^-x
// overflowing (88.72, and 88.72283935546875, the first float where it does)
// and its result leaving the normals (87.34) and the subnormals (103.97),
// 1 + e^-x rounding to 1 (17.33), erf and tanh reaching 1 in float (3.92,
// 5.87, 9.01), tanh's and the kernels' branch points (0.55), x^3 overflowing
// (6.98e12), the spec's large values (+-100, -1e4), and the extremes. Each
// is also nudged one float either way.
inline float regime_point(Rng& rng) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  static const float points[] = {88.72f, 0x1.62e43p+6f, 87.34f,   103.97f, 104.0f,  17.33f, 3.92f, 5.87f,
                                 8.3f,   9.01f,         0.55f,    0.5f,    1.0f,    2.0f,   20.0f, 44.36f,
                                 15.0f,  14.5f,         6.98e12f, 1e13f,   1e20f,   100.0f, 1e4f,  1e-4f,
                                 1e-20f, FLT_MIN,       1e-40f,   0.0f,    FLT_MAX, inf};
  float v = rng.pick(points);
  if (rng.chance(0.5)) v = -v;
  if (std::isfinite(v) && rng.chance(0.4)) v = std::nextafter(v, rng.chance(0.5) ? inf : -inf);
  return v;
}

// The spec's f32 formulas 1 / (1 + e^-x) (Sigmoid, Glu) and x / (1 + e^-x)
// (Silu, SwiGlu, silu_mul) have e^-x = +inf, and so give 0 (-0), exactly for
// x <= -88.72283935546875 = -0x1.62e43p+6, 88.72283935546875 being the
// float just above ln(FLT_MAX) = 88.7228390521: e^88.72283935546875 =
// FLT_MAX (1 + 3.0e-7) is past FLT_MAX + half an ulp = FLT_MAX (1 + 3.0e-8)
// and rounds to +inf, while at the float above, -88.72283172607422, e^-x =
// FLT_MAX (1 - 7.3e-6) is 61 ulp short of it (an exp within a few ulp stays
// finite there). There
// sigmoid(x) < e^x < 2^-128 and |silu(x)| < |x| 2^-128 (< 2^-121.5 at x =
// -88.72). regime_point() draws this x and the floats either side of it.
constexpr double kSigmoidFlushesAt = -0x1.62e43p+6;
inline bool sigmoid_flushes(double x) { return x <= kSigmoidFlushesAt; }

// The scale term, per unit of whatever multiplies the sigmoid (1, x, up,
// gate * up), that admits the flush: u 2^-104 = 2^-128 > sigmoid(x) there, so
// any limit >= 1 covers the error of a 0. Nowhere else: above the threshold a
// correct f32 sigmoid is not flushed, so the term is 0.
inline double flushed_sigmoid(double x) { return sigmoid_flushes(x) ? 0x1p-104 : 0.0; }

// The same term for a sigmoid multiplied by something (x in Silu, up in Glu,
// gate * up in SwiGlu and silu_mul): above the threshold FLT_MIN instead,
// because a correct f32 sigmoid rounded into the subnormals (x < -87.34) has
// an absolute error up to 2^-150 = u FLT_MIN, which the product carries times
// the factor: a relative error of u FLT_MIN / sigmoid(x) in the product, 4 u
// at x = -88.72, 1 u at -87.34, below 0.001 u above -80.
inline double factored_sigmoid(double x) { return sigmoid_flushes(x) ? 0x1p-104 : 0x1p-126; }

// The scale of silu(g) * up (SwiGlu, silu_mul): |y*|, |g up| times the
// sigmoid's term above (silu = g sigmoid(g)), and FLT_MIN |up| for silu(g)
// itself rounded into the subnormals (a tiny g) before the product: its
// absolute error 2^-150 = u FLT_MIN carried times |up|.
inline double silu_times_scale(double g, double up, double y) {
  return std::fabs(y) + std::fabs(g * up) * factored_sigmoid(g) + std::fabs(up) * 0x1p-126;
}

// Expected::flush_factor (--flush-subnormals only): a kernel that flushes an
// intermediate v to 0 (FTZ) or reads it as 0 (DAZ) loses |v|, which reaches
// the output times the factor v multiplies there. |factor| where |v| < 2
// FLT_MIN: the subnormals, and the binade above them, where a correct v
// within its budget may round below FLT_MIN and an FTZ exp may give 0
// (oneDNN's scales by 2^(n-1), which flushes e^x below 2^-125.5); else 0, as
// for an infinite factor (no finite allowance from an infinite input).
inline double flush_factor(double v, double factor) {
  return std::fabs(v) < 0x1p-125 && std::isfinite(factor) ? std::fabs(factor) : 0.0;
}

// The sigmoid in double, e^x / (1 + e^x) below 0 (its subnormal tail kept).
inline double sigmoid(double x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); }

// The flush factor of act(x) * m for the sigmoid gates: x sigmoid(x) * m
// (SwiGlu and silu_mul with m = up) flushes sigmoid(x) (factor x m) or
// silu(x) (factor m); sigmoid(x) * m (Glu) flushes sigmoid(x) (factor m).
inline double silu_flush_factor(double x, double m) {
  const double s = sigmoid(x);
  return flush_factor(s, x * m) + flush_factor(x * s, m);
}
inline double sigmoid_flush_factor(double x, double m) { return flush_factor(sigmoid(x), m); }

// How the values of one case are drawn.
enum class Inputs { normal1, normal4, normal20, regime, wide, tiny, huge, subnormal, zeros, specials, ties, mixed };
constexpr Inputs kAllInputs[] = {Inputs::normal1, Inputs::normal4,  Inputs::normal20, Inputs::regime,
                                 Inputs::wide,    Inputs::tiny,     Inputs::huge,     Inputs::subnormal,
                                 Inputs::zeros,   Inputs::specials, Inputs::ties,     Inputs::mixed};

inline const char* inputs_name(Inputs k) {
  switch (k) {
    case Inputs::normal1: return "normal";
    case Inputs::normal4: return "normal*4";
    case Inputs::normal20: return "normal*20";
    case Inputs::regime: return "regime points";
    case Inputs::wide: return "wide";
    case Inputs::tiny: return "tiny";
    case Inputs::huge: return "huge";
    case Inputs::subnormal: return "subnormal";
    case Inputs::zeros: return "zeros";
    case Inputs::specials: return "specials";
    case Inputs::ties: return "ties";
    case Inputs::mixed: return "mixed";
  }
  return "?";
}

inline float one_value(Rng& rng, Inputs k) {
  switch (k) {
    case Inputs::normal1: return make_values(rng, ValueClass::normal, 1)[0];
    case Inputs::normal4: return 4.0f * make_values(rng, ValueClass::normal, 1)[0];
    case Inputs::normal20: return 20.0f * make_values(rng, ValueClass::normal, 1)[0];
    case Inputs::regime: return regime_point(rng);
    case Inputs::wide: return make_values(rng, ValueClass::wide, 1)[0];
    case Inputs::tiny: return make_values(rng, ValueClass::tiny, 1)[0];
    case Inputs::huge: return make_values(rng, ValueClass::huge, 1)[0];
    case Inputs::subnormal: return make_values(rng, ValueClass::subnormal, 1)[0];
    case Inputs::zeros: return make_values(rng, ValueClass::zeros, 1)[0];
    case Inputs::specials: return make_values(rng, ValueClass::specials, 1)[0];
    case Inputs::ties: return make_values(rng, ValueClass::ties, 1)[0];
    case Inputs::mixed: break;
  }
  return one_value(rng, kAllInputs[rng.range(0, 10)]);  // any class but mixed, element by element
}

inline std::vector<float> values(Rng& rng, Inputs k, int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = one_value(rng, k);
  return v;
}

// Case `index`'s length: the edge sizes first, then mostly short random ones.
inline int64_t length(Rng& rng, int64_t index) {
  const auto& sizes = edge_sizes();
  if (index < static_cast<int64_t>(sizes.size())) return sizes[static_cast<size_t>(index)];
  return rng.chance(0.3) ? rng.pick(sizes) : rng.range(0, 400);
}

// The status output of a validating op, and what the oracle says of it.
inline Arg status_arg() { return {"status", Access::out, Tensor::zeros(DType::i32, {1}), Match::exact}; }
inline Expected status_expected(int status) { return {{double(status)}, {0.0}}; }

}  // namespace konform::ops::act
