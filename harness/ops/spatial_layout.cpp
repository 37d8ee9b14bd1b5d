// PixelShuffle, PixelUnshuffle and Unpatchify (spec §7, tinyllm/spatial.h):
// exact copies, compared bit for bit, over the factors of real models
// (ESPCN's r = 2..4, DiT's p = 2 with 4 or 8 channels, ViT's p = 16) and
// the edges: r = p = 1, one patch (p = H), rows around the vector widths,
// empty batches and channels.
#include <string>

#include "konform/c_call.hpp"
#include "spatial_support.hpp"
#include "tensor_support.hpp"
#include "tinyllm/spatial.h"

namespace konform::ops {

std::vector<OpSpec> spatial_layout();

namespace {

using namespace spatial;

// What tells the three apart: the shape of x and y from the sizes (which
// describe x, or y for Unpatchify), which sizes the factor divides, the
// oracle's entry point.
struct Layout {
  ref::Op op;
  const char* divides;  // "C" or "HW"
  std::vector<int64_t> (*x_shape)(const ref::Sizes&);
  std::vector<int64_t> (*y_shape)(const ref::Sizes&);
  void (*oracle)(const float*, double*, const ref::Sizes&);
  const char* x_declared;  // x_shape and y_shape as declared shapes (ArgSpec::shape)
  const char* y_declared;
};

std::vector<int64_t> image(const ref::Sizes& s) { return {s.B, s.C, s.H, s.W}; }
std::vector<int64_t> shuffled(const ref::Sizes& s) { return {s.B, s.C / (s.f * s.f), s.H * s.f, s.W * s.f}; }
std::vector<int64_t> unshuffled(const ref::Sizes& s) { return {s.B, s.C * s.f * s.f, s.H / s.f, s.W / s.f}; }
std::vector<int64_t> tokens(const ref::Sizes& s) { return {s.B, (s.H / s.f) * (s.W / s.f), s.f * s.f * s.C}; }

const Layout kShuffle{ref::Op::pixel_shuffle,        "C", image, shuffled, ref::pixel_shuffle<double>, "B, C, H, W",
                      "B, C / (f * f), H * f, W * f"};
const Layout kUnshuffle{
    ref::Op::pixel_unshuffle,    "HW", image, unshuffled, ref::pixel_unshuffle<double>, "B, C, H, W",
    "B, C * f * f, H / f, W / f"};
const Layout kUnpatchify{
    ref::Op::unpatchify, "HW", tokens, image, ref::unpatchify<double>, "B, (H / f) * (W / f), f * f * C", "B, C, H, W"};

// Edges as (B, C', h, w, f): C' channels per group of f^2 (PixelShuffle's
// output channels, PixelUnshuffle's input ones, Unpatchify's image
// channels) and h x w cells of f x f (PixelShuffle's input rows, the
// others' patch grid). Row lengths w f around 4, 8 and 16 floats. The
// last seven reach every path of the simd row kernels (spatial_layout-inl.h)
// on every target (vectors of 4, 8 and 16 floats): r = 3 and 4 with whole
// vectors and a tail, Unpatchify's tiles (8 x 8 for C >= 8, else 4 x 4)
// with spare channels and columns at p = 2, 3, 4.
struct Edge {
  int64_t B, Cg, h, w, f;
};
const std::vector<Edge>& edges() {
  static const std::vector<Edge> e = {
      {1, 1, 1, 1, 1},  {1, 3, 5, 7, 1},  {1, 1, 1, 1, 2},   {2, 2, 3, 3, 2},   {1, 1, 4, 5, 3},  {1, 2, 8, 9, 4},
      {0, 4, 2, 2, 2},  {2, 0, 3, 3, 2},  {1, 4, 8, 17, 2},  {1, 1, 16, 16, 2}, {3, 3, 7, 33, 2}, {1, 2, 1, 8, 4},
      {1, 3, 5, 9, 8},  {2, 2, 4, 15, 3}, {1, 4, 16, 16, 2}, {1, 8, 16, 16, 2}, {1, 3, 1, 1, 16}, {2, 3, 4, 4, 16},
      {1, 5, 3, 3, 7},  {1, 1, 2, 65, 1}, {1, 1, 2, 19, 4},  {1, 2, 2, 21, 3},  {1, 12, 3, 7, 2}, {2, 9, 2, 5, 4},
      {1, 10, 2, 3, 3}, {1, 6, 2, 3, 3},  {1, 5, 1, 3, 4}};
  return e;
}

// The sizes the ABI is given for cells of f x f: x's for PixelShuffle
// ([B, C' f^2, h, w]), x's for PixelUnshuffle ([B, C', h f, w f]), y's for
// Unpatchify ([B, C', h f, w f]).
ref::Sizes sizes_for(const Layout& L, const Edge& e) {
  if (L.op == ref::Op::pixel_shuffle) return {e.B, e.Cg * e.f * e.f, e.h, e.w, e.f, 0};
  return {e.B, e.Cg, e.h * e.f, e.w * e.f, e.f, 0};
}

Edge random_edge(Rng& rng) {
  Edge e;
  e.B = rng.chance(0.05) ? 0 : rng.range(1, 3);
  e.f = rng.chance(0.7) ? rng.range(1, 4) : rng.pick(std::vector<int64_t>{5, 7, 8, 14, 16});
  e.Cg = rng.chance(0.05) ? 0 : rng.range(1, rng.chance(0.2) ? 20 : 8);  // past 8: Unpatchify's tiles and a spare
  const int64_t most = 40 / e.f + 1;
  e.h = rng.range(1, most);
  e.w = rng.chance(0.3) && e.f <= 4 ? rng.pick(edge_sizes()) % 70 + 1 : rng.range(1, most);
  return e;
}

Case make(const Layout& L, Rng& rng, int64_t index) {
  const int64_t n_edges = static_cast<int64_t>(edges().size());
  const Edge e = index < n_edges ? edges()[static_cast<size_t>(index)] : random_edge(rng);
  const ref::Sizes s = sizes_for(L, e);
  Case c;
  std::string label;
  const auto xs = L.x_shape(s);
  const std::vector<float> x = tensor::layout_values(rng, reference::element_count(xs), &label);
  c.args.push_back({"x", Access::in, Tensor::of_f32(xs, x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, L.y_shape(s)), Match::exact});
  c.args.push_back(status_arg());
  set_sizes(c, s, false);
  c.label = sizes_label(s, false, "f") + " x:" + label;
  if (index >= n_edges && rng.chance(0.1)) c.label += " " + break_sizes(rng, c, L.divides);
  return c;
}

Oracle oracle(const Layout& L, const Case& c) {
  const ref::Sizes s = sizes_of(c);
  const reference::Verdict v = ref::check(L.op, s);
  if (!v.ok()) return {{"status", status_expected(v.status)}};
  std::vector<double> y(static_cast<size_t>(s.B * s.C * s.H * s.W));
  L.oracle(c.in("x").f32(), y.data(), s);
  return {{"y", tensor::exact_expected(std::move(y))}, {"status", status_expected(TL_OK)}};
}

OpSpec declare(const Layout& L, const char* name, const char* symbol, const char* summary, const char* spec,
               std::vector<ParamSpec> params, const char* domain) {
  OpSpec op;
  op.name = name;
  op.args = {
      {"x", Access::in, "T", L.x_declared}, {"y", Access::out, "T", L.y_declared, {Match::exact}}, status_output()};
  op.group = "spatial";
  op.symbol = symbol;
  op.summary = summary;
  op.spec = spec;
  op.params = std::move(params);
  op.domain = domain;
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edges().size());
  op.make_case = [&L](Rng& rng, int64_t i) { return make(L, rng, i); };
  // PixelShuffle's signature, which PixelUnshuffle and Unpatchify share
  declare_c_call<decltype(tl_pixel_shuffle_f32)>(op, {"x", "y", "B", "C", "H", "W", "f"});
  op.oracle = [&L](const Case& c) { return oracle(L, c); };
  return op;
}

constexpr const char* kDomain =
    "factors 1..4, 5, 7, 8, 14, 16; one cell (f = H), rows of w f around 4, 8, 16 floats; channel groups of 0..20; "
    "empty batches and channels; distinct values, NaN payloads and signed zeros (kept bit for bit); one case in ten "
    "past the edges has "
    "a bad size (factor < 1 or 2^32, a size the factor does not divide, a negative size), which must be refused";

// The sizes B, C, H, W (of x, or of y for Unpatchify) and the factor f, as
// each op takes them: `tensor` names whose sizes they are; `c_multiple`: the
// factor's square must divide C (PixelShuffle), else the factor H and W.
std::vector<ParamSpec> sizes(const char* tensor, const char* factor, bool c_multiple) {
  const std::string of = std::string(" (") + tensor + "'s ";
  const std::string multiple = std::string(", a multiple of ") + factor;
  return {{"B", ParamType::i64, ">= 0" + of + "batch)"},
          {"C", ParamType::i64, ">= 0" + (c_multiple ? multiple + "^2" : std::string()) + of + "channels)"},
          {"H", ParamType::i64, ">= 0" + (c_multiple ? std::string() : multiple) + of + "rows)"},
          {"W", ParamType::i64, ">= 0" + (c_multiple ? std::string() : multiple) + of + "columns)"},
          {"f", ParamType::i64,
           std::string("the factor ") + factor + ", >= 1; f^2 and the products of the sizes within int64_t"}};
}

}  // namespace

std::vector<OpSpec> spatial_layout() {
  return {
      declare(kShuffle, "PixelShuffle", "tl_pixel_shuffle_f32",
              "x [B, C, H, W] -> y [B, C/r^2, H r, W r], y[b, c, h r + i, w r + j] = x[b, c r^2 + i r + j, h, w]",
              "operations.txt 7. Spatial: PixelShuffle / PixelUnshuffle", sizes("x", "r", true), kDomain),
      declare(kUnshuffle, "PixelUnshuffle", "tl_pixel_unshuffle_f32",
              "x [B, C, H, W] -> y [B, C r^2, H/r, W/r], y[b, c r^2 + i r + j, h, w] = x[b, c, h r + i, w r + j]",
              "operations.txt 7. Spatial: PixelShuffle / PixelUnshuffle", sizes("x", "r", false), kDomain),
      declare(kUnpatchify, "Unpatchify", "tl_unpatchify_f32",
              "tokens x [B, (H/p)(W/p), p p C] (raster order, features (i, j, c)) -> image y [B, C, H, W]",
              "operations.txt 7. Spatial: Unpatchify", sizes("y", "p", false), kDomain),
  };
}

}  // namespace konform::ops
