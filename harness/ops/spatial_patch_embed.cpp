// PatchEmbed (spec §7, tinyllm/spatial.h): Conv2d with kernel = stride = p
// flattened to tokens, y [B, N, D]. Each output is a dot product of
// K = C p p terms plus the bias, judged like Matmul against
// s = sum |x w| + |bias|. Shapes of ViT (3 x 224^2, p = 16), DiT (4
// channels, p = 2), one patch (p = H), p = 1 (a 1 x 1 channel matmul), D
// around the vector widths, empty batches, channels and D; bias or NULL.
#include <cmath>
#include <string>

#include "konform/c_call.hpp"
#include "linalg_support.hpp"
#include "spatial_support.hpp"
#include "tinyllm/spatial.h"

namespace konform::ops {

std::vector<OpSpec> spatial_patch_embed();

namespace {

using namespace spatial;

const std::vector<ref::Sizes>& edges() {  // B, C, H, W, p, D
  static const std::vector<ref::Sizes> e = {
      {1, 3, 4, 4, 2, 8},    {1, 5, 3, 7, 1, 9},  {1, 3, 16, 16, 16, 12}, {2, 3, 32, 32, 16, 64},
      {1, 4, 16, 16, 2, 32}, {0, 3, 8, 8, 4, 4},  {1, 0, 4, 4, 2, 5},     {1, 3, 8, 8, 4, 0},
      {1, 3, 14, 28, 7, 17}, {3, 1, 9, 9, 3, 33}, {1, 16, 8, 8, 8, 1},    {1, 3, 224, 224, 16, 32},
      {2, 8, 6, 10, 2, 7},   {1, 1, 1, 1, 1, 1},  {1, 2, 12, 4, 4, 16},   {1, 7, 5, 5, 5, 15}};
  return e;
}

ref::Sizes random_sizes(Rng& rng) {
  ref::Sizes s;
  s.B = rng.chance(0.05) ? 0 : rng.range(1, 2);
  s.f = rng.chance(0.7) ? rng.range(1, 4) : rng.pick(std::vector<int64_t>{5, 7, 8, 14, 16});
  s.C = rng.range(1, s.f >= 8 ? 4 : 8);
  s.H = s.f * rng.range(1, s.f >= 8 ? 3 : 8);
  s.W = s.f * rng.range(1, s.f >= 8 ? 3 : 8);
  s.D = rng.chance(0.3) ? rng.pick(edge_sizes()) % 70 + 1 : rng.range(1, 40);
  return s;
}

Case make(Rng& rng, int64_t index) {
  const int64_t n_edges = static_cast<int64_t>(edges().size());
  const ref::Sizes s = index < n_edges ? edges()[static_cast<size_t>(index)] : random_sizes(rng);
  const bool with_bias = index < n_edges ? index % 3 != 1 : rng.chance(0.7);
  const ValueClass xc = linalg::pick_class(rng), wc = linalg::pick_class(rng), bc = linalg::pick_class(rng);
  const int64_t N = (s.H / s.f) * (s.W / s.f);
  Case c;
  c.args.push_back(
      {"x", Access::in, Tensor::of_f32({s.B, s.C, s.H, s.W}, linalg::operand(rng, xc, s.B * s.C * s.H * s.W))});
  c.args.push_back(
      {"w", Access::in, Tensor::of_f32({s.D, s.C, s.f, s.f}, linalg::operand(rng, wc, s.D * s.C * s.f * s.f))});
  c.args.push_back({"bias", Access::in, Tensor::of_f32({s.D}, linalg::operand(rng, bc, s.D))});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {s.B, N, s.D})});
  c.args.push_back(status_arg());
  set_sizes(c, s, true);
  c.params["has_bias"] = with_bias ? 1.0 : 0.0;
  c.label = sizes_label(s, true, "p") + " x=" + std::string(value_class_name(xc)) +
            " w=" + std::string(value_class_name(wc)) +
            (with_bias ? " bias=" + std::string(value_class_name(bc)) : std::string(" bias=NULL"));
  if (index >= n_edges && rng.chance(0.1)) c.label += " " + break_sizes(rng, c, "HW");
  return c;
}

Oracle oracle(const Case& c) {
  const ref::Sizes s = sizes_of(c);
  const reference::Verdict v = ref::check(ref::Op::patch_embed, s);
  if (!v.ok()) return {{"status", status_expected(v.status)}};
  const float* bias = c.iparam("has_bias") != 0 ? c.in("bias").f32() : nullptr;
  const int64_t M = s.B * (s.H / s.f) * (s.W / s.f), K = s.C * s.f * s.f;
  Expected y;
  y.value.resize(static_cast<size_t>(M * s.D));
  ref::patch_embed<double>(c.in("x").f32(), c.in("w").f32(), bias, y.value.data(), s);
  // s = sum |x w| over the patch's row, plus |bias|: Matmul's scale and the
  // bias's own magnitude (its addition rounds against both).
  const std::vector<float> rows = ref::patch_rows(c.in("x").f32(), s);
  y.scale = linalg::dot_scale(rows.data(), c.in("w").f32(), M, s.D, K);
  if (bias != nullptr)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t d = 0; d < s.D; ++d) y.scale[static_cast<size_t>(m * s.D + d)] += std::fabs(double(bias[d]));
  return {{"status", status_expected(TL_OK)}, {"y", y}};
}

}  // namespace

std::vector<OpSpec> spatial_patch_embed() {
  OpSpec op;
  op.name = "PatchEmbed";
  op.args = {{"x", Access::in, "T", "B, C, H, W"},
             {"w", Access::in, "T", "D, C, f, f"},
             {"bias", Access::in, "T", "D"},
             {"y", Access::out, "T", "B, (H / f) * (W / f), D"},
             status_output()};
  op.tolerances = {{DType::f32, "256+1n; strict 257", "-",
                    "default: Matmul's any-order bound over n = C p p products plus the bias's 1 u; strict: "
                    "Matmul of the patch rows [B N, C p p] by w [D, C p p] (K = C p p <= 1024 here: blocked "
                    "chains <= 128 + K/128 = 136 u adversarially, pairwise log2(K) + 1 = 11 u), inside Matmul's"
                    " 256 u of sum |x w|; then + bias, one rounding <= u |y| <= u (sum |x w| + |bias|): 256 + 1"
                    " of s = sum |x w| + |bias|"}};
  op.group = "spatial";
  op.symbol = "tl_patch_embed_f32";
  op.summary =
      "Conv2d with kernel = stride = p as tokens: x [B, C, H, W], w [D, C, p, p], bias [D] or NULL -> "
      "y [B, (H/p)(W/p), D], patches in raster order";
  op.spec = "operations.txt 7. Spatial: PatchEmbed";
  op.params = {{"B", ParamType::i64, ">= 0 (x's batch)"},
               {"C", ParamType::i64, ">= 0 (x's and w's channels)"},
               {"H", ParamType::i64, ">= 0, a multiple of p (x's rows)"},
               {"W", ParamType::i64, ">= 0, a multiple of p (x's columns)"},
               {"D", ParamType::i64, ">= 0 (the embedding: w's and bias's length, y's last axis)"},
               {"f", ParamType::i64, "the patch p, >= 1; p^2 and the products of the sizes within int64_t"},
               {"has_bias", ParamType::i64, "1 when bias is passed, 0 when it is NULL"}};
  op.domain =
      "ViT (3 x 224^2, p = 16, K = 768), DiT (C = 4, p = 2), one patch (p = H), p = 1, D around the vector "
      "widths, empty batches, channels and D; |x|, |w|, |bias| <= 1e15, every value class incl. NaN/Inf; "
      "one case in ten past the edges has a bad size (p < 1 or 2^32, H or W not a multiple of p, a negative "
      "size), which must be refused";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edges().size());
  op.make_case = make;
  declare_c_call<decltype(tl_patch_embed_f32)>(op, {"x", "w", "bias?has_bias", "y", "B", "C", "H", "W", "D", "f"});
  op.oracle = oracle;
  op.sum_length = [](const Case& c) {  // each output sums the C p p products of its patch
    const int64_t C = largest_param(c, {"C"}), p = largest_param(c, {"f"});
    return C * p * p;
  };
  return {op};
}

}  // namespace konform::ops
