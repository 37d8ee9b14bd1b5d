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

Case make_concat(Rng& rng, int64_t index) {
  Cut cut = random_cut(rng, 12000);
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
    c.args.push_back(
        {name("x", k), Access::in, Tensor::of_f32(b, layout_values(rng, reference::element_count(b), &label))});
    if (k == 0) out = in[0];
    else if (bad.empty()) out[static_cast<size_t>(cut.ax)] += in[k][static_cast<size_t>(cut.ax)];
  }
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, bad.empty() ? out : Shape{1}), Match::exact});
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
  if (!v.ok()) return {{"status", status_expected(v.status)}};
  std::vector<const float*> xs;
  for (int64_t k = 0; k < count; ++k) xs.push_back(c.in(name("x", k)).f32());
  std::vector<double> y(static_cast<size_t>(reference::element_count(out)));
  reference::concat<double>(xs.data(), in, ax, y.data());
  return {{"y", exact_expected(std::move(y))}, {"status", status_expected(TL_OK)}};
}

// ---------------------------------------------------------------- Split

Case make_split(Rng& rng, int64_t index) {
  const Cut cut = random_cut(rng, 12000);
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
  c.args.push_back({"x", Access::in, Tensor::of_f32(x, layout_values(rng, reference::element_count(x), &label))});
  // Sizes that do not add up keep their parts' buffers: a kernel that
  // ignores the error writes within them and is caught by its status.
  const bool bad_sum = bad.rfind("bad: sizes", 0) == 0;
  for (int64_t k = 0; k < count; ++k)
    c.args.push_back({name("y", k), Access::out,
                      Tensor::zeros(DType::f32, bad.empty() || bad_sum ? with_axis(x, cut.ax, sizes[k]) : Shape{1}),
                      Match::exact});
  c.args.push_back(status_arg());
  c.label = "x=" + reference::to_string(x) + " axis=" + std::to_string(axis) + " sizes=" + reference::to_string(sizes) +
            " x:" + label + (bad.empty() ? "" : " " + bad);
  return c;
}

// The outputs' pointers, in order, as the kernel takes them.
std::vector<float*> outputs(const KernelFn& fn, const Pointers& p, int64_t count) {
  std::vector<float*> ys;
  for (int64_t k = 0; k < count; ++k) ys.push_back(fn.arg(p.f32(name("y", k))));
  return ys;
}

// Split's and Chunk's oracle: the parts of x, one expected output each.
Oracle cut_oracle(const Case& c, const reference::Verdict& v, const Shape& s, int64_t ax, const Shape& lengths) {
  if (!v.ok()) return {{"status", status_expected(v.status)}};
  std::vector<std::vector<double>> parts;
  std::vector<double*> ys;
  for (int64_t len : lengths) parts.emplace_back(static_cast<size_t>(reference::element_count(with_axis(s, ax, len))));
  for (auto& part : parts) ys.push_back(part.data());
  reference::cut<double>(c.in("x").f32(), s, ax, lengths, ys.data());
  Oracle o = {{"status", status_expected(TL_OK)}};
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

Case make_chunk(Rng& rng, int64_t index) {
  const Cut cut = random_cut(rng, 12000);
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
  c.args.push_back({"x", Access::in, Tensor::of_f32(x, layout_values(rng, reference::element_count(x), &label))});
  Shape lengths;
  for (int64_t k = 0; k < chunks; ++k) {
    lengths.push_back(tl_chunk_length(len, chunks, k));
    c.args.push_back(
        {name("y", k), Access::out, Tensor::zeros(DType::f32, with_axis(x, ax, lengths.back())), Match::exact});
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

}  // namespace

std::vector<OpSpec> tensor_cut() {
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
  concat.make_case = make_concat;
  concat.invoke = [](const KernelFn& fn, const Case& c, const Pointers& p) {
    const int64_t present = inputs_of(c);
    const Shape shapes = concat_shapes(c, present);
    std::vector<const float*> xs;  // a host array of the tensors (device pointers on a device)
    for (int64_t k = 0; k < present; ++k) xs.push_back(fn.arg(p.f32(name("x", k))));
    *p.i32("status") = fn.call<decltype(tl_concat_f32)>(xs.data(), shapes.data(), c.iparam("count"), c.iparam("rank"),
                                                        c.iparam("axis"), fn.arg(p.f32("y")));
  };
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
  split.make_case = make_split;
  split.invoke = [](const KernelFn& fn, const Case& c, const Pointers& p) {
    const Shape x = get_shape(c, "x"), sizes = get_shape(c, "sizes");
    const auto ys = outputs(fn, p, static_cast<int64_t>(sizes.size()));
    *p.i32("status") =
        fn.call<decltype(tl_split_f32)>(fn.arg(p.f32("x")), dims_or_null(x), int64_t(x.size()), c.iparam("axis"),
                                        sizes.data(), int64_t(sizes.size()), ys.data());
  };
  split.oracle = split_oracle;

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
  chunk.make_case = make_chunk;
  chunk.invoke = [](const KernelFn& fn, const Case& c, const Pointers& p) {
    const Shape x = get_shape(c, "x");
    const int64_t chunks = c.iparam("chunks");
    const auto ys = chunks > 0 ? outputs(fn, p, chunks) : std::vector<float*>(1, nullptr);
    *p.i32("status") = fn.call<decltype(tl_chunk_f32)>(fn.arg(p.f32("x")), dims_or_null(x), int64_t(x.size()),
                                                       c.iparam("axis"), chunks, ys.data());
  };
  chunk.oracle = chunk_oracle;
  return {concat, split, chunk};
}

}  // namespace konform::ops
