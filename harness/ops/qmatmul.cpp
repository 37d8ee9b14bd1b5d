// The quantized matmuls (spec §9): y = x @ Dequantize(W)^T with W in ggml's
// Q8_0, Q4_0 or Q4_K blocks, x and y f32, judged like Matmul against the
// dot product with the exactly dequantized weights.
#include <algorithm>
#include <cmath>
#include <string>

#include "konform/c_call.hpp"
#include "konform/reference/quant.hpp"
#include "quant_support.hpp"
#include "tinyllm/quant.h"

namespace konform::ops {

std::vector<OpSpec> qmatmul();

namespace {

using namespace linalg;
using namespace qfmt;
namespace rq = reference::quant;

struct Shape {
  int64_t M, N, blocks;  // K = blocks * QK
};

// M = 1 (decode) and the strip/packed switch at 8/9 rows, N around the
// tiles, K of one block to many (an odd count of blocks too); for Q4_K, the
// format of most released models, a GEMV past the oracle's 2^24 multiply-adds
// (W 4160 x 4096), verified by projection (Matmul's sweep has the 11008 x 4096
// ones).
std::vector<Shape> edge_shapes(Format f) {
  std::vector<Shape> s = {{1, 1, 1},  {1, 33, 1},  {1, 17, 9}, {3, 7, 2}, {8, 64, 3},
                          {9, 31, 2}, {12, 32, 8}, {0, 5, 1},  {4, 0, 2}, {2, 3, 0}};
  if (f == Format::q4_k) s.push_back({1, 4160, 16});
  return s;
}

constexpr int64_t kOracleWork = int64_t{1} << 24;  // as Matmul: past it, projection

// Case `index`'s shape: an edge shape, or a random one.
Shape pick_shape(Rng& rng, int64_t index, Format f, const std::vector<Shape>& edges) {
  if (index < static_cast<int64_t>(edges.size())) return edges[static_cast<size_t>(index)];
  Shape s;
  s.M = rng.chance(0.7) ? rng.range(1, 12) : rng.range(13, 40);
  s.N = rng.range(1, 96);
  s.blocks = f == Format::q4_k ? rng.range(0, 3) : rng.range(0, 24);
  return s;
}

// The case of shape s with x and W's blocks w, its label naming x's values.
Case shaped_case(const Shape& s, int64_t K, std::vector<float> x, const std::vector<uint8_t>& w,
                 const std::string& x_label) {
  Case c;
  c.params = {{"M", double(s.M)}, {"N", double(s.N)}, {"K", double(K)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({s.M, K}, std::move(x))});
  c.args.push_back({"w", Access::in, Tensor::of_u8({static_cast<int64_t>(w.size())}, w)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {s.M, s.N})});
  c.args.push_back(status_arg());
  c.label = "x [" + std::to_string(s.M) + ", " + std::to_string(K) + "] w " + std::to_string(s.N) + " rows of " +
            std::to_string(s.blocks) + " blocks, x=" + x_label;
  return c;
}

// One random case in ten made bad: K not a whole number of blocks, or a bad size.
void maybe_bad(Rng& rng, Case& c, Format f) {
  if (!rng.chance(0.1)) return;
  if (rng.chance(0.4)) {
    c.params["K"] = static_cast<double>(c.iparam("K") + rng.range(1, info(f).values - 1));
    c.label += " bad: K = " + std::to_string(c.iparam("K"));
  } else {
    c.label += " " + make_size_invalid(rng, c, {"M", "N", "K"});
  }
}

Case make(Rng& rng, int64_t index, Format f) {
  const auto edges = edge_shapes(f);
  const Shape s = pick_shape(rng, index, f, edges);
  const int64_t K = s.blocks * info(f).values;
  const bool big = s.M * s.N * K > kOracleWork;
  const ValueClass xc = big ? ValueClass::normal : pick_class(rng);
  const auto w = random_blocks(rng, f, s.N * s.blocks);
  Case c = shaped_case(s, K, big ? fast_operand(rng, s.M * K) : operand(rng, xc, s.M * K), w,
                       big ? std::string("uniform, verified by projection") : std::string(value_class_name(xc)));
  c.params["big"] = big ? 1.0 : 0.0;
  if (index >= static_cast<int64_t>(edges.size())) maybe_bad(rng, c, f);
  return c;
}

tl_status call_status(const Case& c, Format f) {
  if (tl_status st = sizes_status({c.iparam("M"), c.iparam("N"), c.iparam("K")})) return st;
  return c.iparam("K") % info(f).values != 0 ? TL_ERR_SHAPE : TL_OK;
}

// W dequantized, and the magnitude of each weight's terms: |w| for Q8_0 and
// Q4_0 (exact products), |(d sc) q| + |dmin m| for Q4_K (a kernel may sum
// the two parts separately).
void weights(Format f, const uint8_t* blocks, int64_t N, int64_t K, std::vector<float>* w, std::vector<float>* mag) {
  w->resize(static_cast<size_t>(N * K));
  rq::dequantize(f, blocks, w->data(), N * K);
  mag->resize(w->size());
  for (size_t i = 0; i < w->size(); ++i) (*mag)[i] = std::fabs((*w)[i]);
  if (f != Format::q4_k) return;
  for (int64_t b = 0; b < N * K / 256; ++b)
    for (int i = 0; i < 256; ++i) {
      float scale, min;
      rq::q4_k_sub_block(blocks + b * 144, i / 32, &scale, &min);
      (*mag)[static_cast<size_t>(b * 256 + i)] =
          std::fabs(scale * static_cast<float>(rq::q4_k_quant(blocks + b * 144, i))) + std::fabs(min);
    }
}

Oracle oracle(const Case& c, Format f) {
  if (tl_status st = call_status(c, f)) return {{"status", status_expected(st)}};
  if (c.param("big") != 0) return {{"status", status_expected(TL_OK)}};  // y: verify below
  const int64_t M = c.iparam("M"), N = c.iparam("N"), K = c.iparam("K");
  std::vector<float> w, mag;
  weights(f, c.in("w").u8(), N, K, &w, &mag);
  Expected y;
  y.value.resize(static_cast<size_t>(M * N));
  rq::qmatmul<double>(f, c.in("x").f32(), c.in("w").u8(), y.value.data(), M, N, K);
  y.scale = dot_scale(c.in("x").f32(), mag.data(), M, N, K);
  return {{"status", status_expected(TL_OK)}, {"y", y}};
}

std::vector<Verification> verify(const Case& c, const std::map<std::string, Tensor>& out, double limit, Format f) {
  if (c.param("big") == 0 || call_status(c, f) != TL_OK) return {};
  const int64_t M = c.iparam("M"), N = c.iparam("N"), K = c.iparam("K");
  std::vector<float> w, mag;
  weights(f, c.in("w").u8(), N, K, &w, &mag);
  return verify_product(c.in("x").f32(), w.data(), out.at("y"), M, N, K, limit, verify_seed(c), "y", mag.data());
}

// The derivation of QMatmul's limit (docs/ops-linalg.md), by format: the
// weights each format makes exactly and the roundings a blocked kernel adds.
const char* limit_derivation(Format f) {
  switch (f) {
    case Format::q8_0:
      return "default: Matmul's any-order K u plus the per-block 2 u, over n = K; strict: Matmul's 256 u"
             " of s = sum |x| |w| with w the exactly dequantized weights (d q, exact products); a kernel"
             " that sums each block's x q before its scale multiplies adds one rounding of that partial "
             "sum and one of the product: 256 + 2";
    case Format::q4_0:
      return "default: Matmul's any-order K u plus the per-block 2 u, over n = K; strict: as "
             "QMatmul_Q8_0: w = (q - 8) d is exact in float; 256 u of sum |x| |w| plus 2 u for a "
             "per-block scale applied to a partial sum";
    default:
      return "default: Matmul's any-order K u plus the per-block 2 u, over n = K; strict: s = sum |x| "
             "(|d sc q| + |dmin m|), the magnitude of both forms a kernel may use: the dequantized "
             "weight (d sc) q - dmin m rounded once (1 u of that sum), or the split d sc sum x q - dmin "
             "m sum x per sub-block; Matmul's 256 + 2";
  }
}

// What both kinds of quantized matmul declare alike: the arguments, the
// spec, M, N and K, the status and the C call (every format's signature is
// tl_qmatmul_q8_0_f32's).
OpSpec shared_op(Format f, const std::string& name, const std::string& symbol) {
  const FormatInfo& fi = info(f);
  OpSpec op;
  op.name = name;
  op.args = {{"x", Access::in, "T", "M, K"},
             {"w", Access::in, "u8", blocks_shape(f, "N * K")},
             {"y", Access::out, "T", "M, N"},
             status_output()};
  op.group = "quant";
  op.symbol = symbol;
  op.spec =
      "operations.txt 9. Quantize / Dequantize: Quantized matmul is conceptually Dequantize(W) ⊙ x but implemented as "
      "a fused kernel that reads quantized bytes and produces f32/f16 output without materializing the dequantized "
      "weight.";
  const std::string sizes = ">= 0, each product of two of M, N, K times 4 bytes within int64_t";
  op.params = {{"M", ParamType::i64, sizes},
               {"N", ParamType::i64, sizes},
               {"K", ParamType::i64, sizes + "; a multiple of " + std::to_string(fi.values) + " (else TL_ERR_SHAPE)"}};
  op.status = "status";
  declare_c_call<decltype(tl_qmatmul_q8_0_f32)>(op, {"x", "w", "y", "M", "N", "K"});
  return op;
}

OpSpec qmatmul_op(Format f) {
  const FormatInfo& fi = info(f);
  OpSpec op = shared_op(f, std::string("QMatmul_") + fi.name, std::string("tl_qmatmul_") + fi.lower + "_f32");
  op.tolerances = {{DType::f32, "257+1n; strict 258", "-", limit_derivation(f)}};
  op.summary = std::string("y = x @ Dequantize(W)^T, x [M, K] f32, W N rows of ") + fi.name +
               " blocks, read directly; validates";
  op.params.push_back({"big", ParamType::i64, "1 when M N K > 2^24 (y verified by projection, x uniform), else 0"});
  op.domain =
      "|x| <= 1e15, every value class; random blocks with finite f16 scales; the scale is sum |x| |w| (Q4_K: "
      "|x| (|d sc q| + |dmin m|)); the largest shape verified by projection; bad sizes and K not a whole "
      "number of blocks must be refused";
  op.edge_cases = static_cast<int64_t>(edge_shapes(f).size());
  op.make_case = [f](Rng& rng, int64_t i) { return make(rng, i, f); };
  op.oracle = [f](const Case& c) { return oracle(c, f); };
  op.sum_length = [](const Case& c) { return largest_param(c, {"K"}); };
  op.verify = [f](const Case& c, const std::map<std::string, Tensor>& out, double limit) {
    return verify(c, out, limit, f);
  };
  return op;
}

// ---------------------------------------------------------------- q8x

// The q8x matmuls (x quantized to Q8 per block, integer dot products;
// tinyllm/quant.h). Default: against the exact product of the unquantized x
// with the dequantized W, within the error any round-to-nearest Q8
// quantizer of x may make plus the f32 sums' (the scale below is that
// budget in units of u, the limit 1); strict: ggml's quantizer bit for bit,
// only the f32 roundings of the block terms allowed.

// x values to 1e6: a Q8_0 block's scale max|x| / 127 fits f16 below 8.3e6.
constexpr double kQ8xMaxAbs = 1e6;

tl_status q8x_status(const Case& c, Format f) {
  if (tl_status st = call_status(c, f)) return st;
  const int64_t n = c.iparam("M") * c.iparam("K");
  const float* x = c.in("x").f32();
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return TL_ERR_INVALID_ARGUMENT;
  if (f == Format::q4_k) return TL_OK;
  for (int64_t b = 0; b < n / 32; ++b) {
    float amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[32 * b + j]));
    if (!(amax / 127.0f < 65520.0f)) return TL_ERR_INVALID_ARGUMENT;  // its f16 scale would be Inf
  }
  return TL_OK;
}

Case make_q8x(Rng& rng, int64_t index, Format f) {
  auto edges = edge_shapes(f);
  if (f == Format::q4_k) edges.pop_back();  // no product past the oracle's work here
  const Shape s = pick_shape(rng, index, f, edges);
  const bool edge = index < static_cast<int64_t>(edges.size());
  const int64_t K = s.blocks * info(f).values;
  const ValueClass xc = pick_class(rng);
  std::vector<float> x = make_values(rng, xc, s.M * K, kQ8xMaxAbs);
  // One case in 20 puts a value past what a Q8_0 block's f16 scale holds
  // (refused; for Q4_K's f32 scale a valid large value).
  const bool large = !edge && !x.empty() && rng.chance(0.05);
  if (large) x[static_cast<size_t>(rng.range(0, static_cast<int64_t>(x.size()) - 1))] = 1.0e7f;
  const auto w = random_blocks(rng, f, s.N * s.blocks);
  Case c = shaped_case(s, K, std::move(x), w, std::string(value_class_name(xc)) + (large ? ", one x = 1e7" : ""));
  if (!edge) maybe_bad(rng, c, f);
  return c;
}

// The float terms a kernel may add for one output, in any order: K / 16
// (Q8_0 and Q4_0: a block of 32 as up to two terms; Q4_K: up to sixteen
// per super-block, eight sub-block terms and eight of mins).
double q8x_terms(int64_t K) { return static_cast<double>(K) / 16; }

// The largest error a round-to-nearest Q8 quantizer of x makes on one value
// of a block whose largest magnitude is amax, d = amax / 127:
//   Q8_0 (f16 scale): |x - d16 q| <= |x - d q| + |d - d16| |q|
//                     <= d / 2 + 128 max(2^-11 d, 2^-25)
//     (round to nearest within 2^-15 d of a boundary, the f16 scale within
//     half its ulp, relative 2^-11, or 2^-25 among f16 subnormals);
//   Q8_K (f32 scale): d / 2, or amax where the block is so small that
//     -127 / x_max overflows and every quant is 0.
// Both times 1.0001: the float route to d and to x / d (a few u).
double x_quant_error(Format f, double amax) {
  const double d = amax / 127;
  if (f == Format::q4_k) return amax < 0x1p-100 ? amax : 1.0001 * d / 2;
  return 1.0001 * (d / 2 + 128 * std::max(0x1p-11 * d, 0x1p-25));
}

Oracle oracle_q8x(const Case& c, Format f) {
  if (tl_status st = q8x_status(c, f)) return {{"status", status_expected(st)}};
  const int64_t M = c.iparam("M"), N = c.iparam("N"), K = c.iparam("K");
  const float* x = c.in("x").f32();
  std::vector<float> w, mag;
  weights(f, c.in("w").u8(), N, K, &w, &mag);
  Expected y;
  y.value.resize(static_cast<size_t>(M * N));
  rq::qmatmul<double>(f, x, c.in("w").u8(), y.value.data(), M, N, K);
  // The budget, in units of u: Q / u + (n + 5)(S + Q), where S = sum |x| mag
  // is the f32 sums' scale, Q = sum_k h(block of k) mag_k the quantization
  // error's bound (x_quant_error), and n + 5 the float roundings: n terms in
  // any order, four per term (the integer sum's conversion, dw dx, the
  // product, Q4_K's min term) and one for Q4_K's dequantized weight, which
  // the integer route never rounds.
  const std::vector<double> S = dot_scale(x, mag.data(), M, N, K);
  const int64_t qk = rq::x_block_values(f);
  std::vector<double> h(static_cast<size_t>(M * K));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t b = 0; b < K / qk; ++b) {
      double amax = 0;
      for (int64_t j = 0; j < qk; ++j) amax = std::max(amax, std::fabs(double(x[m * K + b * qk + j])));
      for (int64_t j = 0; j < qk; ++j) h[static_cast<size_t>(m * K + b * qk + j)] = x_quant_error(f, amax);
    }
  const std::vector<double> Q = dot_scale(h.data(), mag.data(), M, N, K);
  const double u = 0x1p-24, roundings = q8x_terms(K) + 5;
  y.scale.resize(y.value.size());
  for (size_t i = 0; i < y.scale.size(); ++i) y.scale[i] = Q[i] / u + roundings * (S[i] + Q[i]);
  if (f == Format::q4_k) {
    // Q8_K's f32 dx may be subnormal-small: dw dx, dmin dx and the term may
    // round into the subnormals, off by 2^-150 each times what multiplies
    // them: |isum| <= 128 sum sc q and |isum_min| <= 128 * 32 sum m, whatever
    // x's quants (int8).
    const uint8_t* wq = c.in("w").u8();
    for (int64_t n = 0; n < N; ++n) {
      double lost = 0;
      for (int64_t b = 0; b < K / 256; ++b) {
        const uint8_t* wb = wq + (n * (K / 256) + b) * 144;
        double sum_scq = 0, sum_m = 0;
        for (int sub = 0; sub < 8; ++sub) {
          int sc, mn;
          rq::q4_k_scale_min(sub, wb + 4, &sc, &mn);
          sum_m += mn;
          for (int l = 0; l < 32; ++l) sum_scq += sc * rq::q4_k_quant(wb, 32 * sub + l);
        }
        lost += 0x1p-150 * (128 * sum_scq + 128 * 32 * sum_m + 3);
      }
      for (int64_t m = 0; m < M; ++m) y.scale[static_cast<size_t>(m * N + n)] += lost / u;
    }
  }
  return {{"status", status_expected(TL_OK)}, {"y", y}};
}

// The strict profile: ggml's quantizer of x bit for bit (the oracle's
// quantize_x), the integer sums exact, and the f32 roundings of the block
// terms: (n + 5) u of sum_b |dw dx| sum |qw qx| (Q4_K: plus |dmin dx| sum m |qx|).
std::vector<Verification> verify_q8x(const Case& c, const std::map<std::string, Tensor>& out, double limit, Format f) {
  if (q8x_status(c, f) != TL_OK) return {};
  const int64_t M = c.iparam("M"), N = c.iparam("N"), K = c.iparam("K");
  Expected e;
  e.value.resize(static_cast<size_t>(M * N));
  e.scale.resize(e.value.size());
  std::vector<double> floor(e.value.size());
  rq::qmatmul_q8x<double>(f, c.in("x").f32(), c.in("w").u8(), e.value.data(), M, N, K, e.scale.data(), floor.data());
  for (size_t i = 0; i < e.scale.size(); ++i) e.scale[i] = e.scale[i] * (q8x_terms(K) + 5) + floor[i] / 0x1p-24;
  const Tensor& y = out.at("y");
  std::vector<double> got(static_cast<size_t>(y.elements()));
  for (size_t i = 0; i < got.size(); ++i) got[i] = y.f32()[i];
  Verification v{"matches_ggml_q8_activations", "y", "elements of y", {M, N}, compare_values(got, e, limit)};
  v.comparison.metrics = {};  // shown as its findings, never as the op's error
  v.profile = "strict";
  return {v};
}

const char* q8x_derivation(Format f) {
  if (f == Format::q4_k)
    return "the budget itself, carried by the scale: Q + (n + 5) u (S + Q) with S = sum |x| (|d sc q| + |dmin m|), "
           "Q = sum_k h |d sc q| + |dmin m| and h = 1.0001 d / 2, d = max|x| / 127 of x's block of 256 (Q8_K: any "
           "round-to-nearest quantizer with an f32 scale; amax where -127 / x_max overflows), n = K / 16 float terms "
           "in any order, four roundings per term and one for the dequantized weight; strict: ggml's Q8_K "
           "quantizer bit for bit (matches_ggml_q8_activations), (n + 5) u of sum_b |d dx| sum sc |q qx| + "
           "|dmin dx| sum m |qx|";
  return "the budget itself, carried by the scale: Q + (n + 5) u (S + Q) with S = sum |x| |w|, Q = sum_k h |w_k|, "
         "h = 1.0001 (d / 2 + 128 max(2^-11 d, 2^-25)), d = max|x| / 127 of x's block of 32 (any round-to-nearest "
         "quantizer; the f16 scale within half its ulp times |q| <= 128), n = K / 16 float terms in any order, four "
         "roundings per term; strict: ggml's Q8_0 quantizer bit for bit (matches_ggml_q8_activations), (n + 5) u of "
         "sum_b |dw dx| sum |qw qx|";
}

OpSpec qmatmul_q8x_op(Format f) {
  const FormatInfo& fi = info(f);
  OpSpec op = shared_op(f, std::string("QMatmulQ8x_") + fi.name, std::string("tl_qmatmul_") + fi.lower + "_q8x_f32");
  op.tolerances = {{DType::f32, "1", "-", q8x_derivation(f)}};
  op.summary = std::string("y = x @ Dequantize(W)^T with x quantized per block to ") +
               (f == Format::q4_k ? "Q8_K" : "Q8_0") + " (ggml's CPU backend), integer dot products, W N rows of " +
               fi.name + " blocks; validates";
  op.domain = std::string(
                  "|x| <= 1e6, every value class (NaN and Inf must be refused); one case in 20 holds an x of "
                  "1e7, ") +
              (f == Format::q4_k ? "valid with Q8_K's f32 scale" : "refused: its block's Q8_0 scale passes f16") +
              "; random blocks with finite f16 scales; bad sizes and K not a whole number of blocks must be refused";
  op.edge_cases = static_cast<int64_t>(edge_shapes(f).size()) - (f == Format::q4_k ? 1 : 0);
  op.make_case = [f](Rng& rng, int64_t i) { return make_q8x(rng, i, f); };
  op.oracle = [f](const Case& c) { return oracle_q8x(c, f); };
  op.verify = [f](const Case& c, const std::map<std::string, Tensor>& out, double limit) {
    return verify_q8x(c, out, limit, f);
  };
  return op;
}

}  // namespace

std::vector<OpSpec> qmatmul() {
  return {
      qmatmul_op(Format::q8_0),     qmatmul_op(Format::q4_0),     qmatmul_op(Format::q4_k),
      qmatmul_q8x_op(Format::q8_0), qmatmul_q8x_op(Format::q4_0), qmatmul_q8x_op(Format::q4_k),
  };
}

}  // namespace konform::ops
