#include "konform/dtype.hpp"

#include <cmath>
#include <cstring>

namespace konform {

namespace {

int significand_bits(DType t) { return t == DType::f16 ? 11 : t == DType::bf16 ? 8 : 24; }
int min_exponent(DType t) { return t == DType::f16 ? -14 : -126; }  // of the smallest normal

}  // namespace

double round_to(DType t, double v) {
  if (t == DType::f32) return static_cast<float>(v);  // the FPU rounds double to float exactly once
  if (!std::isfinite(v) || v == 0) return v;
  // The spacing of the dtype's values around v: 2^(e - p + 1) for v in
  // [2^e, 2^(e+1)), the subnormal spacing below the smallest normal.
  int e;
  std::frexp(v, &e);  // v = f 2^e, 0.5 <= |f| < 1
  const int exponent = e - 1 > min_exponent(t) ? e - 1 : min_exponent(t);
  const int shift = significand_bits(t) - 1 - exponent;
  const double r = std::ldexp(std::nearbyint(std::ldexp(v, shift)), -shift);  // ties to even (default mode)
  return std::fabs(r) > largest_finite(t) ? std::copysign(INFINITY, v) : r;
}

uint16_t half_bits(DType t, double v) {
  const uint16_t sign = std::signbit(v) ? 0x8000u : 0u;
  if (std::isnan(v)) return static_cast<uint16_t>(sign | (t == DType::f16 ? 0x7e00u : 0x7fc0u));
  const double r = std::fabs(round_to(t, v));
  const int exp_bits = t == DType::f16 ? 5 : 8, frac_bits = 15 - exp_bits;
  const int bias = (1 << (exp_bits - 1)) - 1;
  if (std::isinf(r)) return static_cast<uint16_t>(sign | (((1u << exp_bits) - 1u) << frac_bits));
  if (r < smallest_normal(t))  // a subnormal or zero: r in units of the subnormal spacing, exactly
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::ldexp(r, bias - 1 + frac_bits)));
  int e;
  const double f = std::frexp(r, &e);  // r = f 2^e, f in [0.5, 1)
  const auto frac = static_cast<uint16_t>(std::ldexp(f, frac_bits + 1) - (1 << frac_bits));
  return static_cast<uint16_t>(sign | (static_cast<uint16_t>(e - 1 + bias) << frac_bits) | frac);
}

double half_value(DType t, uint16_t bits) {
  if (t == DType::bf16) {  // the top half of an f32
    const uint32_t word = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &word, 4);
    return f;
  }
  const int e = (bits >> 10) & 0x1f, m = bits & 0x3ff;
  const double sign = (bits & 0x8000u) ? -1.0 : 1.0;
  if (e == 0x1f) return m == 0 ? sign * INFINITY : std::copysign(NAN, sign);
  if (e == 0) return sign * std::ldexp(m, -24);
  return sign * std::ldexp(1024 + m, e - 25);
}

bool parse_dtype(std::string_view s, DType* out) {
  for (DType t : {DType::f32, DType::i32, DType::u8, DType::f16, DType::bf16})
    if (s == dtype_name(t)) {
      *out = t;
      return true;
    }
  return false;
}

}  // namespace konform
