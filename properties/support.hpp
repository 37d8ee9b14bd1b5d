// What the properties share: generators of inputs and the tolerance check.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "konform/backend.hpp"
#include "konform/op.hpp"
#include "konform/properties.hpp"
#include "konform/tolerance.hpp"

namespace konform::props {

// n finite floats with magnitudes 2^-20 .. 2^20 and both signs.
inline std::vector<float> finite_floats(int64_t n) {
  auto one =
      rc::gen::map(rc::gen::tuple(rc::gen::inRange(-20, 21), rc::gen::inRange(0, 1 << 23), rc::gen::arbitrary<bool>()),
                   [](const std::tuple<int, int, bool>& t) {
                     const float m = 1.0f + static_cast<float>(std::get<1>(t)) * 0x1p-23f;
                     return std::ldexp(std::get<2>(t) ? -m : m, std::get<0>(t));
                   });
  return *rc::gen::container<std::vector<float>>(static_cast<size_t>(n), one);
}

// The op's limit from the built-in tolerance table, in units of 2^-24.
inline double limit_of(const std::string& op) {
  const Tolerance* t = ToleranceTable::builtin().find(op, DType::f32);
  if (t == nullptr) throw std::logic_error("no tolerance for " + op);
  return t->limit;
}

// The op's default-profile limit for a case whose longest sum has n terms
// (Tolerance::at: the any-order bound where the limit grows with n).
inline double limit_of(const std::string& op, int64_t n) {
  const Tolerance* t = ToleranceTable::builtin().find(op, DType::f32);
  if (t == nullptr) throw std::logic_error("no tolerance for " + op);
  return t->at(n, 0x1p-24);
}

inline bool subnormal(double v) { return v != 0 && std::fabs(v) < 1.17549435e-38; }

// A subnormal float as the zero of its sign under --flush-subnormals
// (konform/properties.hpp), as a DAZ kernel reads an input; else v.
inline float daz(float v) { return flush_subnormals() && subnormal(v) ? std::copysign(0.0f, v) : v; }

// Under --flush-subnormals: two values equal once their subnormals are read
// as zeros (a zero for a subnormal result, FTZ; a subnormal input passed
// through where its rounded product was expected, DAZ), and not equal as
// they are.
inline bool flushed_pair(double a, double b) {
  if (!flush_subnormals() || !(subnormal(a) || subnormal(b))) return false;
  return (subnormal(a) ? 0.0 : a) == (subnormal(b) ? 0.0 : b);
}

// What an element may err by: limit * 2^-24 * max(scale, FLT_MIN); under
// --flush-subnormals each rounding (at least one) may also lose FLT_MIN, the
// comparator's rule (docs/tolerances.md, "Subnormals").
inline double allowance(double scale, double limit) {
  const double strict = limit * 0x1p-24 * std::fmax(scale, 1.17549435e-38);
  return strict + (flush_subnormals() ? std::fmax(limit, 1.0) * 1.17549435e-38 : 0.0);
}

// |got - want| <= allowed; a NaN is within anything of a NaN (any sign and
// payload: the NaN rule of docs/tolerances.md) and of nothing else.
inline bool within(double got, double want, double allowed) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  return std::fabs(got - want) <= allowed;
}

// |got - want| <= allowance(scale, limit), NaN as within().
inline bool near(double got, double want, double scale, double limit) {
  return within(got, want, allowance(scale, limit));
}

// y[i] against the oracle's element i: near(), plus under
// --flush-subnormals FLT_MIN per rounding at the intermediates the oracle
// names (Expected::flush_factor), as the comparator judges it.
inline bool near_oracle(double got, const Expected& e, int64_t i, double limit) {
  const double factor = flush_subnormals() && !e.flush_factor.empty() ? e.flush_factor[i] : 0.0;
  return within(got, e.value[i], allowance(e.scale[i], limit) + std::fmax(limit, 1.0) * 1.17549435e-38 * factor);
}

// After a refused call: the backend under test left a message in its own
// tl_last_error (true where the library exports none: nothing to read).
inline bool left_a_message(const Backend& b) {
  const auto message = b.last_error();
  return !message || !message->empty();
}

// The same bits, every NaN counting as one value whatever its sign and
// payload (the NaN rule): for determinism, batch invariance, in-place calls
// and copies. Under --flush-subnormals a zero also matches a subnormal.
inline bool same_bits(float a, float b) {
  return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b) || (std::isnan(a) && std::isnan(b)) ||
         flushed_pair(a, b);
}

// A worked example's figure, printed to 7 significant digits, against the
// op's own limit: within limit u of `scale` (the op's scale for the element)
// plus the figure's own rounding, half a unit of its 7th digit.
inline bool matches_printed(double got, double printed, double scale, double limit) {
  return std::fabs(got - printed) <= limit * 0x1p-24 * std::fmax(scale, 1.17549435e-38) + 5e-7 * std::fabs(printed);
}

// A worked-example figure given to 7 significant digits (for checking an
// oracle's value, or a result the op computes exactly).
inline bool agrees_to_7_digits(double got, double printed) {
  return std::fabs(got - printed) <= 1e-6 * std::fabs(printed) + 1e-7;
}

}  // namespace konform::props
