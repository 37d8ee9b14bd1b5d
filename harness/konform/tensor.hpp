// A host tensor: dtype, shape and contiguous row-major bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "konform/dtype.hpp"

namespace konform {

// The most elements a case's tensors may hold (256 MiB of f32): a reproducer
// past it is refused, and a case built from parameters that ask for more
// is not a test case either.
inline constexpr int64_t kMaxCaseElements = int64_t{1} << 26;

struct Tensor {
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  static Tensor zeros(DType dtype, std::vector<int64_t> shape);
  static Tensor of_f32(std::vector<int64_t> shape, const std::vector<float>& values);
  // f16 or bf16: each value rounded to the dtype (to nearest, ties to even).
  static Tensor of_half(DType dtype, std::vector<int64_t> shape, const std::vector<float>& values);
  static Tensor of_i32(std::vector<int64_t> shape, const std::vector<int32_t>& values);
  static Tensor of_u8(std::vector<int64_t> shape, const std::vector<uint8_t>& values);

  int64_t elements() const;
  size_t size_bytes() const { return bytes.size(); }
  float* f32() { return reinterpret_cast<float*>(bytes.data()); }
  const float* f32() const { return reinterpret_cast<const float*>(bytes.data()); }
  int32_t* i32() { return reinterpret_cast<int32_t*>(bytes.data()); }
  const int32_t* i32() const { return reinterpret_cast<const int32_t*>(bytes.data()); }
  uint8_t* u8() { return bytes.data(); }
  const uint8_t* u8() const { return bytes.data(); }
  // Element k as a double, whatever the dtype.
  double at(int64_t k) const;
  // The bits of element k (a 4-byte element's word, a 2-byte one's half
  // word, or a byte).
  uint32_t bits(int64_t k) const {
    if (dtype == DType::u8) return bytes[static_cast<size_t>(k)];
    if (dtype_size(dtype) == 2) {
      uint16_t h;
      std::memcpy(&h, bytes.data() + 2 * k, 2);
      return h;
    }
    uint32_t b;
    std::memcpy(&b, bytes.data() + 4 * k, 4);
    return b;
  }
};

// "[3, 4097]"
std::string shape_string(const std::vector<int64_t>& shape);
// Flat index -> "[r, c]" within shape.
std::string index_string(const std::vector<int64_t>& shape, int64_t flat);

}  // namespace konform
