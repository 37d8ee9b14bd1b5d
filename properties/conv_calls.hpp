// The ops of tinyllm/conv.h called through a backend the way the sweep calls
// them (guarded buffers, poisoned outputs, the catalog's argument names),
// with plain vectors in and out, for conv_properties.cpp.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "konform/call.hpp"
#include "konform/op.hpp"
#include "ops/conv_support.hpp"

namespace konform::calls::conv {

using Floats = std::vector<float>;
using ops::convs::Geometry;
using ops::convs::Kind;

// Runs op `name` (of `kind`) on geometry g; bias empty means NULL, w unused
// by Pool. A status other than TL_OK is a property failure (these calls are
// valid). Returns y.
inline Floats run(const Backend& b, const char* name, Kind kind, Geometry g, const Floats& x, const Floats& w = {},
                  const Floats& bias = {}) {
  const OpSpec* op = find_op(name);
  if (op == nullptr) throw std::logic_error(std::string("no op ") + name + " in the catalog");
  g.bias = !bias.empty();
  Case c;
  ops::convs::write_params(g, c);
  const auto s = ops::convs::shape_of(kind, g);
  using ops::convs::tensor_shape;
  c.args.push_back({"x", Access::in, Tensor::of_f32(tensor_shape(g.B, g.C_in, g.nd, g.in), x)});
  if (kind != Kind::pool) {
    const auto ws = kind == Kind::transpose ? tensor_shape(g.C_in, g.C_out / g.groups, g.nd, g.k)
                                            : tensor_shape(g.C_out, g.C_in / g.groups, g.nd, g.k);
    c.args.push_back({"w", Access::in, Tensor::of_f32(ws, w)});
    if (g.bias) c.args.push_back({"bias", Access::in, Tensor::of_f32({g.C_out}, bias)});
  }
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, tensor_shape(g.B, g.C_out, g.nd, s.out))});
  c.args.push_back(ops::linalg::status_arg());
  const auto got = run_op(b, *op, c);
  const int32_t status = got.at("status").i32()[0];
  if (status != 0)
    throw std::runtime_error(std::string(name) + " refused valid arguments: status " + std::to_string(status));
  const Tensor& t = got.at("y");
  return Floats(t.f32(), t.f32() + t.elements());
}

}  // namespace konform::calls::conv
