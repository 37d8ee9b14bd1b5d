// bfloat16 <-> float for the half kernels, on the host and on a device
// (KONFORM_HD). Written independently of the oracle's conversion
// (reference/konform/reference/bf16.hpp): the carry of a rounding bias here,
// a shift of the magnitude there.
#pragma once

#include <cstdint>

#include "impl/common/f16.hpp"

namespace konform::impl::bf16 {

// Round to nearest, ties to even: adding 0x7fff plus the lowest kept bit
// carries into the kept half exactly when the dropped half is above one
// half, or equal to it with the kept half odd. A carry out of the largest
// finite value gives the infinity. NaN: the top half with the quiet bit set
// (the addition could carry a NaN into an infinity).
KONFORM_HD inline uint16_t F32ToBF16(float f) {
  const uint32_t b = f16::BitsOf(f);
  if ((b & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((b >> 16) | 0x40u);
  return static_cast<uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

KONFORM_HD inline float BF16ToF32(uint16_t h) { return f16::FloatOf(static_cast<uint32_t>(h) << 16); }

}  // namespace konform::impl::bf16
