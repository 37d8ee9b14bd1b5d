// JSON has no NaN or infinities: the files konform writes (reports,
// reproducers) spell them "NaN", "Infinity" and "-Infinity".
#pragma once

#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>

namespace konform {

inline nlohmann::json json_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return v;
}

// The number j holds in that spelling; nullopt when it is none.
inline std::optional<double> json_to_number(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "NaN") return NAN;
    if (s == "Infinity") return INFINITY;
    if (s == "-Infinity") return -INFINITY;
  }
  return std::nullopt;
}

}  // namespace konform
