// Element types the harness moves around, and the arithmetic facts of each
// floating-point one: its unit roundoff, its smallest normal and largest
// finite value, and rounding a double to it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace konform {

// u8 is raw bytes: the blocks of the quantized formats (tinyllm/quant.h),
// compared exactly. f16 (IEEE binary16) and bf16 (bfloat16) are stored as
// their 16 bits, as the C headers pass them (uint16_t).
enum class DType { f32, i32, u8, f16, bf16 };

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::i32: return "i32";
    case DType::u8: return "u8";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
  }
  return "?";
}
constexpr size_t dtype_size(DType t) { return t == DType::u8 ? 1 : t == DType::f16 || t == DType::bf16 ? 2 : 4; }
constexpr bool is_float(DType t) { return t == DType::f32 || t == DType::f16 || t == DType::bf16; }

// u = 2^-p for a p-bit significand: 2^-24 for f32, 2^-11 f16, 2^-8 bf16.
constexpr double unit_roundoff(DType t) {
  return t == DType::f32 ? 0x1p-24 : t == DType::f16 ? 0x1p-11 : t == DType::bf16 ? 0x1p-8 : 0.0;
}
// The smallest positive normal: 2^-126 (f32, bf16), 2^-14 (f16).
constexpr double smallest_normal(DType t) { return t == DType::f16 ? 0x1p-14 : 0x1p-126; }
// The largest finite value: 65504 (f16), (2 - 2^-7) 2^127 (bf16), FLT_MAX.
constexpr double largest_finite(DType t) {
  return t == DType::f16 ? 65504.0 : t == DType::bf16 ? 0x1.fep127 : 0x1.fffffep127;
}

// v rounded to the float dtype t, to nearest with ties to even, subnormals
// kept, past the largest finite value by half an ulp or more an infinity;
// NaN stays NaN. Exact from a double (no double rounding through float).
double round_to(DType t, double v);

// The 16 bits of v rounded to f16 or bf16 (round_to), a NaN as the quiet
// NaN of its sign; and the value of such bits, exactly.
uint16_t half_bits(DType t, double v);
double half_value(DType t, uint16_t bits);

bool parse_dtype(std::string_view s, DType* out);

}  // namespace konform
