#include "konform/values.hpp"

#include <cfloat>
#include <cmath>
#include <cstring>
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
  const float options[] = {inf,
                           -inf,
                           std::numeric_limits<float>::quiet_NaN(),
                           -std::numeric_limits<float>::quiet_NaN(),
                           FLT_MAX,
                           -FLT_MAX,
                           0.0f,
                           -0.0f,
                           FLT_MIN,
                           std::numeric_limits<float>::denorm_min()};
  return rng.pick(options);
}

// One value of class c, drawn from the stream.
float class_value(Rng& rng, ValueClass c, double max_abs, int max_exp) {
  float v = 0;
  switch (c) {
    case ValueClass::normal: v = normal_value(rng); break;
    case ValueClass::wide:
      v = with_sign(rng, scaled(rng, static_cast<int>(rng.range(-40, std::min(40, max_exp)))));
      break;
    case ValueClass::tiny: v = with_sign(rng, scaled(rng, static_cast<int>(rng.range(-126, -110)))); break;
    case ValueClass::huge:
      v = with_sign(rng, scaled(rng, static_cast<int>(rng.range(std::min(100, max_exp - 10), max_exp))));
      break;
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
  return v;
}

bool in_magnitudes(float v, double lo, double hi) { return std::fabs(v) >= lo && std::fabs(v) < hi; }

// Whether v is a value class_value could have made: the test a fuzzer's raw
// bits must pass to be used as they are, so fuzzing stays in the op's domain.
bool in_class(float v, ValueClass c, double max_abs, int max_exp) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  // Irwin-Hall stays inside 2 sqrt(3); below 2^-20 a row's mean square could leave the normal floats.
  const auto normal_member = [&] { return in_magnitudes(v, 0x1p-20, 3.4641016151377544); };
  switch (c) {
    case ValueClass::normal: return normal_member();
    case ValueClass::wide: return in_magnitudes(v, 0x1p-40, std::ldexp(1.0, std::min(40, max_exp) + 1));
    case ValueClass::tiny: return in_magnitudes(v, 0x1p-126, 0x1p-109);
    case ValueClass::huge:
      return in_magnitudes(v, std::ldexp(1.0, std::min(100, max_exp - 10)), std::ldexp(1.0, max_exp + 1)) &&
             std::fabs(v) <= max_abs;
    case ValueClass::zeros: return v == 0.0f;
    case ValueClass::subnormal: return v != 0.0f && std::fabs(v) < FLT_MIN;
    case ValueClass::specials: {
      const float extreme = std::fabs(FLT_MAX) > max_abs ? static_cast<float>(max_abs) : FLT_MAX;
      const uint32_t exact[] = {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u,
                                0x00000000u, 0x80000000u, 0x00800000u, 0x00000001u};
      for (uint32_t e : exact)
        if (bits == e) return true;
      return v == extreme || v == -extreme || normal_member();
    }
    case ValueClass::ties: return v == std::trunc(v) && std::fabs(v) <= 2.0f && bits != 0x80000000u;
  }
  return false;
}

}  // namespace

void fill_values(Rng& rng, ValueClass c, float* out, int64_t n, double max_abs) {
  const int max_exp = std::ilogb(max_abs) - 1;  // keeps 2^e * [1,2) below max_abs
  for (int64_t i = 0; i < n; ++i) {
    if (rng.reads_bytes()) {
      // A fuzzer's 4 bytes are the value itself when they are one of this
      // class (a dictionary's NaN or FLT_MAX lands as it is); other bits
      // seed a value of the class, so every input stays in the domain.
      const uint32_t bits = rng.raw32();
      float v;
      std::memcpy(&v, &bits, 4);
      if (!in_class(v, c, max_abs, max_exp)) {
        Rng derived(bits * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(c));
        v = class_value(derived, c, max_abs, max_exp);
      }
      out[i] = v;
    } else if (rng.records()) {
      out[i] = rng.off_tape([&](Rng& r) { return class_value(r, c, max_abs, max_exp); });
      uint32_t bits;
      std::memcpy(&bits, &out[i], 4);
      rng.record32(bits);
    } else {
      out[i] = class_value(rng, c, max_abs, max_exp);
    }
  }
}

std::vector<float> make_values(Rng& rng, ValueClass c, int64_t n, double max_abs) {
  std::vector<float> v(static_cast<size_t>(n));
  fill_values(rng, c, v.data(), n, max_abs);
  return v;
}

const std::vector<int64_t>& edge_sizes() {
  static const std::vector<int64_t> sizes = {1,  2,  3,  4,  5,  7,  8,   9,   15,  16,  17,   23,  31,
                                             32, 33, 47, 63, 64, 65, 127, 128, 129, 251, 4096, 4097};
  return sizes;
}

Tensor every_half(DType t) {
  Tensor x = Tensor::zeros(t, {kHalfPatterns});
  for (int64_t k = 0; k < kHalfPatterns; ++k) {
    const auto bits = static_cast<uint16_t>(k);
    std::memcpy(x.bytes.data() + 2 * k, &bits, 2);
  }
  return x;
}

Tensor random_half_bits(Rng& rng, DType t, int64_t n) {
  Tensor x = Tensor::zeros(t, {n});
  for (int64_t k = 0; k < n; ++k) {
    const auto bits = static_cast<uint16_t>(rng.range(0, kHalfPatterns - 1));
    std::memcpy(x.bytes.data() + 2 * k, &bits, 2);
  }
  return x;
}

namespace {
bool g_exhaustive_grids = false;
}  // namespace

void set_exhaustive_grids(bool on) { g_exhaustive_grids = on; }
bool exhaustive_grids() { return g_exhaustive_grids; }

}  // namespace konform
