// Element types the harness moves around, and the unit roundoff of each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace konform {

// f16 and bf16 join here as kernels for them arrive; the comparator and the
// report already take the unit roundoff from the dtype. u8 is raw bytes: the
// blocks of the quantized formats (tinyllm/quant.h), compared exactly.
enum class DType { f32, i32, u8 };

constexpr std::string_view dtype_name(DType t) { return t == DType::f32 ? "f32" : t == DType::i32 ? "i32" : "u8"; }
constexpr size_t dtype_size(DType t) { return t == DType::u8 ? 1 : 4; }

// u = 2^-p for a p-bit significand: 2^-24 for f32 (2^-11 f16, 2^-8 bf16).
constexpr double unit_roundoff(DType t) { return t == DType::f32 ? 0x1p-24 : 0.0; }

bool parse_dtype(std::string_view s, DType* out);

}  // namespace konform
