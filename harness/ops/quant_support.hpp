// What the declarations of the quantized ops share (quant.cpp, qmatmul.cpp):
// the three formats, random well-formed blocks, and values to quantize by
// class, in and just outside what a block's f16 scale can hold.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "konform/reference/f16.hpp"
#include "konform/reference/quant.hpp"
#include "konform/values.hpp"
#include "linalg_support.hpp"

namespace konform::ops::qfmt {

using reference::quant::Format;

struct FormatInfo {
  Format format;
  const char* name;   // Q8_0
  const char* lower;  // q8_0, as in the C symbols
  int64_t values, bytes;
};

inline const FormatInfo& info(Format f) {
  static const FormatInfo q8{Format::q8_0, "Q8_0", "q8_0", 32, 34};
  static const FormatInfo q4{Format::q4_0, "Q4_0", "q4_0", 32, 18};
  static const FormatInfo qk{Format::q4_k, "Q4_K", "q4_k", 256, 144};
  return f == Format::q8_0 ? q8 : f == Format::q4_0 ? q4 : qk;
}

inline int64_t blocks_bytes(Format f, int64_t values) { return values / info(f).values * info(f).bytes; }
// The declared shape of `count` values as blocks of f (ArgSpec::shape): "rows * k / 32 * 18".
inline std::string blocks_shape(Format f, const std::string& count) {
  return count + " / " + std::to_string(info(f).values) + " * " + std::to_string(info(f).bytes);
}

// An f16 scale: finite, with an exponent field in [lo, hi] (1..30 normal, 0
// subnormal), either sign.
inline uint16_t random_f16(Rng& rng, int lo, int hi) {
  const uint16_t e = static_cast<uint16_t>(rng.range(lo, hi));
  const uint16_t m = static_cast<uint16_t>(rng.range(0, 1023));
  return static_cast<uint16_t>((rng.chance(0.5) ? 0x8000u : 0u) | (e << 10) | m);
}

// n_blocks well-formed blocks: finite f16 scales (sometimes subnormal),
// random quants. Q4_K's dmin is non-negative as a quantizer writes it, but
// any bytes are valid blocks and are decoded the same way.
inline std::vector<uint8_t> random_blocks(Rng& rng, Format f, int64_t n_blocks) {
  const FormatInfo& fi = info(f);
  std::vector<uint8_t> b(static_cast<size_t>(n_blocks * fi.bytes));
  for (auto& v : b) v = static_cast<uint8_t>(rng.next() & 0xff);
  for (int64_t i = 0; i < n_blocks; ++i) {
    uint8_t* block = b.data() + i * fi.bytes;
    const bool sub = rng.chance(0.05);
    reference::quant::store_u16(block, random_f16(rng, sub ? 0 : 5, sub ? 0 : 20));
    if (f == Format::q4_k) reference::quant::store_u16(block + 2, random_f16(rng, sub ? 0 : 5, sub ? 0 : 20) & 0x7fff);
  }
  return b;
}

// The largest |x| whose block scale still fits f16 (Q8_0: 127 * 65504, Q4_0:
// 8 * 65504); Q4_K's fitted scales are about range / 15 / 63 each: a range
// of 6e7 is past 65504. Values to quantize stay below a tenth of it unless a
// case means to overflow.
inline double scale_limit(Format f) {
  return f == Format::q8_0 ? 127.0 * 65504 : f == Format::q4_0 ? 8.0 * 65504 : 6e7;
}

}  // namespace konform::ops::qfmt
