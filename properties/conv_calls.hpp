// The ops of tinyllm/conv.h called through a backend the way the sweep calls
// them (guarded buffers, poisoned outputs, the catalog's argument names),
// with plain vectors in and out, for conv_properties.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calls.hpp"
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
  g.bias = !bias.empty();
  CaseInputs in;
  Case params;
  ops::convs::write_params(g, params);
  in.params = params.params;
  in.inputs = {{"x", flat(x)}};
  if (kind != Kind::pool) in.inputs.push_back({"w", flat(w)});
  if (g.bias) in.inputs.push_back({"bias", flat(bias)});
  // y's size from the geometry, as the generator makes it (the oracle would compute the whole conv to tell)
  in.output_shapes["y"] = ops::convs::tensor_shape(g.B, g.C_out, g.nd, ops::convs::shape_of(kind, g).out);
  return call_valid(b, name, in).f32("y");
}

}  // namespace konform::calls::conv
