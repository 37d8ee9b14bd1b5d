// Matmul: y = x @ W^T, x [..., K], W [N, K] (spec §1), f32, with the decode
// shape M = 1 and batched leading dimensions.
#include <string>

#include "konform/c_call.hpp"
#include "konform/reference/linalg.hpp"
#include "linalg_support.hpp"
#include "tinyllm/linalg.h"

namespace konform::ops {

std::vector<OpSpec> matmul();

namespace {

using namespace linalg;

struct Shape {
  int64_t M, N, K;
};

// Around every blocking edge: M = 1 (GEMV) and the strip/packed switch at
// 8/9 rows and the micro-tile's 6 and 12 rows; N around 8, 16 and 32
// columns; K = 0, around the vector widths and around 256 (two chains of 128).
// The last two are the large shapes (Llama-7B's FFN), checked by
// projection (verify) instead of the full oracle.
const std::vector<Shape>& edge_shapes() {
  static const std::vector<Shape> shapes = {
      {1, 1, 1},     {1, 1, 0},    {3, 5, 0},     {0, 5, 7},     {4, 0, 9},        {1, 33, 255},
      {1, 33, 256},  {1, 33, 257}, {1, 17, 513},  {2, 8, 8},     {3, 7, 17},       {8, 9, 31},
      {8, 64, 65},   {9, 31, 64},  {12, 32, 256}, {13, 33, 257}, {24, 48, 100},    {25, 65, 300},
      {37, 97, 513}, {6, 16, 1},   {7, 15, 2},    {1, 1, 1000},  {1, 11008, 4096}, {2, 4096, 11008}};
  return shapes;
}

// Products past this many multiply-adds are judged by projection.
constexpr int64_t kOracleWork = int64_t{1} << 24;

// x's shape: [M, K], or [B, S, K] with B S = M (leading dims are flattened).
std::vector<int64_t> x_shape(Rng& rng, int64_t M, int64_t last) {
  for (int64_t b = 2; b <= 4; ++b)
    if (M % b == 0 && M > b && rng.chance(0.4)) return {b, M / b, last};
  return {M, last};
}

Case make(Rng& rng, int64_t index, int64_t edges) {
  Shape s;
  if (index < edges) {
    s = edge_shapes()[static_cast<size_t>(index)];
  } else {
    s.M = rng.chance(0.7) ? rng.range(1, 12) : rng.range(13, 48);
    s.N = rng.range(1, 160);
    s.K = rng.chance(0.9) ? rng.range(0, 600) : rng.range(600, 1500);
  }
  const bool big = s.M * s.N * s.K > kOracleWork;
  Case c;
  c.params = {{"M", double(s.M)}, {"N", double(s.N)}, {"K", double(s.K)}, {"big", big ? 1.0 : 0.0}};
  std::vector<float> x, w;
  std::string values;
  if (big) {
    x = fast_operand(rng, s.M * s.K);
    w = fast_operand(rng, s.N * s.K);
    values = "uniform [-8, 8), verified by projection";
  } else {
    const ValueClass xc = pick_class(rng), wc = pick_class(rng);
    x = operand(rng, xc, s.M * s.K);
    w = operand(rng, wc, s.N * s.K);
    values = "x=" + std::string(value_class_name(xc)) + " w=" + std::string(value_class_name(wc));
    if (s.K >= 2 && rng.chance(0.1)) {
      make_cancelling(x, w, s.M, s.N, s.K);
      values += " cancelling";
    }
  }
  const auto xs = x_shape(rng, s.M, s.K);
  auto ys = xs;
  ys.back() = s.N;
  c.args.push_back({"x", Access::in, Tensor::of_f32(xs, x)});
  c.args.push_back({"w", Access::in, Tensor::of_f32({s.N, s.K}, w)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, ys)});
  c.args.push_back(status_arg());
  c.label = "x " + shape_string(xs) + " w " + shape_string({s.N, s.K}) + " " + values;
  if (index >= edges && rng.chance(0.1)) c.label += " " + make_size_invalid(rng, c, {"M", "N", "K"});
  return c;
}

tl_status call_status(const Case& c) { return sizes_status({c.iparam("M"), c.iparam("N"), c.iparam("K")}); }

Oracle oracle(const Case& c) {
  if (tl_status st = call_status(c)) return {{"status", status_expected(st)}};
  if (c.param("big") != 0) return {{"status", status_expected(TL_OK)}};  // y: verify below
  const int64_t M = c.iparam("M"), N = c.iparam("N"), K = c.iparam("K");
  Expected y;
  y.value.resize(static_cast<size_t>(M * N));
  reference::matmul<double>(c.in("x").f32(), c.in("w").f32(), y.value.data(), M, N, K);
  y.scale = dot_scale(c.in("x").f32(), c.in("w").f32(), M, N, K);
  return {{"status", status_expected(TL_OK)}, {"y", y}};
}

std::vector<Verification> verify(const Case& c, const std::map<std::string, Tensor>& out, double limit) {
  if (c.param("big") == 0 || call_status(c) != TL_OK) return {};
  return verify_product(c.in("x").f32(), c.in("w").f32(), out.at("y"), c.iparam("M"), c.iparam("N"), c.iparam("K"),
                        limit, verify_seed(c), "y");
}

}  // namespace

std::vector<OpSpec> matmul() {
  OpSpec op;
  op.name = "Matmul";
  // Leading dimensions flattened: x [B, S, K] with B S = M.
  op.args = {{"x", Access::in, "T", "M..., K"},
             {"w", Access::in, "T", "N, K"},
             {"y", Access::out, "T", "M..., N"},
             status_output()};
  op.tolerances = {{DType::f32, "255+1n; strict 256", "-",
                    "default: each output sums K = n products in any order: <= K u of s = sum |x w| (the "
                    "products' roundings and a recursive sum, Higham's gamma_K), 255 + n also covering the "
                    "strict limit; strict: each output sums K terms: blocked chains (simd: FMA chains of 128 "
                    "then <= 86 chain sums at K = 11008) are <= 214 u of s = sum |x w| only for adversarial "
                    "rounding and ~10 u in practice; pairwise (scalar) <= log2(K) + 1 = 15 u; a plain recursive"
                    " float sum ~ sqrt(K)/6 = 18 u typical at K = 11008 (4 sigma 70 u); a dropped term, an f16 "
                    "or TF32 product is >= 1500 u"}};
  op.group = "linalg";
  op.symbol = "tl_matmul_f32";
  op.summary = "y = x @ W^T, x [..., K] (leading dims flattened to M), W [N, K], y [..., N]; validates";
  op.spec = "operations.txt 1. Linear algebra: Matmul";
  op.params = {{"M", ParamType::i64, "rows of x: >= 0; times N or K, * 4 bytes, within int64_t"},
               {"N", ParamType::i64, "rows of W: >= 0; times M or K, * 4 bytes, within int64_t"},
               {"K", ParamType::i64, ">= 0 (0: y = 0); times M or N, * 4 bytes, within int64_t"},
               {"big", ParamType::i64,
                "1 when M N K > 2^24 (y judged by random projection, x and w uniform in [-8, 8)), else 0"}};
  op.domain =
      "|x|, |w| <= 1e15 (float products and sums stay finite), every value class incl. NaN/Inf and exact "
      "cancellation; products past 2^24 multiply-adds (up to 4096 x 11008) judged by random projection and "
      "sampled elements; one case in ten past the edges has a bad size, which must be refused";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_shapes().size());
  op.make_case = [edges = op.edge_cases](Rng& rng, int64_t i) { return make(rng, i, edges); };
  declare_c_call<decltype(tl_matmul_f32)>(op, {"x", "w", "y", "M", "N", "K"});
  op.oracle = oracle;
  op.verify = verify;
  op.sum_length = [](const Case& c) { return largest_param(c, {"K"}); };  // each output sums K products
  return {op};
}

}  // namespace konform::ops
