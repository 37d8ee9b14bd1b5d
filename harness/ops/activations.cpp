// The elementwise activations of spec/operations.txt section 4: Silu,
// Gelu_erf, Gelu_tanh, Relu, LeakyRelu, PRelu, Sigmoid, Tanh
// (tinyllm/activations.h).
#include <cmath>
#include <cstdio>
#include <string>

#include "konform/c_call.hpp"
#include "activation_support.hpp"
#include "half_support.hpp"
#include "konform/op.hpp"
#include "konform/reference/activations.hpp"
#include "tinyllm/activations.h"

namespace konform::ops {

std::vector<OpSpec> activations();

namespace {

namespace ref = konform::reference::act;

// One elementwise op: y[i] = f(x[i]) with its oracle value and scale.
struct Unary {
  const char* name;
  const char* symbol;
  const char* summary;
  const char* spec;  // OpSpec::spec
  const char* domain;
  double (*value)(double x);
  double (*scale)(double x, double y);
  bool alpha = false;                          // LeakyRelu's parameter
  double (*flush_factor)(double x) = nullptr;  // Expected::flush_factor, where an intermediate may flush
};

const float kAlphas[] = {0.01f, 0.1f, 0.2f, 0.0f, 1.0f, 1.5f, 3.0f, -0.5f, -2.0f};

Case make_unary(const Unary& u, Rng& rng, int64_t index) {
  const int64_t n = act::length(rng, index);
  const act::Inputs kind = rng.pick(act::kAllInputs);
  const bool in_place = rng.chance(0.3);
  Case c;
  c.params = {{"n", double(n)}};
  if (u.alpha) c.params["alpha"] = double(rng.pick(kAlphas));
  c.args.push_back({"x", Access::in, Tensor::of_f32({n}, act::values(rng, kind, n))});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {n}), Match::tolerance, in_place ? "x" : ""});
  c.label = "n=" + std::to_string(n) + " x=" + act::inputs_name(kind) +
            (u.alpha ? " alpha=" + std::to_string(c.param("alpha")) : "") + (in_place ? " y==x" : "");
  return c;
}

// A case of the f16 or bf16 twin: case 0 holds every one of the 65536 values
// of the dtype (its infinities and NaNs included), the exhaustive sweep; then
// the f32 op's edge sizes; then the f32 op's value classes rounded to the
// dtype, or uniformly random bit patterns (every class of the dtype alike).
Case make_unary_half(const Unary& u, DType t, Rng& rng, int64_t index) {
  const bool exhaustive = index == 0;
  const int64_t n = exhaustive ? kHalfPatterns : act::length(rng, index - 1);
  Case c;
  c.params = {{"n", double(n)}};
  if (u.alpha) c.params["alpha"] = double(rng.pick(kAlphas));
  std::string values;
  Tensor x;
  if (exhaustive) {
    x = every_half(t);
    values = "every " + std::string(dtype_name(t)) + " value";
  } else if (rng.chance(0.25)) {
    x = random_half_bits(rng, t, n);
    values = "random bits";
  } else {
    const act::Inputs kind = rng.pick(act::kAllInputs);
    x = Tensor::of_half(t, {n}, act::values(rng, kind, n));
    values = act::inputs_name(kind);
  }
  const bool in_place = !exhaustive && rng.chance(0.3);
  c.args.push_back({"x", Access::in, std::move(x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, {n}), Match::tolerance, in_place ? "x" : ""});
  c.label = "n=" + std::to_string(n) + " x=" + values + (u.alpha ? " alpha=" + std::to_string(c.param("alpha")) : "") +
            (in_place ? " y==x" : "");
  return c;
}

Oracle unary_oracle(const Unary& u, const Case& c) {
  const int64_t n = c.iparam("n");
  const Tensor& xt = c.in("x");
  std::vector<double> x(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) x[i] = xt.at(i);  // exact: f32 and the half dtypes fit a double
  Expected e;
  e.value.resize(static_cast<size_t>(n));
  e.scale.resize(e.value.size());
  for (int64_t i = 0; i < n; ++i) {
    const double v = u.alpha ? ref::leaky_relu<double>(x[i], static_cast<float>(c.param("alpha"))) : u.value(x[i]);
    e.value[i] = v;
    e.scale[i] = u.scale(x[i], v);
  }
  if (u.flush_factor != nullptr)
    for (int64_t i = 0; i < n; ++i) e.flush_factor.push_back(u.flush_factor(x[i]));
  if (u.alpha && c.param("alpha") == 0) {  // 0 * -inf: NaN or 0, an open edge (docs/tolerances.md)
    e.alternative.resize(e.value.size());
    for (int64_t i = 0; i < n; ++i) e.alternative[i] = ref::leaky_relu_selected<double>(x[i], 0.0);
  }
  return {{"y", e}};
}

OpSpec unary_op(const Unary& u, std::vector<ToleranceRule> tolerances, DType t = DType::f32) {
  OpSpec op;
  const bool half = t != DType::f32;
  const std::string suffix = "_" + std::string(dtype_name(t));
  op.name = half ? u.name + suffix : u.name;
  op.dtype = t;
  op.tolerances = std::move(tolerances);
  op.args = {{"x", Access::in, "T", "n"}, {"y", Access::out, "T", "n", {Match::tolerance}, {"x"}}};
  op.group = "activations";
  op.symbol = half ? std::string(u.symbol).substr(0, std::string(u.symbol).size() - 4) + suffix : u.symbol;
  op.summary = u.summary;
  if (half) op.summary += "; " + std::string(dtype_name(t)) + " in and out, computed in f32";
  op.spec = u.spec;
  op.params = {{"n", ParamType::i64, ">= 0"}};
  if (u.alpha) op.params.push_back({"alpha", ParamType::f32, "any finite float (0, 1, > 1 and < 0 included)"});
  op.domain = half ? "every " + std::string(dtype_name(t)) + " value (case 0), then " + u.domain +
                         ", rounded to the dtype, and random bit patterns"
                   : u.domain;
  op.edge_cases = static_cast<int64_t>(edge_sizes().size()) + (half ? 1 : 0);
  if (half) op.make_case = [u, t](Rng& rng, int64_t i) { return make_unary_half(u, t, rng, i); };
  else op.make_case = [u](Rng& rng, int64_t i) { return make_unary(u, rng, i); };
  // Every unary activation has one of two signatures per dtype.
  if (t == DType::f32 && u.alpha) declare_c_call<decltype(tl_leaky_relu_f32)>(op, {"x", "y", "n", "alpha"});
  else if (t == DType::f32) declare_c_call<decltype(tl_silu_f32)>(op, {"x", "y", "n"});
  else if (u.alpha) declare_c_call<decltype(tl_leaky_relu_f16)>(op, {"x", "y", "n", "alpha"});
  else declare_c_call<decltype(tl_silu_f16)>(op, {"x", "y", "n"});  // f16 and bf16 alike: uint16_t
  op.oracle = [u](const Case& c) { return unary_oracle(u, c); };
  return op;
}

// ---------------------------------------------------------------- PRelu

// In f16 and bf16: x the value classes rounded to the dtype or, a quarter of
// the time, random bit patterns (every class of the dtype alike); the slopes
// f32 as they are.
Case make_prelu(DType t, Rng& rng, int64_t index) {
  const auto& sizes = edge_sizes();
  const int64_t outer = rng.range(1, 4);
  int64_t channels, inner;
  if (index < static_cast<int64_t>(sizes.size()) || rng.chance(0.4)) {  // channels-last rows
    channels = index < static_cast<int64_t>(sizes.size()) ? sizes[static_cast<size_t>(index)] : rng.range(1, 300);
    inner = 1;
  } else {  // NCHW: a run of inner elements per channel
    channels = rng.range(1, 12);
    inner = rng.chance(0.3) ? rng.pick(sizes) : rng.range(1, 70);
    if (inner > 1024) channels = rng.range(1, 2);
  }
  const int64_t n = outer * channels * inner;
  const act::Inputs kind = rng.pick(act::kAllInputs);
  // Distinct slopes (a wrong channel index shows), at times > 1 or < 0.
  std::vector<float> slope(static_cast<size_t>(channels));
  for (auto& s : slope)
    s = rng.chance(0.8) ? static_cast<float>(rng.uniform(0.0, 0.5)) : static_cast<float>(rng.uniform(-2, 3));
  const bool in_place = rng.chance(0.3);
  const bool bits = t != DType::f32 && rng.chance(0.25);
  Tensor x = t == DType::f32 ? Tensor::of_f32({outer, channels, inner}, act::values(rng, kind, n))
             : bits          ? random_half_bits(rng, t, n)
                             : Tensor::of_half(t, {outer, channels, inner}, act::values(rng, kind, n));
  x.shape = {outer, channels, inner};
  Case c;
  c.params = {{"outer", double(outer)}, {"channels", double(channels)}, {"inner", double(inner)}};
  c.args.push_back({"x", Access::in, std::move(x)});
  c.args.push_back({"slope", Access::in, Tensor::of_f32({channels}, slope)});
  c.args.push_back(
      {"y", Access::out, Tensor::zeros(t, {outer, channels, inner}), Match::tolerance, in_place ? "x" : ""});
  c.label = "[" + std::to_string(outer) + ", " + std::to_string(channels) + ", " + std::to_string(inner) +
            "] x=" + (bits ? "random bits" : act::inputs_name(kind)) + (in_place ? " y==x" : "");
  return c;
}

Oracle prelu_oracle(const Case& c) {
  const int64_t outer = c.iparam("outer"), channels = c.iparam("channels"), inner = c.iparam("inner");
  const Tensor& xt = c.in("x");
  std::vector<float> xs(static_cast<size_t>(xt.elements()));  // exact for f32 and the half dtypes
  for (int64_t k = 0; k < xt.elements(); ++k) xs[static_cast<size_t>(k)] = static_cast<float>(xt.at(k));
  Expected e;
  e.value.resize(static_cast<size_t>(outer * channels * inner));
  ref::prelu<double>(xs.data(), c.in("slope").f32(), e.value.data(), outer, channels, inner);
  e.scale.resize(e.value.size());
  for (size_t k = 0; k < e.value.size(); ++k) e.scale[k] = std::fabs(e.value[k]);  // one rounded product
  const float* x = xs.data();
  const float* slope = c.in("slope").f32();
  for (int64_t k = 0; k < outer * channels * inner; ++k) {  // a zero slope at -inf: NaN or 0, an open edge
    const double other = ref::leaky_relu_selected<double>(x[k], slope[(k / inner) % channels]);
    if (other == e.value[k] || (std::isnan(other) && std::isnan(e.value[k]))) continue;
    if (e.alternative.empty()) e.alternative = e.value;
    e.alternative[static_cast<size_t>(k)] = other;
  }
  return {{"y", e}};
}

// In f16 and bf16: x and y of the dtype, the slopes f32 (as LeakyRelu's
// half twins keep alpha a float), the product in f32 rounded once
// (half_rule).
OpSpec prelu_op(DType t) {
  const bool half = t != DType::f32;
  const std::string dtype(dtype_name(t));
  OpSpec op;
  op.name = half ? "PRelu_" + dtype : "PRelu";
  op.dtype = t;
  op.args = {{"x", Access::in, "T", "outer, channels, inner"},
             {"slope", Access::in, half ? "f32" : "T", "channels"},
             {"y", Access::out, "T", "outer, channels, inner", {Match::tolerance}, {"x"}}};
  const ToleranceRule f32{DType::f32, "1", "-", "x or one correctly rounded product slope[c] * x: |y - y*| <= u |y*|"};
  op.tolerances = {half ? half_rule(t, f32) : f32};
  op.group = "activations";
  op.symbol = "tl_prelu_" + dtype;
  op.summary =
      "y = x if x > 0 else slope[c] * x, x as [outer, channels, inner] (NCHW: C = channels; [..., C]: inner = 1)";
  if (half) op.summary += "; x and y " + dtype + ", the slopes f32, computed in f32";
  op.spec = "operations.txt 4. Activation: Relu, LeakyRelu, PRelu, Sigmoid, Tanh";
  op.params = {{"outer", ParamType::i64, ">= 0"},
               {"channels", ParamType::i64, ">= 0 (slope has this many)"},
               {"inner", ParamType::i64, ">= 0"}};
  op.domain = "every value class, NaN and +-Inf included; slopes distinct per channel, in [-2, 3]";
  if (half)
    op.domain = "every value class rounded to " + dtype + " (NaN and +-Inf included) or random bit patterns; slopes " +
                "distinct per channel, in [-2, 3], f32";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size());
  op.make_case = [t](Rng& rng, int64_t i) { return make_prelu(t, rng, i); };
  if (half)
    declare_c_call<decltype(tl_prelu_f16)>(op, {"x", "slope", "y", "outer", "channels", "inner"});  // bf16 alike
  else declare_c_call<decltype(tl_prelu_f32)>(op, {"x", "slope", "y", "outer", "channels", "inner"});
  op.oracle = prelu_oracle;
  return op;
}

// 0.5 |x| (1 + |t|): the magnitude of the terms of the Gelus' 1 + erf and
// 1 + tanh, against which the spec's f32 formula rounds. For x < 0 the sum
// cancels and that formula has an absolute error of about u |x|.
double gelu_scale(double x, double t) { return 0.5 * std::fabs(x) * (1.0 + std::fabs(t)); }

// The op in f32 and its f16 and bf16 twins, whose rules follow from the f32
// one (half_rule).
void add_unary(std::vector<OpSpec>& ops, const Unary& u, std::vector<ToleranceRule> f32_rules) {
  const ToleranceRule f32 = f32_rules.at(0);
  ops.push_back(unary_op(u, std::move(f32_rules)));
  for (DType t : {DType::f16, DType::bf16}) ops.push_back(unary_op(u, {half_rule(t, f32)}, t));
}

}  // namespace

std::vector<OpSpec> activations() {
  const char* all_values =
      "every value class: normal, wide, tiny, huge, subnormal, +-0, NaN, +-Inf, +-FLT_MAX, "
      "and the regime points where the f32 formula changes (+-88.72, +-103.97, +-17.33, ...)";
  std::vector<OpSpec> ops;
  Unary silu{"Silu", "tl_silu_f32", "y = x * sigmoid(x) = x / (1 + exp(-x)); y == x allowed",
             "operations.txt 4. Activation: Silu (Swish-1)", all_values, [](double x) { return ref::silu<double>(x); },
             // |x| 2^-104 admits the spec's x / (1 + e^-x), which is -0 where e^-x
             // overflows (x <= -88.7228); elsewhere |x| FLT_MIN admits x * sigmoid(x)
             // with the sigmoid rounded into the subnormals (activation_support.hpp).
             [](double x, double y) { return std::fabs(y) + std::fabs(x) * act::factored_sigmoid(x); }};
  // x * sigmoid(x): a flushed sigmoid's loss reaches y times |x|.
  silu.flush_factor = [](double x) { return act::flush_factor(act::sigmoid(x), x); };
  add_unary(ops, silu,
            {{DType::f32, "16", "-",
              "x * sigmoid(x): Sigmoid's <= 15 u then the product 1 u; x / (1 + e^-x) <= 10 u (all from "
              "the exp budget (<= 4 ulp, 8 u)): <= 16 u of |y|; the scale's |x| 2^-104 admits the spec's "
              "x / (1 + e^-x), -0 where e^-x overflows (x <= -88.72283935546875, |silu| < 2^-128 |x| "
              "there), and only there; above, |x| FLT_MIN admits x * sigmoid(x) with the sigmoid rounded "
              "into the subnormals (x < -87.34: 2^-150 = u FLT_MIN, times |x|)"}});
  add_unary(ops,
            {"Gelu_erf", "tl_gelu_erf_f32", "y = x * 0.5 * (1 + erf(x / sqrt(2))), the exact GELU; y == x allowed",
             "operations.txt 4. Activation: Gelu", all_values, [](double x) { return ref::gelu_erf<double>(x); },
             [](double x, double) { return gelu_scale(x, std::erf(x / std::sqrt(2.0))); }},
            {{DType::f32, "20", "-",
              "scale 0.5 |x| (1 + |erf|), the terms of 1 + erf (it cancels for x < 0): the erf budget (<="
              " 16 u absolute, <= 16 u of 1 + |erf|), the argument x / sqrt(2) rounded (u |a| erf'(a) <= "
              "0.49 u), 1 + erf 1 u, 0.5 x exact, the product 1 u, a second product or sum of another "
              "form 1 u: <= 19.5 u; independent float kernels measured 9.4 u (oneDNN) and 9.5 u (PyTorch)"
              " (issue 26), 20 >= 1.5 x that"}});
  add_unary(
      ops,
      {"Gelu_tanh", "tl_gelu_tanh_f32", "y = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))); y == x allowed",
       "operations.txt 4. Activation: Gelu", all_values, [](double x) { return ref::gelu_tanh<double>(x); },
       [](double x, double) { return gelu_scale(x, std::tanh(ref::gelu_tanh_argument<double>(x))); }},
      {{DType::f32, "18", "-",
        "scale 0.5 |x| (1 + |tanh|): the spec's form with the tanh budget (12 u of |t|, <= 6 u of 1"
        " + |t|), the argument's ~2.5 u times (1 - t^2) |a| <= 0.45, 1 + t 1 u, the product 1 u: <="
        " 9.2 u; the form x * sigmoid(2a) with the sigmoid from the exp budget (<= 4 ulp, 8 u): "
        "Sigmoid's 15 u, the argument 1.2 u, the product 1 u: <= 17.2 u"}});
  add_unary(ops,
            {"Relu", "tl_relu_f32", "y = x if x > 0 else +0 (NaN stays NaN); y == x allowed",
             "operations.txt 4. Activation: Relu, LeakyRelu, PRelu, Sigmoid, Tanh", all_values,
             [](double x) { return ref::relu<double>(x); }, [](double, double y) { return std::fabs(y); }},
            {{DType::f32, "0", "-",
              "a selection: y is x or 0, exactly (limit 0 still lets a NaN match any NaN and -0 match +0)"}});
  Unary leaky{"LeakyRelu",
              "tl_leaky_relu_f32",
              "y = x if x > 0 else alpha * x; y == x allowed",
              "operations.txt 4. Activation: Relu, LeakyRelu, PRelu, Sigmoid, Tanh",
              all_values,
              nullptr,
              [](double, double y) { return std::fabs(y); },
              true};
  add_unary(ops, leaky,
            {{DType::f32, "1", "-",
              "x or one correctly rounded product alpha * x: |y - y*| <= u |y*| (2^-150 in the "
              "subnormals, the FLT_MIN floor)"}});
  for (DType t : {DType::f32, DType::f16, DType::bf16}) ops.push_back(prelu_op(t));
  add_unary(ops,
            {"Sigmoid", "tl_sigmoid_f32", "y = 1 / (1 + exp(-x)); y == x allowed",
             "operations.txt 4. Activation: Relu, LeakyRelu, PRelu, Sigmoid, Tanh", all_values,
             [](double x) { return ref::sigmoid<double>(x); },
             // 2^-104 admits the spec's 1 / (1 + e^-x), 0 where e^-x overflows
             // (x <= -88.7228, sigmoid < 2^-128), and only there.
             [](double x, double y) { return std::fabs(y) + act::flushed_sigmoid(x); }},
            {{DType::f32, "15", "-",
              "from the exp budget (<= 4 ulp, 8 u): 1 / (1 + e^-x): e's 8 u carried by e / (1 + e) <= 1, "
              "1 + e and the quotient 1 u each: <= 10 u; e^x / (1 + e^x) (x < 0): 8 u + 8 u e / (1 + e) "
              "<= 4 u + 2 roundings: <= 14 u, e^x * (1 / (1 + e^x)) one more: <= 15 u of |y|; the scale's"
              " 2^-104 admits the spec's 1/(1 + e^-x), 0 where e^-x overflows (x <= -88.72283935546875, "
              "sigmoid < 2^-128 there), and only there; an independent float kernel measured 6.6 u (issue"
              " 26), 15 >= 1.5 x that"}});
  add_unary(ops,
            {"Tanh", "tl_tanh_f32", "y = tanh(x); y == x allowed",
             "operations.txt 4. Activation: Relu, LeakyRelu, PRelu, Sigmoid, Tanh", all_values,
             [](double x) { return std::tanh(x); }, [](double, double y) { return std::fabs(y); }},
            {{DType::f32, "12", "-",
              "the tanh budget itself (<= 12 u relative: tanhf within 4 ulp, or 1 - 2 / (e^2|x| + 1) from"
              " the exp budget (<= 4 ulp, 8 u) above |x| = 0.55 with an odd polynomial below)"}});
  return ops;
}

}  // namespace konform::ops
