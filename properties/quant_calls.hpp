// The ops of tinyllm/quant.h called through a backend the way the sweep calls
// them, with plain vectors in and out, for quant_properties.cpp.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "konform/call.hpp"
#include "konform/op.hpp"
#include "ops/linalg_support.hpp"
#include "ops/quant_support.hpp"

namespace konform::calls::quant {

using Floats = std::vector<float>;
using Bytes = std::vector<uint8_t>;
using ops::qfmt::Format;
using ops::qfmt::info;

inline std::map<std::string, Tensor> run(const Backend& b, const std::string& name, Case c) {
  const OpSpec* op = find_op(name);
  if (op == nullptr) throw std::logic_error("no op " + name + " in the catalog");
  c.args.push_back(ops::linalg::status_arg());
  auto got = run_op(b, *op, c);
  const int32_t status = got.at("status").i32()[0];
  if (status != 0) throw std::runtime_error(name + " refused valid arguments: status " + std::to_string(status));
  return got;
}

// rows x k values into blocks.
inline Bytes quantize(const Backend& b, Format f, const Floats& x, int64_t rows, int64_t k) {
  Case c;
  c.params = {{"rows", double(rows)}, {"k", double(k)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({rows, k}, x)});
  c.args.push_back(
      {"blocks", Access::out, Tensor::zeros(DType::u8, {ops::qfmt::blocks_bytes(f, rows * k)}), Match::exact});
  const Tensor t = run(b, std::string("Quantize_") + info(f).name, c).at("blocks");
  return Bytes(t.u8(), t.u8() + t.elements());
}

inline Floats dequantize(const Backend& b, Format f, const Bytes& blocks, int64_t rows, int64_t k) {
  Case c;
  c.params = {{"rows", double(rows)}, {"k", double(k)}};
  c.args.push_back({"blocks", Access::in, Tensor::of_u8({static_cast<int64_t>(blocks.size())}, blocks)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {rows, k}), Match::exact});
  const Tensor t = run(b, std::string("Dequantize_") + info(f).name, c).at("y");
  return Floats(t.f32(), t.f32() + t.elements());
}

// y = x @ Dequantize(w)^T; x: [M, K], w: N rows of K / QK blocks.
inline Floats qmatmul(const Backend& b, Format f, const Floats& x, const Bytes& w, int64_t M, int64_t N, int64_t K) {
  Case c;
  c.params = {{"M", double(M)}, {"N", double(N)}, {"K", double(K)}, {"big", 0.0}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({M, K}, x)});
  c.args.push_back({"w", Access::in, Tensor::of_u8({static_cast<int64_t>(w.size())}, w)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {M, N})});
  const Tensor t = run(b, std::string("QMatmul_") + info(f).name, c).at("y");
  return Floats(t.f32(), t.f32() + t.elements());
}

}  // namespace konform::calls::quant
