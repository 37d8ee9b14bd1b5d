// The ops of tinyllm/quant.h called through a backend the way the sweep calls
// them, with plain vectors in and out, for quant_properties.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calls.hpp"
#include "ops/quant_support.hpp"

namespace konform::calls::quant {

using Floats = std::vector<float>;
using Bytes = std::vector<uint8_t>;
using ops::qfmt::Format;
using ops::qfmt::info;

// rows x k values into blocks.
inline Bytes quantize(const Backend& b, Format f, const Floats& x, int64_t rows, int64_t k) {
  return call_valid(b, std::string("Quantize_") + info(f).name,
                    {{{"rows", double(rows)}, {"k", double(k)}}, {{"x", flat(x)}}})
      .u8("blocks");
}

inline Floats dequantize(const Backend& b, Format f, const Bytes& blocks, int64_t rows, int64_t k) {
  return call_valid(b, std::string("Dequantize_") + info(f).name,
                    {{{"rows", double(rows)}, {"k", double(k)}}, {{"blocks", flat(blocks)}}})
      .f32("y");
}

// y = x @ Dequantize(w)^T; x: [M, K], w: N rows of K / QK blocks.
inline Floats qmatmul(const Backend& b, Format f, const Floats& x, const Bytes& w, int64_t M, int64_t N, int64_t K) {
  return call_valid(
             b, std::string("QMatmul_") + info(f).name,
             {{{"M", double(M)}, {"N", double(N)}, {"K", double(K)}, {"big", 0.0}}, {{"x", flat(x)}, {"w", flat(w)}}})
      .f32("y");
}

// The q8x matmul (x quantized to Q8 per block): the same shapes.
inline Floats qmatmul_q8x(const Backend& b, Format f, const Floats& x, const Bytes& w, int64_t M, int64_t N,
                          int64_t K) {
  return call_valid(b, std::string("QMatmulQ8x_") + info(f).name,
                    {{{"M", double(M)}, {"N", double(N)}, {"K", double(K)}}, {{"x", flat(x)}, {"w", flat(w)}}})
      .f32("y");
}

}  // namespace konform::calls::quant
