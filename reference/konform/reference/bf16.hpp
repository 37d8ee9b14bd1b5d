// bfloat16 ("bf16", the top 16 bits of a binary32) <-> binary32 by bits.
// Float to bf16 rounds to nearest, ties to even (as PyTorch's and
// AVX512_BF16's conversions do, not by dropping the low half); a NaN stays
// a quiet NaN; bf16 to float is exact.
#pragma once

#include <cstdint>

#include "konform/reference/f16.hpp"

namespace konform::reference {

inline uint16_t f32_to_bf16(float f) {
  const uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // NaN, kept quiet
  return static_cast<uint16_t>(shift_right_rne(x & 0x7fffffffu, 16) | ((x >> 16) & 0x8000u));
}

inline float bf16_to_f32(uint16_t h) { return float_from_bits(static_cast<uint32_t>(h) << 16); }

}  // namespace konform::reference
