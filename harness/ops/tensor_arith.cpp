// Add, Sub, Mul, Div: y = a OP b with NumPy broadcasting (spec §1,
// tinyllm/tensor.h). One declaration per op, sharing the cases: the
// broadcast patterns of real models (same shape, a bias row, a per-row
// scale, a scalar, an outer product) at SIMD edges, random shapes of rank
// 0..6, every value class, and shapes that must be refused.
#include <array>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "half_support.hpp"
#include "konform/c_call.hpp"
#include "konform/values.hpp"
#include "konform/reference/tensor.hpp"
#include "tensor_support.hpp"
#include "tinyllm/tensor.h"

namespace konform::ops {

std::vector<OpSpec> tensor_arith();

namespace {

using namespace tensor;
using reference::Arith;

// The patterns walked first: [a shape, b shape] pairs, all valid.
std::vector<std::pair<Shape, Shape>> edge_pairs() {
  std::vector<std::pair<Shape, Shape>> out;
  for (int64_t n : edge_sizes()) out.push_back({{n}, {n}});  // same shape, every SIMD edge
  const int64_t widths[] = {1, 7, 16, 33, 4096};
  for (int64_t w : widths) {
    out.push_back({{3, w}, {w}});     // a bias row
    out.push_back({{w}, {2, w}});     // the row on the left
    out.push_back({{3, w}, {3, 1}});  // a per-row scale
    out.push_back({{w}, {}});         // a scalar
    out.push_back({{}, {w}});
  }
  out.push_back({{}, {}});
  out.push_back({{5, 1}, {1, 17}});                      // an outer product
  out.push_back({{2, 3, 1, 5}, {3, 7, 1}});              // both sides broadcast
  out.push_back({{2, 1, 3, 1, 2, 1}, {4, 1, 5, 1, 3}});  // rank 6
  out.push_back({{0}, {1}});                             // empty results
  out.push_back({{3, 0}, {1}});
  out.push_back({{0, 4}, {4}});
  return out;
}

// b's shape for a given a and result: a suffix of the result, each dimension
// kept or turned into 1.
Shape operand_of(Rng& rng, const Shape& y, int64_t rank, double ones) {
  Shape s(y.end() - rank, y.end());
  for (int64_t& d : s)
    if (rng.chance(ones)) d = 1;
  return s;
}

struct Shapes {
  Shape a, b, y;
};

Shapes random_shapes(Rng& rng) {
  Shapes s;
  const int64_t rank = random_rank(rng, 0);
  s.y = random_shape(rng, rank, 20000);
  // One operand has the result's rank (NumPy's output rank is the larger).
  const bool a_full = rng.chance(0.5);
  const int64_t other_rank = rng.range(0, rank);
  s.a = operand_of(rng, s.y, a_full ? rank : other_rank, rng.chance(0.4) ? 0.0 : 0.3);
  s.b = operand_of(rng, s.y, a_full ? other_rank : rank, rng.chance(0.4) ? 0.0 : 0.3);
  Shape y;
  reference::broadcast_shapes(s.a, s.b, &y);
  s.y = y;  // a dimension both sides turned into 1 is 1 in the result
  return s;
}

// Turns valid shapes into ones the kernel must refuse; returns the label.
std::string make_invalid(Rng& rng, Case& c, Shapes& s) {
  switch (rng.range(0, 4)) {
    case 0:  // a last dimension where a and b differ and neither is 1
      if (s.y.empty()) s.y = {3};
      s.a = s.y;
      s.a.back() = std::max<int64_t>(s.a.back(), 2);
      s.y = s.a;
      s.b = {s.a.back() + 1};
      return "bad: a " + reference::to_string(s.a) + " and b " + reference::to_string(s.b) + " do not broadcast";
    case 1: {  // the wrong output shape: one more leading 1, or a dimension off
      if (s.y.empty() || rng.chance(0.5)) s.y.insert(s.y.begin(), rng.chance(0.5) ? 1 : 2);
      else s.y.back() += 1;
      return "bad: y " + reference::to_string(s.y) + " is not the broadcast shape";
    }
    case 2: return "bad: a " + break_shape(rng, &s.a, 0);
    case 3: return "bad: y " + break_shape(rng, &s.y, 0);
    default:  // a NULL operand that has elements
      if (reference::element_count(s.b) == 0) {
        s.b = {1};
        reference::broadcast_shapes(s.a, s.b, &s.y);
      }
      c.params["null_b"] = 1;
      return "bad: b is NULL";
  }
}

// Values for one operand; for the second, now and then, values that cancel
// against the first where it is defined elementwise (x - x, x + -x, x / x).
std::vector<float> second_values(Rng& rng, Arith op, const Shapes& s, const std::vector<float>& a, std::string* label) {
  const int64_t n = reference::element_count(s.b);
  if (s.a == s.b && rng.chance(0.25)) {
    std::vector<float> b(a.size());
    const float sign = op == Arith::add ? -1.0f : 1.0f;  // the result is all cancellation
    for (size_t i = 0; i < a.size(); ++i)
      b[i] = sign * a[i] * (rng.chance(0.5) ? 1.0f : 1.0f + static_cast<float>(rng.range(-8, 8)) * 0x1p-20f);
    *label = "cancelling";
    return b;
  }
  if (op == Arith::div && rng.chance(0.2)) {  // division by signed zeros among numbers
    std::vector<float> b = make_values(rng, ValueClass::normal, n);
    for (float& v : b)
      if (rng.chance(0.3)) v = rng.chance(0.5) ? 0.0f : -0.0f;
    *label = "zeros among normals";
    return b;
  }
  return random_values(rng, n, label);
}

// One operand's tensor: f32, or the values rounded to f16 or bf16, now and
// then uniformly random bit patterns of the dtype instead.
Tensor operand(Rng& rng, DType t, const Shape& shape, const std::vector<float>& values, std::string* label) {
  if (t == DType::f32) return Tensor::of_f32(shape, values);
  if (rng.chance(0.2)) {
    *label = "random bits";
    Tensor bits = random_half_bits(rng, t, static_cast<int64_t>(values.size()));
    bits.shape = shape;
    return bits;
  }
  return Tensor::of_half(t, shape, values);
}

// Case 0 of the f16 and bf16 twins: every bit pattern of the dtype as a
// column [65536, 1] against a row [1, 32] of b: both signs of 16 exponents
// spread over the dtype's range (subnormals and the largest included), each
// with a random significand, and a zero and an infinity among them. Under
// --exhaustive a row [1, 512]: both signs of 256 exponents (f16's 31 each
// about 8 times, bf16's 255 each once), 2^25 results.
Case make_grid(Rng& rng, DType t) {
  const int64_t columns = exhaustive_grids() ? 512 : 32;
  const int exponent_bits = t == DType::f16 ? 5 : 8, mantissa_bits = t == DType::f16 ? 10 : 7;
  const int top = (1 << exponent_bits) - 2;  // the largest finite biased exponent
  std::vector<uint16_t> row;
  for (int k = 0; k < columns / 2; ++k) {
    const auto e = static_cast<uint32_t>(k * top / (columns / 2 - 1));  // 0 (subnormals) .. top
    const auto m = static_cast<uint32_t>(rng.range(0, (1 << mantissa_bits) - 1));
    for (const uint32_t sign : {0u, 1u}) row.push_back(static_cast<uint16_t>((sign << 15) | (e << mantissa_bits) | m));
  }
  row[0] = 0;                                                               // +0
  row[1] = static_cast<uint16_t>(((top + 1u) << mantissa_bits) | 0x8000u);  // -Inf
  Tensor b = Tensor::zeros(t, {1, columns});
  std::memcpy(b.bytes.data(), row.data(), 2 * row.size());
  Tensor a = every_half(t);
  a.shape = {kHalfPatterns, 1};
  Case c;
  set_shape(c, "a", {kHalfPatterns, 1});
  set_shape(c, "b", {1, columns});
  set_shape(c, "y", {kHalfPatterns, columns});
  c.args.push_back({"a", Access::in, std::move(a)});
  c.args.push_back({"b", Access::in, std::move(b)});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, {kHalfPatterns, columns}), Match::tolerance, ""});
  c.args.push_back(status_arg());
  c.label = "every " + std::string(dtype_name(t)) + " a x " + std::to_string(columns) + " b (both signs of " +
            std::to_string(columns / 2) + " exponents, +0, -Inf)";
  return c;
}

Case make(Rng& rng, int64_t index, Arith op, DType t) {
  static const auto edges = edge_pairs();
  if (t != DType::f32) {  // case 0 the grid, then the f32 op's cases
    if (index == 0) return make_grid(rng, t);
    --index;
  }
  Case c;
  Shapes s;
  if (index < static_cast<int64_t>(edges.size())) {
    s.a = edges[static_cast<size_t>(index)].first;
    s.b = edges[static_cast<size_t>(index)].second;
    reference::broadcast_shapes(s.a, s.b, &s.y);
  } else {
    s = random_shapes(rng);
  }
  std::string bad;
  if (index >= static_cast<int64_t>(edges.size()) && rng.chance(0.12)) bad = make_invalid(rng, c, s);

  const Shape ab = buffer_shape(s.a), bb = buffer_shape(s.b), yb = buffer_shape(s.y);
  std::string a_label, b_label;
  const std::vector<float> a = random_values(rng, reference::element_count(ab), &a_label);
  const std::vector<float> b = second_values(rng, op, {ab, bb, yb}, a, &b_label);
  std::string alias;
  if (bad.empty() && rng.chance(0.3)) {  // the in-place forms the header allows
    if (s.a == s.y) alias = "a";
    else if (s.b == s.y) alias = "b";
  }
  set_shape(c, "a", s.a);
  set_shape(c, "b", s.b);
  set_shape(c, "y", s.y);
  c.args.push_back({"a", Access::in, operand(rng, t, ab, a, &a_label)});
  c.args.push_back({"b", Access::in, operand(rng, t, bb, b, &b_label)});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, yb), Match::tolerance, alias});
  c.args.push_back(status_arg());
  c.label = "a=" + reference::to_string(s.a) + " b=" + reference::to_string(s.b) + " y=" + reference::to_string(s.y) +
            " a:" + a_label + " b:" + b_label + (alias.empty() ? "" : " y==" + alias) + (bad.empty() ? "" : " " + bad);
  return c;
}

Oracle oracle(Arith op, const Case& c) {
  const Shape as = get_shape(c, "a"), bs = get_shape(c, "b"), ys = get_shape(c, "y");
  // The check sees the pointers the kernel gets: b NULL in that case, the
  // rest real buffers (any non-NULL address will do).
  static const float somewhere[1] = {};
  const float* b = c.params.count("null_b") ? nullptr : somewhere;
  reference::BroadcastShapes s;
  const reference::Verdict v =
      reference::check_broadcast(somewhere, dims_or_null(as), int64_t(as.size()), b, dims_or_null(bs),
                                 int64_t(bs.size()), somewhere, dims_or_null(ys), int64_t(ys.size()), &s);
  if (!v.ok()) return {{"status", status_expected(v.status)}};
  Expected e;
  e.value.resize(static_cast<size_t>(reference::element_count(s.y)));
  const auto floats = [](const Tensor& x) {  // exact for f32 and the half dtypes
    std::vector<float> v(static_cast<size_t>(x.elements()));
    for (int64_t k = 0; k < x.elements(); ++k) v[static_cast<size_t>(k)] = static_cast<float>(x.at(k));
    return v;
  };
  const std::vector<float> a = floats(c.in("a")), bv = floats(c.in("b"));
  reference::broadcast_arith<double>(op, a.data(), s.a, bv.data(), s.b, e.value.data(), s.y);
  e.scale.resize(e.value.size());
  for (size_t k = 0; k < e.value.size(); ++k) e.scale[k] = std::fabs(e.value[k]);  // one rounding of the exact value
  return {{"y", e}, {"status", status_expected(TL_OK)}};
}

// In f16 and bf16 (`t`): the f32 op on the widened elements, rounded once:
// the f32 rule carried to the dtype (half_rule).
OpSpec declare(const char* name, const char* symbol, Arith op, const char* formula, const ToleranceRule& f32, DType t) {
  const bool half = t != DType::f32;
  const std::string dtype(dtype_name(t));
  OpSpec spec;
  spec.name = half ? std::string(name) + "_" + dtype : name;
  spec.dtype = t;
  spec.tolerances = {half ? half_rule(t, f32) : f32};
  spec.args = {{"a", Access::in, "T", "a.#[a.rank]"},
               {"b", Access::in, "T", "b.#[b.rank]"},
               {"y", Access::out, "T", "y.#[y.rank]", {Match::tolerance}, {"a", "b"}},
               status_output()};
  spec.group = "tensor";
  spec.symbol = half ? std::string(symbol).substr(0, std::string(symbol).size() - 3) + dtype : symbol;
  spec.summary = std::string(formula) +
                 " with NumPy broadcasting; the caller passes y's shape, which must be the "
                 "broadcast one; y == a or y == b when that operand has y's shape";
  if (half) spec.summary += "; " + dtype + " in and out, computed in f32";
  spec.spec = "operations.txt 1. Linear algebra: Add, Mul, Sub, Div";
  spec.params = {
      {"a.rank", ParamType::i64, "0 .. 6 (a's rank)"},
      {"a.#", ParamType::i64,
       "a's shape: a.0 .. a.{rank-1}, each >= 0, broadcast-compatible with b's (aligned right; equal or 1)"},
      {"b.rank", ParamType::i64, "0 .. 6 (b's rank)"},
      {"b.#", ParamType::i64, "b's shape: b.0 .. b.{rank-1}, each >= 0, broadcast-compatible with a's"},
      {"y.rank", ParamType::i64, "max(a.rank, b.rank) (y's rank)"},
      {"y.#", ParamType::i64, "y's shape: y.0 .. y.{rank-1}, exactly the broadcast shape of a and b"},
      {"null_b", ParamType::i64, "1 when b is passed as NULL (refused when b has elements); absent otherwise"}};
  spec.domain = std::string("every value class on both sides (Inf, NaN, signed zeros, subnormals)") +
                (op == Arith::div ? ", divisors of +-0 (IEEE: +-Inf, 0/0 = NaN)" : "") +
                ", cancelling operands; results beyond FLT_MAX must be the infinity; refused: shapes that do not "
                "broadcast, a wrong y shape, ranks over 6, negative dimensions, 2^62 elements, a NULL operand";
  spec.status = "status";
  spec.edge_cases = static_cast<int64_t>(edge_pairs().size()) + (half ? 1 : 0);
  if (half)
    spec.domain = "case 0: every " + dtype +
                  " value against 32 of b (both signs of 16 exponents across the range; 512 of " +
                  "b, 256 exponents, under --exhaustive); " + "then the f32 op's values rounded to " + dtype +
                  ", and random bit patterns; " + spec.domain;
  spec.make_case = [op, t](Rng& rng, int64_t i) { return make(rng, i, op, t); };
  // Add's signature, which Sub, Mul and Div share; b is NULL in the cases that pass null_b
  const std::array<const char*, 9> names = {"a",      "a.#[a.rank]", "a.rank",      "b?!null_b", "b.#[b.rank]",
                                            "b.rank", "y",           "y.#[y.rank]", "y.rank"};
  if (half) declare_c_call<decltype(tl_add_broadcast_f16)>(spec, names);  // bf16 alike
  else declare_c_call<decltype(tl_add_broadcast_f32)>(spec, names);
  spec.oracle = [op](const Case& c) { return oracle(op, c); };
  return spec;
}

}  // namespace

std::vector<OpSpec> tensor_arith() {
  const ToleranceRule add{DType::f32, "1", "-",
                          "one correctly rounded float addition of the two broadcast elements: |y - y*| <= u |y*| (a "
                          "subnormal result: half its spacing, 2^-150 = u FLT_MIN); the double oracle of two floats "
                          "is exact or off by < 2^-53 |y*| only where the float rounding has slack"};
  const ToleranceRule sub{DType::f32, "1", "-",
                          "one correctly rounded float subtraction, as Add: |y - y*| <= u |y*|; exact cancellation "
                          "gives +0 in both"};
  const ToleranceRule mul{DType::f32, "1", "-",
                          "one correctly rounded float product: the double oracle of two 24-bit significands is "
                          "exact, so |y - y*| <= u |y*|"};
  const ToleranceRule div{DType::f32, "1", "-",
                          "one correctly rounded float quotient: |y - q| <= u |q|; a float quotient is never a "
                          "rounding midpoint (it lies >= 2^-49 |q| away), which covers the double oracle's < 2^-53 "
                          "|q|"};
  std::vector<OpSpec> ops;
  for (DType t : {DType::f32, DType::f16, DType::bf16}) {
    ops.push_back(declare("Add", "tl_add_broadcast_f32", Arith::add, "y = a + b", add, t));
    ops.push_back(declare("Sub", "tl_sub_broadcast_f32", Arith::sub, "y = a - b", sub, t));
    ops.push_back(declare("Mul", "tl_mul_broadcast_f32", Arith::mul, "y = a * b", mul, t));
    ops.push_back(declare("Div", "tl_div_broadcast_f32", Arith::div, "y = a / b (IEEE)", div, t));
  }
  return ops;
}

}  // namespace konform::ops
