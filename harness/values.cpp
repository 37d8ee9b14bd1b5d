#include "konform/values.hpp"

#include <cfloat>
#include <cmath>
#include <limits>

namespace konform {

std::string_view value_class_name(ValueClass c) {
  switch (c) {
    case ValueClass::normal: return "normal";
    case ValueClass::wide: return "wide";
    case ValueClass::tiny: return "tiny";
    case ValueClass::huge: return "huge";
    case ValueClass::zeros: return "zeros";
    case ValueClass::subnormal: return "subnormal";
    case ValueClass::specials: return "specials";
    case ValueClass::ties: return "ties";
  }
  return "?";
}

namespace {

float with_sign(Rng& rng, float v) { return rng.chance(0.5) ? -v : v; }

// 2^e times a uniform significand in [1, 2).
float scaled(Rng& rng, int e) { return static_cast<float>(std::ldexp(1.0 + rng.unit(), e)); }

float normal_value(Rng& rng) {
  // Irwin-Hall with 4 terms: close enough to a bell, portable, cheap.
  double s = rng.unit() + rng.unit() + rng.unit() + rng.unit() - 2.0;
  return static_cast<float>(s * std::sqrt(3.0));
}

float special_value(Rng& rng) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  const float options[] = {inf,     -inf,     std::numeric_limits<float>::quiet_NaN(),
                           -std::numeric_limits<float>::quiet_NaN(),
                           FLT_MAX, -FLT_MAX, 0.0f,    -0.0f,    FLT_MIN,
                           std::numeric_limits<float>::denorm_min()};
  return rng.pick(options);
}

}  // namespace

void fill_values(Rng& rng, ValueClass c, float* out, int64_t n, double max_abs) {
  const int max_exp = std::ilogb(max_abs) - 1;  // keeps 2^e * [1,2) below max_abs
  for (int64_t i = 0; i < n; ++i) {
    float v = 0;
    switch (c) {
      case ValueClass::normal: v = normal_value(rng); break;
      case ValueClass::wide: v = with_sign(rng, scaled(rng, static_cast<int>(rng.range(-40, std::min(40, max_exp))))); break;
      case ValueClass::tiny: v = with_sign(rng, scaled(rng, static_cast<int>(rng.range(-126, -110)))); break;
      case ValueClass::huge: v = with_sign(rng, scaled(rng, static_cast<int>(rng.range(std::min(100, max_exp - 10), max_exp)))); break;
      case ValueClass::zeros: v = rng.chance(0.5) ? -0.0f : 0.0f; break;
      case ValueClass::subnormal:
        v = with_sign(rng, static_cast<float>(std::ldexp(static_cast<double>(rng.range(1, (1 << 23) - 1)), -149)));
        break;
      case ValueClass::specials:  // the finite extremes too, clamped to the op's domain
        v = rng.chance(0.15) ? special_value(rng) : normal_value(rng);
        if (std::isfinite(v) && std::fabs(v) > max_abs) v = std::copysign(static_cast<float>(max_abs), v);
        break;
      case ValueClass::ties: v = static_cast<float>(rng.range(-2, 2)); break;
    }
    out[i] = v;
  }
}

std::vector<float> make_values(Rng& rng, ValueClass c, int64_t n, double max_abs) {
  std::vector<float> v(static_cast<size_t>(n));
  fill_values(rng, c, v.data(), n, max_abs);
  return v;
}

const std::vector<int64_t>& edge_sizes() {
  static const std::vector<int64_t> sizes = {1,  2,  3,   4,   5,   7,   8,   9,   15,  16,   17,  23,
                                             31, 32, 33,  47,  63,  64,  65,  127, 128, 129,  251, 4096,
                                             4097};
  return sizes;
}

}  // namespace konform
