// RmsNorm: y = x / sqrt(mean(x^2) + eps) * w per row (spec §2.1).
#include <cmath>
#include <string>

#include "konform/c_call.hpp"
#include "konform/reference/elementwise.hpp"
#include "konform/values.hpp"
#include "konform/op.hpp"
#include "tinyllm/elementwise.h"

namespace konform::ops {

std::vector<OpSpec> rmsnorm();

namespace {

// |x| * d below FLT_MAX keeps the f32 sum of squares finite for d <= 2^17.
constexpr double kMaxAbs = 1e15;

Case make(Rng& rng, int64_t index, int64_t edges) {
  const auto& sizes = edge_sizes();
  const int64_t d =
      index < edges ? sizes[static_cast<size_t>(index)] : (rng.chance(0.5) ? rng.pick(sizes) : rng.range(1, 300));
  const int64_t rows = d > 1024 ? rng.range(1, 2) : rng.range(1, 6);
  const ValueClass vc = rng.pick(kAllValueClasses);
  // eps = 0 only where mean(x^2) is a normal float; otherwise eps carries the root.
  const bool eps_zero_ok = vc == ValueClass::normal || vc == ValueClass::wide;
  const float eps_options[] = {1e-5f, 1e-6f, 1e-12f, 0.0f};
  float eps = rng.pick(eps_options);
  if (eps == 0.0f && !eps_zero_ok) eps = 1e-6f;
  const bool in_place = rng.chance(0.3);

  Case c;
  c.params = {{"rows", double(rows)}, {"d", double(d)}, {"eps", double(eps)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({rows, d}, make_values(rng, vc, rows * d, kMaxAbs))});
  c.args.push_back({"w", Access::in,
                    Tensor::of_f32({d}, make_values(rng, rng.chance(0.8) ? ValueClass::normal : ValueClass::ties, d))});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {rows, d}), Match::tolerance, in_place ? "x" : ""});
  c.label = "rows=" + std::to_string(rows) + " d=" + std::to_string(d) + " x=" + std::string(value_class_name(vc)) +
            " eps=" + std::to_string(eps) + (in_place ? " y==x" : "");
  return c;
}

Oracle oracle(const Case& c) {
  const int64_t rows = c.iparam("rows"), d = c.iparam("d");
  Expected e;
  e.value.resize(static_cast<size_t>(rows * d));
  reference::rmsnorm<double>(c.in("x").f32(), c.in("w").f32(), e.value.data(), rows, d,
                             static_cast<float>(c.param("eps")));
  // Each output is x_i * inv * w_i: its own magnitude is the scale; the shared
  // inv carries the row's sum, whose relative error is what the limit bounds.
  e.scale.resize(e.value.size());
  for (size_t k = 0; k < e.value.size(); ++k) e.scale[k] = std::fabs(e.value[k]);
  return {{"y", e}};
}

}  // namespace

std::vector<OpSpec> rmsnorm() {
  OpSpec op;
  op.name = "elementwise_rmsnorm";  // the contract tinyllm/elementwise.h
  op.args = {{"x", Access::in, "T", "rows, d"},
             {"w", Access::in, "T", "d"},
             {"y", Access::out, "T", "rows, d", {Match::tolerance}, {"x"}}};
  op.tolerances = {{DType::f32, "16", "1e-6",
                    "sum of squares blocked or pairwise (rel. err. <= ~log2(d) u, halved by the root), rsqrt <="
                    " 2 u, two products 1 u each; the spec's 1e-6 = 16.8 u is the ceiling; pairwise-accurate "
                    "sums are a contract requirement, a left-to-right float sum is not enough "
                    "(docs/tolerances.md)"}};
  op.former_name = "rmsnorm";
  op.group = "elementwise";
  op.symbol = "tl_rmsnorm_f32";
  op.summary = "y = x / sqrt(mean(x^2) + eps) * w, per row; y == x allowed";
  op.spec = "elementwise-kernels.txt 2. Principles: 2.1 RMSNorm";
  op.params = {{"rows", ParamType::i64, ">= 1"},
               {"d", ParamType::i64, ">= 1"},
               {"eps", ParamType::f32, ">= 0 (0 only where mean(x^2) is normal)"}};
  op.domain =
      "|x| <= 1e15 so the f32 sum of squares stays finite; eps = 0 only for rows whose mean square is a normal float";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size());
  op.make_case = [edges = op.edge_cases](Rng& rng, int64_t i) { return make(rng, i, edges); };
  declare_c_call<decltype(tl_rmsnorm_f32)>(op, {"x", "w", "y", "rows", "d", "eps"});
  op.oracle = oracle;
  return {op};
}

}  // namespace konform::ops
