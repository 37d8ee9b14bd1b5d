// The norms over the last dimension of x[..., D]: RmsNorm, LayerNorm (spec §2)
// and FusedSkipNorm (spec §10).
#include <cmath>
#include <string>

#include "konform/c_call.hpp"
#include "konform/op.hpp"
#include "half_support.hpp"
#include "konform/reference/norm.hpp"
#include "konform/values.hpp"
#include "norm_support.hpp"
#include "tinyllm/norm.h"

namespace konform::ops {

std::vector<OpSpec> norm_rows();

namespace {

using namespace norm;

// The shape of a case: D from the edge widths first, then at random, and a
// few leading dimensions (an empty batch now and then).
std::vector<int64_t> make_shape(Rng& rng, int64_t index, int64_t edges) {
  const auto& widths = edge_widths();
  const int64_t d =
      index < edges ? widths[static_cast<size_t>(index)] : (rng.chance(0.4) ? rng.pick(widths) : rng.range(1, 300));
  std::vector<int64_t> shape = leading_dims(rng, d > 1024 ? 2 : 6);
  if (index >= edges && rng.chance(0.03)) shape.insert(shape.begin(), 0);
  shape.push_back(d);
  return shape;
}

// Finishes a case: the shape parameters, and one bad argument in about one
// case out of ten past the edge cases.
void finish(Rng& rng, Case& c, int64_t index, int64_t edges, const std::vector<int64_t>& shape, float eps) {
  c.params["eps"] = static_cast<double>(eps);
  set_shape(c, shape);
  c.label = "shape " + shape_string(shape) + " " + c.label + " eps=" + std::to_string(eps);
  c.args.push_back(status_arg());
  if (index >= edges && rng.chance(0.1)) c.label += " " + make_invalid(rng, c, Layout::rows);
}

tl_status call_status(const Case& c) {
  return expected_status(Layout::rows, shape_of(c), static_cast<float>(c.param("eps")));
}

// The parameters every op here declares: x's shape [..., D] and eps.
std::vector<ParamSpec> shape_params() {
  return {{"ndim", ParamType::i32, "1 .. 8 (TL_NORM_MAX_DIMS): the number of s#"},
          {"s#", ParamType::i64,
           "the shape [..., D]: s0 .. s{ndim-1}, each >= 0, the non-zero ones' product <= INT64_MAX / 4; "
           "D = s{ndim-1} >= 1 (0: TL_ERR_SHAPE)"},
          {"eps", ParamType::f32, "finite, >= 0"}};
}

// ---------------------------------------------------------------- RmsNorm

Case make_rms(Rng& rng, int64_t index, int64_t edges) {
  const auto shape = make_shape(rng, index, edges);
  const int64_t d = shape.back(), n = product(shape, 0, shape.size());
  Row x = make_row(rng, n);
  const float eps = pick_eps(rng, x.eps_zero_ok);
  const bool in_place = rng.chance(0.3);
  Case c;
  c.label = "x=" + x.label + (in_place ? " y==x" : "");
  c.args.push_back({"x", Access::in, Tensor::of_f32(shape, x.values)});
  c.args.push_back({"g", Access::in, Tensor::of_f32({d}, make_gain(rng, d))});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, shape), Match::tolerance, in_place ? "x" : ""});
  finish(rng, c, index, edges, shape, eps);
  return c;
}

// A case of RmsNorm's (g) or LayerNorm's (`layer`: g and b) f16 or bf16
// twin.
Case make_norm_half(DType t, bool layer, Rng& rng, int64_t index, int64_t edges) {
  const auto shape = make_shape(rng, index, edges);
  const int64_t d = shape.back();
  HalfRows x = half_rows(t, rng, shape, d, layer);
  const float eps = pick_eps(rng, x.eps_zero_ok);
  const bool in_place = rng.chance(0.3);
  Case c;
  c.label = "x=" + x.label + (in_place ? " y==x" : "");
  c.args.push_back({"x", Access::in, std::move(x.x)});
  c.args.push_back({"g", Access::in, Tensor::of_f32({d}, make_gain(rng, d))});
  if (layer) c.args.push_back({"b", Access::in, Tensor::of_f32({d}, make_values(rng, ValueClass::normal, d))});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, shape), Match::tolerance, in_place ? "x" : ""});
  finish(rng, c, index, edges, shape, eps);
  return c;
}

Oracle rms_oracle(const Case& c) {
  if (tl_status st = call_status(c)) return {{"status", status_expected(st)}};
  const auto& shape = c.in("x").shape;
  const int64_t d = shape.back(), rows = product(shape, 0, shape.size() - 1);
  Expected y;
  y.value.resize(static_cast<size_t>(rows * d));
  const std::vector<float> x = floats_of(c.in("x"));
  reference::rms_norm<double>(x.data(), c.in("g").f32(), y.value.data(), rows, d, static_cast<float>(c.param("eps")));
  // x_i * inv * g_i: its own magnitude; the shared inv carries the row's sum.
  for (double v : y.value) y.scale.push_back(std::fabs(v));
  return {{"status", status_expected(TL_OK)}, {"y", y}};
}

// In f16 and bf16: x and y of the dtype, g f32 (models keep norm weights in
// f32), the f32 computation rounded once (half_rule).
OpSpec rms_norm(DType t) {
  const bool half = t != DType::f32;
  const std::string dtype(dtype_name(t));
  OpSpec op;
  op.name = half ? "RmsNorm_" + dtype : "RmsNorm";
  op.dtype = t;
  op.args = {{"x", Access::in, "T", "s#[ndim]"},
             {"g", Access::in, half ? "f32" : "T", "s(ndim - 1)"},
             {"y", Access::out, "T", "s#[ndim]", {Match::tolerance}, {"x"}},
             status_output()};
  const ToleranceRule f32{DType::f32, "16", "1e-6",
                          "sum of squares pairwise (scalar: <= 7 + log2(D/8) = 18 u for D <= 16384) or blocked (simd:"
                          " ~5 u), halved by the root; root and reciprocal <= 2 u; two products 1 u each: <= 13 u of "
                          "|y|; the spec's 1e-6 = 16.8 u is the ceiling; pairwise-accurate sums are a contract "
                          "requirement, a left-to-right float sum is not enough (docs/tolerances.md)"};
  // The spec's F16 figure, 1e-3, is a ceiling for f16 (about 2 u); it names none for bf16.
  op.tolerances = {half ? half_rule(t, f32, t == DType::f16 ? "1e-3" : "-") : f32};
  op.group = "norm";
  op.symbol = "tl_rms_norm_" + dtype;
  op.summary = "y = x / sqrt(mean(x^2) + eps) * g over the last dim of x[..., D]; y == x allowed; validates";
  if (half) op.summary += "; x and y " + dtype + ", g f32, the sum of squares in f32";
  op.spec = "operations.txt 2. Normalization: RmsNorm";
  op.params = shape_params();
  op.domain =
      "|x| <= 1e15 (float sums of squares stay finite); eps = 0 only for rows whose mean square is a "
      "normal float; one case in ten past the edges has one bad argument, which must be refused";
  if (half)
    op.domain = "the f32 op's rows rounded to " + dtype + (t == DType::f16 ? " (folded below 2^15)" : std::string()) +
                ", and rows of |x| from 256 up (" + (t == DType::f16 ? "65504" : "2^40") +
                "), whose squares overflow f16; " + op.domain.substr(op.domain.find("eps = 0"));
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_widths().size());
  if (half)
    op.make_case = [t, edges = op.edge_cases](Rng& rng, int64_t i) { return make_norm_half(t, false, rng, i, edges); };
  else op.make_case = [edges = op.edge_cases](Rng& rng, int64_t i) { return make_rms(rng, i, edges); };
  if (half) declare_c_call<decltype(tl_rms_norm_f16)>(op, {"x", "g", "y", "s#[ndim]", "ndim", "eps"});  // bf16 alike
  else declare_c_call<decltype(tl_rms_norm_f32)>(op, {"x", "g", "y", "s#[ndim]", "ndim", "eps"});
  op.oracle = rms_oracle;
  return op;
}

// ---------------------------------------------------------------- LayerNorm

Case make_layer(Rng& rng, int64_t index, int64_t edges) {
  const auto shape = make_shape(rng, index, edges);
  const int64_t d = shape.back(), n = product(shape, 0, shape.size());
  Row x = make_row(rng, n);
  const float eps = pick_eps(rng, x.eps_zero_ok && d >= 2);
  const bool in_place = rng.chance(0.3);
  Case c;
  c.label = "x=" + x.label + (in_place ? " y==x" : "");
  c.args.push_back({"x", Access::in, Tensor::of_f32(shape, x.values)});
  c.args.push_back({"g", Access::in, Tensor::of_f32({d}, make_gain(rng, d))});
  c.args.push_back({"b", Access::in, Tensor::of_f32({d}, make_values(rng, ValueClass::normal, d))});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, shape), Match::tolerance, in_place ? "x" : ""});
  finish(rng, c, index, edges, shape, eps);
  return c;
}

Oracle layer_oracle(const Case& c) {
  if (tl_status st = call_status(c)) return {{"status", status_expected(st)}};
  const auto& shape = c.in("x").shape;
  const int64_t d = shape.back(), rows = product(shape, 0, shape.size() - 1);
  const float eps = static_cast<float>(c.param("eps"));
  const std::vector<float> xs = floats_of(c.in("x"));
  const float *x = xs.data(), *g = c.in("g").f32(), *b = c.in("b").f32();
  Expected y;
  y.value.resize(static_cast<size_t>(rows * d));
  reference::layer_norm<double>(x, g, b, y.value.data(), rows, d, eps);
  for (int64_t r = 0; r < rows; ++r) {
    const RangeStats s = range_stats(x + r * d, d, eps);
    for (int64_t i = 0; i < d; ++i) y.scale.push_back(centred_scale(x[r * d + i], s, std::fabs(g[i]), std::fabs(b[i])));
  }
  return {{"status", status_expected(TL_OK)}, {"y", y}};
}

// In f16 and bf16: x and y of the dtype, g and b f32, the f32 computation
// rounded once (half_rule).
OpSpec layer_norm(DType t) {
  const bool half = t != DType::f32;
  const std::string dtype(dtype_name(t));
  OpSpec op;
  op.name = half ? "LayerNorm_" + dtype : "LayerNorm";
  op.dtype = t;
  op.args = {{"x", Access::in, "T", "s#[ndim]"},
             {"g", Access::in, half ? "f32" : "T", "s(ndim - 1)"},
             {"b", Access::in, half ? "f32" : "T", "s(ndim - 1)"},
             {"y", Access::out, "T", "s#[ndim]", {Match::tolerance}, {"x"}},
             status_output()};
  const ToleranceRule f32{DType::f32, "19+1n; strict 20", "-",
                          "two-pass over the row's n = D terms; the mean's sum plus its division reaches x - mean "
                          "whole, the variance's sum (squares, condition 1) is halved by the root; centring, root, "
                          "reciprocal and gain product <= 7 u, the bias 1 u of |y|. Any order (default): the mean <= "
                          "n u of the scale's g mean|x| / std term, the centred term <= (n - 1)/2 + 7 u: <= n + 1 u; "
                          "19 + n also covers the strict bound for n >= 1. Strict: sums pairwise-accurate (<= 18 u "
                          "for D <= 16384): the mean's <= 19 u, the centred term <= 16 u: 20"};
  op.tolerances = {half ? half_rule(t, f32) : f32};
  op.sum_length = row_length;
  op.group = "norm";
  op.symbol = "tl_layer_norm_" + dtype;
  op.summary =
      "y = (x - mean) / sqrt(var + eps) * g + b over the last dim of x[..., D], two-pass; y == x allowed; "
      "validates";
  if (half) op.summary += "; x and y " + dtype + ", g and b f32, both passes in f32";
  op.spec = "operations.txt 2. Normalization: LayerNorm";
  op.params = shape_params();
  op.domain =
      "|x| <= 1e15; rows far from zero (|mean| / std up to 2^14) among the value classes; eps = 0 only for "
      "rows of two or more normal or wide values; one case in ten past the edges has one bad argument";
  if (half)
    op.domain = "the f32 op's rows rounded to " + dtype + (t == DType::f16 ? " (folded below 2^15)" : std::string()) +
                ", and rows of |x| from 256 up (" + (t == DType::f16 ? "65504" : "2^40") +
                "); eps = 0 only where every row's variance is a normal float; one case in ten past the edges "
                "has one bad argument";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_widths().size());
  if (half)
    op.make_case = [t, edges = op.edge_cases](Rng& rng, int64_t i) { return make_norm_half(t, true, rng, i, edges); };
  else op.make_case = [edges = op.edge_cases](Rng& rng, int64_t i) { return make_layer(rng, i, edges); };
  if (half) declare_c_call<decltype(tl_layer_norm_f16)>(op, {"x", "g", "b", "y", "s#[ndim]", "ndim", "eps"});
  else declare_c_call<decltype(tl_layer_norm_f32)>(op, {"x", "g", "b", "y", "s#[ndim]", "ndim", "eps"});
  op.oracle = layer_oracle;
  return op;
}

// ---------------------------------------------------------------- FusedSkipNorm

// In f16 and bf16 x from the half rows, skip folded and rounded to the
// dtype, the near-cancelling skip -x(1 + d) with d in steps of the dtype's
// spacing.
Case make_skip(DType t, Rng& rng, int64_t index, int64_t edges) {
  const auto shape = make_shape(rng, index, edges);
  const int64_t d = shape.back(), n = product(shape, 0, shape.size());
  HalfRows x;
  if (t == DType::f32) {
    Row row = make_row(rng, n);
    x = {Tensor::of_f32(shape, row.values), row.label, row.eps_zero_ok};
  } else {
    x = half_rows(t, rng, shape, d, false);
  }
  const std::vector<float> xv = floats_of(x.x);
  // skip never holds NaN, so the sum's NaN is x's, whichever operand order a
  // kernel adds in; a quarter of the cases cancel x almost exactly.
  std::vector<float> skip;
  const bool cancel = rng.chance(0.25);
  const float step = t == DType::f32 ? 0x1p-20f : t == DType::f16 ? 0x1p-10f : 0x1p-7f;
  if (cancel) {
    skip.resize(xv.size());
    for (size_t i = 0; i < skip.size(); ++i)
      skip[i] = std::isfinite(xv[i]) ? -xv[i] * (1.0f + static_cast<float>(rng.range(-8, 8)) * step) : 1.0f;
  } else {
    const ValueClass classes[] = {ValueClass::normal, ValueClass::wide,      ValueClass::tiny,
                                  ValueClass::zeros,  ValueClass::subnormal, ValueClass::ties};
    skip = make_values(rng, rng.pick(classes), n, kMaxAbs);
  }
  fold_for(t, skip);
  const float eps = pick_eps(rng, x.eps_zero_ok && !cancel);
  const int alias = static_cast<int>(rng.range(0, 3));  // 0: sum == x, 1: sum == skip, else separate
  Case c;
  c.label = "x=" + x.label + (cancel ? " skip=-x(1+d)" : "") +
            (alias == 0   ? " sum==x"
             : alias == 1 ? " sum==skip"
                          : "");
  c.args.push_back({"x", Access::in, std::move(x.x)});
  c.args.push_back(
      {"skip", Access::in, t == DType::f32 ? Tensor::of_f32(shape, skip) : Tensor::of_half(t, shape, skip)});
  c.args.push_back({"g", Access::in, Tensor::of_f32({d}, make_gain(rng, d))});
  c.args.push_back({"sum", Access::out, Tensor::zeros(t, shape), Match::exact,
                    alias == 0   ? "x"
                    : alias == 1 ? "skip"
                                 : ""});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, shape)});
  finish(rng, c, index, edges, shape, eps);
  return c;
}

Oracle skip_oracle(const Case& c) {
  if (tl_status st = call_status(c)) return {{"status", status_expected(st)}};
  const auto& shape = c.in("x").shape;
  const DType t = c.in("x").dtype;
  const int64_t d = shape.back(), rows = product(shape, 0, shape.size() - 1);
  const std::vector<float> x = floats_of(c.in("x")), skip = floats_of(c.in("skip"));
  std::vector<float> sum(static_cast<size_t>(rows * d));
  for (size_t k = 0; k < sum.size(); ++k) sum[k] = static_cast<float>(stored(t, reference::skip_sum(x[k], skip[k])));
  Expected s, y;
  y.value.resize(sum.size());
  // RmsNorm of the sum as stored: the float sum, rounded to f16 or bf16 there
  reference::rms_norm<double>(sum.data(), c.in("g").f32(), y.value.data(), rows, d, static_cast<float>(c.param("eps")));
  for (float v : sum) s.value.push_back(v), s.scale.push_back(0.0);  // bits: one rounding of x + skip
  for (double v : y.value) y.scale.push_back(std::fabs(v));          // RmsNorm of the stored sum
  return {{"status", status_expected(TL_OK)}, {"sum", s}, {"y", y}};
}

OpSpec fused_skip_norm(DType t) {
  OpSpec op;
  op.name = "FusedSkipNorm";
  op.args = {
      {"x", Access::in, "T", "s#[ndim]"},    {"skip", Access::in, "T", "s#[ndim]"},
      {"g", Access::in, "T", "s(ndim - 1)"}, {"sum", Access::out, "T", "s#[ndim]", {Match::exact}, {"x", "skip"}},
      {"y", Access::out, "T", "s#[ndim]"},   status_output()};
  op.tolerances = {{DType::f32, "15.5+0.5n; strict 16", "1e-4",
                    "sum = x + skip compared bit for bit (one correctly rounded addition); y is RmsNorm of that"
                    " sum over n = D terms: the sum of squares (condition 1) in any order <= (n - 1) u, halved "
                    "by the root, plus the root, reciprocal and two products <= 4.5 u: <= n/2 + 4 u (default), "
                    "capped at the spec's fused-vs-unfused 1e-4 (1678 u), the figure the spec gives fused ops; "
                    "strict: RmsNorm's pairwise-accurate <= 13 u under its 16"}};
  op.sum_length = row_length;
  op.group = "norm";
  op.symbol = "tl_fused_skip_norm_f32";
  op.summary =
      "sum = x + skip (bit for bit), y = RmsNorm(sum, g, eps) over the last dim; sum == x or skip allowed; "
      "validates";
  op.spec =
      "operations.txt 10. Fused ops: • FusedSkipNorm(x, skip, norm_w) = RmsNorm(x + skip, norm_w, ε), x + skip "
      "(returns both)";
  op.params = shape_params();
  op.domain =
      "|x|, |skip| <= 1e15; NaN only in x (a NaN's payload is then x's whatever the operand order); a "
      "quarter of the cases have skip = -x(1 + d), the sum all cancellation; eps = 0 only for normal or wide "
      "rows without cancellation; one case in ten past the edges has one bad argument";
  // The spec's F16 figure for fused ops against the unfused, 1e-2, is a ceiling (about 20 u).
  half_twin(op, t, {"g"},
            "x, skip, sum and y " + std::string(dtype_name(t)) +
                ", g f32; sum rounded once to the dtype (bit for bit), y RmsNorm of that stored sum");
  if (t == DType::f16) op.tolerances.front().spec = "1e-2";
  if (t != DType::f32) op.domain += "; skip folded as x, the cancelling skip in steps of the dtype's spacing";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_widths().size());
  op.make_case = [t, edges = op.edge_cases](Rng& rng, int64_t i) { return make_skip(t, rng, i, edges); };
  if (t == DType::f32)
    declare_c_call<decltype(tl_fused_skip_norm_f32)>(op, {"x", "skip", "g", "sum", "y", "s#[ndim]", "ndim", "eps"});
  else declare_c_call<decltype(tl_fused_skip_norm_f16)>(op, {"x", "skip", "g", "sum", "y", "s#[ndim]", "ndim", "eps"});
  op.oracle = skip_oracle;
  return op;
}

}  // namespace

std::vector<OpSpec> norm_rows() {
  std::vector<OpSpec> ops;
  for (DType t : {DType::f32, DType::f16, DType::bf16}) ops.push_back(rms_norm(t));
  for (DType t : {DType::f32, DType::f16, DType::bf16}) ops.push_back(layer_norm(t));
  for (DType t : {DType::f32, DType::f16, DType::bf16}) ops.push_back(fused_skip_norm(t));
  return ops;
}

}  // namespace konform::ops
