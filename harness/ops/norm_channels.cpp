// The norms of x[N, C, spatial...] (spec §2): BatchNorm with running
// statistics, GroupNorm and InstanceNorm.
#include <cmath>
#include <string>

#include "konform/c_call.hpp"
#include "konform/op.hpp"
#include "konform/reference/norm.hpp"
#include "norm_support.hpp"
#include "tinyllm/norm.h"

namespace konform::ops {

std::vector<OpSpec> norm_channels();

namespace {

using namespace norm;

// [N, C, spatial...] with ndim 2..4: the spatial extent from the edge sizes
// first (one sample, `channels` channels), then at random up to `most`.
std::vector<int64_t> make_shape(Rng& rng, int64_t index, int64_t edges, int64_t channels, int64_t most) {
  std::vector<int64_t> shape = {index < edges ? 1 : rng.range(1, 3), channels};
  if (index < edges) {
    shape.push_back(edge_sizes()[static_cast<size_t>(index)]);
    return shape;
  }
  if (rng.chance(0.03)) shape[0] = 0;
  const int64_t spatial_dims = rng.range(0, 2);
  int64_t left = most;
  for (int64_t k = 0; k < spatial_dims; ++k) {
    const int64_t s = rng.range(1, std::max<int64_t>(1, k == 0 && rng.chance(0.3) ? 8 : left));
    shape.push_back(s);
    left = std::max<int64_t>(1, left / s);
  }
  return shape;
}

float eps_of(const Case& c) { return static_cast<float>(c.param("eps")); }

// The parameters every op here declares: x's shape [N, C, spatial...] (with
// what `more` adds to its rule) and eps.
std::vector<ParamSpec> shape_params(const std::string& more) {
  return {{"ndim", ParamType::i32, "2 .. 8 (TL_NORM_MAX_DIMS): the number of s#"},
          {"s#", ParamType::i64,
           "the shape [N, C, spatial...]: s0 .. s{ndim-1}, each >= 0, the non-zero ones' product <= "
           "INT64_MAX / 4" +
               more},
          {"eps", ParamType::f32, "finite, >= 0"}};
}

void finish(Rng& rng, Case& c, int64_t index, int64_t edges, const std::vector<int64_t>& shape, float eps,
            Layout layout) {
  c.params["eps"] = static_cast<double>(eps);
  set_shape(c, shape);
  c.label = "shape " + shape_string(shape) + " " + c.label + " eps=" + std::to_string(eps);
  c.args.push_back(status_arg());
  if (index >= edges && rng.chance(0.1)) c.label += " " + make_invalid(rng, c, layout);
}

// ---------------------------------------------------------------- BatchNorm

// x of the dtype t: f32 from the value classes; f16 or bf16 from the half
// rows (norm_support.hpp), its float values in `values`.
struct Data {
  Tensor x;
  std::vector<float> values;
  std::string label;
  bool eps_zero_ok = false;
};
Data make_data(DType t, Rng& rng, const std::vector<int64_t>& shape, int64_t range) {
  if (t != DType::f32) {
    HalfRows h = half_rows(t, rng, shape, range, true);
    std::vector<float> values = floats_of(h.x);
    return {std::move(h.x), std::move(values), h.label, h.eps_zero_ok};
  }
  Row x = make_row(rng, product(shape, 0, shape.size()));
  return {Tensor::of_f32(shape, x.values), x.values, x.label, x.eps_zero_ok};
}

Case make_batch(DType t, Rng& rng, int64_t index, int64_t edges) {
  const int64_t channels = index < edges ? 3 : rng.range(1, 64);
  const auto shape = make_shape(rng, index, edges, channels, 300);
  const int64_t n = product(shape, 0, shape.size());
  Data x = make_data(t, rng, shape, std::max<int64_t>(n, 1));
  // Running statistics: means near the data's (its offset when it has one) or
  // not, variances over eight octaves, some zero where eps carries the root;
  // for the half dtypes' large rows, variances of their magnitude, so y
  // stays in range.
  const float eps = pick_eps(rng, true);
  std::vector<float> mean = make_values(rng, ValueClass::normal, channels), var(static_cast<size_t>(channels));
  const float centre = x.values.empty() || !std::isfinite(x.values[0]) ? 0.0f : x.values[0];
  for (float& m : mean) m = rng.chance(0.5) ? centre + m : m;
  const int magnitude = x.label == "large" && centre != 0.0f ? 2 * std::ilogb(centre) : 0;
  for (float& v : var) {
    v = static_cast<float>(std::ldexp(0.5 + rng.unit(), static_cast<int>(rng.range(-6, 2)) + magnitude));
    if (eps > 0.0f && rng.chance(0.1)) v = 0.0f;
  }
  const bool in_place = rng.chance(0.3);
  Case c;
  c.label = "x=" + x.label + (in_place ? " y==x" : "");
  c.args.push_back({"x", Access::in, std::move(x.x)});
  c.args.push_back({"mean", Access::in, Tensor::of_f32({channels}, mean)});
  c.args.push_back({"var", Access::in, Tensor::of_f32({channels}, var)});
  c.args.push_back({"g", Access::in, Tensor::of_f32({channels}, make_gain(rng, channels))});
  c.args.push_back({"b", Access::in, Tensor::of_f32({channels}, make_values(rng, ValueClass::normal, channels))});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, shape), Match::tolerance, in_place ? "x" : ""});
  finish(rng, c, index, edges, shape, eps, Layout::channels);
  return c;
}

Oracle batch_oracle(const Case& c) {
  if (tl_status st = expected_status(Layout::channels, shape_of(c), eps_of(c)))
    return {{"status", status_expected(st)}};
  const auto& shape = c.in("x").shape;
  const int64_t n = shape[0], ch = shape[1], s = product(shape, 2, shape.size());
  const std::vector<float> xs = floats_of(c.in("x"));
  const float *x = xs.data(), *mean = c.in("mean").f32(), *var = c.in("var").f32();
  const float *g = c.in("g").f32(), *b = c.in("b").f32();
  Expected y;
  y.value.resize(static_cast<size_t>(n * ch * s));
  reference::batch_norm<double>(x, mean, var, g, b, y.value.data(), n, ch, s, eps_of(c));
  // (x - m) may be formed directly or folded into x * a + (b - m * a): either
  // way a few u of |g| (|x| + |m|) inv, plus one rounding of |b|.
  for (int64_t k = 0; k < n * ch * s; ++k) {
    const int64_t j = (k / s) % ch;
    const double inv = reference::inverse_std<double>(var[j], eps_of(c));
    y.scale.push_back(std::fabs(g[j]) * (std::fabs(double(x[k])) + std::fabs(double(mean[j])) + FLT_MIN) * inv +
                      std::fabs(b[j]));
  }
  return {{"status", status_expected(TL_OK)}, {"y", y}};
}

OpSpec batch_norm(DType t) {
  OpSpec op;
  op.name = "BatchNorm";
  op.args = {{"x", Access::in, "T", "s#[ndim]"},
             {"mean", Access::in, "T", "s1"},
             {"var", Access::in, "T", "s1"},
             {"g", Access::in, "T", "s1"},
             {"b", Access::in, "T", "s1"},
             {"y", Access::out, "T", "s#[ndim]", {Match::tolerance}, {"x"}},
             status_output()};
  op.tolerances = {{DType::f32, "8", "-",
                    "running statistics, no reduction: x - mean 1 u; 1 / sqrt(var + eps) <= 2.5 u (three float "
                    "ops); times inv and g 1 u each; + b 1 u of |y|: <= 6.5 u of |g| (|x| + |mean|) / sqrt(var "
                    "+ eps) + |b|, which also bounds the folded form x * a + (b - mean * a)"}};
  op.group = "norm";
  op.symbol = "tl_batch_norm_f32";
  op.summary =
      "inference BatchNorm of x[N, C, ...] with running mean/var per channel, gain and bias; y == x "
      "allowed; validates";
  op.spec = "operations.txt 2. Normalization: BatchNorm, GroupNorm, InstanceNorm";
  op.params = shape_params("");
  op.domain =
      "|x| <= 1e15; running variances in [2^-7, 2^2) or 0 (then eps > 0), so var + eps is a normal float; "
      "running means near the data or not; one case in ten past the edges has one bad argument";
  half_twin(op, t, {"mean", "var", "g", "b"},
            "x and y " + std::string(dtype_name(t)) + ", running statistics, g and b f32, x - mean in f32");
  if (t != DType::f32) op.domain += "; the large rows' running variances scaled to their magnitude";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size());
  op.make_case = [t, edges = op.edge_cases](Rng& rng, int64_t i) { return make_batch(t, rng, i, edges); };
  if (t == DType::f32)
    declare_c_call<decltype(tl_batch_norm_f32)>(op, {"x", "mean", "var", "g", "b", "y", "s#[ndim]", "ndim", "eps"});
  else declare_c_call<decltype(tl_batch_norm_f16)>(op, {"x", "mean", "var", "g", "b", "y", "s#[ndim]", "ndim", "eps"});
  op.oracle = batch_oracle;
  return op;
}

// ---------------------------------------------------------------- GroupNorm, InstanceNorm

// One case of either: `groups` 0 means InstanceNorm (one group per channel).
Case make_grouped(DType t, Rng& rng, int64_t index, int64_t edges, bool instance) {
  int64_t groups, channels;
  if (instance) {
    channels = index < edges ? 2 : rng.range(1, 16);
    groups = channels;
  } else {
    const int64_t options[] = {1, 2, 3, 4, 8, 32};
    groups = index < edges ? 2 : rng.pick(options);
    channels = groups * (index < edges ? 2 : rng.range(1, groups >= 8 ? 2 : 6));
  }
  const auto shape = make_shape(rng, index, edges, channels, instance ? 1000 : 400);
  const int64_t n = product(shape, 0, shape.size()), group_size = channels / groups * product(shape, 2, shape.size());
  Data x = make_data(t, rng, shape, group_size);
  const float eps = pick_eps(rng, x.eps_zero_ok && group_size >= 2);
  const bool in_place = rng.chance(0.3);
  Case c;
  c.label = "x=" + x.label + (instance ? "" : " groups=" + std::to_string(groups)) + (in_place ? " y==x" : "");
  if (!instance) c.params["groups"] = static_cast<double>(groups);
  c.args.push_back({"x", Access::in, std::move(x.x)});
  c.args.push_back({"g", Access::in, Tensor::of_f32({channels}, make_gain(rng, channels))});
  c.args.push_back({"b", Access::in, Tensor::of_f32({channels}, make_values(rng, ValueClass::normal, channels))});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, shape), Match::tolerance, in_place ? "x" : ""});
  finish(rng, c, index, edges, shape, eps, instance ? Layout::spatial : Layout::groups);
  return c;
}

Oracle grouped_oracle(const Case& c, bool instance) {
  const int64_t declared_groups = instance ? 1 : c.iparam("groups");
  if (tl_status st =
          expected_status(instance ? Layout::spatial : Layout::groups, shape_of(c), eps_of(c), declared_groups))
    return {{"status", status_expected(st)}};
  const auto& shape = c.in("x").shape;
  const int64_t n = shape[0], ch = shape[1], s = product(shape, 2, shape.size());
  const int64_t groups = instance ? ch : declared_groups, size = ch / groups * s;
  const std::vector<float> xs = floats_of(c.in("x"));
  const float *x = xs.data(), *g = c.in("g").f32(), *b = c.in("b").f32();
  const float eps = eps_of(c);
  Expected y;
  y.value.resize(static_cast<size_t>(n * ch * s));
  reference::group_norm<double>(x, g, b, y.value.data(), n, ch, s, groups, eps);
  for (int64_t k = 0; k < n * groups; ++k) {
    const RangeStats st = range_stats(x + k * size, size, eps);
    for (int64_t i = 0; i < size; ++i) {
      const int64_t j = (k % groups) * (ch / groups) + i / s;
      y.scale.push_back(centred_scale(x[k * size + i], st, std::fabs(g[j]), std::fabs(b[j])));
    }
  }
  return {{"status", status_expected(TL_OK)}, {"y", y}};
}

OpSpec group_norm(DType t) {
  OpSpec op;
  op.name = "GroupNorm";
  op.args = {{"x", Access::in, "T", "s#[ndim]"},
             {"g", Access::in, "T", "s1"},
             {"b", Access::in, "T", "s1"},
             {"y", Access::out, "T", "s#[ndim]", {Match::tolerance}, {"x"}},
             status_output()};
  op.tolerances = {{DType::f32, "19+1n; strict 20", "-",
                    "LayerNorm's analysis over each (sample, group) range of n = C/G * spatial elements: any "
                    "order <= n + 1 u (default), pairwise-accurate sums (<= 18 u for n <= 16384) 20 (strict)"}};
  op.sum_length = [](const Case& c) { return group_length(c, c.iparam("groups")); };
  op.group = "norm";
  op.symbol = "tl_group_norm_f32";
  op.summary =
      "GroupNorm of x[N, C, ...]: statistics per (sample, group of C/G consecutive channels), gain and "
      "bias per channel; y == x allowed; validates num_groups";
  op.spec = "operations.txt 2. Normalization: BatchNorm, GroupNorm, InstanceNorm";
  op.params = shape_params("; C = s1 >= 1 and the spatial product s2 ... s{ndim-1} >= 1 (else TL_ERR_SHAPE)");
  op.params.push_back({"groups", ParamType::i64,
                       "num_groups: >= 1 (else TL_ERR_INVALID_ARGUMENT), divides C = s1 (else TL_ERR_SHAPE)"});
  op.domain =
      "|x| <= 1e15; groups 1, 2, 3, 4, 8, 32; groups far from zero (|mean| / std up to 2^14) among the "
      "value classes; eps = 0 only for groups of two or more normal or wide values; one case in ten past "
      "the edges has one bad argument (num_groups < 1 or not dividing C among them)";
  half_twin(op, t, {"g", "b"}, "x and y " + std::string(dtype_name(t)) + ", g and b f32, both passes in f32");
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size());
  op.make_case = [t, edges = op.edge_cases](Rng& rng, int64_t i) { return make_grouped(t, rng, i, edges, false); };
  if (t == DType::f32)
    declare_c_call<decltype(tl_group_norm_f32)>(op, {"x", "g", "b", "y", "s#[ndim]", "ndim", "groups", "eps"});
  else declare_c_call<decltype(tl_group_norm_f16)>(op, {"x", "g", "b", "y", "s#[ndim]", "ndim", "groups", "eps"});
  op.oracle = [](const Case& c) { return grouped_oracle(c, false); };
  return op;
}

OpSpec instance_norm(DType t) {
  OpSpec op;
  op.name = "InstanceNorm";
  op.args = {{"x", Access::in, "T", "s#[ndim]"},
             {"g", Access::in, "T", "s1"},
             {"b", Access::in, "T", "s1"},
             {"y", Access::out, "T", "s#[ndim]", {Match::tolerance}, {"x"}},
             status_output()};
  op.tolerances = {{DType::f32, "19+1n; strict 20", "-",
                    "GroupNorm with one group per channel: LayerNorm's analysis over each (sample, channel) "
                    "range of n = spatial elements: any order <= n + 1 u (default), pairwise-accurate sums 20 "
                    "(strict)"}};
  op.sum_length = [](const Case& c) { return group_length(c, c.iparam("ndim") >= 2 ? c.iparam("s1") : 0); };
  op.group = "norm";
  op.symbol = "tl_instance_norm_f32";
  op.summary =
      "InstanceNorm of x[N, C, ...]: statistics per (sample, channel) over the spatial positions, gain and "
      "bias per channel; y == x allowed; validates";
  op.spec = "operations.txt 2. Normalization: BatchNorm, GroupNorm, InstanceNorm";
  op.params = shape_params("; the spatial product s2 ... s{ndim-1} >= 1 (else TL_ERR_SHAPE)");
  op.domain =
      "|x| <= 1e15; instances far from zero among the value classes; eps = 0 only for instances of two or "
      "more normal or wide values; one case in ten past the edges has one bad argument";
  half_twin(op, t, {"g", "b"}, "x and y " + std::string(dtype_name(t)) + ", g and b f32, both passes in f32");
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size());
  op.make_case = [t, edges = op.edge_cases](Rng& rng, int64_t i) { return make_grouped(t, rng, i, edges, true); };
  if (t == DType::f32)
    declare_c_call<decltype(tl_instance_norm_f32)>(op, {"x", "g", "b", "y", "s#[ndim]", "ndim", "eps"});
  else declare_c_call<decltype(tl_instance_norm_f16)>(op, {"x", "g", "b", "y", "s#[ndim]", "ndim", "eps"});
  op.oracle = [](const Case& c) { return grouped_oracle(c, true); };
  return op;
}

}  // namespace

// Each in f32, f16 and bf16.
std::vector<OpSpec> norm_channels() {
  std::vector<OpSpec> ops;
  for (DType t : {DType::f32, DType::f16, DType::bf16}) ops.push_back(batch_norm(t));
  for (DType t : {DType::f32, DType::f16, DType::bf16}) ops.push_back(group_norm(t));
  for (DType t : {DType::f32, DType::f16, DType::bf16}) ops.push_back(instance_norm(t));
  return ops;
}

}  // namespace konform::ops
