// The gated feed-forwards with their three matmuls (spec §4): SwiGlu_FFN,
// GeGlu_FFN (both GELUs) and Glu_FFN: y = (act(x Wg^T) * (x Wu^T)) @ Wd^T.
// Named _FFN so they never meet the elementwise gated ops SwiGlu/GeGlu/Glu.
// And their f16 and bf16 twins (<Op>_f16, <Op>_bf16): sums in f32, the hidden
// layer kept in f32 or rounded once to the dtype, y rounded once.
#include <algorithm>
#include <cmath>
#include <string>

#include "konform/c_call.hpp"
#include "ffn_support.hpp"
#include "half_linalg_support.hpp"
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

// One case in ten past the edges gets a bad argument: a GELU variant that
// does not exist (GeGlu, three in ten of those) or a bad size.
void maybe_bad(Rng& rng, Case& c, int64_t index, int64_t edges, bool has_gelu) {
  if (index < edges || !rng.chance(0.1)) return;
  if (has_gelu && rng.chance(0.3)) {
    const double bad[] = {-1, 2, 7};
    c.params["gelu"] = rng.pick(bad);
    c.label += " bad: gelu = " + std::to_string(c.iparam("gelu"));
  } else {
    c.label += " " + make_size_invalid(rng, c, {"M", "D", "H"});
  }
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
  maybe_bad(rng, c, index, edges, has_gelu);
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

// f32, or the half twins' widened values; their hidden layer may be rounded
// to the dtype, within u of at least its smallest normal (the scale's floor).
Oracle oracle(const Case& c, Gate act, bool has_gelu) {
  if (tl_status st = call_status(c, has_gelu)) return {{"status", status_expected(st)}};
  const int64_t M = c.iparam("M"), D = c.iparam("D"), H = c.iparam("H");
  const Gate g = gate_of(act, c);
  const std::vector<float> xv = floats_of(c.in("x")), wgv = floats_of(c.in("w_gate")), wuv = floats_of(c.in("w_up")),
                           wdv = floats_of(c.in("w_down"));
  const float *x = xv.data(), *wg = wgv.data(), *wu = wuv.data(), *wd = wdv.data();
  const DType t = c.in("x").dtype;
  Expected y;
  y.value.resize(static_cast<size_t>(M * D));
  reference::gated_ffn<double>(x, wg, wu, wd, y.value.data(), M, D, H, g);
  y.scale = ffn_scale::output_scale(ffn_scale::hidden_with_scale(x, wg, wu, M, D, H, g), wd, M, D, H,
                                    t == DType::f32 ? 0.0 : smallest_normal(t));
  return {{"status", status_expected(TL_OK)}, {"y", y}};
}

// ---------------------------------------------------------------- f16 and bf16

// The half twins' shapes: the f32 op's small edges, and two long sums of
// positive terms, where a sum accumulated in the half dtype stagnates (its
// roundings add up instead of cancelling): the gate and up over D = 2048,
// the down projection over H = 1024.
const std::vector<Dims>& half_edge_dims() {
  static const std::vector<Dims> dims = {{1, 1, 1},   {1, 8, 0},   {0, 4, 4},   {2, 0, 3},    {1, 16, 17},
                                         {3, 33, 31}, {8, 24, 40}, {9, 16, 64}, {1, 2048, 4}, {1, 2, 1024}};
  return dims;
}

// bf16 values within the f32 op's 1e4 (finite gates, hidden values and outputs).
constexpr Bf16Range kFfnBf16{13.2, 7, 1e4f};

// f16: x halved until every finite hidden value, with its f32 error, lies
// below 2^15 (rounded to f16 or kept in f32 alike: its overflow is left
// open), then w_down halved until no y* lies within 2^-8 s_y of 65520, f16's
// overflow threshold (between a finite result and an infinity the comparator
// has no tolerance). The halvings, for the label.
std::string fit_f16(std::vector<float>& x, const std::vector<float>& wg, const std::vector<float>& wu,
                    std::vector<float>& wd, const Dims& s, Gate g) {
  std::string note;
  const auto halve = [&](std::vector<float>& v, int k, const char* name) {
    for (float& e : v) e = static_cast<float>(round_to(DType::f16, std::ldexp(static_cast<double>(e), -k)));
    note += std::string(" ") + name + " 2^-" + std::to_string(k);
  };
  for (int round = 0; round < 8; ++round) {
    const ffn_scale::Hidden hid = ffn_scale::hidden_with_scale(x.data(), wg.data(), wu.data(), s.M, s.D, s.H, g);
    double worst = 0;
    for (size_t i = 0; i < hid.h.size(); ++i)
      if (std::isfinite(hid.h[i]) && std::isfinite(hid.scale[i]))
        worst = std::max(worst, std::fabs(hid.h[i]) + 0x1p-15 * hid.scale[i]);
    if (worst <= 0x1p15) break;
    halve(x, std::max(1, static_cast<int>(std::ceil(std::log2(worst / 0x1p15) / 2))), "x");
  }
  const ffn_scale::Hidden hid = ffn_scale::hidden_with_scale(x.data(), wg.data(), wu.data(), s.M, s.D, s.H, g);
  for (int round = 0; round < 8; ++round) {
    const std::vector<double> sy = ffn_scale::output_scale(hid, wd.data(), s.M, s.D, s.H, 0x1p-14);
    bool clear = true;
    for (int64_t m = 0; m < s.M && clear; ++m)
      for (int64_t i = 0; i < s.D && clear; ++i) {
        double y = 0;
        for (int64_t j = 0; j < s.H; ++j)
          y += static_cast<double>(wd[static_cast<size_t>(i * s.H + j)]) * hid.h[static_cast<size_t>(m * s.H + j)];
        const double band = 0x1p-8 * sy[static_cast<size_t>(m * s.D + i)];
        clear = !std::isfinite(y) || !std::isfinite(band) || std::fabs(std::fabs(y) - 65520.0) > band;
      }
    if (clear) break;
    halve(wd, 1, "w_down");
  }
  return note;
}

// A case of a half twin: small shapes (the feed-forwards are matmuls, judged
// as such by Matmul's twins), values that know the dtype: its subnormals,
// log-uniform magnitudes over its range (f16: hidden values and outputs past
// 65504 in f32, fitted by fit_f16), large ones, specials in x (the weights
// finite: a hidden value rounded to 0 times an infinite weight is NaN where
// the exact product is infinite), positive sums.
Case make_half(DType t, Rng& rng, int64_t index, int64_t edges, bool has_gelu, Gate act) {
  Dims s;
  if (index < edges) {
    s = half_edge_dims()[static_cast<size_t>(index)];
  } else {
    s.M = rng.chance(0.7) ? rng.range(1, 4) : rng.range(5, 8);
    s.D = rng.range(1, 32);
    s.H = rng.range(1, 48);
  }
  const bool long_sum = std::max(s.D, s.H) >= 1024;
  const char* x_classes[] = {"normal", "normal", "normal", "wide", "subnormal", "specials", "large", "positive"};
  const char* w_classes[] = {"normal", "normal", "normal", "wide", "subnormal", "large", "positive"};
  const std::string xc = long_sum ? "positive" : rng.pick(x_classes), wc = long_sum ? "positive" : rng.pick(w_classes);
  const auto weights = [&](int64_t rows, int64_t cols) {
    std::vector<float> w = half_operand(rng, t, wc, rows * cols, kFfnBf16);
    if ((wc == "normal" || wc == "positive") && cols > 0)  // unit-variance gates, as trained layers have
      for (float& v : w) v /= std::sqrt(static_cast<float>(cols));
    return rounded(t, std::move(w));
  };
  std::vector<float> x = rounded(t, half_operand(rng, t, xc, s.M * s.D, kFfnBf16));
  const std::vector<float> wg = weights(s.H, s.D), wu = weights(s.H, s.D);
  std::vector<float> wd = weights(s.D, s.H);
  Case c;
  c.params = {{"M", double(s.M)}, {"D", double(s.D)}, {"H", double(s.H)}};
  if (has_gelu) c.params["gelu"] = rng.chance(0.5) ? TL_FFN_GELU_ERF : TL_FFN_GELU_TANH;
  const std::string fitted = t == DType::f16 ? fit_f16(x, wg, wu, wd, s, gate_of(act, c)) : "";
  std::vector<int64_t> xs = {s.M, s.D};
  if (s.M % 2 == 0 && s.M > 2 && rng.chance(0.4)) xs = {2, s.M / 2, s.D};
  c.args.push_back({"x", Access::in, Tensor::of_half(t, xs, x)});
  c.args.push_back({"w_gate", Access::in, Tensor::of_half(t, {s.H, s.D}, wg)});
  c.args.push_back({"w_up", Access::in, Tensor::of_half(t, {s.H, s.D}, wu)});
  c.args.push_back({"w_down", Access::in, Tensor::of_half(t, {s.D, s.H}, wd)});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, xs)});
  c.args.push_back(status_arg());
  c.label = "x " + shape_string(xs) + " H=" + std::to_string(s.H) + " x=" + xc + " w=" + wc + fitted +
            (has_gelu ? (c.iparam("gelu") == TL_FFN_GELU_ERF ? " gelu=erf" : " gelu=tanh") : "");
  maybe_bad(rng, c, index, edges, has_gelu);
  return c;
}

// The f16 or bf16 twin of a feed-forward: its rule carried by half_rule with
// the hidden layer's one rounding between the matmuls.
OpSpec half_twin(const OpSpec& f32, DType t, Gate act) {
  const bool has_gelu = act == Gate::gelu_erf;
  const std::string dtype(dtype_name(t));
  OpSpec op = half_twin_of(f32, t);
  ToleranceRule rule = half_rule(t, f32.tolerances.front(), "-", 1);
  rule.why += "; the hidden layer rounded to " + dtype +
              " between the matmuls (llama.cpp's down projection reads it so) or kept in f32, the scale's hidden "
              "values raised to the smallest normal";
  op.tolerances = {rule};
  op.summary += "; x, weights, y " + dtype + ", sums in f32, the hidden layer f32 or rounded once";
  op.domain = "values of " + dtype + ": normal (weights over sqrt of their width), log-uniform " +
              (t == DType::f16 ? "over 2^-24 .. 2^15.9" : "2^-133 .. 2^13.2") +
              ", subnormal, large, positive (long sums: D = 2048, H = 1024), specials in x (the weights finite: "
              "a hidden value rounded to 0 times an infinite weight is NaN where the exact one is infinite)" +
              (t == DType::f16 ? "; x halved until every hidden value lies below 2^15 (its f16 overflow, an "
                                 "infinity when rounded and finite when kept, is left open), w_down until no y* "
                                 "lies within 2^-8 s_y of 65520 (outputs past it: infinities)"
                               : "") +
              "; small shapes (M <= 8, D <= 32, H <= 48); one case in ten past the edges has a bad argument, "
              "which must be refused";
  op.edge_cases = static_cast<int64_t>(half_edge_dims().size());
  op.make_case = [t, edges = op.edge_cases, has_gelu, act](Rng& rng, int64_t i) {
    return make_half(t, rng, i, edges, has_gelu, act);
  };
  if (has_gelu)
    declare_c_call<decltype(tl_geglu_ffn_f16)>(op, {"x", "w_gate", "w_up", "w_down", "y", "M", "D", "H", "gelu"});
  else  // SwiGlu_FFN's and Glu_FFN's signature, bf16 alike
    declare_c_call<decltype(tl_swiglu_ffn_f16)>(op, {"x", "w_gate", "w_up", "w_down", "y", "M", "D", "H"});
  return op;
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
  std::vector<OpSpec> ops = {
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
  const Gate acts[] = {Gate::silu, Gate::gelu_erf, Gate::sigmoid};  // ops' order
  for (size_t k = 0; k < 3; ++k)
    for (const DType t : {DType::f16, DType::bf16}) ops.push_back(half_twin(ops[k], t, acts[k]));
  return ops;
}

}  // namespace konform::ops
