// The tensor ops called through a backend the way the sweep calls them
// (guarded buffers, poisoned outputs, a refused call checked to write
// nothing), with plain vectors in and out, so a property reads like the
// statement it makes. Cases are built with the declarations' own
// conventions (harness/ops/tensor_support.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "calls.hpp"
#include "konform/call.hpp"
#include "ops/tensor_support.hpp"
#include "tinyllm/status.h"

namespace konform::calls::tensor {

using Shape = std::vector<int64_t>;
using ops::tensor::set_shape;

using calls::op;

struct Result {
  int32_t status = 0;
  std::vector<float> y;
};

struct Parts {
  int32_t status = 0;
  std::vector<std::vector<float>> ys;
};

inline int64_t count(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// The status and, for a call that succeeded, y.
inline Result result(const Outcome& o) {
  Result r;
  r.status = o.status;
  if (r.status == TL_OK && o.out.count("y")) r.y = o.f32("y");
  return r;
}

// A shape as the parameters name.# and name.rank.
inline std::map<std::string, double> shape_params(std::map<std::string, double> params, const std::string& name,
                                                  const Shape& s) {
  Case c;
  c.params = std::move(params);
  set_shape(c, name, s);
  return c.params;
}

// Add, Sub, Mul, Div: `name` is the op; y's shape is given (the broadcast
// one for a valid call). alias: "", "a" or "b" (y shares that buffer).
inline Result broadcast(const Backend& b, const std::string& name, const std::vector<float>& a, const Shape& as,
                        const std::vector<float>& bv, const Shape& bs, const Shape& ys, const std::string& alias = "") {
  auto params = shape_params(shape_params(shape_params({}, "a", as), "b", bs), "y", ys);
  return result(call(b, name, {params, {{"a", flat(a)}, {"b", flat(bv)}}, {{"y", alias}}}));
}

inline Result clamp(const Backend& b, const std::vector<float>& x, float lo, float hi) {
  return result(
      call(b, "Clamp", {{{"n", double(x.size())}, {"lo", double(lo)}, {"hi", double(hi)}}, {{"x", flat(x)}}}));
}

inline Result nan_to_num(const Backend& b, const std::vector<float>& x, float nan, float posinf, float neginf) {
  return result(
      call(b, "NanToNum",
           {{{"n", double(x.size())}, {"nan", double(nan)}, {"posinf", double(posinf)}, {"neginf", double(neginf)}},
            {{"x", flat(x)}}}));
}

// Indices of shape `shape` without `axis` (axis already in [0, rank)).
inline std::vector<int32_t> argmax(const Backend& b, const std::vector<float>& x, const Shape& shape, int64_t axis,
                                   int32_t* status = nullptr) {
  Shape out = shape;
  out.erase(out.begin() + axis);
  CaseInputs in{shape_params({{"axis", double(axis)}}, "x", shape), {{"x", flat(x)}}};
  in.output_shapes["index"] = out;
  const Outcome o = call(b, "Argmax", in);
  if (status) *status = o.status;
  return o.i32("index");
}

inline Result transpose(const Backend& b, const std::vector<float>& x, const Shape& shape) {
  return result(call(b, "Transpose", {shape_params({}, "x", shape), {{"x", flat(x)}}}));
}

inline Result permute(const Backend& b, const std::vector<float>& x, const Shape& shape, const Shape& perm) {
  return result(call(b, "Permute", {shape_params(shape_params({}, "x", shape), "perm", perm), {{"x", flat(x)}}}));
}

inline Result reshape(const Backend& b, const std::vector<float>& x, const Shape& shape, const Shape& new_shape,
                      bool view) {
  return result(
      call(b, "Reshape",
           {shape_params(shape_params({}, "x", shape), "new", new_shape), {{"x", flat(x)}}, {{"y", view ? "x" : ""}}}));
}

inline Result concat(const Backend& b, const std::vector<std::vector<float>>& xs, const std::vector<Shape>& shapes,
                     int64_t axis) {
  const int64_t rank = static_cast<int64_t>(shapes[0].size());
  Shape out = shapes[0];
  out[static_cast<size_t>(axis)] = 0;
  for (const Shape& s : shapes) out[static_cast<size_t>(axis)] += s[static_cast<size_t>(axis)];
  CaseInputs in{{{"count", double(xs.size())}, {"rank", double(rank)}, {"axis", double(axis)}}};
  for (size_t k = 0; k < xs.size(); ++k) {
    in.params = shape_params(in.params, "x" + std::to_string(k), shapes[k]);
    in.inputs.push_back({"x" + std::to_string(k), Tensor::of_f32(shapes[k], xs[k])});
  }
  in.output_shapes["y"] = out;
  return result(call(b, "Concat", in));
}

// Split and Chunk: parts of the given lengths along `axis` (in [0, rank)).
inline Parts cut(const Backend& b, const std::string& name, const std::vector<float>& x, const Shape& shape,
                 int64_t axis, const Shape& lengths, std::map<std::string, double> params) {
  params["axis"] = static_cast<double>(axis);
  CaseInputs in{shape_params(std::move(params), "x", shape), {{"x", flat(x)}}};
  for (size_t k = 0; k < lengths.size(); ++k) {
    Shape part = shape;
    part[static_cast<size_t>(axis)] = lengths[k];
    in.output_shapes["y" + std::to_string(k)] = part;
  }
  const Outcome o = call(b, name, in);
  Parts p;
  p.status = o.status;
  for (size_t k = 0; k < lengths.size() && p.status == TL_OK; ++k) p.ys.push_back(o.f32("y" + std::to_string(k)));
  return p;
}

inline Parts split(const Backend& b, const std::vector<float>& x, const Shape& shape, int64_t axis,
                   const Shape& sizes) {
  return cut(b, "Split", x, shape, axis, sizes, shape_params({}, "sizes", sizes));
}

// The parts are given the lengths of `expected` (the caller's reading of
// the rule): a kernel that writes other lengths misses or overruns them.
inline Parts chunk(const Backend& b, const std::vector<float>& x, const Shape& shape, int64_t axis, int64_t chunks,
                   const Shape& expected) {
  return cut(b, "Chunk", x, shape, axis, expected, {{"chunks", static_cast<double>(chunks)}});
}

}  // namespace konform::calls::tensor
