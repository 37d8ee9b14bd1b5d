#include "konform/tensor.hpp"

#include <sstream>
#include <stdexcept>

#include "konform/case.hpp"
#include "konform/op.hpp"
#include "konform/rng.hpp"

namespace konform {

Tensor Tensor::zeros(DType dtype, std::vector<int64_t> shape) {
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.bytes.assign(static_cast<size_t>(t.elements()) * dtype_size(dtype), 0);
  return t;
}

Tensor Tensor::of_f32(std::vector<int64_t> shape, const std::vector<float>& values) {
  Tensor t;
  t.shape = std::move(shape);
  if (static_cast<int64_t>(values.size()) != t.elements())
    throw std::logic_error("Tensor::of_f32: " + std::to_string(values.size()) + " values for shape " +
                           shape_string(t.shape));
  // Copied once, not zeroed first: some inputs are hundreds of MB.
  const auto* bytes = reinterpret_cast<const uint8_t*>(values.data());
  t.bytes.assign(bytes, bytes + values.size() * sizeof(float));
  return t;
}

Tensor Tensor::of_half(DType dtype, std::vector<int64_t> shape, const std::vector<float>& values) {
  Tensor t = zeros(dtype, std::move(shape));
  if (static_cast<int64_t>(values.size()) != t.elements())
    throw std::logic_error("Tensor::of_half: " + std::to_string(values.size()) + " values for shape " +
                           shape_string(t.shape));
  for (size_t k = 0; k < values.size(); ++k) {
    const uint16_t h = half_bits(dtype, values[k]);
    std::memcpy(t.bytes.data() + 2 * k, &h, 2);
  }
  return t;
}

Tensor Tensor::of_i32(std::vector<int64_t> shape, const std::vector<int32_t>& values) {
  Tensor t = zeros(DType::i32, std::move(shape));
  if (static_cast<int64_t>(values.size()) != t.elements())
    throw std::logic_error("Tensor::of_i32: " + std::to_string(values.size()) + " values for shape " +
                           shape_string(t.shape));
  if (!t.bytes.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

Tensor Tensor::of_u8(std::vector<int64_t> shape, const std::vector<uint8_t>& values) {
  Tensor t = zeros(DType::u8, std::move(shape));
  if (static_cast<int64_t>(values.size()) != t.elements())
    throw std::logic_error("Tensor::of_u8: " + std::to_string(values.size()) + " values for shape " +
                           shape_string(t.shape));
  t.bytes = values;
  return t;
}

int64_t Tensor::elements() const {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

double Tensor::at(int64_t k) const {
  switch (dtype) {
    case DType::f32: return f32()[k];
    case DType::i32: return i32()[k];
    case DType::u8: return u8()[k];
    case DType::f16:
    case DType::bf16: return half_value(dtype, static_cast<uint16_t>(bits(k)));
  }
  return 0;
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::ostringstream s;
  s << '[';
  for (size_t i = 0; i < shape.size(); ++i) s << (i ? ", " : "") << shape[i];
  s << ']';
  return s.str();
}

std::string index_string(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    const int64_t extent = shape[i] > 0 ? shape[i] : 1;
    idx[i] = flat % extent;
    flat /= extent;
  }
  return shape_string(idx);
}

const Arg& Case::arg(const std::string& name) const {
  for (const Arg& a : args)
    if (a.name == name) return a;
  throw std::logic_error("case has no argument '" + name + "'");
}
Arg& Case::arg(const std::string& name) { return const_cast<Arg&>(static_cast<const Case&>(*this).arg(name)); }
double Case::param(const std::string& name) const {
  auto it = params.find(name);
  if (it == params.end()) throw std::logic_error("case has no parameter '" + name + "'");
  return it->second;
}

void* Pointers::get(const std::string& name) const {
  auto it = ptr_.find(name);
  if (it == ptr_.end()) throw std::logic_error("no buffer for argument '" + name + "'");
  return it->second;
}

uint64_t case_seed(uint64_t run_seed, std::string_view op, int64_t index) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a of the op name
  for (char c : op) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  Rng mix(run_seed ^ h ^ (static_cast<uint64_t>(index) * 0x9E3779B97F4A7C15ull));
  return mix.next();
}

}  // namespace konform
