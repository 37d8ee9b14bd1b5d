// Logits in f16 and bf16 for the ops that pick an index from them (Argmax,
// the Sample methods): the values that only the half dtypes have, and the
// exact widening the oracles read them through.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "konform/dtype.hpp"
#include "konform/rng.hpp"
#include "konform/tensor.hpp"
#include "konform/values.hpp"

namespace konform::ops::half_logits {

// The classes of a half row:
//   rounded    N(0, s), s 0.3 .. 8, rounded to the dtype
//   ties       a band of 4 ulps rounded to the dtype: a handful of distinct
//              values, the largest repeated at many indices (lowest wins)
//   nan        rounded normals, a fifth of them NaN of random payloads and
//              signs (the canonical quiet NaN among them), one first
//   inf        rounded normals, -Inf masks, one or two +Inf (a tie) half the time
//   zeros      +0 and -0 (a tie: lowest index) among negative numbers
//   extremes   the largest finite values of both signs (f16's +-65504, bf16's
//              +-(2 - 2^-7) 2^127) and their neighbours, some repeated
//   subnormal  subnormal patterns of both signs (exact order among them)
//   negative   negative numbers only (their patterns order the other way)
//   bits       random bit patterns: every class at its frequency
enum Kind { kRounded, kTies, kNan, kInf, kZeros, kExtremes, kSubnormal, kNegative, kBits, kKinds };

inline const char* kind_name(int kind) {
  static const char* names[] = {"rounded N(0,s)",   "ties after rounding", "NaN payloads", "+-Inf",      "+0/-0",
                                "+-largest finite", "subnormals",          "negatives",    "random bits"};
  return kind >= 0 && kind < kKinds ? names[kind] : "?";
}

inline uint16_t exponent_mask(DType t) { return t == DType::f16 ? 0x7c00 : 0x7f80; }
inline uint16_t mantissa_mask(DType t) { return t == DType::f16 ? 0x03ff : 0x007f; }

// A NaN of a random payload and sign; a third of the time the canonical
// quiet NaN or the largest payload.
inline uint16_t nan_bits(DType t, Rng& rng) {
  const uint16_t sign = rng.chance(0.5) ? 0x8000 : 0, m = mantissa_mask(t);
  uint16_t payload = static_cast<uint16_t>(rng.range(1, m));
  if (rng.chance(0.33)) payload = rng.chance(0.5) ? static_cast<uint16_t>((m + 1) / 2) : m;
  return static_cast<uint16_t>(sign | exponent_mask(t) | payload);
}

// n patterns of class `kind`.
inline std::vector<uint16_t> row(DType t, Rng& rng, int64_t n, int kind) {
  const auto bits = [t](double v) { return half_bits(t, v); };
  std::vector<uint16_t> x(static_cast<size_t>(n));
  const double big = largest_finite(t);
  switch (kind) {
    case kTies: {
      const double base = rng.uniform(-6.0, 6.0), ulp = std::ldexp(unit_roundoff(t) * 2, std::ilogb(base));
      for (auto& e : x) e = bits(base + rng.uniform(0.0, 4.0) * ulp);
      break;
    }
    case kNan:
      for (auto& e : x) e = rng.chance(0.2) ? nan_bits(t, rng) : bits(rng.uniform(-3.0, 3.0));
      if (n > 0) x[0] = nan_bits(t, rng);
      break;
    case kInf: {
      for (auto& e : x) e = rng.chance(0.3) ? bits(-INFINITY) : bits(rng.uniform(-3.0, 3.0));
      if (rng.chance(0.5) && n > 0)
        for (int copies = static_cast<int>(rng.range(1, 2)); copies > 0; --copies)
          x[static_cast<size_t>(rng.range(0, n - 1))] = bits(INFINITY);
      break;
    }
    case kZeros:
      for (auto& e : x) e = rng.chance(0.7) ? (rng.chance(0.5) ? 0x8000 : 0x0000) : bits(-rng.uniform(1e-3, 4.0));
      break;
    case kExtremes: {
      const double below = big - std::ldexp(unit_roundoff(t) * 2, std::ilogb(big));
      const std::vector<double> ends = {big, -big, below, -below};
      for (auto& e : x) e = rng.chance(0.25) ? bits(rng.pick(ends)) : bits(rng.uniform(-1.0, 1.0) * big);
      break;
    }
    case kSubnormal:
      for (auto& e : x) e = static_cast<uint16_t>((rng.chance(0.5) ? 0x8000 : 0) | rng.range(0, mantissa_mask(t)));
      break;
    case kNegative:
      for (auto& e : x) e = bits(-std::ldexp(rng.uniform(1.0, 2.0), static_cast<int>(rng.range(-12, 12))));
      break;
    case kBits: {
      const Tensor r = random_half_bits(rng, t, n);
      for (int64_t k = 0; k < n; ++k) x[static_cast<size_t>(k)] = static_cast<uint16_t>(r.bits(k));
      break;
    }
    default: {
      const double s = rng.pick(std::vector<double>{0.3, 1.0, 2.0, 4.0, 8.0});
      const std::vector<float> v = make_values(rng, ValueClass::normal, n);
      for (size_t k = 0; k < x.size(); ++k) x[k] = bits(s * v[k]);
    }
  }
  return x;
}

// A tensor of dtype t holding the patterns.
inline Tensor tensor(DType t, std::vector<int64_t> shape, const std::vector<uint16_t>& bits) {
  Tensor x = Tensor::zeros(t, std::move(shape));
  if (!bits.empty()) std::memcpy(x.bytes.data(), bits.data(), 2 * std::min(bits.size(), x.bytes.size() / 2));
  return x;
}

// The tensor's values as floats: its own for f32, each f16 or bf16 widened
// exactly into `scratch` (every NaN payload a NaN).
inline const float* floats_of(const Tensor& x, std::vector<float>& scratch) {
  if (x.dtype == DType::f32) return x.f32();
  scratch.resize(static_cast<size_t>(x.elements()));
  for (int64_t k = 0; k < x.elements(); ++k) scratch[static_cast<size_t>(k)] = static_cast<float>(x.at(k));
  return scratch.data();
}

}  // namespace konform::ops::half_logits
