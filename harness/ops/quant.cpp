// Quantize and Dequantize (spec §9) for ggml's Q8_0, Q4_0 and Q4_K block
// layouts. Dequantize is exact; Quantize's blocks are judged by what they
// decode to and how they round (quant_judge.hpp), ggml's reference
// quantizer's bytes being the strict profile's demand.
#include <limits>
#include <string>

#include "konform/c_call.hpp"
#include "konform/compare.hpp"
#include "konform/reference/quant.hpp"
#include "quant_boundaries.hpp"
#include "quant_judge.hpp"
#include "quant_support.hpp"
#include "tinyllm/quant.h"

namespace konform::ops {

std::vector<OpSpec> quant();

namespace {

using namespace linalg;
using namespace qfmt;
namespace rq = reference::quant;

struct Rows {
  int64_t rows, blocks;  // blocks per row
};

// Empty tensors, one block, several rows, a long row.
const std::vector<Rows>& edge_rows() {
  static const std::vector<Rows> rows = {{1, 1}, {1, 0}, {0, 1}, {3, 1}, {2, 2}, {5, 3}, {1, 9}};
  return rows;
}

Rows pick_rows(Rng& rng, int64_t index, int64_t edges, Format f) {
  if (index < edges) return edge_rows()[static_cast<size_t>(index)];
  return {rng.range(1, 8), rng.range(0, f == Format::q4_k ? 4 : 10)};
}

// The parameters of Quantize and Dequantize: x's (or y's) rows and k.
std::vector<ParamSpec> rows_params(Format f) {
  const std::string sizes = ">= 0, rows * k times 4 bytes within int64_t";
  return {{"rows", ParamType::i64, sizes},
          {"k", ParamType::i64, sizes + "; a multiple of " + std::to_string(info(f).values) + " (else TL_ERR_SHAPE)"}};
}

// Makes a valid case's k not a multiple of the block, or a size negative.
std::string make_rows_invalid(Rng& rng, Case& c, Format f) {
  if (rng.chance(0.5)) {
    c.params["k"] = c.param("k") + static_cast<double>(rng.range(1, info(f).values - 1));
    return "bad: k = " + std::to_string(c.iparam("k"));
  }
  return make_size_invalid(rng, c, {"rows", "k"});
}

// ---------------------------------------------------------------- Quantize

// Values by class, below a tenth of what a block's f16 scale holds; now and
// then a block pushed past it (which must be refused).
std::vector<float> values_to_quantize(Rng& rng, Format f, int64_t n, std::string* label) {
  const double limit = scale_limit(f) / 10;
  const ValueClass classes[] = {ValueClass::normal, ValueClass::normal, ValueClass::wide,
                                ValueClass::tiny,   ValueClass::zeros,  ValueClass::subnormal,
                                ValueClass::ties,   ValueClass::huge,   ValueClass::specials};
  const ValueClass vc = rng.pick(classes);
  std::vector<float> x = make_values(rng, vc, n, limit);
  *label = std::string(value_class_name(vc));
  if (vc == ValueClass::normal) {  // a block scale from 2^-20 to 2^15
    const float k = std::ldexp(1.0f, static_cast<int>(rng.range(-20, 15)));
    for (float& v : x) v *= k;
  }
  if (n > 0 && rng.chance(0.05)) {
    x[static_cast<size_t>(rng.range(0, n - 1))] = static_cast<float>(scale_limit(f) * 1.5);
    *label += " one value past the f16 scale";
  }
  return x;
}

// Cases of chosen values after the edge shapes: rows of subnormals (where
// ggml's reciprocals overflow; the regression case of such rows), values
// about 2^-125 (around where they start to), values on rounding boundaries
// under scales that are not powers of two, and small values with sparse
// outliers (where Q4_K's scale search matters).
enum class Chosen { subnormal, tiny_range, boundaries, outliers };
struct ChosenCase {
  Chosen values;
  int64_t rows, k;
};
const std::vector<ChosenCase>& chosen_cases() {
  static const std::vector<ChosenCase> cases = {{Chosen::subnormal, 6, 768},
                                                {Chosen::tiny_range, 2, 768},
                                                {Chosen::boundaries, 4, 512},
                                                {Chosen::boundaries, 8, 1024},
                                                {Chosen::outliers, 4, 1024}};
  return cases;
}

std::vector<float> chosen_values(Rng& rng, Format f, const ChosenCase& cc, std::string* label) {
  const int64_t n = cc.rows * cc.k;
  switch (cc.values) {
    case Chosen::subnormal: *label = "subnormal"; return make_values(rng, ValueClass::subnormal, n);
    case Chosen::tiny_range: *label = "about 2^-125"; return tiny_range(rng, n);
    case Chosen::boundaries: *label = "at rounding boundaries (and one ulp off)"; return boundary_values(rng, f, n);
    case Chosen::outliers: break;
  }
  *label = "small with sparse outliers";
  return sparse_outliers(rng, n);
}

Case make_quantize(Rng& rng, int64_t index, int64_t edges, Format f) {
  const auto shape_edges = static_cast<int64_t>(edge_rows().size());
  const bool chosen = index >= shape_edges && index < edges;
  const ChosenCase* cc = chosen ? &chosen_cases()[static_cast<size_t>(index - shape_edges)] : nullptr;
  const Rows r = chosen ? Rows{cc->rows, cc->k / info(f).values} : pick_rows(rng, index, shape_edges, f);
  const int64_t k = r.blocks * info(f).values, n = r.rows * k;
  std::string values;
  const std::vector<float> x = chosen ? chosen_values(rng, f, *cc, &values) : values_to_quantize(rng, f, n, &values);
  Case c;
  c.params = {{"rows", double(r.rows)}, {"k", double(k)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({r.rows, k}, x)});
  c.args.push_back({"blocks", Access::out, Tensor::zeros(DType::u8, {blocks_bytes(f, n)}), Match::exact});
  c.args.push_back(status_arg());
  c.label = "x [" + std::to_string(r.rows) + ", " + std::to_string(k) + "] " + values;
  if (index >= edges && rng.chance(0.1)) c.label += " " + make_rows_invalid(rng, c, f);
  return c;
}

// The header's rules in its order: sizes, whole blocks, finite values, then
// every block's f16 scale finite (known once the block is quantized).
tl_status quantize_status(const Case& c, Format f, std::vector<uint8_t>* blocks) {
  const int64_t rows = c.iparam("rows"), k = c.iparam("k");
  if (tl_status st = sizes_status({rows, k})) return st;
  if (k % info(f).values != 0) return TL_ERR_SHAPE;
  const float* x = c.in("x").f32();
  for (int64_t i = 0; i < rows * k; ++i)
    if (!std::isfinite(x[i])) return TL_ERR_INVALID_ARGUMENT;
  blocks->assign(static_cast<size_t>(blocks_bytes(f, rows * k)), 0);
  rq::quantize(f, x, blocks->data(), rows * k);
  for (int64_t b = 0; b < rows * k / info(f).values; ++b)
    if (!rq::block_scales_finite(f, blocks->data() + b * info(f).bytes)) return TL_ERR_INVALID_ARGUMENT;
  return TL_OK;
}

// The status alone: the blocks are judged by verify_blocks.
Oracle quantize_oracle(const Case& c, Format f) {
  std::vector<uint8_t> blocks;
  return {{"status", status_expected(quantize_status(c, f, &blocks))}};
}

// Folds one block's verdict into a check's comparison: the first failing
// block is the one shown, else the largest error ratio.
void fold(Comparison& cmp, int64_t block, const ElementVerdict& e) {
  ++cmp.metrics.elements;
  if (!e.ok) ++cmp.mismatches;
  const bool replace =
      cmp.worst.index < 0 || (cmp.worst.ok && (!e.ok || e.error / e.limit > cmp.worst.error / cmp.worst.limit));
  if (replace && (!e.ok || e.error > 0)) {
    cmp.worst = e;
    cmp.worst.index = block;
  }
}

// The blocks written, against the oracle's: encoding_matches_oracle (the
// default rules of quant_judge.hpp) and bit_exact_ggml (the strict profile:
// the oracle's bytes).
std::vector<Verification> verify_blocks(const Case& c, Format f, const Tensor& got) {
  const FormatInfo& fi = info(f);
  const int64_t n = c.iparam("rows") * c.iparam("k"), nb = n / fi.values;
  const float* x = c.in("x").f32();
  std::vector<uint8_t> ref(static_cast<size_t>(blocks_bytes(f, n)));
  rq::quantize(f, x, ref.data(), n);
  Verification enc{"encoding_matches_oracle", "blocks", "blocks", {nb}, {}};
  Verification bits{"bit_exact_ggml", "blocks", "blocks", {nb}, {}};
  bits.profile = "strict";
  for (int64_t b = 0; b < nb; ++b) {
    const uint8_t* g = got.u8() + b * fi.bytes;
    const uint8_t* r = ref.data() + b * fi.bytes;
    const qjudge::BlockVerdict v = qjudge::judge_block(f, x + b * fi.values, g, r);
    ElementVerdict e;
    e.ok = v.ok;
    e.expected = v.expected;
    e.got = v.got;
    e.error = v.ok || v.error > v.limit ? v.error : 2 * v.limit;  // a failing rule shows past its limit
    e.limit = v.limit;
    if (!v.ok)
      e.why = v.value < 0 ? v.why
                          : "value " + std::to_string(v.value) +
                                " (x = " + qjudge::fmt("%.9g", x[b * fi.values + v.value]) + "): " + v.why;
    fold(enc.comparison, b, e);
    ElementVerdict same;
    for (int64_t i = 0; i < fi.bytes && same.ok; ++i)
      if (g[i] != r[i]) {
        same.ok = false;
        same.expected = r[i];
        same.got = g[i];
        same.error = 1;
        same.why = "byte " + std::to_string(i) +
                   " differs from the bytes of ggml's reference quantizer (evaluated "
                   "without fused multiply-adds)";
      }
    fold(bits.comparison, b, same);
  }
  return {enc, bits};
}

OpSpec quantize_op(Format f) {
  const FormatInfo& fi = info(f);
  OpSpec op;
  op.name = std::string("Quantize_") + fi.name;
  op.args = {{"x", Access::in, "T", "rows, k"},
             {"blocks", Access::out, "u8", blocks_shape(f, "rows * k"), {Match::exact}},
             status_output()};
  op.group = "quant";
  op.symbol = std::string("tl_quantize_") + fi.lower + "_f32";
  op.summary = std::string("f32 [rows, k] to ggml ") + fi.name +
               " blocks, judged by what they decode to (ggml's bytes: strict); validates";
  op.spec = "operations.txt 9. Quantize / Dequantize: Quantize(x, dtype):    # e.g. F32 → Q4_K";
  op.params = rows_params(f);
  op.domain =
      "every value class below a tenth of what a block's f16 scale holds, blocks past it and non-finite "
      "values (both refused), ties at half a step (rounding direction); blocks judged by their decoded values, "
      "rounding and (Q4_K) error, and byte for byte against ggml's reference in the strict profile";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_rows().size() + chosen_cases().size());
  op.make_case = [edges = op.edge_cases, f](Rng& rng, int64_t i) { return make_quantize(rng, i, edges, f); };
  declare_c_call<decltype(tl_quantize_q8_0_f32)>(op, {"x", "blocks", "rows", "k"});  // every format's signature
  op.oracle = [f](const Case& c) { return quantize_oracle(c, f); };
  op.verify = [f](const Case& c, const std::map<std::string, Tensor>& out, double) {
    return verify_blocks(c, f, out.at("blocks"));
  };
  return op;
}

// ---------------------------------------------------------------- Dequantize

Case make_dequantize(Rng& rng, int64_t index, int64_t edges, Format f) {
  const Rows r = pick_rows(rng, index, edges, f);
  const int64_t k = r.blocks * info(f).values, n = r.rows * k;
  const auto blocks = random_blocks(rng, f, n / info(f).values);
  Case c;
  c.params = {{"rows", double(r.rows)}, {"k", double(k)}};
  c.args.push_back({"blocks", Access::in, Tensor::of_u8({static_cast<int64_t>(blocks.size())}, blocks)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {r.rows, k}), Match::exact});
  c.args.push_back(status_arg());
  c.label = "[" + std::to_string(r.rows) + ", " + std::to_string(k) + "] random blocks";
  if (index >= edges && rng.chance(0.1)) c.label += " " + make_rows_invalid(rng, c, f);
  return c;
}

Oracle dequantize_oracle(const Case& c, Format f) {
  const int64_t rows = c.iparam("rows"), k = c.iparam("k");
  tl_status st = sizes_status({rows, k});
  if (st == TL_OK && k % info(f).values != 0) st = TL_ERR_SHAPE;
  if (st != TL_OK) return {{"status", status_expected(st)}};
  std::vector<float> y(static_cast<size_t>(rows * k));
  rq::dequantize(f, c.in("blocks").u8(), y.data(), rows * k);
  Expected e;
  e.value.assign(y.begin(), y.end());
  e.scale.assign(y.size(), 0.0);
  return {{"status", status_expected(TL_OK)}, {"y", e}};
}

OpSpec dequantize_op(Format f) {
  const FormatInfo& fi = info(f);
  OpSpec op;
  op.name = std::string("Dequantize_") + fi.name;
  op.args = {{"blocks", Access::in, "u8", blocks_shape(f, "rows * k")},
             {"y", Access::out, "T", "rows, k", {Match::exact}},
             status_output()};
  op.group = "quant";
  op.symbol = std::string("tl_dequantize_") + fi.lower + "_f32";
  op.summary = std::string("ggml ") + fi.name + " blocks to f32 [rows, k], exact; validates";
  op.spec = "operations.txt 9. Quantize / Dequantize: Dequantize(x, source): # e.g. Q4_K → F32";
  op.params = rows_params(f);
  op.domain =
      "random blocks: any quants, finite f16 scales of either sign (normal and subnormal); compared bit for bit";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_rows().size());
  op.make_case = [edges = op.edge_cases, f](Rng& rng, int64_t i) { return make_dequantize(rng, i, edges, f); };
  declare_c_call<decltype(tl_dequantize_q8_0_f32)>(op, {"blocks", "y", "rows", "k"});
  op.oracle = [f](const Case& c) { return dequantize_oracle(c, f); };
  return op;
}

}  // namespace

std::vector<OpSpec> quant() {
  return {
      quantize_op(Format::q8_0),   quantize_op(Format::q4_0),   quantize_op(Format::q4_k),
      dequantize_op(Format::q8_0), dequantize_op(Format::q4_0), dequantize_op(Format::q4_k),
  };
}

}  // namespace konform::ops
