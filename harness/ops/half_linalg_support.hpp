// What the f16 and bf16 twins of the matmuls, the feed-forwards and the
// fused ops share (matmul.cpp, ffn.cpp, fused.cpp): their tensors widened to
// floats, and the value classes of their operands.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "half_support.hpp"
#include "konform/dtype.hpp"
#include "konform/op.hpp"
#include "konform/rng.hpp"
#include "konform/tensor.hpp"
#include "konform/values.hpp"

namespace konform::ops {

// A tensor's values as floats: exact for f32 and the half dtypes (a table
// of the 65536 patterns: the large products widen 45 M of them).
inline std::vector<float> floats_of(const Tensor& t) {
  if (t.dtype == DType::f32) return std::vector<float>(t.f32(), t.f32() + t.elements());
  const auto table = [](DType d) {
    std::vector<float> v(65536);
    for (uint32_t h = 0; h < 65536; ++h) v[h] = static_cast<float>(half_value(d, static_cast<uint16_t>(h)));
    return v;
  };
  static const std::vector<float> f16 = table(DType::f16), bf16 = table(DType::bf16);
  const std::vector<float>& of = t.dtype == DType::f16 ? f16 : bf16;
  std::vector<float> v(static_cast<size_t>(t.elements()));
  for (int64_t k = 0; k < t.elements(); ++k) v[static_cast<size_t>(k)] = of[t.bits(k)];
  return v;
}

// The bf16 magnitudes of an op's domain: log-uniform "wide" values up to
// 2^hi, "large" ones from 2^large_lo, and the largest of the specials.
// f16's are its own range (2^-24 .. 2^15.9, large from 2^4, 65504).
struct Bf16Range {
  double hi = 49, large_lo = 20;
  float extreme = 1e15f;  // Matmul's domain: float products and sums stay finite
};

// A half operand's values before rounding to the dtype t: `name` of the
// class, n values. Magnitudes stay where every f32 product and sum of the
// case is finite (bf16 within `bf16`'s range). "positive": uniform in
// [0.5, 1), every term of a sum of the same sign (its half roundings
// accumulate instead of cancelling).
inline std::vector<float> half_operand(Rng& rng, DType t, const std::string& name, int64_t n, Bf16Range bf16 = {}) {
  const bool f16 = t == DType::f16;
  std::vector<float> v(static_cast<size_t>(n));
  const auto sign = [&] { return rng.chance(0.5) ? -1.0 : 1.0; };
  if (name == "normal") return make_values(rng, ValueClass::normal, n);
  if (name == "positive") {
    for (float& e : v) e = static_cast<float>(rng.uniform(0.5, 1.0));
    return v;
  }
  if (name == "wide" || name == "large") {  // log-uniform magnitudes
    const double lo = name == "large" ? (f16 ? 4 : bf16.large_lo) : (f16 ? -24 : -133), hi = f16 ? 15.9 : bf16.hi;
    for (float& e : v) e = static_cast<float>(sign() * std::exp2(rng.uniform(lo, hi)));
    return v;
  }
  if (name == "subnormal") {  // the dtype's subnormals: m 2^-24 (f16), m 2^-133 (bf16)
    for (float& e : v)
      e = static_cast<float>(sign() * std::ldexp(double(rng.range(1, f16 ? 1023 : 127)), f16 ? -24 : -133));
    return v;
  }
  // specials: normal values with infinities, NaNs, zeros, the extremes mixed in
  v = make_values(rng, ValueClass::normal, n);
  const float extremes[] = {
      INFINITY, -INFINITY, NAN, 0.0f, -0.0f, f16 ? 65504.0f : bf16.extreme, f16 ? 0x1p-24f : 0x1p-133f};
  for (float& e : v)
    if (rng.chance(0.08)) e = rng.pick(extremes);
  return v;
}

inline std::vector<float> rounded(DType t, std::vector<float> v) {
  for (float& e : v) e = static_cast<float>(round_to(t, e));
  return v;
}

// The f16 or bf16 twin of an f32 op of tinyllm/linalg.h, before its own
// rule, cases and call: <Op>_f16, tl_<op>_f16, the sizes rule unchanged
// (4 bytes an element, as the f32 op's).
inline OpSpec half_twin_of(const OpSpec& f32, DType t) {
  const std::string dtype(dtype_name(t));
  OpSpec op = f32;
  op.name = f32.name + "_" + dtype;
  op.dtype = t;
  op.symbol = f32.symbol.substr(0, f32.symbol.size() - 3) + dtype;  // tl_fused_swiglu_f32 -> _f16
  for (auto& p : op.params)
    if (p.range.find(" * 4 bytes") != std::string::npos)
      p.range = p.range.substr(0, p.range.find(" * 4 bytes")) + " * 4 bytes (the f32 rule), within int64_t";
  return op;
}

}  // namespace konform::ops
