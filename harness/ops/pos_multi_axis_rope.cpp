// MultiAxisRope (spec §3, "Multi-axis RoPE"): head_dim split into [t, h, w]
// sub-ranges, each an independent Rope with its own position and base.
#include <algorithm>
#include <cmath>
#include <string>

#include "konform/op.hpp"
#include "konform/reference/pos.hpp"
#include "half_support.hpp"
#include "pos_support.hpp"
#include "tinyllm/pos.h"

namespace konform::ops {

std::vector<OpSpec> pos_multi_axis_rope();

namespace {

using namespace pos;

std::vector<int64_t> dims_of(const Case& c) {
  std::vector<int64_t> d;
  for (int64_t a = 0; a < c.iparam("n_axes"); ++a) d.push_back(c.iparam("dim" + std::to_string(a)));
  return d;
}
std::vector<float> bases_of(const Case& c) {
  std::vector<float> b;
  for (int64_t a = 0; a < c.iparam("n_axes"); ++a) b.push_back(static_cast<float>(c.param("base" + std::to_string(a))));
  return b;
}

// The header's rules, every INVALID_ARGUMENT before the one SHAPE check.
tl_status expected_status(const Case& c) {
  const int64_t T = c.iparam("T"), H = c.iparam("H"), D = c.iparam("D"), n = c.iparam("n_axes");
  const int64_t layout = c.iparam("layout");
  if (T < 0 || H < 0 || D < 0 || n < 1 || n > TL_ROPE_MAX_AXES) return TL_ERR_INVALID_ARGUMENT;
  if (layout != TL_ROPE_NEOX && layout != TL_ROPE_INTERLEAVED) return TL_ERR_INVALID_ARGUMENT;
  int64_t sum = 0;
  for (int64_t d : dims_of(c)) {
    if (d < 2 || d % 2 != 0) return TL_ERR_INVALID_ARGUMENT;
    sum += d;
  }
  for (float b : bases_of(c))
    if (!(b > 0.0f) || std::isinf(b)) return TL_ERR_INVALID_ARGUMENT;
  return sum == D ? TL_OK : TL_ERR_SHAPE;
}

// Positions of a [frames, rows, cols] raster (what a video DiT feeds), or
// scattered ones, negative included; |p| f_max <= 2^24 on every axis.
std::vector<int32_t> make_positions(Rng& rng, int64_t T, int64_t n_axes, const std::vector<double>& limit) {
  std::vector<int32_t> pos(static_cast<size_t>(T * n_axes));
  const bool raster = rng.chance(0.6);
  std::vector<int64_t> extent(static_cast<size_t>(n_axes)), start(static_cast<size_t>(n_axes));
  for (int64_t a = 0; a < n_axes; ++a) {
    extent[a] = rng.range(1, 4);
    start[a] = rng.chance(0.7) ? 0 : rng.range(0, std::min<int64_t>(1000, static_cast<int64_t>(limit[a])));
  }
  for (int64_t t = 0; t < T; ++t) {
    int64_t rest = t;
    for (int64_t a = n_axes - 1; a >= 0; --a) {
      int64_t p;
      if (raster) {
        p = start[a] + rest % extent[a];
        rest /= extent[a];
      } else {
        const int64_t lim = static_cast<int64_t>(limit[a]);
        const double u = rng.unit();
        p = u < 0.2 ? 0 : u < 0.6 ? rng.range(-64, 64) : rng.range(-lim, lim);
      }
      pos[t * n_axes + a] = static_cast<int32_t>(std::clamp<int64_t>(p, -int64_t(limit[a]), int64_t(limit[a])));
    }
  }
  return pos;
}

std::string make_invalid(Rng& rng, Case& c) {
  const int64_t n = c.iparam("n_axes"), a = rng.range(0, n - 1);
  const std::string dim = "dim" + std::to_string(a), base = "base" + std::to_string(a);
  switch (rng.range(0, 5)) {
    case 0:
      c.params[dim] = c.param(dim) - 1;
      c.params["D"] = c.param("D") - 1;
      return "bad: odd axis width";
    case 1: c.params["D"] = c.param("D") + 2; return "bad: widths sum below D";
    case 2: c.params[base] = double(bad_positive(rng)); return "bad: " + base + " = " + str(c.param(base));
    case 3: c.params["n_axes"] = rng.chance(0.5) ? 0 : TL_ROPE_MAX_AXES + 1; return "bad: n_axes";
    case 4: c.params["layout"] = 2; return "bad: layout";
    default: c.params[dim] = 0; return "bad: axis width 0";
  }
}

// In f16 and bf16: x rotated_x's (the classes rounded, or random bits).
Case make(DType t, Rng& rng, int64_t index, int64_t edges) {
  const int64_t axes_options[] = {1, 2, 3, 3, 3, 4};
  const int64_t n_axes = rng.pick(axes_options);
  std::vector<int64_t> dims(static_cast<size_t>(n_axes));
  for (auto& d : dims) d = 2 * rng.range(1, 24);
  if (index < edges) dims[0] = 2 * std::min<int64_t>(edge_sizes()[static_cast<size_t>(index)], 128);
  int64_t D = 0;
  for (int64_t d : dims) D += d;
  std::vector<float> bases(static_cast<size_t>(n_axes));
  const bool shared = rng.chance(0.4);  // Flux: one theta; others differ per axis
  for (auto& b : bases) b = shared && &b != &bases[0] ? bases[0] : pick_base(rng);
  std::vector<double> limit(static_cast<size_t>(n_axes));
  for (int64_t a = 0; a < n_axes; ++a) limit[a] = std::min(kMaxAngle / largest_frequency(bases[a], dims[a]), 2e9);
  const int64_t T = rng.chance(0.04) ? 0 : rng.range(1, 24), H = rng.range(1, 3);
  const int layout = static_cast<int>(rng.range(0, 1));
  const ValueClass vc = rotated_class(rng);
  const bool in_place = rng.chance(0.3);

  Case c;
  c.params = {
      {"T", double(T)}, {"H", double(H)}, {"D", double(D)}, {"n_axes", double(n_axes)}, {"layout", double(layout)}};
  std::string label = "T=" + std::to_string(T) + " H=" + std::to_string(H) + " dims=[";
  for (int64_t a = 0; a < n_axes; ++a) {
    c.params["dim" + std::to_string(a)] = double(dims[a]);
    c.params["base" + std::to_string(a)] = double(bases[a]);
    label += (a ? "," : "") + std::to_string(dims[a]) + "@" + str(bases[a]);
  }
  std::string x_label;
  c.args.push_back({"x", Access::in, rotated_x(t, rng, vc, {T, H, D}, &x_label)});
  c.args.push_back({"pos", Access::in, Tensor::of_i32({T, n_axes}, make_positions(rng, T, n_axes, limit))});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, {T, H, D}), Match::tolerance, in_place ? "x" : ""});
  c.args.push_back(status_arg());
  c.label = label + "]" + (layout ? " interleaved" : " neox") + " x=" + x_label + (in_place ? " y==x" : "");
  if (index >= edges && rng.chance(0.1)) c.label += " " + make_invalid(rng, c);
  return c;
}

Oracle oracle(const Case& c) {
  if (tl_status s = expected_status(c)) return refused(s);
  const int64_t T = c.iparam("T"), H = c.iparam("H"), D = c.iparam("D"), n = c.iparam("n_axes");
  const int layout = c.iparam32("layout");
  const auto dims = dims_of(c);
  const auto bases = bases_of(c);
  std::vector<float> xs(static_cast<size_t>(T * H * D));  // exact for f32 and the half dtypes
  for (int64_t k = 0; k < T * H * D; ++k) xs[static_cast<size_t>(k)] = static_cast<float>(c.in("x").at(k));
  const float* x = xs.data();
  Expected e;
  e.value.resize(static_cast<size_t>(T * H * D));
  reference::multi_axis_rope<double>(x, e.value.data(), c.in("pos").i32(), T, H, D, n, dims.data(), bases.data(),
                                     layout);
  // cos and sin rounded to f32 err by 2^-25 absolutely, whatever the angle:
  // a rotated member is judged against its pair's |a| + |b|.
  e.scale.resize(e.value.size());
  for (int64_t k = 0; k < T * H; ++k) {
    int64_t offset = k * D;
    for (int64_t a = 0; a < n; ++a) {
      for (int64_t j = 0; j < dims[a] / 2; ++j) {
        int64_t ia, ib;
        reference::pos_pair(layout, offset, dims[a], j, &ia, &ib);
        e.scale[ia] = e.scale[ib] = std::fabs(double(x[ia])) + std::fabs(double(x[ib]));
      }
      offset += dims[a];
    }
  }
  return {{"status", status_expected(TL_OK)}, {"y", e}};
}

// In f16 and bf16: x and y of the dtype, the angles as the f32 op forms
// them, the f32 rotation rounded once (half_rule).
OpSpec multi_axis_rope(DType t) {
  const bool half = t != DType::f32;
  const std::string dtype(dtype_name(t));
  OpSpec op;
  op.name = half ? "MultiAxisRope_" + dtype : "MultiAxisRope";
  op.dtype = t;
  op.args = {{"x", Access::in, "T", "T, H, D"},
             {"pos", Access::in, "i32", "T, n_axes"},
             {"y", Access::out, "T", "T, H, D", {Match::tolerance}, {"x"}},
             status_output()};
  const ToleranceRule f32{DType::f32, "4", "-",
                          "cos and sin rounded to f32 (<= u/2 each, absolute: |c|, |s| <= 1, where half the float "
                          "spacing is <= 2^-25) give <= u/2 (|a| + |b|); the rotation from them, each of its three "
                          "roundings <= u relative (u = 2^-24), <= 2 u (|a c| + |b s|) <= 2 u (|a| + |b|): <= 2.5 u "
                          "of the pair's |a| + |b|, the scale s; a rounding into the subnormals errs by <= 2^-150 = u"
                          " FLT_MIN instead: <= u (2.5 s + FLT_MIN), r <= 3.5 against max(s, FLT_MIN)"};
  op.tolerances = {half ? half_rule(t, f32) : f32};
  op.group = "pos";
  op.symbol = "tl_multi_axis_rope_" + dtype;
  op.summary =
      "Rope per sub-range of head_dim ([t, h, w] for a video DiT), each axis with its own position and "
      "base; y == x allowed";
  if (half) op.summary += "; x and y " + dtype + ", the angles as in f32, each pair rotated in f32";
  op.spec = "operations.txt 3. Position encoding: Rope (Rotary Position Embedding)";
  op.params = {
      {"T", ParamType::i64, ">= 0"},
      {"H", ParamType::i64, ">= 0"},
      {"D", ParamType::i64, "head_dim: the sum of the axis widths (else TL_ERR_SHAPE)"},
      {"n_axes", ParamType::i64, "1 .. 8 (TL_ROPE_MAX_AXES)"},
      {"dim#", ParamType::i64, "axis_dims[a]: dim0 .. dim{n_axes-1}, each even and >= 2, summing to D"},
      {"base#", ParamType::f32, "axis_bases[a]: base0 .. base{n_axes-1}, each finite and > 0"},
      {"layout", ParamType::i32, "0 NeoX (TL_ROPE_NEOX) | 1 interleaved (TL_ROPE_INTERLEAVED)", "0 (TL_ROPE_NEOX)"}};
  op.domain =
      "pos[t, a] any int32: raster grids and scattered positions (negative too) with |p| f_max <= 2^24 per "
      "axis; |x| <= 1e37; 1 case in 10 has a bad argument";
  if (half)
    op.domain = "as MultiAxisRope's, x the f32 value classes rounded to " + dtype +
                (t == DType::f16 ? " (|x| <= 65504: a rotated pair may overflow to an infinity)" : std::string()) +
                " or, a third of the time, random bit patterns (infinities and NaNs among them)";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size());
  op.make_case = [t, edges = op.edge_cases](Rng& rng, int64_t i) { return make(t, rng, i, edges); };
  op.invoke = [half](const KernelFn& fn, const Case& c, const Pointers& p) {
    // The arrays as the caller has them; room for a bad n_axes too (a case
    // whose n_axes was made too large has widths for its original axes only).
    std::vector<int64_t> dims(TL_ROPE_MAX_AXES + 2, 2);
    std::vector<float> bases(TL_ROPE_MAX_AXES + 2, 10000.0f);
    for (int64_t a = 0; a < c.iparam("n_axes") && a < TL_ROPE_MAX_AXES; ++a) {
      const std::string dim = "dim" + std::to_string(a), base = "base" + std::to_string(a);
      if (c.params.count(dim)) dims[a] = c.iparam(dim);
      if (c.params.count(base)) bases[a] = static_cast<float>(c.param(base));
    }
    if (half)  // bf16 alike
      *p.i32("status") = fn.call<decltype(tl_multi_axis_rope_f16)>(
          fn.arg(static_cast<const uint16_t*>(p.get("x"))), fn.arg(static_cast<uint16_t*>(p.get("y"))),
          fn.arg(p.i32("pos")), c.iparam("T"), c.iparam("H"), c.iparam("D"), c.iparam("n_axes"), dims.data(),
          bases.data(), c.iparam32("layout"));
    else
      *p.i32("status") = fn.call<decltype(tl_multi_axis_rope_f32)>(
          fn.arg(p.f32("x")), fn.arg(p.f32("y")), fn.arg(p.i32("pos")), c.iparam("T"), c.iparam("H"), c.iparam("D"),
          c.iparam("n_axes"), dims.data(), bases.data(), c.iparam32("layout"));
  };
  op.oracle = oracle;
  return op;
}

}  // namespace

std::vector<OpSpec> pos_multi_axis_rope() {
  return {multi_axis_rope(DType::f32), multi_axis_rope(DType::f16), multi_axis_rope(DType::bf16)};
}

}  // namespace konform::ops
