// The ops of tinyllm/norm.h called through a backend the way the sweep calls
// them (guarded buffers, poisoned outputs, the catalog's argument names), with
// plain vectors in and out, for norm_properties.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "calls.hpp"
#include "konform/judge.hpp"
#include "konform/tolerance.hpp"
#include "konform/op.hpp"
#include "ops/norm_support.hpp"

namespace konform::calls::norm {

using Floats = std::vector<float>;
using Shape = std::vector<int64_t>;

// What a validating call returned: its status and its outputs by name.
struct Result {
  int32_t status = 0;
  std::map<std::string, Floats> out;
  Oracle want;       // the catalog's oracle of the call (values and scales)
  double limit = 0;  // the op's default-profile limit for this call (case_limit)
  const Floats& operator[](const std::string& name) const { return out.at(name); }
};

// `inputs` by name, the outputs that alias one (name, alias_of); every
// tensor takes its declared shape (a bad shape still gets buffers, of its
// non-negative dims: declared_case).
inline Result run(const Backend& b, const char* op_name, const Shape& shape, float eps,
                  std::vector<std::pair<std::string, InputTensor>> inputs,
                  const std::vector<std::pair<std::string, std::string>>& outputs,
                  std::optional<int64_t> groups = std::nullopt) {
  Case params;
  ops::norm::set_shape(params, shape);
  CaseInputs in{params.params, std::move(inputs)};
  in.params["eps"] = static_cast<double>(eps);
  if (groups) in.params["groups"] = static_cast<double>(*groups);
  for (const auto& [name, alias] : outputs) in.aliases[name] = alias;
  const Outcome got = call(b, op_name, std::move(in));
  const OpSpec& op = calls::op(op_name);
  Result r;
  r.status = got.status;
  r.want = op.oracle(got.c);
  r.limit = case_limit(op, got.c, ToleranceTable::builtin().find(op.name, op.dtype));
  for (const auto& [name, alias] : outputs) r.out[name] = got.f32(name);
  return r;
}

inline Tensor f32(const Shape& shape, const Floats& v) { return Tensor::of_f32(shape, v); }
inline int64_t count(const Shape& shape) { return ops::norm::product(shape, 0, shape.size()); }

inline Result rms_norm(const Backend& b, const Floats& x, const Floats& g, const Shape& shape, float eps,
                       bool in_place = false) {
  return run(b, "RmsNorm", shape, eps, {{"x", f32(shape, x)}, {"g", f32({shape.back()}, g)}},
             {{"y", in_place ? "x" : ""}});
}

inline Result layer_norm(const Backend& b, const Floats& x, const Floats& g, const Floats& bias, const Shape& shape,
                         float eps, bool in_place = false) {
  const Shape d = {shape.back()};
  return run(b, "LayerNorm", shape, eps, {{"x", f32(shape, x)}, {"g", f32(d, g)}, {"b", f32(d, bias)}},
             {{"y", in_place ? "x" : ""}});
}

inline Result batch_norm(const Backend& b, const Floats& x, const Floats& mean, const Floats& var, const Floats& g,
                         const Floats& bias, const Shape& shape, float eps, bool in_place = false) {
  const Shape c = {shape[1]};
  return run(
      b, "BatchNorm", shape, eps,
      {{"x", f32(shape, x)}, {"mean", f32(c, mean)}, {"var", f32(c, var)}, {"g", f32(c, g)}, {"b", f32(c, bias)}},
      {{"y", in_place ? "x" : ""}});
}

inline Result group_norm(const Backend& b, const Floats& x, const Floats& g, const Floats& bias, const Shape& shape,
                         int64_t groups, float eps, bool in_place = false) {
  const Shape c = {shape.size() > 1 ? shape[1] : 1};
  return run(b, "GroupNorm", shape, eps, {{"x", f32(shape, x)}, {"g", f32(c, g)}, {"b", f32(c, bias)}},
             {{"y", in_place ? "x" : ""}}, groups);
}

inline Result instance_norm(const Backend& b, const Floats& x, const Floats& g, const Floats& bias, const Shape& shape,
                            float eps, bool in_place = false) {
  const Shape c = {shape[1]};
  return run(b, "InstanceNorm", shape, eps, {{"x", f32(shape, x)}, {"g", f32(c, g)}, {"b", f32(c, bias)}},
             {{"y", in_place ? "x" : ""}});
}

inline Result ada_ln(const Backend& b, const Floats& x, const Floats& scale, const Floats& shift, const Shape& shape,
                     float eps, bool in_place = false) {
  const Shape cond = {shape[0], shape.back()};
  return run(b, "AdaLN", shape, eps, {{"x", f32(shape, x)}, {"scale", f32(cond, scale)}, {"shift", f32(cond, shift)}},
             {{"y", in_place ? "x" : ""}});
}

inline Result ada_ln_zero(const Backend& b, const Floats& x, const Floats& r, const Floats& gate, const Floats& scale,
                          const Floats& shift, const Shape& shape, float eps, bool in_place = false) {
  const Shape cond = {shape[0], shape.back()};
  return run(b, "AdaLN_Zero", shape, eps,
             {{"x", f32(shape, x)},
              {"r", f32(shape, r)},
              {"gate", f32(cond, gate)},
              {"scale", f32(cond, scale)},
              {"shift", f32(cond, shift)}},
             {{"h", in_place ? "x" : ""}, {"y", ""}});
}

// alias: "" (separate), "x" or "skip": the buffer `sum` shares.
inline Result fused_skip_norm(const Backend& b, const Floats& x, const Floats& skip, const Floats& g,
                              const Shape& shape, float eps, const std::string& alias = "") {
  return run(b, "FusedSkipNorm", shape, eps,
             {{"x", f32(shape, x)}, {"skip", f32(shape, skip)}, {"g", f32({shape.back()}, g)}},
             {{"sum", alias}, {"y", ""}});
}

}  // namespace konform::calls::norm
