// The quantized matmuls (spec §9): y = x @ Dequantize(W)^T with W in ggml's
// Q8_0, Q4_0 or Q4_K blocks, x and y f32, judged like Matmul against the
// dot product with the exactly dequantized weights.
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

Case make(Rng& rng, int64_t index, Format f) {
  const auto edges = edge_shapes(f);
  Shape s;
  if (index < static_cast<int64_t>(edges.size())) {
    s = edges[static_cast<size_t>(index)];
  } else {
    s.M = rng.chance(0.7) ? rng.range(1, 12) : rng.range(13, 40);
    s.N = rng.range(1, 96);
    s.blocks = f == Format::q4_k ? rng.range(0, 3) : rng.range(0, 24);
  }
  const int64_t K = s.blocks * info(f).values;
  const bool big = s.M * s.N * K > kOracleWork;
  const ValueClass xc = big ? ValueClass::normal : pick_class(rng);
  const auto w = random_blocks(rng, f, s.N * s.blocks);
  Case c;
  c.params = {{"M", double(s.M)}, {"N", double(s.N)}, {"K", double(K)}, {"big", big ? 1.0 : 0.0}};
  c.args.push_back(
      {"x", Access::in, Tensor::of_f32({s.M, K}, big ? fast_operand(rng, s.M * K) : operand(rng, xc, s.M * K))});
  c.args.push_back({"w", Access::in, Tensor::of_u8({static_cast<int64_t>(w.size())}, w)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {s.M, s.N})});
  c.args.push_back(status_arg());
  c.label = "x [" + std::to_string(s.M) + ", " + std::to_string(K) + "] w " + std::to_string(s.N) + " rows of " +
            std::to_string(s.blocks) +
            " blocks, x=" + (big ? std::string("uniform, verified by projection") : std::string(value_class_name(xc)));
  if (index >= static_cast<int64_t>(edges.size()) && rng.chance(0.1)) {
    if (rng.chance(0.4)) {
      c.params["K"] = static_cast<double>(K + rng.range(1, info(f).values - 1));
      c.label += " bad: K = " + std::to_string(c.iparam("K"));
    } else {
      c.label += " " + make_size_invalid(rng, c, {"M", "N", "K"});
    }
  }
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

OpSpec qmatmul_op(Format f) {
  const FormatInfo& fi = info(f);
  OpSpec op;
  op.name = std::string("QMatmul_") + fi.name;
  op.tolerances = {{DType::f32, "257+1n; strict 258", "-", limit_derivation(f)}};
  op.args = {{"x", Access::in, "T", "M, K"},
             {"w", Access::in, "u8", blocks_shape(f, "N * K")},
             {"y", Access::out, "T", "M, N"},
             status_output()};
  op.group = "quant";
  op.symbol = std::string("tl_qmatmul_") + fi.lower + "_f32";
  op.summary = std::string("y = x @ Dequantize(W)^T, x [M, K] f32, W N rows of ") + fi.name +
               " blocks, read directly; validates";
  op.spec =
      "operations.txt 9. Quantize / Dequantize: Quantized matmul is conceptually Dequantize(W) ⊙ x but implemented as "
      "a fused kernel that reads quantized bytes and produces f32/f16 output without materializing the dequantized "
      "weight.";
  const std::string sizes = ">= 0, each product of two of M, N, K times 4 bytes within int64_t";
  op.params = {{"M", ParamType::i64, sizes},
               {"N", ParamType::i64, sizes},
               {"K", ParamType::i64, sizes + "; a multiple of " + std::to_string(fi.values) + " (else TL_ERR_SHAPE)"},
               {"big", ParamType::i64, "1 when M N K > 2^24 (y verified by projection, x uniform), else 0"}};
  op.domain =
      "|x| <= 1e15, every value class; random blocks with finite f16 scales; the scale is sum |x| |w| (Q4_K: "
      "|x| (|d sc q| + |dmin m|)); the largest shape verified by projection; bad sizes and K not a whole "
      "number of blocks must be refused";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_shapes(f).size());
  op.make_case = [f](Rng& rng, int64_t i) { return make(rng, i, f); };
  declare_c_call<decltype(tl_qmatmul_q8_0_f32)>(op, {"x", "w", "y", "M", "N", "K"});  // every format's signature
  op.oracle = [f](const Case& c) { return oracle(c, f); };
  op.sum_length = [](const Case& c) { return largest_param(c, {"K"}); };
  op.verify = [f](const Case& c, const std::map<std::string, Tensor>& out, double limit) {
    return verify(c, out, limit, f);
  };
  return op;
}

}  // namespace

std::vector<OpSpec> qmatmul() {
  return {
      qmatmul_op(Format::q8_0),
      qmatmul_op(Format::q4_0),
      qmatmul_op(Format::q4_k),
  };
}

}  // namespace konform::ops
