// The ops of tinyllm/activations.h called through a backend the way the sweep
// calls them (guarded buffers, poisoned outputs, the catalog's argument
// names), with plain vectors in and out, for activations_properties.cpp.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "konform/call.hpp"
#include "konform/op.hpp"
#include "ops/activation_support.hpp"
#include "tinyllm/activations.h"
#include "tinyllm/status.h"

namespace konform::calls::act {

using Floats = std::vector<float>;
using Shape = std::vector<int64_t>;

inline const OpSpec& op(const std::string& name) {
  const OpSpec* o = find_op(name);
  if (o == nullptr) throw std::logic_error("no op " + name + " in the catalog");
  return *o;
}

inline bool exports(const Backend& b, const std::string& name) { return b.symbol(op(name).symbol) != nullptr; }

inline Floats floats(const Tensor& t) { return Floats(t.f32(), t.f32() + t.elements()); }

// Silu, Gelu_erf, Gelu_tanh, Relu, Sigmoid, Tanh (and LeakyRelu with alpha).
inline Floats unary(const Backend& b, const std::string& name, const Floats& x, bool in_place = false,
                    float alpha = 0.0f) {
  const int64_t n = static_cast<int64_t>(x.size());
  Case c;
  c.params = {{"n", double(n)}};
  if (name == "LeakyRelu") c.params["alpha"] = double(alpha);
  c.args.push_back({"x", Access::in, Tensor::of_f32({n}, x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {n}), Match::tolerance, in_place ? "x" : ""});
  return floats(run_op(b, op(name), c).at("y"));
}

inline Floats leaky_relu(const Backend& b, const Floats& x, float alpha, bool in_place = false) {
  return unary(b, "LeakyRelu", x, in_place, alpha);
}

inline Floats prelu(const Backend& b, const Floats& x, const Floats& slope, int64_t outer, int64_t channels,
                    int64_t inner, bool in_place = false) {
  Case c;
  c.params = {{"outer", double(outer)}, {"channels", double(channels)}, {"inner", double(inner)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({outer, channels, inner}, x)});
  c.args.push_back({"slope", Access::in, Tensor::of_f32({channels}, slope)});
  c.args.push_back(
      {"y", Access::out, Tensor::zeros(DType::f32, {outer, channels, inner}), Match::tolerance, in_place ? "x" : ""});
  return floats(run_op(b, op("PRelu"), c).at("y"));
}

// A validating call's status and, when it is TL_OK, its output.
struct Result {
  int32_t status = 0;
  Floats y;
};

// Softmax of x (its buffer sized by `shape` when every dim is >= 0, else 16
// floats) with the shape, rank and axis handed to the kernel as given.
inline Result softmax(const Backend& b, const Floats& x, const Shape& shape, int64_t rank, int64_t axis,
                      bool in_place = false) {
  Case c;
  c.params = {{"rank", double(rank)}, {"axis", double(axis)}};
  for (int k = 0; k < 5; ++k)
    c.params["d" + std::to_string(k)] =
        k < static_cast<int>(shape.size()) ? double(shape[static_cast<size_t>(k)]) : 0.0;
  const Shape buffer = {static_cast<int64_t>(x.size())};
  c.args.push_back(ops::act::status_arg());
  c.args.push_back({"x", Access::in, Tensor::of_f32(buffer, x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, buffer), Match::tolerance, in_place ? "x" : ""});
  const auto out = run_op(b, op("Softmax"), c);
  Result r;
  r.status = out.at("status").i32()[0];
  if (r.status == TL_OK) r.y = floats(out.at("y"));
  return r;
}

// SwiGlu, Glu, or GeGlu with `approximation`; alias "", "gate" or "up".
inline Result gated(const Backend& b, const std::string& name, const Floats& gate, const Floats& up,
                    const std::string& alias = "", int approximation = 0) {
  const int64_t n = static_cast<int64_t>(gate.size());
  Case c;
  c.params = {{"n", double(n)}};
  const bool validates = name == "GeGlu";
  if (validates) {
    c.params["approximation"] = double(approximation);
    c.args.push_back(ops::act::status_arg());
  }
  c.args.push_back({"gate", Access::in, Tensor::of_f32({n}, gate)});
  c.args.push_back({"up", Access::in, Tensor::of_f32({n}, up)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {n}), Match::tolerance, alias});
  const auto out = run_op(b, op(name), c);
  Result r;
  if (validates) r.status = out.at("status").i32()[0];
  if (r.status == TL_OK) r.y = floats(out.at("y"));
  return r;
}

}  // namespace konform::calls::act
