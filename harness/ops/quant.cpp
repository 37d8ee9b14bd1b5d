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

// x's values as floats: f32's own, f16's and bf16's widened (exactly).
std::vector<float> x_floats(const Case& c) {
  const Tensor& x = c.in("x");
  std::vector<float> v(static_cast<size_t>(x.elements()));
  if (x.dtype == DType::f32) std::copy(x.f32(), x.f32() + x.elements(), v.begin());
  else
    for (int64_t k = 0; k < x.elements(); ++k) v[static_cast<size_t>(k)] = static_cast<float>(x.at(k));
  return v;
}

// The header's rules in its order: sizes, whole blocks, finite values, then
// every block's f16 scale finite (known once the block is quantized).
tl_status quantize_status(const Case& c, Format f, std::vector<uint8_t>* blocks) {
  const int64_t rows = c.iparam("rows"), k = c.iparam("k");
  if (tl_status st = sizes_status({rows, k})) return st;
  if (k % info(f).values != 0) return TL_ERR_SHAPE;
  const std::vector<float> xs = x_floats(c);
  const float* x = xs.data();
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
  const std::vector<float> xs = x_floats(c);
  const float* x = xs.data();
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

// ---------------------------------------------------------------- Dequantize to f16 and bf16

// The value classes of a half twin's blocks, each drawn whole per block.
// random: the f32 op's blocks. large: scales 2^9 to 65504, so that values
// pass f16's 65504 (an infinity from 65520 on; Q8_0's 65504 * 127 does).
// small: subnormal and tiny normal f16 scales, whose values land among
// f16's subnormals (and need rounding there). ties: values on a tie of the
// dtype (an odd multiple of half its spacing), which goes to even; for
// Q4_K beside a min so small that the f32 difference rounds back onto the
// tie (the double rounding the contract keeps: tinyllm/quant.h).
enum class HalfBlocks { random, large, small, ties };

const char* half_blocks_name(HalfBlocks b) {
  switch (b) {
    case HalfBlocks::random: return "random blocks";
    case HalfBlocks::large: return "scales 2^9 to 65504";
    case HalfBlocks::small: return "subnormal and tiny scales";
    case HalfBlocks::ties: return "values on the dtype's ties";
  }
  return "";
}

// Value i of a block, set: Q8_0's int8 quant, Q4_0's nibble (q + 8), Q4_K's
// nibble.
void set_quant(Format f, uint8_t* block, int i, int q) {
  if (f == Format::q8_0) {
    block[2 + i] = static_cast<uint8_t>(static_cast<int8_t>(q));
    return;
  }
  const int at = f == Format::q4_0 ? 2 + i % 16 : 16 + 32 * (i / 64) + i % 32;
  const bool high = f == Format::q4_0 ? i >= 16 : (i % 64) >= 32;
  block[at] = static_cast<uint8_t>(high ? (block[at] & 15) | (q << 4) : (block[at] & 0xf0) | q);
}

// Q4_K's 6-bit scale and min of sub-block j, packed (the layout of tinyllm/quant.h).
void set_scale_min(uint8_t* block, int j, int sc, int m) {
  uint8_t* s = block + 4;
  if (j < 4) {
    s[j] = static_cast<uint8_t>((s[j] & 0xc0) | sc);
    s[j + 4] = static_cast<uint8_t>((s[j + 4] & 0xc0) | m);
  } else {
    s[j + 4] = static_cast<uint8_t>((sc & 15) | ((m & 15) << 4));
    s[j - 4] = static_cast<uint8_t>((s[j - 4] & 0x3f) | ((sc >> 4) << 6));
    s[j] = static_cast<uint8_t>((s[j] & 0x3f) | ((m >> 4) << 6));
  }
}

uint16_t f16_of(double v) { return reference::f32_to_f16(static_cast<float>(v)); }

// Tie blocks: a scale M / c 2^e whose product with the quant c 2^j (j = 0..2;
// Q4_K: sc = c and q = 2^j, j = 0..3) is the odd M 2^(e + j), on a tie of
// the dtype (M of 12 significant bits for f16, 9 for bf16). Pairs (M, c)
// where the tie goes up to even and where it goes down:
// f16 2051 = 7 * 293 (up), 2049 = 3 * 683 (down); bf16 259 = 7 * 37 (up),
// 257 (down).
void tie_block(Rng& rng, Format f, DType t, uint8_t* block) {
  struct Tie {
    int scale, c;
  };
  static const Tie f16_ties[] = {{293, 7}, {683, 3}}, bf16_ties[] = {{37, 7}, {257, 1}};
  const Tie tie = t == DType::f16 ? rng.pick(f16_ties) : rng.pick(bf16_ties);
  // 2^e from where half an f32 ulp of M 2^e passes Q4_K's largest dmin m
  // (6 * 2^-24) up to where 8 M 2^e stays below 65504.
  const int e = static_cast<int>(t == DType::f16 ? rng.range(-8, 1) : rng.range(-5, 4));
  const bool negative = rng.chance(0.5);
  const double d = std::ldexp(static_cast<double>(tie.scale), e) * (negative ? -1 : 1);
  rq::store_u16(block, f16_of(d));
  const int n = static_cast<int>(info(f).values);
  for (int i = 0; i < n; ++i) {
    const int q = tie.c << rng.range(0, f == Format::q4_k ? 3 : 2);  // q4_0's nibble holds q + 8 <= 15: c 2^j <= 7
    if (f == Format::q8_0) set_quant(f, block, i, rng.chance(0.5) ? q : -q);
    else if (f == Format::q4_0) set_quant(f, block, i, (q <= 7 ? q : tie.c) * (rng.chance(0.5) ? 1 : -1) + 8);
  }
  if (f != Format::q4_k) return;
  // Q4_K: sc = c in every sub-block, quants 1, 2, 4 or 8 (d sc q on the
  // tie), a subnormal dmin (2^-24 or 2^-23) and m from 0 to 3: dmin m within
  // half an f32 ulp of d sc q, so the f32 difference rounds back onto the
  // tie, where the exact one lies beside it (toward zero for d > 0, away
  // for d < 0).
  rq::store_u16(block + 2, static_cast<uint16_t>(rng.range(1, 2)));
  for (int j = 0; j < 8; ++j) set_scale_min(block, j, tie.c, static_cast<int>(rng.range(0, 3)));
  for (int i = 0; i < 256; ++i) set_quant(f, block, i, 1 << rng.range(0, 3));
}

std::vector<uint8_t> half_blocks(Rng& rng, Format f, DType t, HalfBlocks kind, int64_t n_blocks) {
  std::vector<uint8_t> b = random_blocks(rng, f, n_blocks);
  const FormatInfo& fi = info(f);
  for (int64_t i = 0; i < n_blocks; ++i) {
    uint8_t* block = b.data() + i * fi.bytes;
    switch (kind) {
      case HalfBlocks::random: break;
      case HalfBlocks::large:
        rq::store_u16(block, random_f16(rng, 24, 30));
        if (f == Format::q4_k) rq::store_u16(block + 2, random_f16(rng, 20, 30) & 0x7fff);
        break;
      case HalfBlocks::small:
        rq::store_u16(block, random_f16(rng, 0, 3));
        if (f == Format::q4_k) rq::store_u16(block + 2, random_f16(rng, 0, 3) & 0x7fff);
        break;
      case HalfBlocks::ties: tie_block(rng, f, t, block); break;
    }
  }
  return b;
}

// The f32 op's edge shapes, then one shape of a few blocks per class; later
// cases random shapes and classes.
struct HalfEdge {
  Rows rows;
  HalfBlocks kind;
};
const std::vector<HalfEdge>& half_edges() {
  static const std::vector<HalfEdge> edges = {{{1, 1}, HalfBlocks::random}, {{1, 0}, HalfBlocks::random},
                                              {{0, 1}, HalfBlocks::random}, {{2, 3}, HalfBlocks::large},
                                              {{2, 3}, HalfBlocks::small},  {{2, 3}, HalfBlocks::ties}};
  return edges;
}

Case make_dequantize_half(Rng& rng, int64_t index, Format f, DType t) {
  const auto edges = static_cast<int64_t>(half_edges().size());
  static const HalfBlocks kinds[] = {HalfBlocks::random, HalfBlocks::large, HalfBlocks::small, HalfBlocks::ties};
  const HalfEdge e = index < edges
                         ? half_edges()[static_cast<size_t>(index)]
                         : HalfEdge{{rng.range(1, 4), rng.range(0, f == Format::q4_k ? 2 : 6)}, rng.pick(kinds)};
  const int64_t k = e.rows.blocks * info(f).values, n = e.rows.rows * k;
  const auto blocks = half_blocks(rng, f, t, e.kind, n / info(f).values);
  Case c;
  c.params = {{"rows", double(e.rows.rows)}, {"k", double(k)}};
  c.args.push_back({"blocks", Access::in, Tensor::of_u8({static_cast<int64_t>(blocks.size())}, blocks)});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, {e.rows.rows, k}), Match::exact});
  c.args.push_back(status_arg());
  c.label = "[" + std::to_string(e.rows.rows) + ", " + std::to_string(k) + "] " + half_blocks_name(e.kind);
  if (index >= edges && rng.chance(0.1)) c.label += " " + make_rows_invalid(rng, c, f);
  return c;
}

// The f32 op in f16 or bf16: the oracle's f32 values, which the comparator
// rounds to y's dtype (to nearest, ties to even) before comparing bits.
OpSpec dequantize_half_op(Format f, DType t) {
  const FormatInfo& fi = info(f);
  const std::string dtype(dtype_name(t));
  OpSpec op = dequantize_op(f);
  op.name += "_" + dtype;
  op.dtype = t;
  op.symbol = std::string("tl_dequantize_") + fi.lower + "_" + dtype;
  op.summary = std::string("ggml ") + fi.name + " blocks to " + dtype +
               " [rows, k]: the f32 op's value rounded once, exact; validates";
  op.domain =
      "the f32 op's random blocks, and blocks of scales 2^9 to 65504" +
      std::string(t == DType::f16 ? " (values past 65504: infinities)" : "") + ", of subnormal and tiny scales" +
      std::string(t == DType::f16 ? " (values among f16's subnormals)" : "") + ", of values on the dtype's ties" +
      std::string(f == Format::q4_k ? " (beside mins within half an f32 ulp: the f32 value on the tie)" : "") +
      "; compared bit for bit with the f32 value rounded to " + dtype;
  op.edge_cases = static_cast<int64_t>(half_edges().size());
  op.make_case = [f, t](Rng& rng, int64_t i) { return make_dequantize_half(rng, i, f, t); };
  declare_c_call<decltype(tl_dequantize_q8_0_f16)>(op, {"blocks", "y", "rows", "k"});  // every format, bf16 alike
  return op;
}

// ---------------------------------------------------------------- Quantize from f16 and bf16

// The half-specific classes of a half twin's input, beside the f32 op's
// classes rounded to the dtype: the dtype's subnormals (exact in f32, not
// zeros), its largest values (f16: 65504, whose Q8_0 scale 515.8 fits; bf16:
// just below the largest f16 scale's values, 127 * 65504, Q4_0: 8 * 65504),
// exact code ties (Q8_0: x / d = j + 1/2
// exactly, which goes away from zero; Q4_0: x / d + 8.5 an integer; Q4_K:
// small values with sparse outliers) and its non-finite values (refused).
enum class HalfInput { subnormal, largest, ties, nonfinite };

struct HalfQuantEdge {
  HalfInput values;
  int64_t rows, blocks;
};
const std::vector<HalfQuantEdge>& half_quant_edges() {
  static const std::vector<HalfQuantEdge> edges = {
      {HalfInput::subnormal, 2, 2}, {HalfInput::largest, 2, 2}, {HalfInput::ties, 3, 2}, {HalfInput::nonfinite, 2, 1}};
  return edges;
}

// The f32 op's classes (values_to_quantize) rounded to t; for f16 a value
// past 65504 (a rounding to an infinity, which is refused) scaled down by
// 2^16 until it fits, so that the classes stay quantizable.
std::vector<float> rounded_classes(Rng& rng, Format f, DType t, int64_t n, std::string* label) {
  std::vector<float> x = values_to_quantize(rng, f, n, label);
  if (t == DType::f16)
    for (float& v : x)
      while (std::isfinite(v) && std::fabs(v) > 65504.0f) v *= 0x1p-16f;
  return x;
}

std::vector<float> half_input(Rng& rng, Format f, DType t, HalfInput kind, int64_t n, std::string* label) {
  std::vector<float> x(static_cast<size_t>(n));
  const bool f16 = t == DType::f16;
  const int64_t qk = info(f).values;
  switch (kind) {
    case HalfInput::subnormal:
      *label = "subnormals of the dtype";
      for (float& v : x) {
        const auto m = static_cast<uint16_t>(rng.range(0, f16 ? 1023 : 127));
        v = static_cast<float>(half_value(t, static_cast<uint16_t>((rng.chance(0.5) ? 0x8000u : 0u) | m)));
      }
      return x;
    case HalfInput::largest: {
      // f16: 65504 and values that round to at most it (65519 does); bf16:
      // below the values whose block scale rounds past 65504 (at 8 bits,
      // the next bf16 above 0.998 of 127 * 65504 already does: the random
      // classes' values past the scale cover those refusals).
      *label = f16 ? "at and below 65504" : "just below the largest f16 scale's values";
      const double top = f16 ? 65504.0 : (f == Format::q4_0 ? 8.0 : 127.0) * 65504;
      for (float& v : x)
        v = static_cast<float>(top * (rng.chance(0.3) ? (f16 ? 1.0 : 0.998) : rng.uniform(0.9, f16 ? 1.0002 : 0.998)) *
                               (rng.chance(0.5) ? 1 : -1));
      return x;
    }
    case HalfInput::ties:
      if (f == Format::q4_k) {
        *label = "small with sparse outliers";
        return sparse_outliers(rng, n);
      }
      *label = "exact code ties";
      for (int64_t b = 0; b < n / qk; ++b) {
        const double d = std::ldexp(1.0, static_cast<int>(rng.range(-10, 5)));  // the block's exact f32 scale
        float* xb = x.data() + b * qk;
        xb[0] = static_cast<float>(f == Format::q8_0 ? 127 * d : -8 * d);  // the extreme, first
        for (int64_t j = 1; j < qk; ++j)
          xb[j] = static_cast<float>(f == Format::q8_0 ? (static_cast<double>(rng.range(-127, 126)) + 0.5) * d
                                                       : (static_cast<double>(rng.range(1, 16)) - 8.5) * d);
      }
      return x;
    case HalfInput::nonfinite: {
      *label = "one infinity or NaN";
      x = make_values(rng, ValueClass::normal, n);
      const float bad[] = {INFINITY, -INFINITY, std::nanf("")};
      if (n > 0) x[static_cast<size_t>(rng.range(0, n - 1))] = rng.pick(bad);
      return x;
    }
  }
  return x;
}

Case make_quantize_half(Rng& rng, int64_t index, Format f, DType t) {
  const auto shapes = static_cast<int64_t>(edge_rows().size());
  const auto edges = shapes + static_cast<int64_t>(half_quant_edges().size());
  const bool chosen = index >= shapes && index < edges;
  const HalfQuantEdge* e = chosen ? &half_quant_edges()[static_cast<size_t>(index - shapes)] : nullptr;
  const Rows r = chosen           ? Rows{e->rows, f == Format::q4_k ? 1 : e->blocks}
                 : index < shapes ? edge_rows()[static_cast<size_t>(index)]
                                  : Rows{rng.range(1, 4), rng.range(0, f == Format::q4_k ? 2 : 6)};
  const int64_t k = r.blocks * info(f).values, n = r.rows * k;
  std::string values;
  const std::vector<float> x =
      chosen ? half_input(rng, f, t, e->values, n, &values) : rounded_classes(rng, f, t, n, &values);
  Case c;
  c.params = {{"rows", double(r.rows)}, {"k", double(k)}};
  c.args.push_back({"x", Access::in, Tensor::of_half(t, {r.rows, k}, x)});
  c.args.push_back({"blocks", Access::out, Tensor::zeros(DType::u8, {blocks_bytes(f, n)}), Match::exact});
  c.args.push_back(status_arg());
  c.label = "x [" + std::to_string(r.rows) + ", " + std::to_string(k) + "] " + values;
  if (index >= edges && rng.chance(0.1)) c.label += " " + make_rows_invalid(rng, c, f);
  return c;
}

// The f32 op on the widened input: the same oracle, refusals and judges.
OpSpec quantize_half_op(Format f, DType t) {
  const FormatInfo& fi = info(f);
  const std::string dtype(dtype_name(t));
  OpSpec op = quantize_op(f);
  op.name += "_" + dtype;
  op.dtype = t;
  op.symbol = std::string("tl_quantize_") + fi.lower + "_" + dtype;
  op.summary = dtype + " [rows, k] to ggml " + fi.name +
               " blocks: the f32 op on the widened values, judged as it is (ggml's bytes: strict); validates";
  op.domain = "the f32 op's value classes rounded to " + dtype +
              (t == DType::f16 ? " (past 65504 scaled down by 2^16 until they fit)" : std::string()) +
              ", the dtype's subnormals, its largest values" +
              (t == DType::bf16 ? " (just below the largest f16 scale's; past it: refused)" : std::string(" (65504)")) +
              ", exact code ties (Q4_K: sparse outliers), infinities and NaNs (refused); blocks judged as the f32 "
              "op's on the widened values";
  op.edge_cases = static_cast<int64_t>(edge_rows().size() + half_quant_edges().size());
  op.make_case = [f, t](Rng& rng, int64_t i) { return make_quantize_half(rng, i, f, t); };
  declare_c_call<decltype(tl_quantize_q8_0_f16)>(op, {"x", "blocks", "rows", "k"});  // every format, bf16 alike
  return op;
}

}  // namespace

std::vector<OpSpec> quant() {
  return {
      quantize_op(Format::q8_0),
      quantize_op(Format::q4_0),
      quantize_op(Format::q4_k),
      dequantize_op(Format::q8_0),
      dequantize_op(Format::q4_0),
      dequantize_op(Format::q4_k),
      dequantize_half_op(Format::q8_0, DType::f16),
      dequantize_half_op(Format::q4_0, DType::f16),
      dequantize_half_op(Format::q4_k, DType::f16),
      dequantize_half_op(Format::q8_0, DType::bf16),
      dequantize_half_op(Format::q4_0, DType::bf16),
      dequantize_half_op(Format::q4_k, DType::bf16),
      quantize_half_op(Format::q8_0, DType::f16),
      quantize_half_op(Format::q4_0, DType::f16),
      quantize_half_op(Format::q4_k, DType::f16),
      quantize_half_op(Format::q8_0, DType::bf16),
      quantize_half_op(Format::q4_0, DType::bf16),
      quantize_half_op(Format::q4_k, DType::bf16),
  };
}

}  // namespace konform::ops
