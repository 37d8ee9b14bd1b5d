// IEEE binary16 ("f16") <-> binary32 by bits: the scales of the quantized
// formats. Float to f16 rounds to nearest, ties to even (as F16C's
// vcvtps2ph and ggml's conversion do); f16 to float is exact.
#pragma once

#include <cstdint>
#include <cstring>

namespace konform::reference {

inline uint32_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

inline float float_from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// m >> s rounded to nearest, ties to even (1 <= s <= 31).
inline uint32_t shift_right_rne(uint32_t m, unsigned s) {
  const uint32_t q = m >> s, rem = m & ((1u << s) - 1u), half = 1u << (s - 1);
  return q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u);
}

inline uint16_t f32_to_f16(float f) {
  const uint32_t x = float_bits(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) {  // Inf, or NaN kept quiet with the payload's top bits
    const uint32_t nan = ax > 0x7f800000u ? 0x200u | ((ax >> 13) & 0x3ffu) : 0u;
    return static_cast<uint16_t>(sign | 0x7c00u | nan);
  }
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520: rounds past 65504
  if (ax >= 0x38800000u) {  // a normal f16 (>= 2^-14): rebias the exponent, round 13 bits away
    const uint32_t rebiased = ax - (112u << 23);
    return static_cast<uint16_t>(sign | shift_right_rne(rebiased, 13));  // a carry moves into the exponent
  }
  // A subnormal f16: the value in units of 2^-24, rounded. Below 2^-25 it is 0.
  const uint32_t e = ax >> 23;
  if (e < 102) return sign;
  const uint32_t m = (ax & 0x7fffffu) | 0x800000u;  // value = m * 2^(e - 150)
  return static_cast<uint16_t>(sign | shift_right_rne(m, 126u - e));
}

inline float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f) return float_from_bits(sign | 0x7f800000u | (m << 13));
  if (e == 0) {  // zero or subnormal: m * 2^-24, exact in float
    const float v = static_cast<float>(m) * 0x1p-24f;
    return sign ? -v : v;
  }
  return float_from_bits(sign | ((e + 112u) << 23) | (m << 13));
}

}  // namespace konform::reference
