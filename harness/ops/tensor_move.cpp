// Transpose, Permute and Reshape (spec §1 "Logical rearrangement",
// tinyllm/tensor.h): exact copies, compared bit for bit, over shapes of rank
// 0..6 with the transposes of real models (attention's head split, square
// and thin matrices at tile edges) first.
#include <array>
#include <cstring>
#include <numeric>
#include <string>

#include "konform/c_call.hpp"
#include "konform/values.hpp"
#include "konform/reference/tensor.hpp"
#include "tensor_support.hpp"
#include "tinyllm/tensor.h"

namespace konform::ops {

std::vector<OpSpec> tensor_move();

namespace {

using namespace tensor;

// Every op here: data x, output y of `y_shape`, the status.
Case layout_case(DType t, Rng& rng, const Shape& x_shape, const Shape& y_shape, bool bad,
                 const std::string& alias = "") {
  Case c;
  std::string label;
  const Shape xb = buffer_shape(x_shape);
  if (t == DType::f32) {
    const std::vector<float> x = layout_values(rng, reference::element_count(xb), &label);
    c.args.push_back({"x", Access::in, Tensor::of_f32(xb, x)});
  } else {
    label = "patterns, sNaN/qNaN payloads, +-0, subnormals, +-Inf";
    c.args.push_back({"x", Access::in, half_layout_values(rng, t, xb)});
  }
  c.args.push_back({"y", Access::out, Tensor::zeros(t, bad ? Shape{1} : buffer_shape(y_shape)), Match::exact, alias});
  c.args.push_back(status_arg());
  c.label = "x:" + label;
  return c;
}

Oracle copy_oracle(const reference::Verdict& v, std::vector<double> y) {
  if (!v.ok()) return {{"status", status_expected(v.status)}};
  return {{"y", exact_expected(std::move(y))}, {"status", status_expected(TL_OK)}};
}

const float kSomewhere[1] = {};

// ---------------------------------------------------------------- Transpose

const std::vector<Shape>& transpose_edges() {
  static const std::vector<Shape> e = {{1, 1},
                                       {16, 16},
                                       {17, 15},
                                       {15, 17},
                                       {1, 4097},
                                       {4097, 1},
                                       {3, 129},
                                       {64, 65},
                                       {0, 5},
                                       {5, 0},
                                       {2, 3, 4},
                                       {2, 1, 16, 33},
                                       {32, 1, 7},
                                       {2, 2, 1, 3, 4, 5},
                                       // a second block of 256 rows by 32 columns, both with tails
                                       {261, 35},
                                       // 8 MB, past any L2 and short of streaming: the blocks that
                                       // prefetch the next one, with tails of 4 rows and 4 columns
                                       {3, 700, 500},
                                       // >= 16 MiB with y's rows on 64-byte lines (2048 floats):
                                       // the streaming path, and its column tail (2052 = 2048 + 4)
                                       {2048, 2052}};
  return e;
}

// The half twins': odd and even last dimensions (a 4-byte word copy drops
// or smears the odd one's last element), thin and empty matrices, a batch.
const std::vector<Shape>& half_transpose_edges() {
  static const std::vector<Shape> e = {{1, 1}, {17, 15}, {15, 17}, {3, 129},  {1, 9},
                                       {9, 1}, {0, 5},   {5, 0},   {2, 3, 5}, {2, 1, 16, 33}};
  return e;
}

// The half twins' random shapes: small, for the patterns rather than the tiles.
constexpr int64_t kHalfMost = 120;

Case make_transpose(DType t, Rng& rng, int64_t index) {
  const std::vector<Shape>& edges = t == DType::f32 ? transpose_edges() : half_transpose_edges();
  Shape s = index < static_cast<int64_t>(edges.size())
                ? edges[static_cast<size_t>(index)]
                : random_shape(rng, random_rank(rng, 2), t == DType::f32 ? 40000 : kHalfMost);
  std::string bad;
  if (index >= static_cast<int64_t>(edges.size()) && rng.chance(0.1)) bad = "bad: " + break_shape(rng, &s, 2);
  Shape ys = s;
  if (bad.empty()) std::swap(ys[ys.size() - 1], ys[ys.size() - 2]);
  Case c = layout_case(t, rng, s, ys, !bad.empty());
  set_shape(c, "x", s);
  c.label = "x=" + reference::to_string(s) + " " + c.label + (bad.empty() ? "" : " " + bad);
  return c;
}

Oracle transpose_oracle(const Case& c) {
  const Shape s = get_shape(c, "x");
  Shape checked;
  const reference::Verdict v =
      reference::check_transpose(kSomewhere, dims_or_null(s), int64_t(s.size()), kSomewhere, &checked);
  if (c.in("x").dtype != DType::f32)
    return half_copy_oracle(v, c.in("x").dtype, v.ok() ? reference::element_count(checked) : 0,
                            [&](uint32_t* y) { reference::transpose<uint32_t>(half_data(c, "x"), checked, y); });
  std::vector<double> y;
  if (v.ok()) {
    y.resize(static_cast<size_t>(reference::element_count(checked)));
    reference::transpose<double>(c.in("x").f32(), checked, y.data());
  }
  return copy_oracle(v, std::move(y));
}

// ---------------------------------------------------------------- Permute

const std::vector<std::pair<Shape, Shape>>& permute_edges() {  // shape, perm
  static const std::vector<std::pair<Shape, Shape>> e = {
      {{8, 32, 16}, {1, 0, 2}},                  // [T, H, D] -> [H, T, D]: the head split
      {{2, 8, 4, 16}, {0, 2, 1, 3}},             // [B, T, H, D] -> [B, H, T, D]
      {{2, 4, 8, 16}, {0, 1, 3, 2}},             // K^T per head
      {{3, 17, 33}, {2, 0, 1}},                  // a 3-cycle
      {{3, 17, 33}, {1, 2, 0}},                  // and its inverse
      {{5, 1, 7}, {2, 1, 0}},                    // a size-1 axis moved
      {{}, {}},                                  // a scalar
      {{9}, {0}},                                // rank 1
      {{2, 3, 4, 1, 5, 2}, {5, 3, 1, 4, 0, 2}},  // rank 6
      {{0, 3, 4}, {2, 0, 1}},                    // empty
      // >= 16 MiB, y's rows 16 x 130 floats apart: Transpose's streaming
      // path where a row starts on a line (every 8th), with both its tails
      // (130 = 128 + 2 rows, 2052 = 2048 + 4 columns), and the blocks elsewhere
      {{130, 16, 2052}, {2, 1, 0}},
  };
  return e;
}

Shape random_permutation(Rng& rng, int64_t rank) {
  Shape p(static_cast<size_t>(rank));
  std::iota(p.begin(), p.end(), 0);
  for (int64_t i = rank - 1; i > 0; --i) std::swap(p[i], p[rng.range(0, i)]);
  return p;
}

// The half twins': the head split with an odd head size, a 3-cycle with an
// odd last axis, a scalar, rank 1 and 6, an empty tensor.
const std::vector<std::pair<Shape, Shape>>& half_permute_edges() {  // shape, perm
  static const std::vector<std::pair<Shape, Shape>> e = {{{4, 3, 5}, {1, 0, 2}},
                                                         {{2, 4, 3, 7}, {0, 2, 1, 3}},
                                                         {{3, 5, 7}, {2, 0, 1}},
                                                         {{}, {}},
                                                         {{9}, {0}},
                                                         {{2, 3, 1, 1, 3, 2}, {5, 3, 1, 4, 0, 2}},
                                                         {{0, 3, 4}, {2, 0, 1}},
                                                         {{3, 1, 5}, {2, 1, 0}}};
  return e;
}

Case make_permute(DType t, Rng& rng, int64_t index) {
  const std::vector<std::pair<Shape, Shape>>& edges = t == DType::f32 ? permute_edges() : half_permute_edges();
  Shape s, perm;
  if (index < static_cast<int64_t>(edges.size())) {
    s = edges[static_cast<size_t>(index)].first;
    perm = edges[static_cast<size_t>(index)].second;
  } else {
    s = random_shape(rng, random_rank(rng, 0), t == DType::f32 ? 40000 : kHalfMost);
    perm = random_permutation(rng, static_cast<int64_t>(s.size()));
  }
  std::string bad;
  if (index >= static_cast<int64_t>(edges.size()) && rng.chance(0.12)) {
    if (perm.size() >= 2 && rng.chance(0.6)) {
      const int64_t rank = static_cast<int64_t>(perm.size());
      const size_t k = static_cast<size_t>(rng.range(0, rank - 1));
      switch (rng.range(0, 2)) {
        case 0: perm[k] = perm[(k + 1) % perm.size()]; break;  // an axis twice
        case 1: perm[k] = rank + rng.range(0, 2); break;       // past the rank
        default: perm[k] = -1 - rng.range(0, 1);               // negative
      }
      bad = "bad: perm " + reference::to_string(perm);
    } else {
      bad = "bad: " + break_shape(rng, &s, 0);
      perm = random_permutation(rng, std::min<int64_t>(static_cast<int64_t>(s.size()), TL_TENSOR_MAX_RANK));
      perm.resize(s.size(), 0);
    }
  }
  // A bad perm keeps a buffer of x's size: a kernel that ignores the error
  // writes a permutation's worth and is caught by its status, not a crash.
  const bool bad_perm = !bad.empty() && bad.rfind("bad: perm", 0) == 0;
  const Shape ys = bad.empty() ? reference::permuted(s, perm)
                   : bad_perm  ? Shape{reference::element_count(s)}
                               : Shape{1};
  Case c = layout_case(t, rng, s, ys, !bad.empty() && !bad_perm);
  set_shape(c, "x", s);
  set_shape(c, "perm", perm);
  c.label = "x=" + reference::to_string(s) + " perm=" + reference::to_string(perm) + " " + c.label +
            (bad.empty() ? "" : " " + bad);
  return c;
}

Oracle permute_oracle(const Case& c) {
  const Shape s = get_shape(c, "x"), perm = get_shape(c, "perm");
  Shape checked, p;
  const reference::Verdict v = reference::check_permute(kSomewhere, dims_or_null(s), int64_t(s.size()),
                                                        dims_or_null(perm), kSomewhere, &checked, &p);
  if (c.in("x").dtype != DType::f32)
    return half_copy_oracle(v, c.in("x").dtype, v.ok() ? reference::element_count(checked) : 0,
                            [&](uint32_t* y) { reference::permute<uint32_t>(half_data(c, "x"), checked, p, y); });
  std::vector<double> y;
  if (v.ok()) {
    y.resize(static_cast<size_t>(reference::element_count(checked)));
    reference::permute<double>(c.in("x").f32(), checked, p, y.data());
  }
  return copy_oracle(v, std::move(y));
}

// ---------------------------------------------------------------- Reshape

// Another factorization of n into `rank` dimensions (n > 0), or of 0.
Shape refactor(Rng& rng, int64_t n, int64_t rank) {
  Shape s(static_cast<size_t>(rank), 1);
  if (rank == 0) return n == 1 ? s : Shape{n};
  if (n == 0) {
    for (int64_t& d : s) d = rng.range(0, 3);
    s[static_cast<size_t>(rng.range(0, rank - 1))] = 0;
    return s;
  }
  int64_t left = n;
  for (int64_t k = 0; k + 1 < rank; ++k) {  // a divisor of what is left, small ones first
    std::vector<int64_t> divisors;
    for (int64_t d = 1; d <= left && d <= 64; ++d)
      if (left % d == 0) divisors.push_back(d);
    s[static_cast<size_t>(k)] = rng.pick(divisors);
    left /= s[static_cast<size_t>(k)];
  }
  s.back() = left;
  return s;
}

Case make_reshape(DType t, Rng& rng, int64_t index) {
  const Shape s = random_shape(rng, random_rank(rng, 0), t == DType::f32 ? 40000 : kHalfMost);
  const int64_t n = reference::element_count(s);
  Shape ns = refactor(rng, n, random_rank(rng, 0));
  std::string bad;
  Shape xs = s;
  if (index >= 10 && rng.chance(0.15)) {
    if (rng.chance(0.6)) {
      if (n == 0) ns = {1};
      else if (ns.empty()) ns = {n + 1};
      else ns.back() += 1;  // the other dimensions are not 0: the count moves
      bad = "bad: " + std::to_string(n) + " elements into " + reference::to_string(ns);
    } else {
      bad = "bad: new_shape " + break_shape(rng, &ns, 0);
    }
  }
  const bool view = bad.empty() && rng.chance(0.3);
  Case c = layout_case(t, rng, xs, bad.empty() ? ns : Shape{1}, !bad.empty(), view ? "x" : "");
  set_shape(c, "x", xs);
  set_shape(c, "new", ns);
  c.label = "x=" + reference::to_string(xs) + " -> " + reference::to_string(ns) + " " + c.label +
            (view ? " y==x (view)" : "") + (bad.empty() ? "" : " " + bad);
  return c;
}

Oracle reshape_oracle(const Case& c) {
  const Shape s = get_shape(c, "x"), ns = get_shape(c, "new");
  Shape checked, checked_new;
  const reference::Verdict v = reference::check_reshape(kSomewhere, dims_or_null(s), int64_t(s.size()), kSomewhere,
                                                        dims_or_null(ns), int64_t(ns.size()), &checked, &checked_new);
  if (c.in("x").dtype != DType::f32)
    return half_copy_oracle(v, c.in("x").dtype, v.ok() ? reference::element_count(checked) : 0,
                            [&](uint32_t* y) { reference::reshape<uint32_t>(half_data(c, "x"), checked, y); });
  std::vector<double> y;
  if (v.ok()) {
    y.resize(static_cast<size_t>(reference::element_count(checked)));
    reference::reshape<double>(c.in("x").f32(), checked, y.data());
  }
  return copy_oracle(v, std::move(y));
}

}  // namespace

OpSpec transpose_spec(DType t) {
  OpSpec transpose;
  transpose.name = "Transpose";
  transpose.args = {{"x", Access::in, "T", "x.#[x.rank]"},
                    {"y", Access::out, "T", "x.#[x.rank - 2], x.(x.rank - 1), x.(x.rank - 2)", {Match::exact}},
                    status_output()};
  transpose.group = "tensor";
  transpose.symbol = "tl_transpose_f32";
  transpose.summary = "y[..., j, i] = x[..., i, j]: the last two axes swapped (a batch of matrix transposes)";
  transpose.spec = "operations.txt 1. Linear algebra: Transpose, Permute, Reshape";
  transpose.params = {{"x.rank", ParamType::i64, "2 .. 6 (x's rank)"},
                      {"x.#", ParamType::i64, "x's shape: x.0 .. x.{rank-1}, each >= 0"}};
  transpose.domain =
      "tile edges (15, 16, 17), thin and empty matrices, batches up to rank 6, NaN payloads and "
      "signed zeros; refused: rank 0, 1 or 7, negative dimensions, 2^62 elements";
  transpose.status = "status";
  transpose.edge_cases =
      static_cast<int64_t>(t == DType::f32 ? transpose_edges().size() : half_transpose_edges().size());
  transpose.make_case = [t](Rng& rng, int64_t i) { return make_transpose(t, rng, i); };
  if (t == DType::f32) declare_c_call<decltype(tl_transpose_f32)>(transpose, {"x", "x.#[x.rank]", "x.rank", "y"});
  else declare_c_call<decltype(tl_transpose_f16)>(transpose, {"x", "x.#[x.rank]", "x.rank", "y"});  // bf16 alike
  transpose.oracle = transpose_oracle;
  if (t != DType::f32) declare_half(transpose, t);
  return transpose;
}

OpSpec permute_spec(DType t) {
  OpSpec permute;
  permute.name = "Permute";
  permute.args = {{"x", Access::in, "T", "x.#[x.rank]"},
                  {"y", Access::out, "T", "x.(perm.#) for # < x.rank", {Match::exact}},
                  status_output()};
  permute.group = "tensor";
  permute.symbol = "tl_permute_f32";
  permute.summary = "output axis i is input axis perm[i] (torch.permute, numpy.transpose)";
  permute.spec = "operations.txt 1. Linear algebra: Transpose, Permute, Reshape";
  permute.params = {
      {"x.rank", ParamType::i64, "0 .. 6 (x's rank)"},
      {"x.#", ParamType::i64, "x's shape: x.0 .. x.{rank-1}, each >= 0"},
      {"perm.rank", ParamType::i64, "= x.rank (the ABI reads x.rank entries)"},
      {"perm.#", ParamType::i64, "perm.0 .. perm.{rank-1}: a permutation of 0 .. rank-1 (no negative axes)"}};
  permute.domain =
      "every permutation of rank 0..6, attention's head splits, size-1 and empty axes; refused: an "
      "axis twice, past the rank or negative, rank 7, negative dimensions, 2^62 elements";
  permute.status = "status";
  permute.edge_cases = static_cast<int64_t>(t == DType::f32 ? permute_edges().size() : half_permute_edges().size());
  permute.make_case = [t](Rng& rng, int64_t i) { return make_permute(t, rng, i); };
  const std::array<const char*, 5> names = {"x", "x.#[x.rank]", "x.rank", "perm.#[perm.rank]", "y"};
  if (t == DType::f32) declare_c_call<decltype(tl_permute_f32)>(permute, names);
  else declare_c_call<decltype(tl_permute_f16)>(permute, names);  // bf16 alike
  permute.oracle = permute_oracle;
  if (t != DType::f32) declare_half(permute, t);
  return permute;
}

OpSpec reshape_spec(DType t) {
  OpSpec reshape;
  reshape.name = "Reshape";
  reshape.args = {{"x", Access::in, "T", "x.#[x.rank]"},
                  {"y", Access::out, "T", "new.#[new.rank]", {Match::exact}, {"x"}},
                  status_output()};
  reshape.group = "tensor";
  reshape.symbol = "tl_reshape_f32";
  reshape.summary =
      "the same elements in the same row-major order under a new shape; y == x is the view (nothing "
      "moves), a distinct y gets a copy";
  reshape.spec = "operations.txt 1. Linear algebra: Transpose, Permute, Reshape";
  reshape.params = {
      {"x.rank", ParamType::i64, "0 .. 6 (x's rank)"},
      {"x.#", ParamType::i64, "x's shape: x.0 .. x.{rank-1}, each >= 0"},
      {"new.rank", ParamType::i64, "0 .. 6 (new_rank)"},
      {"new.#", ParamType::i64, "new_shape: new.0 .. new.{rank-1}, each >= 0, as many elements as x's (no -1)"}};
  reshape.domain =
      "random factorizations of rank 0..6, empty tensors, views (y == x) and copies; refused: element "
      "counts that differ, rank 7, negative dimensions, 2^62 elements";
  reshape.status = "status";
  reshape.edge_cases = 0;
  reshape.make_case = [t](Rng& rng, int64_t i) { return make_reshape(t, rng, i); };
  const std::array<const char*, 6> names = {"x", "x.#[x.rank]", "x.rank", "y", "new.#[new.rank]", "new.rank"};
  if (t == DType::f32) declare_c_call<decltype(tl_reshape_f32)>(reshape, names);
  else declare_c_call<decltype(tl_reshape_f16)>(reshape, names);  // bf16 alike
  reshape.oracle = reshape_oracle;
  if (t != DType::f32) declare_half(reshape, t);
  return reshape;
}

std::vector<OpSpec> tensor_move() {
  return {transpose_spec(DType::f32),  permute_spec(DType::f32),  reshape_spec(DType::f32),
          reshape_spec(DType::f16),    reshape_spec(DType::bf16), transpose_spec(DType::f16),
          transpose_spec(DType::bf16), permute_spec(DType::f16),  permute_spec(DType::bf16)};
}

}  // namespace konform::ops
