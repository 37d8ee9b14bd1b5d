// The gated feed-forwards with their three matmuls (spec §4): SwiGlu_FFN,
// GeGlu_FFN (both GELUs) and Glu_FFN: y = (act(x Wg^T) * (x Wu^T)) @ Wd^T.
// Named _FFN so they never meet the elementwise gated ops SwiGlu/GeGlu/Glu.
#include <string>

#include "konform/c_call.hpp"
#include "ffn_support.hpp"
#include "konform/reference/linalg.hpp"
#include "linalg_support.hpp"
#include "tinyllm/linalg.h"

namespace konform::ops {

std::vector<OpSpec> ffn();

namespace {

using namespace linalg;
using reference::ffn::Gate;

struct Dims {
  int64_t M, D, H;
};

// Empty layers, single units, the hidden layer's blocks of 256 rows and
// columns, the strip/packed switch at 8/9 rows.
const std::vector<Dims>& edge_dims() {
  static const std::vector<Dims> dims = {{1, 1, 1},    {1, 8, 0},   {0, 4, 4},    {2, 0, 3},    {1, 16, 17},
                                         {3, 33, 31},  {8, 24, 40}, {9, 16, 64},  {12, 64, 40}, {1, 40, 257},
                                         {5, 24, 300}, {260, 8, 4}, {17, 48, 100}};
  return dims;
}

// Magnitudes up to 1e4: gates up to D 1e8, hidden values up to 1e20 and
// outputs up to H 1e24 stay finite in float, as in the double oracle.
constexpr double kFfnMaxAbs = 1e4;

std::vector<float> weights(Rng& rng, ValueClass vc, int64_t rows, int64_t cols) {
  std::vector<float> w = make_values(rng, vc, rows * cols, kFfnMaxAbs);
  if (vc == ValueClass::normal && cols > 0) {  // unit-variance gates, as trained layers have
    const float k = 1.0f / std::sqrt(static_cast<float>(cols));
    for (float& v : w) v *= k;
  }
  return w;
}

ValueClass pick(Rng& rng) { return rng.chance(0.75) ? ValueClass::normal : pick_class(rng); }

Case make(Rng& rng, int64_t index, int64_t edges, bool has_gelu) {
  Dims s;
  if (index < edges) {
    s = edge_dims()[static_cast<size_t>(index)];
  } else {
    s.M = rng.chance(0.7) ? rng.range(1, 12) : rng.range(13, 40);
    s.D = rng.range(1, 96);
    s.H = rng.range(1, 200);
  }
  const ValueClass xc = pick(rng), wc = pick(rng);
  Case c;
  c.params = {{"M", double(s.M)}, {"D", double(s.D)}, {"H", double(s.H)}};
  if (has_gelu) c.params["gelu"] = rng.chance(0.5) ? TL_FFN_GELU_ERF : TL_FFN_GELU_TANH;
  std::vector<int64_t> xs = {s.M, s.D};
  if (s.M % 2 == 0 && s.M > 2 && rng.chance(0.4)) xs = {2, s.M / 2, s.D};
  c.args.push_back({"x", Access::in, Tensor::of_f32(xs, make_values(rng, xc, s.M * s.D, kFfnMaxAbs))});
  c.args.push_back({"w_gate", Access::in, Tensor::of_f32({s.H, s.D}, weights(rng, wc, s.H, s.D))});
  c.args.push_back({"w_up", Access::in, Tensor::of_f32({s.H, s.D}, weights(rng, wc, s.H, s.D))});
  c.args.push_back({"w_down", Access::in, Tensor::of_f32({s.D, s.H}, weights(rng, wc, s.D, s.H))});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, xs)});
  c.args.push_back(status_arg());
  c.label = "x " + shape_string(xs) + " H=" + std::to_string(s.H) + " x=" + std::string(value_class_name(xc)) +
            " w=" + std::string(value_class_name(wc)) +
            (has_gelu ? (c.iparam("gelu") == TL_FFN_GELU_ERF ? " gelu=erf" : " gelu=tanh") : "");
  if (index >= edges && rng.chance(0.1)) {
    if (has_gelu && rng.chance(0.3)) {
      const double bad[] = {-1, 2, 7};
      c.params["gelu"] = rng.pick(bad);
      c.label += " bad: gelu = " + std::to_string(c.iparam("gelu"));
    } else {
      c.label += " " + make_size_invalid(rng, c, {"M", "D", "H"});
    }
  }
  return c;
}

Gate gate_of(Gate act, const Case& c) {
  if (act != Gate::gelu_erf) return act;
  return c.iparam("gelu") == TL_FFN_GELU_TANH ? Gate::gelu_tanh : Gate::gelu_erf;
}

tl_status call_status(const Case& c, bool has_gelu) {
  if (has_gelu && c.iparam("gelu") != TL_FFN_GELU_ERF && c.iparam("gelu") != TL_FFN_GELU_TANH)
    return TL_ERR_INVALID_ARGUMENT;
  return sizes_status({c.iparam("M"), c.iparam("D"), c.iparam("H")});
}

Oracle oracle(const Case& c, Gate act, bool has_gelu) {
  if (tl_status st = call_status(c, has_gelu)) return {{"status", status_expected(st)}};
  const int64_t M = c.iparam("M"), D = c.iparam("D"), H = c.iparam("H");
  const Gate g = gate_of(act, c);
  const float *x = c.in("x").f32(), *wg = c.in("w_gate").f32(), *wu = c.in("w_up").f32(), *wd = c.in("w_down").f32();
  Expected y;
  y.value.resize(static_cast<size_t>(M * D));
  reference::gated_ffn<double>(x, wg, wu, wd, y.value.data(), M, D, H, g);
  y.scale = ffn_scale::output_scale(ffn_scale::hidden_with_scale(x, wg, wu, M, D, H, g), wd, M, D, H);
  return {{"status", status_expected(TL_OK)}, {"y", y}};
}

OpSpec declare(const std::string& name, const std::string& symbol, Gate act, const std::string& summary,
               const std::string& spec, std::vector<ToleranceRule> tolerances) {
  const bool has_gelu = act == Gate::gelu_erf;
  OpSpec op;
  op.name = name;
  op.tolerances = std::move(tolerances);
  op.args = {{"x", Access::in, "T", "M..., D"},  // leading dimensions flattened: [B, S, D] with B S = M
             {"w_gate", Access::in, "T", "H, D"},
             {"w_up", Access::in, "T", "H, D"},
             {"w_down", Access::in, "T", "D, H"},
             {"y", Access::out, "T", "M..., D"},
             status_output()};
  op.group = "linalg";
  op.symbol = symbol;
  op.summary = summary;
  op.spec = spec;
  op.params = {{"M", ParamType::i64, "rows: >= 0; times D or H, * 4 bytes, within int64_t"},
               {"D", ParamType::i64, "model width: >= 0; times M or H, * 4 bytes, within int64_t"},
               {"H", ParamType::i64, "hidden width: >= 0; times M or D, * 4 bytes, within int64_t"}};
  if (has_gelu)
    op.params.push_back({"gelu", ParamType::i32, "TL_FFN_GELU_ERF (0) or TL_FFN_GELU_TANH (1); others refused"});
  op.domain =
      "|x|, |w| <= 1e4 (gates, hidden values and outputs stay finite in float), every value class; the scale "
      "carries the gate and up errors through act' and the down matmul; one case in ten past the edges has "
      "a bad argument, which must be refused";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_dims().size());
  op.make_case = [edges = op.edge_cases, has_gelu](Rng& rng, int64_t i) { return make(rng, i, edges, has_gelu); };
  if (has_gelu)
    declare_c_call<decltype(tl_geglu_ffn_f32)>(op, {"x", "w_gate", "w_up", "w_down", "y", "M", "D", "H", "gelu"});
  else  // SwiGlu_FFN's and Glu_FFN's signature
    declare_c_call<decltype(tl_swiglu_ffn_f32)>(op, {"x", "w_gate", "w_up", "w_down", "y", "M", "D", "H"});
  op.oracle = [act, has_gelu](const Case& c) { return oracle(c, act, has_gelu); };
  op.sum_length = [](const Case& c) { return largest_param(c, {"D", "H"}); };  // gate and up over D, down over H
  return op;
}

}  // namespace

std::vector<OpSpec> ffn() {
  return {
      declare("SwiGlu_FFN", "tl_swiglu_ffn_f32", Gate::silu,
              "y = (Silu(x Wg^T) * (x Wu^T)) @ Wd^T, x [..., D], Wg, Wu [H, D], Wd [D, H]; validates",
              "operations.txt 4. Activation: SwiGlu",
              {{DType::f32, "272+1n; strict 273", "-",
                "default: the matmuls' any-order bound over n = max(D, H) terms (Matmul's default) plus "
                "elementwise_silu_mul's 17 u; strict: three matmuls (Matmul's 256 u each) carried by the "
                "scale: gate and up errors through |act(g)| s_u + |u act'(g)| s_g, the hidden layer's "
                "through |Wd|; Silu times up within elementwise_silu_mul's 17 u of |u silu(g)| (the exp "
                "budget (<= 4 ulp, 8 u)): 256 + 17; the scale's |u g| 2^-104 admits the f32 form's 0 where "
                "the kernel's gate may reach -88.72283935546875 (g - 256 u s_g <= it) and only there, |u g|"
                " FLT_MIN elsewhere (a sigmoid rounded into the subnormals)"}}),
      declare("GeGlu_FFN", "tl_geglu_ffn_f32", Gate::gelu_erf,
              "y = (Gelu(x Wg^T) * (x Wu^T)) @ Wd^T, Gelu erf or tanh; validates",
              "operations.txt 4. Activation: GeGlu",
              {{DType::f32, "276+1n; strict 277", "-",
                "default: the matmuls' any-order bound over n = max(D, H) terms (Matmul's default) plus "
                "GeGlu's 21 u; strict: as SwiGlu_FFN with Gelu: GeGlu's 21 u of 0.5 |g u| (1 + |erf|) (the "
                "erf budget, 16 u absolute, as in Gelu_erf; or the tanh budget), which the scale uses "
                "because 1 + erf cancels for negative g: 256 + 21"}}),
      declare("Glu_FFN", "tl_glu_ffn_f32", Gate::sigmoid, "y = (Sigmoid(x Wg^T) * (x Wu^T)) @ Wd^T; validates",
              "operations.txt 4. Activation: Glu",
              {{DType::f32, "271+1n; strict 272", "-",
                "default: the matmuls' any-order bound over n = max(D, H) terms (Matmul's default) plus "
                "Glu's 16 u; strict: as SwiGlu_FFN with Sigmoid: Glu's 16 u (the exp budget (<= 4 ulp, 8 "
                "u)): 256 + 16; |u| 2^-104 admits the flushed sigmoid where g - 256 u s_g <= "
                "-88.72283935546875, |u| FLT_MIN elsewhere"}}),
  };
}

}  // namespace konform::ops
