// The gated elementwise middle of the FFNs of spec/operations.txt section 4:
// SwiGlu (silu(gate) * up), GeGlu (gelu(gate) * up), Glu (sigmoid(gate) * up)
// (tinyllm/activations.h). The matmuls around them are Matmul's.
#include <climits>
#include <cmath>
#include <string>

#include "konform/c_call.hpp"
#include "activation_support.hpp"
#include "half_support.hpp"
#include "konform/op.hpp"
#include "konform/reference/activations.hpp"
#include "tinyllm/activations.h"

namespace konform::ops {

std::vector<OpSpec> gated();

namespace {

namespace ref = konform::reference::act;

// up stays finite and below 1e18 (as for silu_mul): Inf * a gate that
// underflowed is NaN or Inf depending on whether the kernel flushed it, and a
// kernel may form gate * up before dividing; the spec fixes neither.
constexpr double kMaxUp = 1e18;
// act(gate) is rounded to f32 before the product: where it is subnormal (a
// tiny gate, or a sigmoid's tail) its absolute error is up to 2^-150, which
// the product carries times |up|; FLT_MIN |up| in the scale admits that.
// SwiGlu's and Glu's scales, with the sigmoid's flush where e^-g overflows,
// are act::silu_times_scale and act::factored_sigmoid (activation_support.hpp).
constexpr double kSubnormalGate = 0x1p-126;

enum class Gate { silu, gelu, sigmoid };

const int kBadApproximations[] = {2, -1, 7, INT_MAX, INT_MIN};

Case make(Gate gate, Rng& rng, int64_t index) {
  const int64_t n = act::length(rng, index);
  const act::Inputs kind = rng.pick(act::kAllInputs);
  const act::Inputs up_kinds[] = {act::Inputs::normal1, act::Inputs::normal20, act::Inputs::wide, act::Inputs::ties,
                                  act::Inputs::zeros,   act::Inputs::specials, act::Inputs::huge, act::Inputs::tiny};
  const act::Inputs up_kind = rng.pick(up_kinds);
  std::vector<float> up = act::values(rng, up_kind, n);
  for (float& u : up)
    if (std::isinf(u) || std::fabs(u) > kMaxUp) u = std::copysign(static_cast<float>(kMaxUp), u);
  const double in_place = rng.unit();
  Case c;
  c.params = {{"n", double(n)}};
  std::string what;
  if (gate == Gate::gelu) {
    const int approximation = rng.chance(0.08) ? rng.pick(kBadApproximations) : static_cast<int>(rng.range(0, 1));
    c.params["approximation"] = double(approximation);
    what = " approximation=" + std::to_string(approximation);
    c.args.push_back(act::status_arg());
  }
  c.args.push_back({"gate", Access::in, Tensor::of_f32({n}, act::values(rng, kind, n))});
  c.args.push_back({"up", Access::in, Tensor::of_f32({n}, up)});
  const std::string alias = in_place < 0.15 ? "gate" : in_place < 0.3 ? "up" : "";
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {n}), Match::tolerance, alias});
  c.label = "n=" + std::to_string(n) + " gate=" + act::inputs_name(kind) + " up=" + act::inputs_name(up_kind) + what +
            (alias.empty() ? "" : " y==" + alias);
  return c;
}

// ---- the f16 and bf16 twins' cases

// gate and up as the dtype's values: case 0 every pattern of gate against
// random finite patterns of up (2^16 products: overflow past the largest
// finite value, subnormals, NaN gates); then the f32 op's value classes
// rounded to the dtype, random patterns, products that are ties of the
// demotion, products around the largest finite value, subnormals.
enum class HalfKind { classes, bits, ties, overflow, subnormal };

const char* half_kind_name(HalfKind k) {
  switch (k) {
    case HalfKind::classes: return "classes";
    case HalfKind::bits: return "random bits";
    case HalfKind::ties: return "ties of the demotion";
    case HalfKind::overflow: return "products around the largest finite";
    default: return "subnormals";
  }
}

// up finite (a half Inf times a gate that underflowed: as the f32 op's
// domain) and at most 1e18 (bf16 reaches 3.4e38; the f32 op's bound).
float finite_up(DType t, float u) {
  if (std::isnan(u)) return u;
  const double most = std::fmin(largest_finite(t), kMaxUp);
  return std::fabs(u) > most ? static_cast<float>(std::copysign(round_to(t, most) > most ? most / 2 : most, u)) : u;
}

// A random value of the dtype with act(g) == g in f32 (silu, gelu) and its
// exact product with up a tie of the demotion (searched): the kernel's f32
// product is exact, and only the final rounding decides. For Glu (sigmoid(g)
// = 1 there, no product to round) a gate of 0 and up an odd number of the
// smallest subnormal: y = up / 2, a tie of the subnormal rounding.
void tie_pair(Gate gate, DType t, Rng& rng, float* g, float* u) {
  const double tiny = t == DType::f16 ? 0x1p-24 : 0x1p-133;
  const int man = t == DType::f16 ? 10 : 7;
  if (gate == Gate::sigmoid) {
    *g = 0.0f;
    *u = static_cast<float>((rng.chance(0.5) ? -1 : 1) * tiny * double(2 * rng.range(0, (1 << man) - 1) + 1));
    return;
  }
  for (int k = 0; k < 64; ++k) {
    *g = static_cast<float>(round_to(t, rng.uniform(32, 64)));
    *u = static_cast<float>(round_to(t, std::ldexp(rng.uniform(1, 2), static_cast<int>(rng.range(-8, 8)))));
    const double p = double(*g) * double(*u), r = round_to(t, p);
    if (std::fabs(p - r) == std::ldexp(1.0, std::ilogb(p) - man - 1)) break;  // half an ulp of p's binade
  }
  if (rng.chance(0.5)) *u = -*u;
}

Case make_half(Gate gate, DType t, Rng& rng, int64_t index) {
  const bool exhaustive = index == 0;
  const int64_t n = exhaustive ? kHalfPatterns : act::length(rng, index - 1);
  const HalfKind kinds[] = {HalfKind::classes, HalfKind::classes,  HalfKind::bits,
                            HalfKind::ties,    HalfKind::overflow, HalfKind::subnormal};
  const HalfKind kind = exhaustive ? HalfKind::bits : rng.pick(kinds);
  std::vector<float> g(static_cast<size_t>(n)), u(static_cast<size_t>(n));
  std::string what;
  const auto bits_of = [&](std::vector<float>& v) {
    const Tensor b = random_half_bits(rng, t, n);
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(b.at(i));
  };
  switch (kind) {
    case HalfKind::classes: {
      const act::Inputs gk = rng.pick(act::kAllInputs), uk = rng.pick(act::kAllInputs);
      g = act::values(rng, gk, n);
      u = act::values(rng, uk, n);
      what = std::string(act::inputs_name(gk)) + " up=" + act::inputs_name(uk);
      break;
    }
    case HalfKind::bits:
      bits_of(u);
      if (exhaustive) {
        const Tensor all = every_half(t);
        for (int64_t i = 0; i < n; ++i) g[i] = static_cast<float>(all.at(i));
        what = "every " + std::string(dtype_name(t)) + " value up=random bits";
      } else {
        bits_of(g);
        what = "random bits up=random bits";
      }
      break;
    case HalfKind::ties:
      for (int64_t i = 0; i < n; ++i) tie_pair(gate, t, rng, &g[i], &u[i]);
      what = half_kind_name(kind);
      break;
    case HalfKind::overflow: {
      // |act(g) up| within 2^-9 of the largest finite value, either side
      // (f16: past 65504 + 16 an infinity), act(g) = g (g >= 32).
      const double top = largest_finite(t);
      for (int64_t i = 0; i < n; ++i) {
        const double uu = t == DType::f16 ? rng.uniform(1, 1024) : rng.uniform(1e16, 1e18);
        u[i] = static_cast<float>(round_to(t, uu) * (rng.chance(0.5) ? -1 : 1));
        g[i] = static_cast<float>(round_to(t, top / uu * (1 + rng.uniform(-0x1p-9, 0x1p-9))));
        if (gate == Gate::sigmoid) g[i] = 40.0f;  // sigmoid = 1: y = up, exact
      }
      what = half_kind_name(kind);
      break;
    }
    case HalfKind::subnormal: {
      const int man = t == DType::f16 ? 10 : 7;
      const double tiny = t == DType::f16 ? 0x1p-24 : 0x1p-133;
      for (int64_t i = 0; i < n; ++i) {
        g[i] = static_cast<float>(tiny * double(rng.range(-(1 << man) + 1, (1 << man) - 1)));
        u[i] = rng.chance(0.5) ? static_cast<float>(tiny * double(rng.range(-(1 << man) + 1, (1 << man) - 1)))
                               : static_cast<float>(round_to(t, rng.uniform(-4, 4)));
      }
      what = half_kind_name(kind);
      break;
    }
  }
  for (float& v : u) v = finite_up(t, static_cast<float>(round_to(t, v)));
  Case c;
  c.params = {{"n", double(n)}};
  if (gate == Gate::gelu) {
    const int approximation = !exhaustive && rng.chance(0.08) ? rng.pick(kBadApproximations)
                              : exhaustive                    ? static_cast<int>(index % 2)
                                                              : static_cast<int>(rng.range(0, 1));
    c.params["approximation"] = double(approximation);
    what += " approximation=" + std::to_string(approximation);
    c.args.push_back(act::status_arg());
  }
  const double in_place = exhaustive ? 1.0 : rng.unit();
  c.args.push_back({"gate", Access::in, Tensor::of_half(t, {n}, g)});
  c.args.push_back({"up", Access::in, Tensor::of_half(t, {n}, u)});
  const std::string alias = in_place < 0.15 ? "gate" : in_place < 0.3 ? "up" : "";
  c.args.push_back({"y", Access::out, Tensor::zeros(t, {n}), Match::tolerance, alias});
  c.label = "n=" + std::to_string(n) + " gate=" + what + (alias.empty() ? "" : " y==" + alias);
  return c;
}

Oracle oracle(Gate gate, const Case& c) {
  const int64_t n = c.iparam("n");
  const Tensor& g = c.in("gate");  // f32, f16 or bf16: each value exact in a double
  const Tensor& u = c.in("up");
  Oracle out;
  int approximation = 0;
  if (gate == Gate::gelu) {
    approximation = c.iparam32("approximation");
    const bool valid = approximation == TL_GELU_ERF || approximation == TL_GELU_TANH;
    out["status"] = act::status_expected(valid ? TL_OK : TL_ERR_INVALID_ARGUMENT);
    if (!valid) return out;
  }
  Expected e;
  e.value.resize(static_cast<size_t>(n));
  e.scale.resize(e.value.size());
  e.flush_factor.resize(e.value.size());
  for (int64_t i = 0; i < n; ++i) {
    const double gi = g.at(i), ui = u.at(i);
    switch (gate) {
      case Gate::silu:
        e.value[i] = ref::silu(gi) * ui;
        e.scale[i] = act::silu_times_scale(gi, ui, e.value[i]);
        e.flush_factor[i] = act::silu_flush_factor(gi, ui);
        break;
      case Gate::sigmoid:
        e.value[i] = ref::sigmoid(gi) * ui;
        e.scale[i] = std::fabs(e.value[i]) + std::fabs(ui) * act::factored_sigmoid(gi);
        e.flush_factor[i] = act::sigmoid_flush_factor(gi, ui);
        break;
      case Gate::gelu: {
        // The Gelus' own scale (activations.cpp) times |up|.
        const bool tanh_form = approximation == TL_GELU_TANH;
        const double a = ref::gelu_tanh_argument(gi);
        const double t = tanh_form ? std::tanh(a) : std::erf(gi / std::sqrt(2.0));
        const double gelu = tanh_form ? ref::gelu_tanh(gi) : ref::gelu_erf(gi);
        e.value[i] = gelu * ui;
        e.scale[i] = (0.5 * std::fabs(gi) * (1.0 + std::fabs(t)) + kSubnormalGate) * std::fabs(ui);
        // The flushable intermediates: 0.5 (1 + erf) or 0.5 (1 + tanh) (the
        // cdf, without cancellation: erfc, sigmoid(2a)) times g up, and
        // gelu(g) times up.
        const double cdf = tanh_form ? act::sigmoid(2 * a) : 0.5 * std::erfc(-gi / std::sqrt(2.0));
        e.flush_factor[i] = act::flush_factor(cdf, gi * ui) + act::flush_factor(gelu, ui);
        break;
      }
    }
  }
  out["y"] = e;
  return out;
}

OpSpec gated_op(Gate gate, const char* name, const char* symbol, const char* summary, const char* spec,
                std::vector<ToleranceRule> tolerances, DType t = DType::f32) {
  OpSpec op;
  const bool half = t != DType::f32;
  const std::string dtype(dtype_name(t));
  op.name = half ? std::string(name) + "_" + dtype : name;
  op.dtype = t;
  op.tolerances = std::move(tolerances);
  op.group = "activations";
  op.symbol = half ? std::string(symbol).substr(0, std::string(symbol).size() - 3) + dtype : symbol;
  op.summary = summary;
  if (half) op.summary += "; gate, up and y " + dtype + ", act(gate) and the product in f32, y rounded once";
  op.spec = spec;
  op.params = {{"n", ParamType::i64, ">= 0"}};
  op.domain =
      "gate: every value class (NaN, +-Inf, regime points included); up: finite, |up| <= 1e18 "
      "(Inf times a gate that underflowed is NaN or Inf by whether it flushed, which the spec leaves open)";
  if (half)
    op.domain = "gate: every " + dtype + " value (case 0, against random finite up), then " + op.domain +
                ", rounded to the dtype; random patterns, products that are ties of the demotion, products around "
                "the largest finite value, subnormals";
  if (gate == Gate::gelu) {
    op.params.push_back({"approximation", ParamType::i32,
                         "TL_GELU_ERF (0) or TL_GELU_TANH (1); others refused with TL_ERR_INVALID_ARGUMENT"});
    op.status = "status";
    if (half) declare_c_call<decltype(tl_geglu_f16)>(op, {"gate", "up", "y", "n", "approximation"});  // bf16 alike
    else declare_c_call<decltype(tl_geglu_f32)>(op, {"gate", "up", "y", "n", "approximation"});
  } else if (half) {
    declare_c_call<decltype(tl_swiglu_f16)>(op, {"gate", "up", "y", "n"});  // SwiGlu's and Glu's, f16 and bf16
  } else {
    declare_c_call<decltype(tl_swiglu_f32)>(op, {"gate", "up", "y", "n"});  // SwiGlu's and Glu's signature
  }
  op.edge_cases = static_cast<int64_t>(edge_sizes().size()) + (half ? 1 : 0);
  if (half) op.make_case = [gate, t](Rng& rng, int64_t i) { return make_half(gate, t, rng, i); };
  else op.make_case = [gate](Rng& rng, int64_t i) { return make(gate, rng, i); };
  op.oracle = [gate](const Case& c) { return oracle(gate, c); };
  op.args = {{"gate", Access::in, "T", "n"},
             {"up", Access::in, "T", "n"},
             {"y", Access::out, "T", "n", {Match::tolerance}, {"gate", "up"}}};
  if (!op.status.empty()) op.args.push_back(status_output());
  return op;
}

// Each op in f32 and its f16 and bf16 twins, whose rules follow from the
// f32 one (half_rule).
std::vector<OpSpec> with_half_twins(Gate gate, const char* name, const char* symbol, const char* summary,
                                    const char* spec, const ToleranceRule& f32) {
  std::vector<OpSpec> ops = {gated_op(gate, name, symbol, summary, spec, {f32})};
  for (DType t : {DType::f16, DType::bf16})
    ops.push_back(gated_op(gate, name, symbol, summary, spec, {half_rule(t, f32)}, t));
  return ops;
}

}  // namespace

std::vector<OpSpec> gated() {
  std::vector<OpSpec> ops;
  for (std::vector<OpSpec> twins :
       {with_half_twins(Gate::silu, "SwiGlu", "tl_swiglu_f32",
                        "y = silu(gate) * up (Llama's FFN middle); y may be gate or up",
                        "operations.txt 4. Activation: SwiGlu",
                        {DType::f32, "17", "-",
                         "silu(gate) <= 16 u (see Silu) then the product with up 1 u; the scale adds Silu's terms "
                         "times |up|: |gate up| 2^-104 where e^-gate overflows (gate <= -88.72283935546875: silu "
                         "flushed), |gate up| FLT_MIN elsewhere (the sigmoid rounded into the subnormals), and "
                         "FLT_MIN |up| (silu(gate) rounded into the subnormals carries <= 2^-150 |up|)"}),
        with_half_twins(Gate::gelu, "GeGlu", "tl_geglu_f32",
                        "y = gelu(gate) * up, Gelu_erf or Gelu_tanh by `approximation`; y may be gate or up",
                        "operations.txt 4. Activation: GeGlu",
                        {DType::f32, "21", "-",
                         "Gelu_erf (<= 19.5 u, the erf budget) or Gelu_tanh (<= 17.2 u, the tanh or exp budget) "
                         "of the gate in their own scales, times |up|, plus the product's 1 u of |y| <= that "
                         "scale; FLT_MIN |up| admits a gelu rounded into the subnormals"}),
        with_half_twins(Gate::sigmoid, "Glu", "tl_glu_f32", "y = sigmoid(gate) * up; y may be gate or up",
                        "operations.txt 4. Activation: Glu",
                        {DType::f32, "16", "-",
                         "sigmoid(gate) <= 15 u (see Sigmoid, the exp budget (<= 4 ulp, 8 u)) then the product "
                         "with up 1 u; the scale adds |up| 2^-104 where e^-gate overflows (gate <= "
                         "-88.72283935546875: the sigmoid flushed) and |up| FLT_MIN elsewhere (the sigmoid "
                         "rounded into the subnormals)"})})
    for (OpSpec& op : twins) ops.push_back(std::move(op));
  return ops;
}

}  // namespace konform::ops
