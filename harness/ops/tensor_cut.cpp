// Concat, Split and Chunk (spec §1, tinyllm/tensor.h): exact copies along
// one axis, compared bit for bit. Concat's inputs are x0, x1, ...; Split's
// and Chunk's outputs are y0, y1, ...
#include <algorithm>
#include <optional>
#include <string>

#include "konform/reference/tensor.hpp"
#include "tensor_support.hpp"
#include "tinyllm/tensor.h"

namespace konform::ops {

std::vector<OpSpec> tensor_cut();

namespace {

using namespace tensor;

const float kSomewhere[1] = {};

std::string name(const char* prefix, int64_t k) { return prefix + std::to_string(k); }

// A shape for cutting: rank 1..6, the axis in range, written as negative now
// and then.
struct Cut {
  Shape shape;
  int64_t axis = 0;  // as passed
  int64_t ax = 0;    // resolved
};

Cut random_cut(Rng& rng, int64_t most) {
  Cut c;
  c.shape = random_shape(rng, random_rank(rng, 1), most);
  const int64_t rank = static_cast<int64_t>(c.shape.size());
  c.ax = rng.range(0, rank - 1);
  c.axis = rng.chance(0.3) ? c.ax - rank : c.ax;
  return c;
}

// `count` lengths >= 0 adding up to `total`, zeros included now and then.
Shape random_lengths(Rng& rng, int64_t total, int64_t count) {
  Shape cuts(static_cast<size_t>(count - 1));
  for (int64_t& p : cuts) p = rng.range(0, total);
  std::sort(cuts.begin(), cuts.end());
  Shape out;
  int64_t prev = 0;
  for (int64_t p : cuts) {
    out.push_back(p - prev);
    prev = p;
  }
  out.push_back(total - prev);
  return out;
}

Shape with_axis(Shape s, int64_t ax, int64_t length) {
  s[static_cast<size_t>(ax)] = length;
  return s;
}

// ---------------------------------------------------------------- Concat

// The half twins' tensors: small, for the patterns rather than the runs.
constexpr int64_t kHalfMost = 200;

// A tensor of `shape` for x or an input of Concat: the f32 op's layout
// values, or the half twins' patterns (half_layout_values).
Tensor data(DType t, Rng& rng, const Shape& shape, std::string* label) {
  if (t == DType::f32) return Tensor::of_f32(shape, layout_values(rng, reference::element_count(shape), label));
  *label = "patterns, sNaN/qNaN payloads, +-0, subnormals, +-Inf";
  return half_layout_values(rng, t, shape);
}

Case make_concat(DType t, Rng& rng, int64_t index) {
  Cut cut = random_cut(rng, t == DType::f32 ? 12000 : kHalfMost);
  const int64_t count = index == 0 ? 1 : rng.range(1, 5);
  std::vector<Shape> in;
  for (int64_t k = 0; k < count; ++k)
    in.push_back(
        with_axis(cut.shape, cut.ax, rng.chance(0.1) ? 0 : rng.range(1, std::max<int64_t>(cut.shape[cut.ax], 1) + 3)));
  int64_t rank = static_cast<int64_t>(cut.shape.size()), axis = cut.axis, pass_count = count;
  std::string bad;
  if (index >= 5 && rng.chance(0.15)) {
    switch (count == 1 ? rng.range(1, 3) : rng.range(0, 3)) {  // one tensor cannot differ from itself
      case 0: {                                                // another axis differs
        axis = cut.ax;
        if (rank == 1) {
          for (Shape& s : in) s.push_back(3);
          ++rank;
        }
        const int64_t d = (cut.ax + 1) % rank;
        in.back()[static_cast<size_t>(d)] += 1;
        bad = "bad: xs[" + std::to_string(count - 1) + "] differs on axis " + std::to_string(d);
        break;
      }
      case 1:
        axis = rng.chance(0.5) ? rank + rng.range(0, 1) : -rank - 1;
        bad = "bad: axis " + std::to_string(axis);
        break;
      case 2:
        pass_count = 0;
        bad = "bad: count 0";
        break;
      default:
        bad = "bad: xs[0] " + break_shape(rng, &in[0], 1);
        if (static_cast<int64_t>(in[0].size()) != rank) {  // every shape has the passed rank
          rank = static_cast<int64_t>(in[0].size());
          for (Shape& s : in) s.resize(in[0].size(), 2);
        }
    }
  }
  Case c;
  c.params = {{"count", double(pass_count)}, {"rank", double(rank)}, {"axis", double(axis)}};
  std::string label;
  Shape out;
  for (int64_t k = 0; k < count; ++k) {
    set_shape(c, name("x", k), in[k]);
    const Shape b = bad.empty() ? in[k] : buffer_shape(in[k]);
    c.args.push_back({name("x", k), Access::in, data(t, rng, b, &label)});
    if (k == 0) out = in[0];
    else if (bad.empty()) out[static_cast<size_t>(cut.ax)] += in[k][static_cast<size_t>(cut.ax)];
  }
  c.args.push_back({"y", Access::out, Tensor::zeros(t, bad.empty() ? out : Shape{1}), Match::exact});
  c.args.push_back(status_arg());
  c.label = std::to_string(count) + " tensors like " + reference::to_string(in[0]) + " axis=" + std::to_string(axis) +
            " x0:" + label + (bad.empty() ? "" : " " + bad);
  return c;
}

// The shapes matrix of the ABI: count rows of `rank` dimensions.
Shape concat_shapes(const Case& c, int64_t count) {
  Shape all;
  for (int64_t k = 0; k < count; ++k) {
    const Shape s = get_shape(c, name("x", k));
    all.insert(all.end(), s.begin(), s.end());
  }
  return all;
}

int64_t inputs_of(const Case& c) {
  int64_t n = 0;
  while (c.params.count(name("x", n) + ".rank")) ++n;
  return n;
}

Oracle concat_oracle(const Case& c) {
  const int64_t count = c.iparam("count"), present = inputs_of(c);
  const Shape shapes = concat_shapes(c, present);
  std::vector<const float*> somewhere(static_cast<size_t>(present), kSomewhere);
  std::vector<Shape> in;
  Shape out;
  int64_t ax = 0;
  const reference::Verdict v = reference::check_concat(somewhere.data(), shapes.data(), count, c.iparam("rank"),
                                                       c.iparam("axis"), kSomewhere, &in, &out, &ax);
  const DType t = c.in("x0").dtype;
  if (t != DType::f32)
    return half_copy_oracle(v, t, v.ok() ? reference::element_count(out) : 0, [&](uint32_t* y) {
      std::vector<const uint16_t*> xs;
      for (int64_t k = 0; k < count; ++k) xs.push_back(half_data(c, name("x", k)));
      reference::concat<uint32_t>(xs.data(), in, ax, y);
    });
  if (!v.ok()) return {{"status", status_expected(v.status)}};
  std::vector<const float*> xs;
  for (int64_t k = 0; k < count; ++k) xs.push_back(c.in(name("x", k)).f32());
  std::vector<double> y(static_cast<size_t>(reference::element_count(out)));
  reference::concat<double>(xs.data(), in, ax, y.data());
  return {{"y", exact_expected(std::move(y))}, {"status", status_expected(TL_OK)}};
}

// ---------------------------------------------------------------- Split

Case make_split(DType t, Rng& rng, int64_t index) {
  const Cut cut = random_cut(rng, t == DType::f32 ? 12000 : kHalfMost);
  const int64_t length = cut.shape[static_cast<size_t>(cut.ax)];
  int64_t count = index == 0 ? 1 : rng.range(1, 5);
  Shape sizes = random_lengths(rng, length, count);
  Shape x = cut.shape;
  int64_t axis = cut.axis;
  std::string bad;
  if (index >= 5 && rng.chance(0.15)) {
    switch (rng.range(0, 3)) {
      case 0: {  // one size off by one: the sum misses the axis
        int64_t& size = sizes[static_cast<size_t>(rng.range(0, count - 1))];
        size += size > 0 && rng.chance(0.5) ? -1 : 1;
        bad = "bad: sizes " + reference::to_string(sizes) + " for length " + std::to_string(length);
        break;
      }
      case 1:
        sizes[0] = -1;
        bad = "bad: a negative size";
        break;
      case 2:
        count = 0;
        sizes.clear();
        bad = "bad: count 0";
        break;
      default: axis = static_cast<int64_t>(x.size()) + rng.range(0, 1); bad = "bad: axis " + std::to_string(axis);
    }
  }
  Case c;
  set_shape(c, "x", x);
  set_shape(c, "sizes", sizes);
  c.params["axis"] = static_cast<double>(axis);
  std::string label;
  c.args.push_back({"x", Access::in, data(t, rng, x, &label)});
  // Sizes that do not add up keep their parts' buffers: a kernel that
  // ignores the error writes within them and is caught by its status.
  const bool bad_sum = bad.rfind("bad: sizes", 0) == 0;
  for (int64_t k = 0; k < count; ++k)
    c.args.push_back({name("y", k), Access::out,
                      Tensor::zeros(t, bad.empty() || bad_sum ? with_axis(x, cut.ax, sizes[k]) : Shape{1}),
                      Match::exact});
  c.args.push_back(status_arg());
  c.label = "x=" + reference::to_string(x) + " axis=" + std::to_string(axis) + " sizes=" + reference::to_string(sizes) +
            " x:" + label + (bad.empty() ? "" : " " + bad);
  return c;
}

// The outputs' pointers, in order, as the kernel takes them (E: float, or
// uint16_t for the half twins).
template <class E>
std::vector<E*> outputs(const KernelFn& fn, const Pointers& p, int64_t count) {
  std::vector<E*> ys;
  for (int64_t k = 0; k < count; ++k) ys.push_back(fn.arg(static_cast<E*>(p.get(name("y", k)))));
  return ys;
}

// Split's and Chunk's oracle: the parts of x, one expected output each.
Oracle cut_oracle(const Case& c, const reference::Verdict& v, const Shape& s, int64_t ax, const Shape& lengths) {
  if (!v.ok()) return {{"status", status_expected(v.status)}};
  Oracle o = {{"status", status_expected(TL_OK)}};
  const DType t = c.in("x").dtype;
  if (t != DType::f32) {  // the patterns cut, each part compared as exact outputs are
    std::vector<std::vector<uint32_t>> bits;
    std::vector<uint32_t*> ys;
    for (int64_t len : lengths) bits.emplace_back(static_cast<size_t>(reference::element_count(with_axis(s, ax, len))));
    for (auto& part : bits) ys.push_back(part.data());
    reference::cut<uint32_t>(half_data(c, "x"), s, ax, lengths, ys.data());
    for (size_t k = 0; k < bits.size(); ++k) o[name("y", static_cast<int64_t>(k))] = half_exact_expected(t, bits[k]);
    return o;
  }
  std::vector<std::vector<double>> parts;
  std::vector<double*> ys;
  for (int64_t len : lengths) parts.emplace_back(static_cast<size_t>(reference::element_count(with_axis(s, ax, len))));
  for (auto& part : parts) ys.push_back(part.data());
  reference::cut<double>(c.in("x").f32(), s, ax, lengths, ys.data());
  for (size_t k = 0; k < parts.size(); ++k) o[name("y", static_cast<int64_t>(k))] = exact_expected(std::move(parts[k]));
  return o;
}

// The header allows NULL only for empty parts; the harness always passes
// buffers, so the check sees a real address for every part.
std::vector<float*> somewhere_parts(int64_t count) {
  static float somewhere[1];
  return std::vector<float*>(static_cast<size_t>(std::max<int64_t>(count, 0)), somewhere);
}

Oracle split_oracle(const Case& c) {
  const Shape x = get_shape(c, "x"), sizes = get_shape(c, "sizes");
  const int64_t count = static_cast<int64_t>(sizes.size());
  Shape s, lengths;
  int64_t ax = 0;
  const auto ys = somewhere_parts(count);
  const reference::Verdict v = reference::check_split(kSomewhere, dims_or_null(x), int64_t(x.size()), c.iparam("axis"),
                                                      sizes.data(), count, ys.data(), &s, &ax, &lengths);
  return cut_oracle(c, v, s, ax, lengths);
}

// ---------------------------------------------------------------- Chunk

Case make_chunk(DType t, Rng& rng, int64_t index) {
  const Cut cut = random_cut(rng, t == DType::f32 ? 12000 : kHalfMost);
  const int64_t length = cut.shape[static_cast<size_t>(cut.ax)];
  // Divisible, not divisible, more chunks than elements, and the torch.chunk
  // cases that give fewer parts (6 into 4).
  int64_t chunks = rng.chance(0.2) && length <= 30 ? length + rng.range(1, 3) : rng.range(1, 7);
  Shape x = cut.shape;
  if (index < 4) {
    const int64_t forms[][2] = {{6, 4}, {7, 3}, {8, 4}, {5, 8}};  // length, chunks
    x = {3, forms[index][0], 2};
    chunks = forms[index][1];
  }
  const int64_t ax = index < 4 ? 1 : cut.ax, axis = index < 4 ? 1 : cut.axis;
  std::string bad;
  if (index >= 4 && rng.chance(0.12)) {
    chunks = -rng.range(0, 2);
    bad = "bad: chunks " + std::to_string(chunks);
  }
  const int64_t len = x[static_cast<size_t>(ax)];
  Case c;
  set_shape(c, "x", x);
  c.params["axis"] = static_cast<double>(axis);
  c.params["chunks"] = static_cast<double>(chunks);
  std::string label;
  c.args.push_back({"x", Access::in, data(t, rng, x, &label)});
  Shape lengths;
  for (int64_t k = 0; k < chunks; ++k) {
    lengths.push_back(tl_chunk_length(len, chunks, k));
    c.args.push_back({name("y", k), Access::out, Tensor::zeros(t, with_axis(x, ax, lengths.back())), Match::exact});
  }
  c.args.push_back(status_arg());
  c.label = "x=" + reference::to_string(x) + " axis=" + std::to_string(axis) + " chunks=" + std::to_string(chunks) +
            (bad.empty() ? " lengths=" + reference::to_string(lengths) : "") + " x:" + label +
            (bad.empty() ? "" : " " + bad);
  return c;
}

Oracle chunk_oracle(const Case& c) {
  const Shape x = get_shape(c, "x");
  const int64_t chunks = c.iparam("chunks");
  Shape s, lengths;
  int64_t ax = 0;
  const auto ys = somewhere_parts(chunks);
  const reference::Verdict v = reference::check_chunk(kSomewhere, dims_or_null(x), int64_t(x.size()), c.iparam("axis"),
                                                      chunks, ys.data(), &s, &ax, &lengths);
  return cut_oracle(c, v, s, ax, lengths);
}

// The calls, for E float (f32) or uint16_t (the half twins' patterns) and
// the C function's type F.
template <class E, class F>
void invoke_concat(const KernelFn& fn, const Case& c, const Pointers& p) {
  const int64_t present = inputs_of(c);
  const Shape shapes = concat_shapes(c, present);
  std::vector<const E*> xs;  // a host array of the tensors (device pointers on a device)
  for (int64_t k = 0; k < present; ++k) xs.push_back(fn.arg(static_cast<const E*>(p.get(name("x", k)))));
  *p.i32("status") = fn.call<F>(xs.data(), shapes.data(), c.iparam("count"), c.iparam("rank"), c.iparam("axis"),
                                fn.arg(static_cast<E*>(p.get("y"))));
}

template <class E, class F>
void invoke_split(const KernelFn& fn, const Case& c, const Pointers& p) {
  const Shape x = get_shape(c, "x"), sizes = get_shape(c, "sizes");
  const auto ys = outputs<E>(fn, p, static_cast<int64_t>(sizes.size()));
  *p.i32("status") = fn.call<F>(fn.arg(static_cast<const E*>(p.get("x"))), dims_or_null(x), int64_t(x.size()),
                                c.iparam("axis"), sizes.data(), int64_t(sizes.size()), ys.data());
}

template <class E, class F>
void invoke_chunk(const KernelFn& fn, const Case& c, const Pointers& p) {
  const Shape x = get_shape(c, "x");
  const int64_t chunks = c.iparam("chunks");
  const auto ys = chunks > 0 ? outputs<E>(fn, p, chunks) : std::vector<E*>(1, nullptr);
  *p.i32("status") = fn.call<F>(fn.arg(static_cast<const E*>(p.get("x"))), dims_or_null(x), int64_t(x.size()),
                                c.iparam("axis"), chunks, ys.data());
}

OpSpec concat_spec(DType t) {
  OpSpec concat;
  concat.name = "Concat";
  // Each input's shape is its own row of parameters (declared_count below);
  // y's, their concatenation, the oracle's.
  concat.args = {
      {"x#", Access::in, "T", kShapeByCode}, {"y", Access::out, "T", kShapeByOracle, {Match::exact}}, status_output()};
  concat.group = "tensor";
  concat.symbol = "tl_concat_f32";
  concat.summary = "xs[0], xs[1], ... glued along one axis; the shapes match on every other axis";
  concat.spec = "operations.txt 1. Linear algebra: Concat, Split, Chunk";
  concat.params = {{"count", ParamType::i64, ">= 1 tensors (x0 .. x{count-1})"},
                   {"rank", ParamType::i64, "1 .. 6, the rank of every input"},
                   {"axis", ParamType::i64, "-rank .. rank-1 (negative counts from the end)"},
                   {"x#.rank", ParamType::i64, "= rank (input k's rank; the ABI reads count rows of rank sizes)"},
                   {"x#.#", ParamType::i64,
                    "input k's shape: xk.0 .. xk.{rank-1}, each >= 0, equal across the inputs except along the axis"}};
  concat.domain =
      "1 to 5 tensors of rank 1..6, empty ones among them, negative axes, NaN payloads and signed "
      "zeros; refused: another axis differing, an axis out of range, count 0, bad shapes";
  concat.status = "status";
  concat.edge_cases = 0;
  concat.make_case = [t](Rng& rng, int64_t i) { return make_concat(t, rng, i); };
  if (t == DType::f32) concat.invoke = invoke_concat<float, decltype(tl_concat_f32)>;
  else concat.invoke = invoke_concat<uint16_t, decltype(tl_concat_f16)>;  // bf16 alike
  concat.oracle = concat_oracle;
  // x0, x1, ...: the shape each is given (get_shape), x{k}.0 x x{k}.1 x ...
  // (each input has its own row of sizes, which no one shape expression
  // names). A rank beyond the ABI's is refused by the op; no more factors are read.
  concat.declared_count = [](const std::string& arg, const Case& c) -> std::optional<Factors> {
    auto rank = c.params.find(arg + ".rank");
    if (rank == c.params.end()) return std::nullopt;  // not an input of this case
    Factors f;
    for (int64_t d = 0; d < rank->second && d <= TL_TENSOR_MAX_RANK; ++d)
      f.push_back(param_factor(c, arg + "." + std::to_string(d)));
    return f;
  };

  // The ABI reads `count` rows of `rank` sizes and `count` inputs: a file whose
  // inputs are fewer, or of another rank, would make it read past them.
  concat.params_problem = [](const Case& c) -> std::pair<std::string, std::string> {
    for (const char* p : {"count", "rank"})
      if (!c.params.count(p)) return {p, "missing"};
    const int64_t present = inputs_of(c), count = c.iparam("count");
    if (count > present)
      return {"count", std::to_string(count) + " inputs, but the file gives " + std::to_string(present) +
                           " (x0.rank .. x" + std::to_string(present - 1) + ".rank)"};
    for (int64_t k = 0; k < present; ++k)
      if (c.iparam(name("x", k) + ".rank") != c.iparam("rank"))
        return {name("x", k) + ".rank", "differs from rank " + std::to_string(c.iparam("rank")) +
                                            ": the ABI reads every input's shape as a row of rank sizes"};
    return {};
  };
  if (t != DType::f32) declare_half(concat, t);
  return concat;
}

OpSpec split_spec(DType t) {
  OpSpec split;
  split.name = "Split";
  split.args = {{"x", Access::in, "T", "x.#[x.rank]"},
                {"y#", Access::out, "T", kShapeByOracle, {Match::exact}},  // x's, with the axis cut
                status_output()};
  split.group = "tensor";
  split.symbol = "tl_split_f32";
  split.summary = "x cut along one axis into parts of the given sizes (>= 0, adding up to the axis)";
  split.spec = "operations.txt 1. Linear algebra: Concat, Split, Chunk";
  split.params = {
      {"x.rank", ParamType::i64, "1 .. 6 (x's rank)"},
      {"x.#", ParamType::i64, "x's shape: x.0 .. x.{rank-1}, each >= 0"},
      {"axis", ParamType::i64, "-rank .. rank-1 (negative counts from the end)"},
      {"sizes.rank", ParamType::i64, "count >= 1: how many parts (y0 .. y{count-1})"},
      {"sizes.#", ParamType::i64, "the parts' lengths: sizes.0 .. sizes.{count-1}, each >= 0, adding up to the axis"}};
  split.domain =
      "1 to 5 parts, empty parts among them, negative axes, NaN payloads and signed zeros; refused: "
      "sizes adding up to more or less, a negative size, count 0, an axis out of range";
  split.status = "status";
  split.edge_cases = 0;
  split.make_case = [t](Rng& rng, int64_t i) { return make_split(t, rng, i); };
  if (t == DType::f32) split.invoke = invoke_split<float, decltype(tl_split_f32)>;
  else split.invoke = invoke_split<uint16_t, decltype(tl_split_f16)>;  // bf16 alike
  split.oracle = split_oracle;
  if (t != DType::f32) declare_half(split, t);
  return split;
}

OpSpec chunk_spec(DType t) {
  OpSpec chunk;
  chunk.name = "Chunk";
  chunk.args = {{"x", Access::in, "T", "x.#[x.rank]"},
                {"y#", Access::out, "T", kShapeByOracle, {Match::exact}},  // x's, with the axis cut
                status_output()};
  chunk.group = "tensor";
  chunk.symbol = "tl_chunk_f32";
  chunk.summary =
      "x cut along one axis into `chunks` parts of ceil(L / chunks), the last ones shorter or empty "
      "(torch.chunk's sizes; always `chunks` outputs)";
  chunk.spec = "operations.txt 1. Linear algebra: Concat, Split, Chunk";
  chunk.params = {{"x.rank", ParamType::i64, "1 .. 6 (x's rank)"},
                  {"x.#", ParamType::i64, "x's shape: x.0 .. x.{rank-1}, each >= 0"},
                  {"axis", ParamType::i64, "-rank .. rank-1 (negative counts from the end)"},
                  {"chunks", ParamType::i64, ">= 1 parts (y0 .. y{chunks-1})"}};
  chunk.domain =
      "divisible and not, more chunks than elements, torch.chunk's fewer-parts cases (6 into 4 gives 2, "
      "2, 2, 0), empty axes; refused: chunks < 1";
  chunk.status = "status";
  chunk.edge_cases = 4;
  chunk.make_case = [t](Rng& rng, int64_t i) { return make_chunk(t, rng, i); };
  if (t == DType::f32) chunk.invoke = invoke_chunk<float, decltype(tl_chunk_f32)>;
  else chunk.invoke = invoke_chunk<uint16_t, decltype(tl_chunk_f16)>;  // bf16 alike
  chunk.oracle = chunk_oracle;
  if (t != DType::f32) declare_half(chunk, t);
  return chunk;
}

}  // namespace

std::vector<OpSpec> tensor_cut() {
  std::vector<OpSpec> ops;
  for (DType t : {DType::f32, DType::f16, DType::bf16}) {
    ops.push_back(concat_spec(t));
    ops.push_back(split_spec(t));
    ops.push_back(chunk_spec(t));
  }
  return ops;
}

}  // namespace konform::ops
