// What the f16 and bf16 ops' declarations share: the tolerance rule of an
// op computed in f32 from its exact half inputs and rounded once to the
// dtype, derived from the f32 op's rule.
#pragma once

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "konform/dtype.hpp"
#include "konform/op.hpp"

namespace konform::ops {

// The f32 rule's limit L (units of 2^-24) carried to a half dtype: the f32
// computation from the exact half input, within L u_f of the scale s, then
// one rounding to the dtype, within u of the result (half the subnormal
// spacing below the smallest normal, the floor of the rule): |y - y*| <= u
// |y_f| + L u_f s <= u s (1 + L (u_f / u) (1 + u)). A selection (L = 0)
// stays exact. spec: the spec's own figure for the dtype, a ceiling.
inline ToleranceRule half_rule(DType t, const ToleranceRule& f32, const std::string& spec = "-") {
  // A limit that grows with n ("19+1n") has no single bound here.
  size_t used = 0;
  const double l = std::stod(f32.limit, &used);
  if (used != f32.limit.size()) throw std::logic_error("half_rule: f32 limit '" + f32.limit + "' is not one number");
  const double u = unit_roundoff(t), ratio = unit_roundoff(DType::f32) / u;
  if (l == 0) return {t, "0", "-", "a selection: y is x or +0, exactly, in any dtype"};
  const double bound = std::ceil((1 + l * ratio * (1 + u)) * 1e4) / 1e4;
  char limit[32];
  std::snprintf(limit, sizeof limit, "%.4f", bound);
  const std::string u_text = t == DType::f16 ? "2^-11" : "2^-8", ratio_text = t == DType::f16 ? "2^-13" : "2^-16";
  return {t, limit, spec,
          "computed in f32 from the exact " + std::string(dtype_name(t)) + " input within the f32 rule (" + f32.limit +
              " u_f32 of the scale), then rounded once to " + std::string(dtype_name(t)) + " (u = " + u_text +
              " of the result, half the subnormal spacing below the smallest normal): u (1 + " + f32.limit + " " +
              ratio_text + " (1 + u)) of the scale, rounded up to 4 decimals"};
}

}  // namespace konform::ops
