// Pool of spec §6: max or average over a 2-d window, per channel. One C
// function with a mode; max is judged bit for bit (a copy of one element),
// avg by the tolerance of a short sum and a division.
#include <string>

#include "conv_support.hpp"
#include "konform/c_call.hpp"
#include "tinyllm/conv.h"

namespace konform::ops {

std::vector<OpSpec> pool();

namespace {

using namespace convs;

Geometry random_geometry(Rng& rng) {
  Geometry g;
  g.nd = 2;
  g.mode = rng.chance(0.5) ? TL_POOL_MAX : TL_POOL_AVG;
  g.default_stride = rng.chance(0.3);
  for (int a = 0; a < 2; ++a) {
    g.in[a] = rng.range(1, 40);
    g.k[a] = rng.range(1, 8);
    g.s[a] = g.default_stride ? g.k[a] : rng.range(1, 4);
    g.p[a] = rng.chance(0.5) ? 0 : rng.range(1, g.k[a] + 1);
  }
  g.B = rng.chance(0.05) ? 0 : rng.range(1, 3);
  g.C_in = g.C_out = g.groups = rng.range(1, 6);
  make_valid(Kind::pool, g);
  return g;
}

// Both modes on: 1x1 windows, the default stride, overlapping windows,
// padding past half the kernel (and a window wholly in the padding), rows of
// 15, 16, 17 and 65 outputs, an empty batch.
std::vector<Geometry> edge_geometries() {
  struct E {
    int64_t B, C, H, W, kH, kW, sH, sW, pH, pW;
    bool default_stride;
  };
  const E list[] = {
      {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, false},   {1, 2, 8, 8, 2, 2, 2, 2, 0, 0, true},
      {2, 3, 9, 17, 3, 3, 1, 1, 1, 1, false},  {1, 1, 5, 16, 3, 1, 2, 1, 1, 0, false},
      {1, 2, 7, 15, 2, 2, 1, 1, 1, 1, false},  {1, 1, 4, 6, 3, 3, 1, 1, 3, 3, false},
      {0, 2, 6, 6, 2, 2, 2, 2, 0, 0, false},   {1, 2, 3, 65, 1, 1, 1, 1, 0, 0, false},
      {1, 1, 12, 34, 4, 4, 4, 2, 2, 2, false}, {1, 3, 9, 9, 3, 3, 3, 3, 1, 1, true},
  };
  std::vector<Geometry> out;
  for (int mode : {TL_POOL_MAX, TL_POOL_AVG})
    for (const E& e : list) {
      Geometry g;
      g.nd = 2, g.mode = mode, g.default_stride = e.default_stride;
      g.B = e.B, g.C_in = g.C_out = g.groups = e.C;
      g.in[0] = e.H, g.in[1] = e.W, g.k[0] = e.kH, g.k[1] = e.kW;
      g.s[0] = e.default_stride ? e.kH : e.sH, g.s[1] = e.default_stride ? e.kW : e.sW;
      g.p[0] = e.pH, g.p[1] = e.pW;
      make_valid(Kind::pool, g);
      out.push_back(g);
    }
  return out;
}

}  // namespace

std::vector<OpSpec> pool() {
  OpSpec op;
  op.name = "Pool";
  op.args = {
      {"x", Access::in, "T", "B, C_in, in#[nd]"},
      {"y", Access::out, "T", kShapeByOracle, {Match::tolerance, Match::exact}},  // the output sizes of the geometry
      status_output()};
  op.tolerances = {{DType::f32, "66", "-",
                    "max is a copy of one element, judged bit for bit (no limit used); avg sums n = kH kW <= 64"
                    " elements (pads 0) and divides by n: the recursive sum errs by <= (n - 1) u of sum |x| = "
                    "(n - 1) n u s with s = sum |x| / n, so by (n - 1) u s after the division, which adds one "
                    "rounding (<= u s) and a multiply by a rounded 1/n one more: <= (n + 1) u s; a quotient "
                    "rounded into the subnormals adds <= 2^-150 = u FLT_MIN / 2: <= 65.5 u of max(s, FLT_MIN); "
                    "dividing by the valid count instead is >= 1/64 off, 2^18 u"}};
  op.group = "conv";
  op.symbol = "tl_pool_f32";
  op.summary =
      "max or avg over a [kH, kW] window of x [B, C, H, W] per channel; stride NULL = kernel, padding "
      "NULL = 0; -inf (max) or 0 (avg) at a pad, avg divides by kH kW";
  op.spec = "operations.txt 6. Convolution: Pool";
  // Every case holds the conv family's geometry (convs::write_params).
  op.params = {
      {"mode", ParamType::i32, "TL_POOL_MAX (0) or TL_POOL_AVG (1); others refused"},
      {"nd", ParamType::i64, "2 (the spatial dimensions; not passed)"},
      {"B", ParamType::i64, ">= 0; every tensor's bytes within int64_t"},
      {"C_in", ParamType::i64, "C: >= 1, <= 2^31 - 1"},
      {"C_out", ParamType::i64, "equal to C_in (not passed)"},
      {"groups", ParamType::i64, "equal to C_in (not passed)"},
      {"bias", ParamType::i64, "1 (not passed: Pool has no bias)"},
      {"default_stride", ParamType::i64, "1 when stride is NULL (= kernel, the spec's default), 0 when passed"},
      {"in#", ParamType::i64, "in_size[a]: >= 1, <= 2^31 - 1; in2 unused (1)"},
      {"k#", ParamType::i64,
       "kernel[a]: >= 1, <= 2^31 - 1; k2 unused (1); an output extent < 1 (the kernel past the padded "
       "input) is TL_ERR_SHAPE"},
      {"s#", ParamType::i64, "stride[a]: >= 1, <= 2^31 - 1 (kernel[a] where default_stride is 1); s2 unused (1)",
       "kernel[a] (stride NULL)"},
      {"p#", ParamType::i64, "padding[a]: >= 0, <= 2^31 - 1; p2 unused (0)", "0 (padding NULL)"},
      {"d#", ParamType::i64, "1 (not passed: Pool has no dilation)"},
      {"op#", ParamType::i64, "0 (ConvTranspose2d's output_padding; not passed)"}};
  op.domain =
      "windows up to 8 x 8 (avg: <= 64 terms, the tolerance's derivation); |x| <= 1e15, every value class "
      "incl. NaN/Inf and +-0; max judged bit for bit (a NaN window: its first NaN, quieted; +0 or -0 where "
      "both are in the window); one case in ten past the edges has a bad argument, which must be refused";
  op.status = "status";
  const auto edges = std::make_shared<std::vector<Geometry>>(edge_geometries());
  op.edge_cases = static_cast<int64_t>(edges->size());
  op.make_case = [edges](Rng& rng, int64_t i) {
    const bool edge = i < static_cast<int64_t>(edges->size());
    const Geometry g = edge ? (*edges)[static_cast<size_t>(i)] : random_geometry(rng);
    Case c = convs::make_case(Kind::pool, rng, g);
    if (!edge && rng.chance(0.1)) c.label += " " + make_invalid(Kind::pool, rng, c);
    return c;
  };
  op.oracle = [](const Case& c) { return convs::oracle(Kind::pool, c); };
  // stride NULL (the kernel, the spec's default) where default_stride is 1
  declare_c_call<decltype(tl_pool_f32)>(
      op, {"x", "y", "B", "C_in", "in#[2]", "k#[2]", "s#[2]?!default_stride", "p#[2]", "mode"});
  return {op};
}

}  // namespace konform::ops
