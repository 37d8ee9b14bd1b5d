// What the declarations of the conv family share (conv.cpp, pool.cpp): the
// geometry of a case as parameters, its edge shapes, bad arguments, and the
// oracle with its scale. The status a call must return comes from
// impl/common/conv_args.hpp, the rules both backends apply.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <cstdint>
#include <string>
#include <vector>

#include "common/conv_args.hpp"
#include "konform/op.hpp"
#include "konform/reference/conv.hpp"
#include "linalg_support.hpp"

namespace konform::ops::convs {

using impl::conv_args::Checked;
using reference::ConvShape;

enum class Kind { conv, depthwise, transpose, causal, pool };

// A case's geometry before it is written into Case::params. Arrays hold one
// entry per spatial dimension, outermost first.
struct Geometry {
  int nd = 2;
  int64_t B = 1, C_in = 1, C_out = 1, groups = 1;
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};
  int64_t op[2] = {0, 0};  // ConvTranspose2d's output_padding
  bool bias = true;
  int mode = 0;                 // Pool: TL_POOL_MAX or TL_POOL_AVG
  bool default_stride = false;  // Pool: stride NULL (= kernel)
};

inline std::string ax(const char* name, int a) { return std::string(name) + std::to_string(a); }

inline void write_params(const Geometry& g, Case& c) {
  c.params["nd"] = g.nd;
  c.params["B"] = double(g.B), c.params["C_in"] = double(g.C_in), c.params["C_out"] = double(g.C_out);
  c.params["groups"] = double(g.groups), c.params["bias"] = g.bias, c.params["mode"] = g.mode;
  c.params["default_stride"] = g.default_stride;
  for (int a = 0; a < 3; ++a) {  // all three, so a case made bad by n_dims still reads
    c.params[ax("in", a)] = double(g.in[a]), c.params[ax("k", a)] = double(g.k[a]);
    c.params[ax("s", a)] = double(g.s[a]), c.params[ax("p", a)] = double(g.p[a]);
    c.params[ax("d", a)] = double(g.d[a]);
    if (a < 2) c.params[ax("op", a)] = double(g.op[a]);
  }
}

// The per-dimension arrays of a case, as the C call takes them (3 entries,
// the unused ones 1: n_dims says how many are read).
struct Arrays {
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1}, op[2] = {0, 0};
};

inline int case_nd(const Case& c) { return static_cast<int>(std::clamp<int64_t>(c.iparam("nd"), 1, 3)); }

inline Arrays arrays(const Case& c) {
  Arrays r;
  for (int a = 0; a < 3; ++a) {
    r.in[a] = c.iparam(ax("in", a)), r.k[a] = c.iparam(ax("k", a)), r.s[a] = c.iparam(ax("s", a));
    r.p[a] = c.iparam(ax("p", a)), r.d[a] = c.iparam(ax("d", a));
    if (a < 2) r.op[a] = c.iparam(ax("op", a));
  }
  return r;
}

// The validation the C call applies to this case's arguments.
inline Checked checked(Kind kind, const Case& c) {
  namespace ca = impl::conv_args;
  const Arrays r = arrays(c);
  const int64_t B = c.iparam("B"), Ci = c.iparam("C_in"), Co = c.iparam("C_out"), g = c.iparam("groups");
  switch (kind) {
    case Kind::conv: return ca::conv(B, Ci, Co, g, c.iparam("nd"), r.in, r.k, r.s, r.p, r.d);
    case Kind::depthwise: return ca::depthwise(B, Ci, r.in, r.k, r.s, r.p, r.d);
    case Kind::transpose: return ca::conv_transpose2d(B, Ci, Co, g, r.in, r.k, r.s, r.p, r.op, r.d);
    case Kind::causal: return ca::causal_conv1d(B, Ci, Co, g, r.in[0], r.k[0], r.s[0], r.d[0]);
    case Kind::pool:
      return ca::pool(B, Ci, r.in, r.k, c.iparam("default_stride") ? nullptr : r.s, r.p, c.iparam32("mode"));
  }
  return {};
}

// ---------------------------------------------------------------- shapes

// The output extents and the weight shape of a valid geometry.
inline ConvShape shape_of(Kind kind, const Geometry& g) {
  Case c;
  write_params(g, c);
  return checked(kind, c).shape;
}

inline std::vector<int64_t> tensor_shape(int64_t n0, int64_t n1, int nd, const int64_t* sp) {
  std::vector<int64_t> v = {n0, n1};
  for (int a = 0; a < nd; ++a) v.push_back(sp[a]);
  return v;
}

// Fixes a drawn geometry up so it is valid: each output extent >= 1 (the
// input grown where the dilated kernel is longer than the padded input) and
// K = C_in/groups * prod(kernel) <= kMaxTerms (the tolerance's domain).
constexpr int64_t kMaxTerms = 127;

inline void make_valid(Kind kind, Geometry& g) {
  for (int a = 0; a < g.nd; ++a) {
    if (kind == Kind::transpose) {
      const int64_t out = (g.in[a] - 1) * g.s[a] - 2 * g.p[a] + g.d[a] * (g.k[a] - 1) + g.op[a] + 1;
      if (out < 1) g.p[a] = 0;
    } else if (kind != Kind::causal) {
      const int64_t need = g.d[a] * (g.k[a] - 1) + 1 - 2 * g.p[a];
      g.in[a] = std::max(g.in[a], need);
    }
  }
  int64_t taps = 1;
  for (int a = 0; a < g.nd; ++a) taps *= g.k[a];
  if (kind == Kind::pool) return;
  int64_t cg = g.C_in / g.groups;
  while (cg > 1 && cg * taps > kMaxTerms) --cg;
  if (kind == Kind::depthwise) cg = 1;
  g.C_in = cg * g.groups;
  if (kind == Kind::depthwise) g.C_out = g.C_in;
}

// ---------------------------------------------------------------- bad arguments

// One argument of a valid case made bad (the data stays as it was: a kernel
// must refuse before touching it). Returns the label suffix.
inline std::string make_invalid(Kind kind, Rng& rng, Case& c) {
  const int a = static_cast<int>(rng.range(0, case_nd(c) - 1));
  std::vector<std::string> options = {"stride", "padding", "kernel", "too_long", "B", "huge"};
  if (kind != Kind::pool) options.push_back("dilation");
  if (kind == Kind::conv || kind == Kind::transpose || kind == Kind::causal) options.push_back("groups");
  if (kind == Kind::conv) options.push_back("n_dims");
  if (kind == Kind::transpose) options.push_back("output_padding");
  if (kind == Kind::pool) options.push_back("mode");
  if (kind == Kind::causal) options.erase(std::find(options.begin(), options.end(), "padding"));
  if (kind == Kind::causal || kind == Kind::transpose)
    options.erase(std::find(options.begin(), options.end(), "too_long"));
  const std::string what = rng.pick(options);
  auto set = [&](const std::string& name, double v) {
    c.params[name] = v;
    return "bad: " + name + " = " + std::to_string(static_cast<int64_t>(v));
  };
  if (what == "stride") return set(ax("s", a), 0);
  if (what == "padding") return set(ax("p", a), -double(rng.range(1, 3)));
  if (what == "kernel") return set(ax("k", a), 0);
  if (what == "dilation") return set(ax("d", a), 0);
  if (what == "B") return set("B", -1);
  if (what == "huge") {
    // DepthwiseConv and Pool take one channel count, C_in's.
    const char* channels = kind == Kind::depthwise || kind == Kind::pool ? "C_in" : "C_out";
    return set(rng.chance(0.5) ? ax("in", a) : channels, double(int64_t{1} << 40));
  }
  if (what == "n_dims") return set("nd", rng.chance(0.5) ? 0 : 4);
  if (what == "mode") return set("mode", 2);
  if (what == "output_padding") {
    const int64_t s = c.iparam(ax("s", a)), d = c.iparam(ax("d", a));
    return set(ax("op", a), double(std::max(s, d)));
  }
  if (what == "groups") {
    const int64_t ci = c.iparam("C_in");
    return set("groups", rng.chance(0.3) ? 0 : double(ci + 1));  // 0, or one that divides nothing
  }
  // too_long: a kernel longer than the padded input (an output extent of 0).
  const int64_t span = c.iparam(ax("in", a)) + 2 * c.iparam(ax("p", a));
  return set(ax("k", a), double(span + 1));
}

// ---------------------------------------------------------------- the case

// Tensors of a valid geometry: x, w (not for Pool), bias (when present),
// y and the status; values by class in linalg's domain (|v| <= 1e15: no
// product or sum of the spec's loop overflows where the exact one does not).
inline Case make_case(Kind kind, Rng& rng, const Geometry& g) {
  Case c;
  write_params(g, c);
  const ConvShape s = shape_of(kind, g);
  const ValueClass xc = linalg::pick_class(rng), wc = linalg::pick_class(rng);
  const auto xs = tensor_shape(g.B, g.C_in, g.nd, g.in);
  const auto ys = tensor_shape(g.B, g.C_out, g.nd, s.out);
  c.args.push_back(
      {"x", Access::in, Tensor::of_f32(xs, linalg::operand(rng, xc, Tensor::zeros(DType::f32, xs).elements()))});
  std::string label = "x " + shape_string(xs);
  if (kind != Kind::pool) {
    const auto ws = kind == Kind::transpose ? tensor_shape(g.C_in, g.C_out / g.groups, g.nd, g.k)
                                            : tensor_shape(g.C_out, g.C_in / g.groups, g.nd, g.k);
    const int64_t wn = Tensor::zeros(DType::f32, ws).elements();
    c.args.push_back({"w", Access::in, Tensor::of_f32(ws, linalg::operand(rng, wc, wn))});
    label += " w " + shape_string(ws) + " groups " + std::to_string(g.groups);
    if (g.bias) c.args.push_back({"bias", Access::in, Tensor::of_f32({g.C_out}, linalg::operand(rng, wc, g.C_out))});
    label += g.bias ? " bias" : " bias NULL";
  } else {
    label += std::string(g.mode == TL_POOL_MAX ? " max" : " avg") + " k " + shape_string({g.k[0], g.k[1]});
  }
  const Match m = kind == Kind::pool && g.mode == TL_POOL_MAX ? Match::exact : Match::tolerance;
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, ys), m});
  c.args.push_back(linalg::status_arg());
  auto list = [&](const int64_t* v) {
    std::vector<int64_t> l(v, v + g.nd);
    return shape_string(l);
  };
  label += " stride " + (g.default_stride ? std::string("NULL") : list(g.s)) + " pad " + list(g.p);
  if (kind != Kind::pool) label += " dil " + list(g.d);
  if (kind == Kind::transpose) label += " out_pad " + shape_string({g.op[0], g.op[1]});
  c.label = label + " x=" + std::string(value_class_name(xc)) +
            (kind == Kind::pool ? "" : " w=" + std::string(value_class_name(wc)));
  return c;
}

// The open edge of a zero pad (docs/tolerances.md): where a padded tap's
// weight is Inf or NaN, the spec's 0 * W is NaN and a convolution that skips
// padded taps gives a number; both pass. Sets y's alternative (and, where
// the value is NaN and so judged without it, the scale of the skipping sum).
inline void add_skipped_pads(const Case& c, const ConvShape& s, const float* bias, Expected& y) {
  const Tensor& w = c.in("w");
  bool finite = true;
  for (int64_t k = 0; k < w.elements(); ++k) finite = finite && std::isfinite(w.f32()[k]);
  if (finite || s.edge != reference::ConvEdge::zero) return;
  std::vector<double> skipped(y.value.size()), skipped_scale(y.value.size());
  reference::conv<double>(c.in("x").f32(), w.f32(), bias, skipped.data(), s, skipped_scale.data(), true);
  for (size_t k = 0; k < skipped.size(); ++k)
    if (std::isnan(y.value[k]) && !std::isnan(skipped[k])) y.scale[k] = skipped_scale[k];
  y.alternative = std::move(skipped);
}

inline Oracle oracle(Kind kind, const Case& c) {
  const Checked ch = checked(kind, c);
  if (ch.status != TL_OK) return {{"status", linalg::status_expected(ch.status)}};
  const ConvShape& s = ch.shape;
  Expected y;
  const size_t n = static_cast<size_t>(s.B * s.C_out * s.out_elems());
  y.value.resize(n);
  y.scale.resize(n);
  if (kind == Kind::pool) {
    const auto mode = static_cast<reference::PoolMode>(c.iparam32("mode"));
    if (mode == reference::PoolMode::max) {
      y.alternative.resize(n);
      reference::pool<double>(c.in("x").f32(), y.value.data(), s, mode, nullptr, y.alternative.data());
    } else {
      reference::pool<double>(c.in("x").f32(), y.value.data(), s, mode, y.scale.data());
    }
  } else {
    const float* bias = c.param("bias") != 0 ? c.in("bias").f32() : nullptr;
    reference::conv<double>(c.in("x").f32(), c.in("w").f32(), bias, y.value.data(), s, y.scale.data());
    add_skipped_pads(c, s, bias, y);
  }
  return {{"status", linalg::status_expected(TL_OK)}, {"y", y}};
}

}  // namespace konform::ops::convs
