// The adaptive norms of DiT blocks (spec §2): AdaLN, whose scale and shift
// come per sample from the conditioning, and AdaLN-Zero's gated residual
// fused with the AdaLN that follows it.
#include <cmath>
#include <string>

#include "konform/c_call.hpp"
#include "konform/op.hpp"
#include "konform/reference/norm.hpp"
#include "norm_support.hpp"
#include "tinyllm/norm.h"

namespace konform::ops {

std::vector<OpSpec> norm_adaptive();

namespace {

using namespace norm;

// [B, tokens..., D]: D from the edge widths first, then at random.
std::vector<int64_t> make_shape(Rng& rng, int64_t index, int64_t edges) {
  const auto& widths = edge_widths();
  const int64_t d =
      index < edges ? widths[static_cast<size_t>(index)] : (rng.chance(0.4) ? rng.pick(widths) : rng.range(1, 300));
  const int64_t batch = index < edges ? 2 : (rng.chance(0.03) ? 0 : rng.range(1, 3));
  std::vector<int64_t> shape = {batch};
  for (int64_t t : leading_dims(rng, d > 1024 ? 1 : 4)) shape.push_back(t);
  shape.push_back(d);
  return shape;
}

float eps_of(const Case& c) { return static_cast<float>(c.param("eps")); }

// The parameters both ops declare: x's shape [B, ..., D] and eps.
std::vector<ParamSpec> shape_params() {
  return {{"ndim", ParamType::i32, "2 .. 8 (TL_NORM_MAX_DIMS): the number of s#"},
          {"s#", ParamType::i64,
           "the shape [B, ..., D]: s0 .. s{ndim-1}, each >= 0, the non-zero ones' product <= INT64_MAX / 4; "
           "D = s{ndim-1} >= 1 (0: TL_ERR_SHAPE)"},
          {"eps", ParamType::f32, "finite, >= 0"}};
}

// The conditioning's scale: mostly small, now and then exactly -1 (the
// modulated row collapses onto the shift) or small integers.
std::vector<float> make_scale(Rng& rng, int64_t n) {
  std::vector<float> s = make_values(rng, rng.chance(0.8) ? ValueClass::normal : ValueClass::ties, n);
  for (float& v : s) v = rng.chance(0.05) ? -1.0f : 0.5f * v;
  return s;
}

void finish(Rng& rng, Case& c, int64_t index, int64_t edges, const std::vector<int64_t>& shape, float eps) {
  c.params["eps"] = static_cast<double>(eps);
  set_shape(c, shape);
  c.label = "shape " + shape_string(shape) + " " + c.label + " eps=" + std::to_string(eps);
  c.args.push_back(status_arg());
  if (index >= edges && rng.chance(0.1)) c.label += " " + make_invalid(rng, c, Layout::samples);
}

// The expected y of AdaLN of h[batch, tokens, d] and its scale: LayerNorm's,
// with |gain| = 1 + |scale| (a kernel may form t (1 + scale) or t + t scale).
Expected ada_expected(const float* h, const float* scale, const float* shift, int64_t batch, int64_t tokens, int64_t d,
                      float eps) {
  Expected y;
  y.value.resize(static_cast<size_t>(batch * tokens * d));
  reference::ada_ln<double>(h, scale, shift, y.value.data(), batch, tokens, d, eps);
  for (int64_t r = 0; r < batch * tokens; ++r) {
    const RangeStats st = range_stats(h + r * d, d, eps);
    const int64_t s = (r / tokens) * d;
    for (int64_t i = 0; i < d; ++i)
      y.scale.push_back(centred_scale(h[r * d + i], st, 1.0 + std::fabs(scale[s + i]), std::fabs(shift[s + i])));
  }
  return y;
}

// ---------------------------------------------------------------- AdaLN

// x of the dtype t: f32 from the value classes; f16 or bf16 the half rows
// (norm_support.hpp).
HalfRows make_x(DType t, Rng& rng, const std::vector<int64_t>& shape) {
  if (t != DType::f32) return half_rows(t, rng, shape, shape.back(), true);
  Row x = make_row(rng, product(shape, 0, shape.size()));
  return {Tensor::of_f32(shape, x.values), x.label, x.eps_zero_ok && shape.back() >= 2};
}

Case make_ada(DType t, Rng& rng, int64_t index, int64_t edges) {
  const auto shape = make_shape(rng, index, edges);
  const int64_t batch = shape[0], d = shape.back();
  HalfRows x = make_x(t, rng, shape);
  const float eps = pick_eps(rng, x.eps_zero_ok);
  const bool in_place = rng.chance(0.3);
  Case c;
  c.label = "x=" + x.label + (in_place ? " y==x" : "");
  c.args.push_back({"x", Access::in, std::move(x.x)});
  c.args.push_back({"scale", Access::in, Tensor::of_f32({batch, d}, make_scale(rng, batch * d))});
  c.args.push_back({"shift", Access::in, Tensor::of_f32({batch, d}, make_values(rng, ValueClass::normal, batch * d))});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, shape), Match::tolerance, in_place ? "x" : ""});
  finish(rng, c, index, edges, shape, eps);
  return c;
}

Oracle ada_oracle(const Case& c) {
  if (tl_status st = expected_status(Layout::samples, shape_of(c), eps_of(c))) return {{"status", status_expected(st)}};
  const auto& shape = c.in("x").shape;
  const int64_t batch = shape[0], d = shape.back(), tokens = product(shape, 1, shape.size() - 1);
  const std::vector<float> x = floats_of(c.in("x"));
  return {{"status", status_expected(TL_OK)},
          {"y", ada_expected(x.data(), c.in("scale").f32(), c.in("shift").f32(), batch, tokens, d, eps_of(c))}};
}

OpSpec ada_ln(DType t) {
  OpSpec op;
  op.name = "AdaLN";
  op.args = {{"x", Access::in, "T", "s#[ndim]"},
             {"scale", Access::in, "T", "s0, s(ndim - 1)"},
             {"shift", Access::in, "T", "s0, s(ndim - 1)"},
             {"y", Access::out, "T", "s#[ndim]", {Match::tolerance}, {"x"}},
             status_output()};
  op.tolerances = {{DType::f32, "19+1n; strict 20", "-",
                    "LayerNorm's analysis over the row's n = D terms with gain 1 + scale (rounded: 1 u more on "
                    "the centred term: <= (n - 1)/2 + 8 u, or 17 u pairwise) and bias shift; the scale uses 1 +"
                    " |scale| so t (1 + scale) and t + t scale are both bounded: any order <= n + 1 u "
                    "(default), pairwise-accurate 20 (strict)"}};
  op.sum_length = row_length;
  op.group = "norm";
  op.symbol = "tl_ada_ln_f32";
  op.summary =
      "y = LayerNorm(x, 1, 0, eps) * (1 + scale[s]) + shift[s], x[B, ..., D], scale and shift [B, D] per "
      "sample; y == x allowed; validates";
  op.spec = "operations.txt 2. Normalization: AdaLN";
  op.params = shape_params();
  op.domain =
      "|x| <= 1e15, rows far from zero among the value classes; scale mostly N(0, 1/4), sometimes exactly -1 "
      "or small integers; eps = 0 only for rows of two or more normal or wide values; one case in ten past "
      "the edges has one bad argument";
  half_twin(op, t, {"scale", "shift"},
            "x and y " + std::string(dtype_name(t)) + ", scale and shift f32, both passes and 1 + scale in f32");
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_widths().size());
  op.make_case = [t, edges = op.edge_cases](Rng& rng, int64_t i) { return make_ada(t, rng, i, edges); };
  if (t == DType::f32)
    declare_c_call<decltype(tl_ada_ln_f32)>(op, {"x", "scale", "shift", "y", "s#[ndim]", "ndim", "eps"});
  else declare_c_call<decltype(tl_ada_ln_f16)>(op, {"x", "scale", "shift", "y", "s#[ndim]", "ndim", "eps"});
  op.oracle = ada_oracle;
  return op;
}

// ---------------------------------------------------------------- AdaLN_Zero

Case make_zero(DType t, Rng& rng, int64_t index, int64_t edges) {
  const auto shape = make_shape(rng, index, edges);
  const int64_t batch = shape[0], d = shape.back(), n = product(shape, 0, shape.size());
  HalfRows x = make_x(t, rng, shape);
  // r and gate hold no NaN: h's NaN is then x's, whatever the operand order.
  const ValueClass classes[] = {ValueClass::normal, ValueClass::wide,      ValueClass::tiny, ValueClass::huge,
                                ValueClass::zeros,  ValueClass::subnormal, ValueClass::ties};
  const ValueClass rc = rng.pick(classes);
  std::vector<float> gate = make_values(rng, rng.chance(0.8) ? ValueClass::normal : ValueClass::ties, batch * d);
  const bool gate_zero = rng.chance(0.2);  // the zero-initialized conditioning
  for (float& v : gate) v = gate_zero ? 0.0f : 0.5f * v;
  const float eps = pick_eps(rng, x.eps_zero_ok && (gate_zero || rc == ValueClass::normal));
  const bool in_place = rng.chance(0.3);
  Case c;
  c.label = "x=" + x.label + " r=" + std::string(value_class_name(rc)) + (gate_zero ? " gate=0" : "") +
            (in_place ? " h==x" : "");
  std::vector<float> r = make_values(rng, rc, n, kMaxAbs);
  fold_for(t, r);
  c.args.push_back({"x", Access::in, std::move(x.x)});
  c.args.push_back({"r", Access::in, t == DType::f32 ? Tensor::of_f32(shape, r) : Tensor::of_half(t, shape, r)});
  c.args.push_back({"gate", Access::in, Tensor::of_f32({batch, d}, gate)});
  c.args.push_back({"scale", Access::in, Tensor::of_f32({batch, d}, make_scale(rng, batch * d))});
  c.args.push_back({"shift", Access::in, Tensor::of_f32({batch, d}, make_values(rng, ValueClass::normal, batch * d))});
  c.args.push_back({"h", Access::out, Tensor::zeros(t, shape), Match::exact, in_place ? "x" : ""});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, shape)});
  finish(rng, c, index, edges, shape, eps);
  return c;
}

Oracle zero_oracle(const Case& c) {
  if (tl_status st = expected_status(Layout::samples, shape_of(c), eps_of(c))) return {{"status", status_expected(st)}};
  const auto& shape = c.in("x").shape;
  const int64_t batch = shape[0], d = shape.back(), tokens = product(shape, 1, shape.size() - 1);
  const float *scale = c.in("scale").f32(), *shift = c.in("shift").f32();
  const DType t = c.in("x").dtype;
  const std::vector<float> x = floats_of(c.in("x")), r = floats_of(c.in("r"));
  const float* gate = c.in("gate").f32();
  std::vector<float> h(x.size());
  std::vector<double> unused(h.size());
  reference::ada_ln_zero<double>(x.data(), r.data(), gate, scale, shift, h.data(), unused.data(), batch, tokens, d,
                                 eps_of(c));
  // h bit for bit, either rounding of x + gate * r: Mul then Add, each
  // rounded (the value, from which y is formed), or one fused multiply-add;
  // in f16 and bf16 that float rounded once more to the dtype, as stored,
  // and y formed from the stored h.
  Expected he;
  for (size_t k = 0; k < h.size(); ++k) {
    const int64_t j = static_cast<int64_t>(k) / (tokens * d) * d + static_cast<int64_t>(k) % d;
    h[k] = static_cast<float>(stored(t, h[k]));
    he.value.push_back(h[k]);
    he.scale.push_back(0.0);
    he.alternative.push_back(stored(t, reference::gated_residual_fused(x[k], gate[j], r[k])));
  }
  return {{"status", status_expected(TL_OK)},
          {"h", he},
          {"y", ada_expected(h.data(), scale, shift, batch, tokens, d, eps_of(c))}};
}

OpSpec ada_ln_zero(DType t) {
  OpSpec op;
  op.name = "AdaLN_Zero";
  op.args = {{"x", Access::in, "T", "s#[ndim]"},
             {"r", Access::in, "T", "s#[ndim]"},
             {"gate", Access::in, "T", "s0, s(ndim - 1)"},
             {"scale", Access::in, "T", "s0, s(ndim - 1)"},
             {"shift", Access::in, "T", "s0, s(ndim - 1)"},
             {"h", Access::out, "T", "s#[ndim]", {Match::exact}, {"x"}},
             {"y", Access::out, "T", "s#[ndim]"},
             status_output()};
  op.tolerances = {{DType::f32, "19+1n; strict 20", "-",
                    "h = x + gate * r is compared bit for bit against both correct roundings (Mul then Add, "
                    "each rounded, or one fused multiply-add); y is AdaLN of that h over n = D terms: AdaLN's "
                    "analysis, any order <= n + 1 u (default), pairwise-accurate 20 (strict)"}};
  op.sum_length = row_length;
  op.group = "norm";
  op.symbol = "tl_ada_ln_zero_f32";
  op.summary =
      "h = x + gate[s] * r (bit for bit, Mul then Add or one FMA), y = AdaLN(h, scale, shift, eps); "
      "gate = 0 gives h == x; h == x allowed; validates";
  op.spec = "operations.txt 2. Normalization: AdaLN";
  op.params = shape_params();
  op.domain =
      "|x|, |r| <= 1e15, NaN only in x; gate mostly N(0, 1/4), all zero in a fifth of the cases; eps = 0 "
      "only where h's rows are normal or wide values; one case in ten past the edges has one bad argument";
  half_twin(op, t, {"gate", "scale", "shift"},
            "x, r, h and y " + std::string(dtype_name(t)) +
                ", gate, scale and shift f32; h the float h rounded once to the dtype (bit for bit), y AdaLN of "
                "that stored h");
  if (t != DType::f32) op.domain += "; r folded as x";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_widths().size());
  op.make_case = [t, edges = op.edge_cases](Rng& rng, int64_t i) { return make_zero(t, rng, i, edges); };
  if (t == DType::f32)
    declare_c_call<decltype(tl_ada_ln_zero_f32)>(
        op, {"x", "r", "gate", "scale", "shift", "h", "y", "s#[ndim]", "ndim", "eps"});
  else
    declare_c_call<decltype(tl_ada_ln_zero_f16)>(
        op, {"x", "r", "gate", "scale", "shift", "h", "y", "s#[ndim]", "ndim", "eps"});
  op.oracle = zero_oracle;
  return op;
}

}  // namespace

// Each in f32, f16 and bf16.
std::vector<OpSpec> norm_adaptive() {
  std::vector<OpSpec> ops;
  for (DType t : {DType::f32, DType::f16, DType::bf16}) ops.push_back(ada_ln(t));
  for (DType t : {DType::f32, DType::f16, DType::bf16}) ops.push_back(ada_ln_zero(t));
  return ops;
}

}  // namespace konform::ops
