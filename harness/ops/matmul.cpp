// Matmul: y = x @ W^T, x [..., K], W [N, K] (spec §1), f32, with the decode
// shape M = 1 and batched leading dimensions; and its f16 and bf16 twins
// (products and sums in f32, one rounding to the dtype).
#include <algorithm>
#include <cmath>
#include <string>

#include "konform/c_call.hpp"
#include "half_linalg_support.hpp"
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

// The case's sizes: an edge shape, or random ones past the edges.
Shape pick_shape(Rng& rng, int64_t index, int64_t edges) {
  if (index < edges) return edge_shapes()[static_cast<size_t>(index)];
  Shape s;
  s.M = rng.chance(0.7) ? rng.range(1, 12) : rng.range(13, 48);
  s.N = rng.range(1, 160);
  s.K = rng.chance(0.9) ? rng.range(0, 600) : rng.range(600, 1500);
  return s;
}

Case make(Rng& rng, int64_t index, int64_t edges) {
  const Shape s = pick_shape(rng, index, edges);
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
  const std::vector<float> x = floats_of(c.in("x")), w = floats_of(c.in("w"));
  Expected y;
  y.value.resize(static_cast<size_t>(M * N));
  reference::matmul<double>(x.data(), w.data(), y.value.data(), M, N, K);
  y.scale = dot_scale(x.data(), w.data(), M, N, K);
  return {{"status", status_expected(TL_OK)}, {"y", y}};
}

// The large products by projection (y of any of the three dtypes).
std::vector<Verification> verify(const Case& c, const std::map<std::string, Tensor>& out, double limit) {
  if (c.param("big") == 0 || call_status(c) != TL_OK) return {};
  std::vector<float> wide_x, wide_w;  // half inputs widened; f32 ones read in place
  const auto floats = [](const Tensor& t, std::vector<float>& wide) {
    return t.dtype == DType::f32 ? t.f32() : (wide = floats_of(t)).data();
  };
  return verify_product(floats(c.in("x"), wide_x), floats(c.in("w"), wide_w), out.at("y"), c.iparam("M"), c.iparam("N"),
                        c.iparam("K"), limit, verify_seed(c), "y");
}

// ---------------------------------------------------------------- f16 and bf16

// Integers of magnitude <= b with K b^2 < 2^24: every product and partial
// sum is exact in f32 in any order, so a correct y is the exact sum rounded
// once, bit for bit (compared exactly). In f16 their sums pass 65504 often:
// the f32 sum is finite, y an infinity.
std::vector<float> int_operand(Rng& rng, int64_t b, int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (float& e : v) e = static_cast<float>(rng.range(-b, b));
  return v;
}

// How many halvings of x keep every correct f32 sum on one side of f16's
// overflow threshold (65520 rounds to infinity): |y*| 2^-k farther from it
// than twice the f32 rule, (256 + K) u_f32 s 2^-k (between a finite result
// and an infinity the comparator has no tolerance). 0: none needed.
int halvings_for_f16(const std::vector<float>& x, const std::vector<float>& w, int64_t M, int64_t N, int64_t K) {
  std::vector<double> y(static_cast<size_t>(M * N));
  reference::matmul<double>(x.data(), w.data(), y.data(), M, N, K);
  const std::vector<double> s = dot_scale(x.data(), w.data(), M, N, K);
  for (int k = 0; k < 160; ++k) {
    bool clear = true;
    for (size_t i = 0; i < y.size() && clear; ++i)
      clear = !std::isfinite(y[i]) || !std::isfinite(s[i]) ||
              std::fabs(std::ldexp(std::fabs(y[i]), -k) - 65520.0) >
                  std::ldexp(2 * (256.0 + double(K)) * 0x1p-24 * s[i], -k);
    if (clear) return k;
  }
  return 160;
}

// Large operands fast, exact in the dtype: uniform in [-8, 8) at a step of
// 2^-7 (f16: 11-bit integers) or 2^-4 (bf16: 8-bit integers), four values a
// generator call, their patterns from a table.
Tensor fast_half_operand(Rng& rng, DType t, std::vector<int64_t> shape) {
  const int bits = t == DType::f16 ? 11 : 8;
  std::vector<uint16_t> table(size_t{1} << bits);
  for (size_t i = 0; i < table.size(); ++i)
    table[i] = half_bits(
        t, std::ldexp(static_cast<double>(static_cast<int64_t>(i) - (int64_t{1} << (bits - 1))), 3 - (bits - 1)));
  Tensor out = Tensor::zeros(t, std::move(shape));
  uint16_t* p = reinterpret_cast<uint16_t*>(out.bytes.data());
  const int64_t n = out.elements();
  for (int64_t i = 0; i < n; i += 4) {
    const uint64_t r = rng.next();
    for (int64_t j = 0; j < 4 && i + j < n; ++j) p[i + j] = table[(r >> (16 * j)) & (table.size() - 1)];
  }
  return out;
}

// A case of Matmul_f16 or _bf16: the f32 op's shapes (the large ones by
// projection, x and w uniform in [-8, 8) rounded to the dtype), values that
// know the dtype: its subnormals, log-uniform magnitudes over its range,
// large ones whose f16 sums overflow, specials, and one case in five of
// integers, judged bit for bit.
Case make_half(DType t, Rng& rng, int64_t index, int64_t edges) {
  const Shape s = pick_shape(rng, index, edges);
  const bool big = s.M * s.N * s.K > kOracleWork;
  Case c;
  c.params = {{"M", double(s.M)}, {"N", double(s.N)}, {"K", double(s.K)}, {"big", big ? 1.0 : 0.0}};
  std::vector<float> x, w;
  std::string values;
  bool exact = false;
  const auto xs = x_shape(rng, s.M, s.K);
  auto ys = xs;
  ys.back() = s.N;
  Tensor xt, wt;
  if (big) {
    xt = fast_half_operand(rng, t, xs);
    wt = fast_half_operand(rng, t, {s.N, s.K});
    values =
        std::string("uniform [-8, 8) at a step of ") + (t == DType::f16 ? "2^-7" : "2^-4") + ", verified by projection";
  } else if (rng.chance(0.2)) {
    const int64_t top =
        std::min<int64_t>(255, static_cast<int64_t>(std::sqrt((0x1p24 - 1) / double(std::max<int64_t>(s.K, 1)))));
    const int64_t bx = rng.range(1, top), bw = rng.range(1, top);
    x = int_operand(rng, bx, s.M * s.K);
    w = int_operand(rng, bw, s.N * s.K);
    values = "integers |x| <= " + std::to_string(bx) + " |w| <= " + std::to_string(bw) + ", exact";
    exact = true;
  } else {
    const char* classes[] = {"normal", "normal", "normal", "wide", "subnormal", "specials", "large"};
    const std::string xc = rng.pick(classes), wc = rng.pick(classes);
    x = rounded(t, half_operand(rng, t, xc, s.M * s.K));
    w = rounded(t, half_operand(rng, t, wc, s.N * s.K));
    values = "x=" + xc + " w=" + wc;
    if (s.K >= 2 && rng.chance(0.1)) {
      make_cancelling(x, w, s.M, s.N, s.K);
      values += " cancelling";
    }
    // Halved x is exact but for its subnormals, so the count is checked again.
    for (int k = t == DType::f16 ? halvings_for_f16(x, w, s.M, s.N, s.K) : 0, round = 0; k > 0 && round < 4;
         k = halvings_for_f16(x, w, s.M, s.N, s.K), ++round) {
      for (float& e : x) e = static_cast<float>(round_to(t, std::ldexp(double(e), -k)));
      values += " x 2^-" + std::to_string(k);
    }
  }
  if (!big) {
    xt = Tensor::of_half(t, xs, x);
    wt = Tensor::of_half(t, {s.N, s.K}, w);
  }
  c.args.push_back({"x", Access::in, std::move(xt)});
  c.args.push_back({"w", Access::in, std::move(wt)});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, ys), exact ? Match::exact : Match::tolerance});
  c.args.push_back(status_arg());
  c.label = "x " + shape_string(xs) + " w " + shape_string({s.N, s.K}) + " " + values;
  if (index >= edges && rng.chance(0.1)) c.label += " " + make_size_invalid(rng, c, {"M", "N", "K"});
  return c;
}

// The f32 op, or its f16 or bf16 twin (half_rule on the f32 rule).
OpSpec matmul_op(DType t) {
  const bool half = t != DType::f32;
  const std::string dtype(dtype_name(t));
  OpSpec op;
  op.name = half ? "Matmul_" + dtype : "Matmul";
  op.dtype = t;
  // Leading dimensions flattened: x [B, S, K] with B S = M.
  op.args = {{"x", Access::in, "T", "M..., K"},
             {"w", Access::in, "T", "N, K"},
             {"y", Access::out, "T", "M..., N", {Match::tolerance, Match::exact}},
             status_output()};
  if (!half) op.args[2].match = {Match::tolerance};
  const ToleranceRule f32{DType::f32, "255+1n; strict 256", "-",
                          "default: each output sums K = n products in any order: <= K u of s = sum |x w| (the "
                          "products' roundings and a recursive sum, Higham's gamma_K), 255 + n also covering the "
                          "strict limit; strict: each output sums K terms: blocked chains (simd: FMA chains of 128 "
                          "then <= 86 chain sums at K = 11008) are <= 214 u of s = sum |x w| only for adversarial "
                          "rounding and ~10 u in practice; pairwise (scalar) <= log2(K) + 1 = 15 u; a plain recursive"
                          " float sum ~ sqrt(K)/6 = 18 u typical at K = 11008 (4 sigma 70 u); a dropped term, an f16 "
                          "or TF32 product is >= 1500 u"};
  if (half) {
    ToleranceRule rule = half_rule(t, f32);
    rule.why += "; the products of two " + dtype +
                " values are exact in f32, so any order of the K - 1 additions (pairs first as vdpbf16ps, chains "
                "of 128, blocks, pairwise) is inside the f32 rule's K u; integer cases (every partial sum exact) "
                "are compared bit for bit";
    op.tolerances = {rule};
  } else {
    op.tolerances = {f32};
  }
  op.group = "linalg";
  op.symbol = "tl_matmul_" + dtype;
  op.summary = "y = x @ W^T, x [..., K] (leading dims flattened to M), W [N, K], y [..., N]; validates";
  if (half) op.summary += "; x, w, y " + dtype + ", products and sums in f32, one rounding";
  op.spec = "operations.txt 1. Linear algebra: Matmul";
  const std::string bytes = half ? " * 4 bytes (the f32 rule), within int64_t" : " * 4 bytes, within int64_t";
  op.params = {{"M", ParamType::i64, "rows of x: >= 0; times N or K," + bytes},
               {"N", ParamType::i64, "rows of W: >= 0; times M or K," + bytes},
               {"K", ParamType::i64, ">= 0 (0: y = 0); times M or N," + bytes},
               {"big", ParamType::i64,
                "1 when M N K > 2^24 (y judged by random projection, x and w uniform in [-8, 8)), else 0"}};
  op.domain =
      "|x|, |w| <= 1e15 (float products and sums stay finite), every value class incl. NaN/Inf and exact "
      "cancellation; products past 2^24 multiply-adds (up to 4096 x 11008) judged by random projection and "
      "sampled elements; one case in ten past the edges has a bad size, which must be refused";
  if (half)
    op.domain =
        "values of " + dtype + ": normal, log-uniform over " +
        (t == DType::f16 ? "2^-24 .. 2^15.9" : "2^-133 .. 2^49") + ", subnormal, large (" +
        (t == DType::f16 ? "2^4 .. 2^15.9, sums past 65504: infinities" : "2^20 .. 2^49") +
        "), specials, cancelling rows; one case in five integers with K b^2 < 2^24 (exact sums, y bit for "
        "bit" +
        (t == DType::f16 ? ", often an infinity past 65504" : "") + ")" +
        (t == DType::f16 ? "; x of a case whose exact sums lie within twice the f32 rule of 65520 is scaled by a power "
                           "of 2 until none does"
                         : "") +
        "; the f32 op's shapes but 2 x 4096 x 11008, the large 1 x 11008 x 4096 by projection; one case in ten "
        "past the edges has a bad "
        "size, which must be refused";
  op.status = "status";
  // The half twins keep one large shape, the decode 1 x 11008 x 4096 (each
  // large case costs about a second of the default check on every target).
  op.edge_cases = static_cast<int64_t>(edge_shapes().size()) - (half ? 1 : 0);
  if (half) op.make_case = [t, edges = op.edge_cases](Rng& rng, int64_t i) { return make_half(t, rng, i, edges); };
  else op.make_case = [edges = op.edge_cases](Rng& rng, int64_t i) { return make(rng, i, edges); };
  if (half) declare_c_call<decltype(tl_matmul_f16)>(op, {"x", "w", "y", "M", "N", "K"});  // bf16 alike
  else declare_c_call<decltype(tl_matmul_f32)>(op, {"x", "w", "y", "M", "N", "K"});
  op.oracle = oracle;
  op.verify = verify;
  op.sum_length = [](const Case& c) { return largest_param(c, {"K"}); };  // each output sums K products
  return op;
}

}  // namespace

std::vector<OpSpec> matmul() { return {matmul_op(DType::f32), matmul_op(DType::f16), matmul_op(DType::bf16)}; }

}  // namespace konform::ops
