// What the declarations of the position ops share (pos_rope.cpp,
// pos_multi_axis_rope.cpp, pos_sinusoidal_embed.cpp, pos_embed.cpp,
// pos_relative_embedding.cpp): the status output, the value classes of rotated
// data, and the scale of a rotated pair.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "konform/op.hpp"
#include "konform/values.hpp"
#include "tinyllm/pos.h"

namespace konform::ops::pos {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// The status output every position op declares; the oracle's value for it.
inline Arg status_arg() { return {"status", Access::out, Tensor::zeros(DType::i32, {1}), Match::exact}; }
inline Expected status_expected(tl_status s) { return {{static_cast<double>(s)}, {0.0}}; }

// A refused call: only the status is compared.
inline Oracle refused(tl_status s) { return {{"status", status_expected(s)}}; }

// |x| <= 1e37 keeps |a c| + |b s| below FLT_MAX / 4: no correct order of the
// rotation's products and sum overflows where the exact result does not.
constexpr double kRotatedMaxAbs = 1e37;

inline ValueClass rotated_class(Rng& rng) {
  const ValueClass classes[] = {ValueClass::normal, ValueClass::normal,    ValueClass::wide,
                                ValueClass::huge,   ValueClass::ties,      ValueClass::zeros,
                                ValueClass::tiny,   ValueClass::subnormal, ValueClass::specials};
  return rng.pick(classes);
}

// x of the dtype: f32's value classes; in f16 and bf16 the classes rounded
// (f16's huge class up to 65504, where a rotated pair overflows to an
// infinity) or, a third of the time, random bit patterns.
inline Tensor rotated_x(DType t, Rng& rng, ValueClass vc, const std::vector<int64_t>& shape, std::string* label) {
  const int64_t n = shape[0] * shape[1] * shape[2];
  *label = value_class_name(vc);
  if (t == DType::f32) return Tensor::of_f32(shape, make_values(rng, vc, n, kRotatedMaxAbs));
  if (rng.chance(0.3)) {
    *label = "random bits";
    Tensor x = random_half_bits(rng, t, n);
    x.shape = shape;
    return x;
  }
  return Tensor::of_half(t, shape, make_values(rng, vc, n, t == DType::f16 ? 65504.0 : kRotatedMaxAbs));
}

// rope_theta values of real models, then the spec's extremes (permitted,
// warned about by tl_rope_base_is_extreme).
inline float pick_base(Rng& rng) {
  const float bases[] = {10000.0f, 10000.0f, 500000.0f, 1000000.0f, 100.0f, 1.0f, 2.5f, 1e9f, 75000.0f, 1e10f, 0.5f};
  return rng.pick(bases);
}

// The largest frequency of a rotary range of width `width`: 1 for base >= 1,
// base^(-(width-2)/width) below. The checked domain keeps every angle
// p * f_j <= 2^24, where a double angle still holds f32 resolution.
inline double largest_frequency(float base, int64_t width) {
  return base >= 1.0f ? 1.0 : std::pow(double(base), -double(width - 2) / double(width));
}
constexpr double kMaxAngle = 16777216.0;  // 2^24

// A bad float parameter: zero, negative, NaN or infinite.
inline float bad_positive(Rng& rng) {
  const float bad[] = {0.0f, -0.0f, -1.0f, -10000.0f, kNaN, kInf, -kInf};
  return rng.pick(bad);
}

// The scale of cos and sin (Rope_cache, SinusoidalEmbed), judged against 1
// in f32. In f16 and bf16: that absolute u_f32 (the f32 rule's 1 u against
// 1) is 2 u_f32 / u of the dtype's u, added to |y|, whose own rounding to
// the dtype errs by u |y| (half_rule): a truncation's 2 u |y| is a finding.
inline void scale_of_angles(Expected& e, DType t) {
  if (t == DType::f32) e.scale.assign(e.value.size(), 1.0);
  else {
    e.scale.resize(e.value.size());
    for (size_t k = 0; k < e.value.size(); ++k)
      e.scale[k] = std::fabs(e.value[k]) + 2 * unit_roundoff(DType::f32) / unit_roundoff(t);
  }
}

inline std::string str(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace konform::ops::pos
