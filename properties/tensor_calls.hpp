// The tensor ops called through a backend the way the sweep calls them
// (guarded buffers, poisoned outputs, a refused call checked to write
// nothing), with plain vectors in and out, so a property reads like the
// statement it makes. Cases are built with the declarations' own
// conventions (harness/ops/tensor_support.hpp).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "konform/call.hpp"
#include "konform/op.hpp"
#include "ops/tensor_support.hpp"
#include "tinyllm/status.h"

namespace konform::calls::tensor {

using Shape = std::vector<int64_t>;
using ops::tensor::set_shape;

struct Result {
  int32_t status = 0;
  std::vector<float> y;
};

struct Parts {
  int32_t status = 0;
  std::vector<std::vector<float>> ys;
};

inline const OpSpec& op(const std::string& name) {
  const OpSpec* o = find_op(name);
  if (o == nullptr) throw std::logic_error("no op " + name + " in the catalog");
  return *o;
}

inline int64_t count(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

inline std::vector<float> floats(const Tensor& t) { return {t.f32(), t.f32() + t.elements()}; }

inline Result run(const Backend& b, const std::string& name, const Case& c) {
  const auto out = run_op(b, op(name), c);
  Result r;
  r.status = out.at("status").i32()[0];
  if (r.status == TL_OK && out.count("y")) r.y = floats(out.at("y"));
  return r;
}

inline Arg status_arg() { return ops::tensor::status_arg(); }

// Add, Sub, Mul, Div: `name` is the op; y's shape is given (the broadcast
// one for a valid call). alias: "", "a" or "b" (y shares that buffer).
inline Result broadcast(const Backend& b, const std::string& name, const std::vector<float>& a, const Shape& as,
                        const std::vector<float>& bv, const Shape& bs, const Shape& ys, const std::string& alias = "") {
  Case c;
  set_shape(c, "a", as);
  set_shape(c, "b", bs);
  set_shape(c, "y", ys);
  c.args.push_back({"a", Access::in, Tensor::of_f32(as, a)});
  c.args.push_back({"b", Access::in, Tensor::of_f32(bs, bv)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, ys), Match::tolerance, alias});
  c.args.push_back(status_arg());
  return run(b, name, c);
}

inline Result clamp(const Backend& b, const std::vector<float>& x, float lo, float hi) {
  const int64_t n = static_cast<int64_t>(x.size());
  Case c;
  c.params = {{"n", double(n)}, {"lo", double(lo)}, {"hi", double(hi)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({n}, x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {n}), Match::exact});
  c.args.push_back(status_arg());
  return run(b, "Clamp", c);
}

inline Result nan_to_num(const Backend& b, const std::vector<float>& x, float nan, float posinf, float neginf) {
  const int64_t n = static_cast<int64_t>(x.size());
  Case c;
  c.params = {{"n", double(n)}, {"nan", double(nan)}, {"posinf", double(posinf)}, {"neginf", double(neginf)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({n}, x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {n}), Match::exact});
  c.args.push_back(status_arg());
  return run(b, "NanToNum", c);
}

// Indices of shape `shape` without `axis` (axis already in [0, rank)).
inline std::vector<int32_t> argmax(const Backend& b, const std::vector<float>& x, const Shape& shape, int64_t axis,
                                   int32_t* status = nullptr) {
  Shape out = shape;
  out.erase(out.begin() + axis);
  Case c;
  set_shape(c, "x", shape);
  c.params["axis"] = static_cast<double>(axis);
  c.args.push_back({"x", Access::in, Tensor::of_f32(shape, x)});
  c.args.push_back({"index", Access::out, Tensor::zeros(DType::i32, out), Match::exact});
  c.args.push_back(status_arg());
  const auto r = run_op(b, op("Argmax"), c);
  if (status) *status = r.at("status").i32()[0];
  const Tensor& t = r.at("index");
  return {t.i32(), t.i32() + t.elements()};
}

inline Result transpose(const Backend& b, const std::vector<float>& x, const Shape& shape) {
  Shape ys = shape;
  std::swap(ys[ys.size() - 1], ys[ys.size() - 2]);
  Case c;
  set_shape(c, "x", shape);
  c.args.push_back({"x", Access::in, Tensor::of_f32(shape, x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, ys), Match::exact});
  c.args.push_back(status_arg());
  return run(b, "Transpose", c);
}

inline Result permute(const Backend& b, const std::vector<float>& x, const Shape& shape, const Shape& perm) {
  Shape ys(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) ys[i] = shape[static_cast<size_t>(perm[i])];
  Case c;
  set_shape(c, "x", shape);
  set_shape(c, "perm", perm);
  c.args.push_back({"x", Access::in, Tensor::of_f32(shape, x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, ys), Match::exact});
  c.args.push_back(status_arg());
  return run(b, "Permute", c);
}

inline Result reshape(const Backend& b, const std::vector<float>& x, const Shape& shape, const Shape& new_shape,
                      bool view) {
  Case c;
  set_shape(c, "x", shape);
  set_shape(c, "new", new_shape);
  c.args.push_back({"x", Access::in, Tensor::of_f32(shape, x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, new_shape), Match::exact, view ? "x" : ""});
  c.args.push_back(status_arg());
  return run(b, "Reshape", c);
}

inline Result concat(const Backend& b, const std::vector<std::vector<float>>& xs, const std::vector<Shape>& shapes,
                     int64_t axis) {
  const int64_t rank = static_cast<int64_t>(shapes[0].size());
  Shape out = shapes[0];
  out[static_cast<size_t>(axis)] = 0;
  for (const Shape& s : shapes) out[static_cast<size_t>(axis)] += s[static_cast<size_t>(axis)];
  Case c;
  c.params = {{"count", double(xs.size())}, {"rank", double(rank)}, {"axis", double(axis)}};
  for (size_t k = 0; k < xs.size(); ++k) {
    set_shape(c, "x" + std::to_string(k), shapes[k]);
    c.args.push_back({"x" + std::to_string(k), Access::in, Tensor::of_f32(shapes[k], xs[k])});
  }
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, out), Match::exact});
  c.args.push_back(status_arg());
  return run(b, "Concat", c);
}

// Split and Chunk: parts of the given lengths along `axis` (in [0, rank)).
inline Parts cut(const Backend& b, const std::string& name, const std::vector<float>& x, const Shape& shape,
                 int64_t axis, const Shape& lengths, Case c) {
  set_shape(c, "x", shape);
  c.params["axis"] = static_cast<double>(axis);
  c.args.push_back({"x", Access::in, Tensor::of_f32(shape, x)});
  for (size_t k = 0; k < lengths.size(); ++k) {
    Shape part = shape;
    part[static_cast<size_t>(axis)] = lengths[k];
    c.args.push_back({"y" + std::to_string(k), Access::out, Tensor::zeros(DType::f32, part), Match::exact});
  }
  c.args.push_back(status_arg());
  const auto out = run_op(b, op(name), c);
  Parts p;
  p.status = out.at("status").i32()[0];
  for (size_t k = 0; k < lengths.size() && p.status == TL_OK; ++k)
    p.ys.push_back(floats(out.at("y" + std::to_string(k))));
  return p;
}

inline Parts split(const Backend& b, const std::vector<float>& x, const Shape& shape, int64_t axis,
                   const Shape& sizes) {
  Case c;
  set_shape(c, "sizes", sizes);
  return cut(b, "Split", x, shape, axis, sizes, c);
}

// The parts are given the lengths of `expected` (the caller's reading of
// the rule): a kernel that writes other lengths misses or overruns them.
inline Parts chunk(const Backend& b, const std::vector<float>& x, const Shape& shape, int64_t axis, int64_t chunks,
                   const Shape& expected) {
  Case c;
  c.params["chunks"] = static_cast<double>(chunks);
  return cut(b, "Chunk", x, shape, axis, expected, c);
}

}  // namespace konform::calls::tensor
