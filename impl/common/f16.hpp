// IEEE binary16 <-> float for the block scales of the quantized formats, one
// value at a time (a scale per 32 or 256 values), for the simd and CUDA
// kernels (KONFORM_HD). Written independently of the oracle's bit-shifting
// conversion (reference/konform/reference/f16.hpp): here the FPU does the
// rounding, so a bug in one is not shared by the other.
#pragma once

#include <string.h>  // memcpy: the same name on the host and on a device

#include <cstdint>

#include "impl/common/host_device.hpp"

namespace konform::impl::f16 {

// The bits of a float, and a float of given bits (memcpy: defined behaviour,
// a register move on the host and on a device).
template <class To, class From>
KONFORM_HD inline To BitCast(From from) {
  static_assert(sizeof(To) == sizeof(From), "a bit cast keeps the size");
  To to;
  memcpy(&to, &from, sizeof(To));
  return to;
}
KONFORM_HD inline uint32_t BitsOf(float f) { return BitCast<uint32_t>(f); }
KONFORM_HD inline float FloatOf(uint32_t b) { return BitCast<float>(b); }

// Round to nearest, ties to even. Adding then subtracting c = 2^(e + 13), for
// |x| in [2^e, 2^(e+1)), leaves x rounded to a multiple of 2^(e - 10): the 11
// significant bits of an f16. Below 2^-14 the step is the f16 subnormal
// spacing 2^-24, so c = 2^-1. (|f| and the NaN test by bits: the same on the
// host and on a device.)
KONFORM_HD inline uint16_t F32ToF16(float f) {
  const uint16_t sign = static_cast<uint16_t>((BitsOf(f) >> 16) & 0x8000u);
  const float a = FloatOf(BitsOf(f) & 0x7fffffffu);
  if (BitsOf(a) > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((BitsOf(a) >> 13) & 0x3ffu));  // NaN
  if (a >= 65520.0f) return static_cast<uint16_t>(sign | 0x7c00u);  // Inf, or rounds past 65504
  const int e = a >= 0x1p-14f ? static_cast<int>((BitsOf(a) >> 23) & 0xffu) - 127 : -15;
  const float c = e >= -14 ? FloatOf(static_cast<uint32_t>(e + 13 + 127) << 23) : 0.5f;
  const float r = (a + c) - c;  // exact subtraction: a + c and c are within a factor 2
  if (r < 0x1p-14f) return static_cast<uint16_t>(sign | static_cast<uint16_t>(r * 0x1p24f));  // subnormal or 0
  const uint32_t b = BitsOf(r);
  const uint32_t exp16 = ((b >> 23) & 0xffu) - 112u, mant16 = (b >> 13) & 0x3ffu;
  return static_cast<uint16_t>(sign | (exp16 << 10) | mant16);
}

// Exact: the f16 bits moved into a float's place, then scaled by 2^112 to
// rebias the exponent (which also normalizes f16 subnormals); Inf and NaN
// keep an all-ones exponent.
KONFORM_HD inline float F16ToF32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t rest = static_cast<uint32_t>(h & 0x7fffu) << 13;
  if ((h & 0x7c00u) == 0x7c00u) return FloatOf(sign | 0x7f800000u | rest);
  return FloatOf(sign | BitsOf(FloatOf(rest) * 0x1p112f));
}

// The little-endian f16 at p, and storing one there.
KONFORM_HD inline uint16_t LoadF16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
KONFORM_HD inline void StoreF16(uint8_t* p, uint16_t h) {
  p[0] = static_cast<uint8_t>(h & 0xffu);
  p[1] = static_cast<uint8_t>(h >> 8);
}

}  // namespace konform::impl::f16
