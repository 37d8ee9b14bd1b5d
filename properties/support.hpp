// What the properties share: generators of inputs and the tolerance check.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "konform/tolerance.hpp"

namespace konform::props {

// n finite floats with magnitudes 2^-20 .. 2^20 and both signs.
inline std::vector<float> finite_floats(int64_t n) {
  auto one = rc::gen::map(rc::gen::tuple(rc::gen::inRange(-20, 21), rc::gen::inRange(0, 1 << 23), rc::gen::arbitrary<bool>()),
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

// |got - want| <= limit * 2^-24 * scale, NaN never near anything.
inline bool near(double got, double want, double scale, double limit) {
  return std::fabs(got - want) <= limit * 0x1p-24 * std::fmax(scale, 1.17549435e-38);
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
