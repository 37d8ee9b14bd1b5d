// Argmax along one axis (spec §1, tinyllm/tensor.h): int32 indices with the
// rule of tl_argmax_f32 on every slice, compared exactly. Argmax_f16 and
// Argmax_bf16 (tl_argmax_axis_f16, _bf16) are the same entry on f16 and bf16
// x, its values widened exactly; their cases are the half dtypes' own
// classes (half_logits.hpp).
#include <algorithm>
#include <limits>
#include <string>

#include "konform/c_call.hpp"
#include "konform/reference/tensor.hpp"
#include "half_logits.hpp"
#include "tensor_support.hpp"
#include "tinyllm/tensor.h"

namespace konform::ops {

std::vector<OpSpec> tensor_argmax();

namespace {

using namespace tensor;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// [shape, axis] walked first: the greedy-decoding row, columns, the SIMD
// edges of the interleaved path (130 rows: two of its 64-row blocks and a
// part) and of the row path (slices 512 or more apart: a span of 1024 lanes
// and a part, a partial vector, axes not a multiple of its four steps), of
// the packed path (slices at most half a vector apart: steps past the last
// whole vector, an axis shorter than one), empty axes and empty results.
// The last edges always take repeated peaks: axes of several 64-step blocks
// across slices that walk their blocks one by one, a partial vector among them.
struct Edge {
  Shape shape;
  int64_t axis;
  bool peaks = false;
};
const std::vector<Edge>& edges() {
  static const std::vector<Edge> e = {{{32000}, 0},
                                      {{2, 4097}, -1},
                                      {{4097, 3}, 0},
                                      {{17, 5}, 0},
                                      {{5, 16}, 0},
                                      {{3, 64}, 0},
                                      {{3, 65}, 0},
                                      {{9, 63}, 0},
                                      {{4, 7, 33}, 1},
                                      {{2, 3, 4, 5}, 2},
                                      {{2, 3, 4, 5}, -4},
                                      {{0, 5}, 0},
                                      {{5, 0}, 0},
                                      {{5, 0}, 1},
                                      {{1}, 0},
                                      {{2, 1, 3, 1, 2, 2}, 3},
                                      {{130, 40}, 0},
                                      {{4, 512}, 0},
                                      {{7, 601}, 0},
                                      {{3, 2, 1100}, 1},
                                      {{2, 1, 2053}, 1},
                                      {{67, 2}, 0},
                                      {{9, 8}, 0},
                                      {{3, 6}, 0},
                                      {{1, 4}, 0},
                                      {{2, 5, 3}, 1},
                                      {{300, 40}, 0, true},
                                      {{2, 200, 17}, 1, true},
                                      {{333, 100}, 0, true}};
  return e;
}

// Normal values, and in every slice its max at up to four steps less than 8
// apart: ties that fall in different chains of one 64-step block of the SIMD
// walk, at a step that differs from slice to slice, so that slices rarely
// share the block where their max first appears.
std::vector<float> repeated_peaks(Rng& rng, const reference::AxisView& v) {
  std::vector<float> x = make_values(rng, ValueClass::normal, v.outer * v.length * v.inner);
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t i = 0; i < v.inner; ++i) {
      const float peak = 8.0f + static_cast<float>(rng.range(0, 2));
      const int64_t k0 = rng.range(0, v.length - 1), copies = rng.range(1, 3);
      for (int64_t c = 0; c <= copies; ++c) {
        const int64_t k = c == 0 ? k0 : std::min(v.length - 1, k0 + rng.range(1, 7));
        x[static_cast<size_t>((o * v.length + k) * v.inner + i)] = peak;
      }
    }
  return x;
}

// As repeated_peaks, with the later copies one ulp above or below the first
// (a maximum that is not a tie, next to one that is not the maximum): a
// comparison that is not exact (an epsilon, a lower precision) shows here.
std::vector<float> peaks_one_ulp_apart(Rng& rng, const reference::AxisView& v) {
  std::vector<float> x = make_values(rng, ValueClass::normal, v.outer * v.length * v.inner);
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t i = 0; i < v.inner; ++i) {
      const float peak =
          std::ldexp(1.0f + static_cast<float>(rng.range(1, 1023)) / 1024, static_cast<int>(rng.range(2, 6)));
      const int64_t k0 = rng.range(0, v.length - 1), copies = rng.range(1, 3);
      x[static_cast<size_t>((o * v.length + k0) * v.inner + i)] = peak;
      for (int64_t c = 1; c <= copies; ++c) {
        const int64_t k = std::min(v.length - 1, k0 + rng.range(1, 7));
        x[static_cast<size_t>((o * v.length + k) * v.inner + i)] = std::nextafter(peak, rng.chance(0.5) ? kInf : -kInf);
      }
    }
  return x;
}

// Values that test the rule: ties, NaN (first place included), all-NaN and
// all -Inf slices, signed zeros, repeated maxima (when the shape is valid:
// `view`), or any value class.
std::vector<float> argmax_values(Rng& rng, int64_t n, const reference::AxisView* view, std::string* label) {
  std::vector<float> x;
  switch (rng.range(0, 8)) {
    case 0: return random_values(rng, n, label);
    case 1: *label = "ties"; return make_values(rng, ValueClass::ties, n);
    case 2:
      *label = "ties and NaN";
      x = make_values(rng, ValueClass::ties, n);
      for (float& v : x)
        if (rng.chance(0.3)) v = kNaN;
      return x;
    case 3:
      *label = "mostly NaN";  // some slices are all NaN
      x = make_values(rng, ValueClass::normal, n);
      for (float& v : x)
        if (!rng.chance(0.05)) v = kNaN;
      return x;
    case 4:
      *label = "-Inf and NaN";
      x.assign(static_cast<size_t>(n), -kInf);
      for (float& v : x)
        if (rng.chance(0.3)) v = kNaN;
      return x;
    case 5: *label = "+0 and -0"; return make_values(rng, ValueClass::zeros, n);
    case 6:
      if (view != nullptr && n > 0 && view->outer * view->length * view->inner == n) {
        *label = "repeated peaks";
        return repeated_peaks(rng, *view);
      }
      [[fallthrough]];
    case 7:
      if (view != nullptr && n > 0 && view->outer * view->length * view->inner == n) {
        *label = "peaks one ulp apart";
        return peaks_one_ulp_apart(rng, *view);
      }
      [[fallthrough]];
    default: *label = "distinct"; return distinct_values(rng, n);
  }
}

Case make(Rng& rng, int64_t index) {
  Shape s;
  int64_t axis;
  if (index < static_cast<int64_t>(edges().size())) {
    s = edges()[static_cast<size_t>(index)].shape;
    axis = edges()[static_cast<size_t>(index)].axis;
  } else {
    s = random_shape(rng, random_rank(rng, 1), 30000);
    const int64_t rank = static_cast<int64_t>(s.size());
    axis = rng.range(-rank, rank - 1);
  }
  std::string bad;
  if (index >= static_cast<int64_t>(edges().size()) && rng.chance(0.12)) {
    const int64_t rank = static_cast<int64_t>(s.size());
    if (rng.chance(0.5)) {
      axis = rng.chance(0.5) ? rank + rng.range(0, 2) : -rank - rng.range(1, 3);
      bad = "bad: axis " + std::to_string(axis) + " for rank " + std::to_string(rank);
    } else {
      bad = "bad: " + break_shape(rng, &s, 1);
      axis = 0;
    }
  }
  const Shape xb = buffer_shape(s);
  Shape ib = xb;
  if (bad.empty()) ib.erase(ib.begin() + (axis < 0 ? axis + static_cast<int64_t>(s.size()) : axis));
  else ib = {1};
  std::string label;
  reference::AxisView view;
  if (bad.empty()) view = reference::around_axis(s, axis < 0 ? axis + static_cast<int64_t>(s.size()) : axis);
  const bool peaks = index < static_cast<int64_t>(edges().size()) && edges()[static_cast<size_t>(index)].peaks;
  if (peaks) label = "repeated peaks";
  const std::vector<float> x =
      peaks ? repeated_peaks(rng, view)
            : argmax_values(rng, reference::element_count(xb), bad.empty() ? &view : nullptr, &label);
  Case c;
  set_shape(c, "x", s);
  c.params["axis"] = static_cast<double>(axis);
  c.args.push_back({"x", Access::in, Tensor::of_f32(xb, x)});
  c.args.push_back({"index", Access::out, Tensor::zeros(DType::i32, ib), Match::exact});
  c.args.push_back(status_arg());
  c.label =
      "x=" + reference::to_string(s) + " axis=" + std::to_string(axis) + " " + label + (bad.empty() ? "" : " " + bad);
  return c;
}

// The half twins' shapes: the vocabulary row of greedy decoding (32000,
// ties after rounding), rows of logits, columns, a rank-4 middle axis, an
// empty axis; each class of half_logits.hpp at least once.
const std::vector<Edge>& half_edges() {
  static const std::vector<Edge> e = {{{32000}, 0}, {{4, 257}, -1},    {{130, 40}, 0}, {{3, 64}, 0},
                                      {{9, 63}, 1}, {{2, 3, 4, 5}, 2}, {{5, 0}, 1},    {{7, 601}, 0},
                                      {{17, 5}, 0}, {{2, 1, 300}, -1}};
  return e;
}

// A case of Argmax_f16 or _bf16: one class of half_logits.hpp over the whole
// tensor (the edges walk them in order), shapes of at most 4000 elements, 1
// in 10 with a bad axis or shape.
Case make_half(DType t, Rng& rng, int64_t index) {
  const int64_t edges = static_cast<int64_t>(half_edges().size());
  Shape s;
  int64_t axis;
  if (index < edges) {
    s = half_edges()[static_cast<size_t>(index)].shape;
    axis = half_edges()[static_cast<size_t>(index)].axis;
  } else {
    s = random_shape(rng, random_rank(rng, 1), 4000);
    const int64_t rank = static_cast<int64_t>(s.size());
    axis = rng.range(-rank, rank - 1);
  }
  std::string bad;
  if (index >= edges && rng.chance(0.1)) {
    const int64_t rank = static_cast<int64_t>(s.size());
    axis = rng.chance(0.5) ? rank + rng.range(0, 2) : -rank - rng.range(1, 3);
    bad = "bad: axis " + std::to_string(axis) + " for rank " + std::to_string(rank);
  }
  const Shape xb = buffer_shape(s);
  Shape ib = xb;
  if (bad.empty()) ib.erase(ib.begin() + (axis < 0 ? axis + static_cast<int64_t>(s.size()) : axis));
  else ib = {1};
  const int kind = index < edges ? static_cast<int>((index + 1) % half_logits::kKinds)
                                 : static_cast<int>(rng.range(0, half_logits::kKinds - 1));
  Case c;
  set_shape(c, "x", s);
  c.params["axis"] = static_cast<double>(axis);
  c.args.push_back(
      {"x", Access::in, half_logits::tensor(t, xb, half_logits::row(t, rng, reference::element_count(xb), kind))});
  c.args.push_back({"index", Access::out, Tensor::zeros(DType::i32, ib), Match::exact});
  c.args.push_back(status_arg());
  c.label = "x=" + reference::to_string(s) + " axis=" + std::to_string(axis) + " " + half_logits::kind_name(kind) +
            (bad.empty() ? "" : " " + bad);
  return c;
}

Oracle oracle(const Case& c) {
  static const float somewhere[1] = {};
  static int32_t index_somewhere[1] = {};
  const Shape s = get_shape(c, "x");
  Shape checked;
  int64_t ax = 0;
  const reference::Verdict v = reference::check_argmax_axis(somewhere, dims_or_null(s), int64_t(s.size()),
                                                            c.iparam("axis"), index_somewhere, &checked, &ax);
  if (!v.ok()) return {{"status", status_expected(v.status)}};
  // One index per element of the other axes: from the shape, not from the
  // index buffer, which a reproducer file may have made smaller.
  int64_t count = 1;
  for (size_t k = 0; k < checked.size(); ++k)
    if (static_cast<int64_t>(k) != ax) count *= checked[k];
  std::vector<int32_t> index(static_cast<size_t>(count));
  std::vector<float> scratch;
  reference::argmax_axis(half_logits::floats_of(c.in("x"), scratch), checked, ax, index.data());
  return {{"index", exact_expected({index.begin(), index.end()})}, {"status", status_expected(TL_OK)}};
}

}  // namespace

std::vector<OpSpec> tensor_argmax() {
  OpSpec op;
  op.name = "Argmax";
  op.args = {{"x", Access::in, "T", "x.#[x.rank]"},
             {"index", Access::out, "i32", kShapeByOracle, {Match::exact}},  // x's shape without the axis
             status_output()};
  op.group = "tensor";
  op.symbol = "tl_argmax_axis_f32";
  op.summary =
      "int32 index of the maximum along one axis: lowest index on ties, NaN skipped, -1 for a slice "
      "without a number (the rule of tl_argmax_f32 per slice)";
  op.spec = "operations.txt 1. Linear algebra: Argmax";
  op.params = {{"x.rank", ParamType::i64, "1 .. 6 (x's rank)"},
               {"x.#", ParamType::i64, "x's shape: x.0 .. x.{rank-1}, each >= 0, the axis at most INT32_MAX long"},
               {"axis", ParamType::i64, "-rank .. rank-1 (negative counts from the end)"}};
  op.domain =
      "ties, NaN (first place included), all-NaN and all -Inf slices, +0/-0, every value class, a max "
      "repeated at nearby steps of each slice, empty "
      "axes (all -1) and empty results; refused: an axis out of range, rank 0 or 7, negative "
      "dimensions, 2^62 elements";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edges().size());
  op.make_case = make;
  declare_c_call<decltype(tl_argmax_axis_f32)>(op, {"x", "x.#[x.rank]", "x.rank", "axis", "index"});
  op.oracle = oracle;

  // f16 and bf16: the same declaration and oracle, the half classes' cases.
  std::vector<OpSpec> ops = {op};
  for (const DType t : {DType::f16, DType::bf16}) {
    const std::string dtype(dtype_name(t));
    OpSpec h = op;
    h.name = "Argmax_" + dtype;
    h.dtype = t;
    h.symbol = "tl_argmax_axis_" + dtype;
    h.summary += "; x " + dtype +
                 " (NaN: any payload, either sign; -0 ties +0; the order of the values, not of "
                 "the bit patterns)";
    h.domain = dtype +
               " x: rounded N(0, s), ties after rounding (a band of 4 ulps, 32000 long), NaN of random payloads "
               "and signs, -Inf masks and +Inf, +0/-0 among negatives, the largest finite values of both signs, "
               "subnormals, negatives only, random bit patterns; shapes up to 4000 elements, empty axes; refused: "
               "an axis out of range";
    h.edge_cases = static_cast<int64_t>(half_edges().size());
    h.make_case = [t](Rng& rng, int64_t i) { return make_half(t, rng, i); };
    declare_c_call<decltype(tl_argmax_axis_f16)>(h, {"x", "x.#[x.rank]", "x.rank", "axis", "index"});  // bf16 alike
    ops.push_back(std::move(h));
  }
  return ops;
}

}  // namespace konform::ops
