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
// |y_f| + L u_f s <= u s (1 + L (u_f / u) (1 + u)). A limit that grows with
// the sum's length, A + B n, carries over part by part (1 + A k + B k n, k =
// (u_f / u)(1 + u)), as does a strict limit. A selection (L = 0) stays
// exact. spec: the spec's own figure for the dtype, a ceiling.
//
// `between` values rounded once to the dtype between the steps (a
// feed-forward's hidden layer, FusedNormMatmul's normalized rows, as
// llama.cpp rounds a matmul's input to the weights' type): each rounding
// errs by at most u max(|v|, smallest normal), which the oracle's scale
// carries through the next step (its floor at the dtype's smallest normal),
// so each adds 1 + u to the fixed part, and the f32 rule's parts, now over
// values within (1 + u) of the f32 ones and judged at a result within
// (1 + u) of it, take a factor (1 + u)^2 each:
// 1 + r (1 + u) + L k (1 + u)^(2r).
inline ToleranceRule half_rule(DType t, const ToleranceRule& f32, const std::string& spec = "-", int between = 0) {
  const double u = unit_roundoff(t), k = unit_roundoff(DType::f32) / u * (1 + u) * std::pow(1 + u, 2 * between);
  const double rounded_between = between * (1 + u);
  const auto number = [&](const std::string& text) {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used != text.size()) throw std::logic_error("half_rule: cannot read '" + f32.limit + "'");
    return v;
  };
  const auto up = [](double v, int decimals) {  // v rounded up to `decimals` places, as text
    const double scale = std::pow(10.0, decimals);
    char text[48];
    std::snprintf(text, sizeof text, "%.*f", decimals, std::ceil(v * scale - 1e-9) / scale);
    return std::string(text);
  };
  const std::string strict_mark = "; strict ";
  const size_t mark = f32.limit.find(strict_mark);
  const std::string fixed_part = f32.limit.substr(0, mark);
  const size_t plus = fixed_part.find('+');
  const double a = number(fixed_part.substr(0, plus));
  if (a == 0 && plus == std::string::npos) return {t, "0", "-", "a selection: y is x or +0, exactly, in any dtype"};
  const std::string fixed = up(1 + rounded_between + a * k, 4);
  std::string limit = fixed;
  double per_term = 0;
  if (plus != std::string::npos) {
    const std::string term = fixed_part.substr(plus + 1, fixed_part.size() - plus - 2);  // B of "A+Bn"
    per_term = std::stod(up((term.empty() ? 1.0 : number(term)) * k, 7));
    limit += "+" + up(per_term, 7) + "n";
  }
  if (mark != std::string::npos) {  // strict only narrows: never above the default's limit for one term
    const double strict = 1 + rounded_between + number(f32.limit.substr(mark + strict_mark.size())) * k;
    const double widest = std::stod(fixed) + per_term;
    limit += "; strict " + (std::stod(up(strict, 4)) <= widest ? up(strict, 4) : up(widest - 5e-8, 7));
  }
  const std::string u_text = t == DType::f16 ? "2^-11" : "2^-8", ratio_text = t == DType::f16 ? "2^-13" : "2^-16";
  if (between > 0)
    return {t, limit, spec,
            "computed in f32 from the exact " + std::string(dtype_name(t)) +
                " input within the f32 rule (L = " + f32.limit +
                " u_f32 of the scale), with the intermediate values rounded to " + std::string(dtype_name(t)) +
                " or kept in f32 (" + std::to_string(between) + " rounding of u = " + u_text +
                " of max(|v|, smallest normal), carried by the scale), then rounded once to " +
                std::string(dtype_name(t)) + ": u (1 + " + std::to_string(between) + " (1 + u) + L " + ratio_text +
                " (1 + u)^" + std::to_string(1 + 2 * between) + ") of the scale, each part rounded up"};
  return {t, limit, spec,
          "computed in f32 from the exact " + std::string(dtype_name(t)) + " input within the f32 rule (L = " +
              f32.limit + " u_f32 of the scale), then rounded once to " + std::string(dtype_name(t)) +
              " (u = " + u_text + " of the result, half the subnormal spacing below the smallest normal): u (1 + L " +
              ratio_text + " (1 + u)) of the scale, each part rounded up"};
}

}  // namespace konform::ops
