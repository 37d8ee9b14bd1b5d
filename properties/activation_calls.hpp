// The ops of tinyllm/activations.h called through a backend the way the sweep
// calls them (guarded buffers, poisoned outputs, the catalog's argument
// names), with plain vectors in and out, for activations_properties.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calls.hpp"
#include "tinyllm/activations.h"
#include "tinyllm/status.h"

namespace konform::calls::act {

using Floats = std::vector<float>;
using Shape = std::vector<int64_t>;
using calls::exports;
using calls::op;

// Silu, Gelu_erf, Gelu_tanh, Relu, Sigmoid, Tanh (and LeakyRelu with alpha).
inline Floats unary(const Backend& b, const std::string& name, const Floats& x, bool in_place = false,
                    float alpha = 0.0f) {
  CaseInputs in{{{"n", double(x.size())}}, {{"x", flat(x)}}, {{"y", in_place ? "x" : ""}}};
  if (name == "LeakyRelu") in.params["alpha"] = double(alpha);
  return call(b, name, in).f32("y");
}

inline Floats leaky_relu(const Backend& b, const Floats& x, float alpha, bool in_place = false) {
  return unary(b, "LeakyRelu", x, in_place, alpha);
}

inline Floats prelu(const Backend& b, const Floats& x, const Floats& slope, int64_t outer, int64_t channels,
                    int64_t inner, bool in_place = false) {
  return call(b, "PRelu",
              {{{"outer", double(outer)}, {"channels", double(channels)}, {"inner", double(inner)}},
               {{"x", flat(x)}, {"slope", flat(slope)}},
               {{"y", in_place ? "x" : ""}}})
      .f32("y");
}

// A validating call's status and, when it is TL_OK, its output.
struct Result {
  int32_t status = 0;
  Floats y;
};

inline Result result(const Outcome& o) { return {o.status, o.status == TL_OK ? o.f32("y") : Floats{}}; }

// Softmax of x with the shape, rank and axis handed to the kernel as given
// (d0 .. d4, 0 past the shape); y is x's size.
inline Result softmax(const Backend& b, const Floats& x, const Shape& shape, int64_t rank, int64_t axis,
                      bool in_place = false) {
  CaseInputs in{{{"rank", double(rank)}, {"axis", double(axis)}}, {{"x", flat(x)}}, {{"y", in_place ? "x" : ""}}};
  for (int k = 0; k < 5; ++k)
    in.params["d" + std::to_string(k)] =
        k < static_cast<int>(shape.size()) ? double(shape[static_cast<size_t>(k)]) : 0.0;
  in.output_shapes["y"] = {static_cast<int64_t>(x.size())};
  return result(call(b, "Softmax", in));
}

// SwiGlu, Glu, or GeGlu with `approximation`; alias "", "gate" or "up".
inline Result gated(const Backend& b, const std::string& name, const Floats& gate, const Floats& up,
                    const std::string& alias = "", int approximation = 0) {
  CaseInputs in{{{"n", double(gate.size())}}, {{"gate", flat(gate)}, {"up", flat(up)}}, {{"y", alias}}};
  if (name == "GeGlu") in.params["approximation"] = double(approximation);
  return result(call(b, name, in));
}

}  // namespace konform::calls::act
