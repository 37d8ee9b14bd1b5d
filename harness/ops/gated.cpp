// The gated elementwise middle of the FFNs of spec/operations.txt section 4:
// SwiGlu (silu(gate) * up), GeGlu (gelu(gate) * up), Glu (sigmoid(gate) * up)
// (tinyllm/activations.h). The matmuls around them are Matmul's.
#include <climits>
#include <cmath>
#include <string>

#include "konform/c_call.hpp"
#include "activation_support.hpp"
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

Oracle oracle(Gate gate, const Case& c) {
  const int64_t n = c.iparam("n");
  const float* g = c.in("gate").f32();
  const float* u = c.in("up").f32();
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
    const double gi = g[i], ui = u[i];
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
                std::vector<ToleranceRule> tolerances) {
  OpSpec op;
  op.name = name;
  op.tolerances = std::move(tolerances);
  op.group = "activations";
  op.symbol = symbol;
  op.summary = summary;
  op.spec = spec;
  op.params = {{"n", ParamType::i64, ">= 0"}};
  op.domain =
      "gate: every value class (NaN, +-Inf, regime points included); up: finite, |up| <= 1e18 "
      "(Inf times a gate that underflowed is NaN or Inf by whether it flushed, which the spec leaves open)";
  if (gate == Gate::gelu) {
    op.params.push_back({"approximation", ParamType::i32,
                         "TL_GELU_ERF (0) or TL_GELU_TANH (1); others refused with TL_ERR_INVALID_ARGUMENT"});
    op.status = "status";
    declare_c_call<decltype(tl_geglu_f32)>(op, {"gate", "up", "y", "n", "approximation"});
  } else {
    declare_c_call<decltype(tl_swiglu_f32)>(op, {"gate", "up", "y", "n"});  // SwiGlu's and Glu's signature
  }
  op.edge_cases = static_cast<int64_t>(edge_sizes().size());
  op.make_case = [gate](Rng& rng, int64_t i) { return make(gate, rng, i); };
  op.oracle = [gate](const Case& c) { return oracle(gate, c); };
  op.args = {{"gate", Access::in, "T", "n"},
             {"up", Access::in, "T", "n"},
             {"y", Access::out, "T", "n", {Match::tolerance}, {"gate", "up"}}};
  if (!op.status.empty()) op.args.push_back(status_output());
  return op;
}

}  // namespace

std::vector<OpSpec> gated() {
  return {
      gated_op(Gate::silu, "SwiGlu", "tl_swiglu_f32", "y = silu(gate) * up (Llama's FFN middle); y may be gate or up",
               "operations.txt 4. Activation: SwiGlu",
               {{DType::f32, "17", "-",
                 "silu(gate) <= 16 u (see Silu) then the product with up 1 u; the scale adds Silu's terms "
                 "times |up|: |gate up| 2^-104 where e^-gate overflows (gate <= -88.72283935546875: silu "
                 "flushed), |gate up| FLT_MIN elsewhere (the sigmoid rounded into the subnormals), and "
                 "FLT_MIN |up| (silu(gate) rounded into the subnormals carries <= 2^-150 |up|)"}}),
      gated_op(Gate::gelu, "GeGlu", "tl_geglu_f32",
               "y = gelu(gate) * up, Gelu_erf or Gelu_tanh by `approximation`; y may be gate or up",
               "operations.txt 4. Activation: GeGlu",
               {{DType::f32, "21", "-",
                 "Gelu_erf (<= 19.5 u, the erf budget) or Gelu_tanh (<= 17.2 u, the tanh or exp budget) of "
                 "the gate in their own scales, times |up|, plus the product's 1 u of |y| <= that scale; "
                 "FLT_MIN |up| admits a gelu rounded into the subnormals"}}),
      gated_op(Gate::sigmoid, "Glu", "tl_glu_f32", "y = sigmoid(gate) * up; y may be gate or up",
               "operations.txt 4. Activation: Glu",
               {{DType::f32, "16", "-",
                 "sigmoid(gate) <= 15 u (see Sigmoid, the exp budget (<= 4 ulp, 8 u)) then the product with "
                 "up 1 u; the scale adds |up| 2^-104 where e^-gate overflows (gate <= -88.72283935546875: "
                 "the sigmoid flushed) and |up| FLT_MIN elsewhere (the sigmoid rounded into the subnormals)"}})};
}

}  // namespace konform::ops
