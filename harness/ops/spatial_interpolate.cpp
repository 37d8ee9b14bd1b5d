// Interpolate (spec §7, tinyllm/spatial.h), one entry per mode as Sample has
// one per method: nearest (an exact copy, bit for bit), bilinear (half-pixel
// centres or align_corners; judged against a scale that admits the source
// coordinate computed in float) and area (adaptive average pooling; a sum
// and a division). Sizes: the identity, integer factors up and down,
// non-integer ratios both ways, 1 <-> N, output rows around the vector
// widths, empty batches and channels.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

#include "konform/c_call.hpp"
#include "spatial_support.hpp"
#include "tensor_support.hpp"
#include "tinyllm/spatial.h"

namespace konform::ops {

std::vector<OpSpec> spatial_interpolate();

namespace {

using namespace spatial;

// The magnitudes bilinear and area are checked on: sums of up to 80 x 80
// window terms stay far below FLT_MAX.
constexpr double kMaxAbs = 1e30;

const std::vector<ref::Resize>& edges() {  // B, C, H, W, Ho, Wo (mode and align_corners set per entry)
  static const std::vector<ref::Resize> e = {
      {1, 1, 1, 1, 1, 1},     {1, 2, 5, 7, 5, 7},    {1, 1, 4, 4, 8, 8},     {1, 3, 8, 8, 4, 4},  {1, 1, 3, 5, 9, 15},
      {1, 2, 9, 15, 3, 5},    {1, 1, 5, 3, 3, 5},    {1, 1, 7, 10, 10, 7},   {1, 1, 1, 1, 6, 9},  {1, 1, 6, 9, 1, 1},
      {0, 3, 4, 4, 8, 8},     {2, 0, 4, 4, 8, 8},    {1, 1, 3, 4, 7, 8},     {1, 1, 3, 4, 9, 16}, {1, 1, 5, 9, 17, 33},
      {2, 3, 16, 16, 15, 17}, {1, 1, 64, 64, 1, 65}, {1, 2, 32, 48, 64, 96}, {1, 1, 1, 31, 1, 8}, {1, 1, 31, 1, 8, 1}};
  return e;
}

int64_t spatial_size(Rng& rng) { return rng.chance(0.2) ? rng.pick(edge_sizes()) % 70 + 1 : rng.range(1, 24); }

ref::Resize random_resize(Rng& rng) {
  ref::Resize r;
  r.B = rng.chance(0.05) ? 0 : rng.range(1, 2);
  r.C = rng.chance(0.05) ? 0 : rng.range(1, 3);
  r.H = spatial_size(rng);
  r.W = spatial_size(rng);
  // an integer factor up or down now and then, else any size
  const int64_t k = rng.range(2, 4);
  switch (rng.range(0, 3)) {
    case 0: r.Ho = r.H * k, r.Wo = r.W * k; break;
    case 1: r.Ho = std::max<int64_t>(1, r.H / k), r.Wo = std::max<int64_t>(1, r.W / k); break;
    default: r.Ho = spatial_size(rng), r.Wo = spatial_size(rng);
  }
  return r;
}

// A valid case made bad, one fault; the buffers keep the valid sizes.
std::string break_resize(Rng& rng, Case& c, int32_t mode) {
  switch (rng.range(0, 4)) {
    case 0: {
      const char* names[] = {"H", "W", "Ho", "Wo"};
      const char* which = rng.pick(names);
      c.params[which] = rng.chance(0.5) ? -double(rng.range(0, 2)) : double(int64_t{1} << 31);
      return std::string("bad: ") + which + " = " + std::to_string(c.iparam(which));
    }
    case 1: c.params[rng.chance(0.5) ? "B" : "C"] = -double(rng.range(1, 3)); return "bad: B or C negative";
    case 2:
      c.params["mode"] = rng.chance(0.5) ? -1.0 : double(rng.range(3, 9));
      return "bad: mode " + std::to_string(c.iparam("mode"));
    case 3:
      c.params["align_corners"] = mode == TL_INTERP_BILINEAR ? double(rng.range(2, 5)) : 1.0;
      return "bad: align_corners " + std::to_string(c.iparam("align_corners"));
    default:
      c.params["B"] = double(int64_t{1} << 40);
      c.params["C"] = double(int64_t{1} << 30);
      return "bad: B = 2^40, C = 2^30: bytes overflow";
  }
}

ref::Resize resize_of(const Case& c) {
  return {c.iparam("B"),
          c.iparam("C"),
          c.iparam("H"),
          c.iparam("W"),
          c.iparam("Ho"),
          c.iparam("Wo"),
          static_cast<int32_t>(c.iparam("mode")),
          static_cast<int32_t>(c.iparam("align_corners"))};
}

std::vector<float> values(Rng& rng, int32_t mode, int64_t n, std::string* label) {
  if (mode == TL_INTERP_NEAREST) return tensor::layout_values(rng, n, label);
  // Bilinear: finite only. Every product is formed, so a NaN or Inf tap at
  // weight 0 still reaches the output, and whether the float source
  // coordinate floors to the oracle's tap is rounding: out of the domain.
  const ValueClass finite[] = {ValueClass::normal, ValueClass::wide,      ValueClass::tiny, ValueClass::huge,
                               ValueClass::zeros,  ValueClass::subnormal, ValueClass::ties};
  const ValueClass vc = mode == TL_INTERP_BILINEAR ? rng.pick(finite) : rng.pick(kAllValueClasses);
  *label = std::string(value_class_name(vc));
  return make_values(rng, vc, n, kMaxAbs);
}

Case make(int32_t mode, Rng& rng, int64_t index) {
  const int64_t n_edges = static_cast<int64_t>(edges().size());
  ref::Resize r = index < n_edges ? edges()[static_cast<size_t>(index)] : random_resize(rng);
  r.mode = mode;
  r.align_corners = mode == TL_INTERP_BILINEAR && (index < n_edges ? index % 2 == 1 : rng.chance(0.4)) ? 1 : 0;
  Case c;
  std::string label;
  c.args.push_back(
      {"x", Access::in, Tensor::of_f32({r.B, r.C, r.H, r.W}, values(rng, mode, r.B * r.C * r.H * r.W, &label))});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {r.B, r.C, r.Ho, r.Wo}),
                    mode == TL_INTERP_NEAREST ? Match::exact : Match::tolerance});
  c.args.push_back(status_arg());
  c.params = {
      {"B", double(r.B)},   {"C", double(r.C)},   {"H", double(r.H)},     {"W", double(r.W)},
      {"Ho", double(r.Ho)}, {"Wo", double(r.Wo)}, {"mode", double(mode)}, {"align_corners", double(r.align_corners)}};
  c.label = "B=" + std::to_string(r.B) + " C=" + std::to_string(r.C) + " " + std::to_string(r.H) + "x" +
            std::to_string(r.W) + " -> " + std::to_string(r.Ho) + "x" + std::to_string(r.Wo) +
            (r.align_corners ? " align_corners" : "") + " x:" + label;
  if (index >= n_edges && rng.chance(0.1)) c.label += " " + break_resize(rng, c, mode);
  return c;
}

// Bilinear's scale at one output: sum |w x| over the four taps (the weighted
// sum's roundings, weights included), plus the source coordinate's float
// error carried by the interpolant's slope: 2 M (src_x + src_y + 2), M the
// largest |x| of the 4 x 4 taps around (a float src may floor to the next
// cell), plus FLT_MIN (products rounded into the subnormals).
double bilinear_scale(const float* xp, const ref::Resize& r, const ref::Taps<double>& ty, const ref::Taps<double>& tx) {
  auto at = [&](int64_t i, int64_t j) { return std::fabs(double(xp[i * r.W + j])); };
  const double sum = ty.l0 * (tx.l0 * at(ty.i0, tx.i0) + tx.l1 * at(ty.i0, tx.i1)) +
                     ty.l1 * (tx.l0 * at(ty.i1, tx.i0) + tx.l1 * at(ty.i1, tx.i1));
  double m = 0;
  for (int64_t i = std::max<int64_t>(ty.i0 - 1, 0); i <= std::min(ty.i0 + 2, r.H - 1); ++i)
    for (int64_t j = std::max<int64_t>(tx.i0 - 1, 0); j <= std::min(tx.i0 + 2, r.W - 1); ++j) m = std::max(m, at(i, j));
  return sum + 2 * m * (tx.src + ty.src + 2) + FLT_MIN;
}

// Area's scale at one output: sum |x| over the window, undivided: a
// recursive float sum of k terms errs by <= (k - 1) u sum |x|, and the
// division adds u |y| <= u sum |x| / k, so u sum |x| bounds both.
double area_scale(const float* xp, const ref::Resize& r, int64_t oy, int64_t ox) {
  double s = 0;
  for (int64_t i = ref::area_begin(oy, r.H, r.Ho); i < ref::area_end(oy, r.H, r.Ho); ++i)
    for (int64_t j = ref::area_begin(ox, r.W, r.Wo); j < ref::area_end(ox, r.W, r.Wo); ++j)
      s += std::fabs(double(xp[i * r.W + j]));
  return s;
}

Oracle oracle(const Case& c) {
  const ref::Resize r = resize_of(c);
  const reference::Verdict v = ref::check_interpolate(r);
  if (!v.ok()) return {{"status", status_expected(v.status)}};
  const int64_t plane = r.Ho * r.Wo;
  Expected y;
  y.value.resize(static_cast<size_t>(r.B * r.C * plane));
  ref::interpolate<double>(c.in("x").f32(), y.value.data(), r);
  if (r.mode == TL_INTERP_NEAREST)
    return {{"y", tensor::exact_expected(std::move(y.value))}, {"status", status_expected(TL_OK)}};
  y.scale.resize(y.value.size());
  for (int64_t p = 0; p < r.B * r.C; ++p) {
    const float* xp = c.in("x").f32() + p * r.H * r.W;
    for (int64_t oy = 0; oy < r.Ho; ++oy)
      for (int64_t ox = 0; ox < r.Wo; ++ox)
        y.scale[static_cast<size_t>(p * plane + oy * r.Wo + ox)] =
            r.mode == TL_INTERP_AREA
                ? area_scale(xp, r, oy, ox)
                : bilinear_scale(xp, r, ref::bilinear_taps<double>(oy, r.H, r.Ho, r.align_corners != 0),
                                 ref::bilinear_taps<double>(ox, r.W, r.Wo, r.align_corners != 0));
  }
  return {{"status", status_expected(TL_OK)}, {"y", y}};
}

OpSpec declare(int32_t mode, const char* name, const char* summary, const char* domain,
               std::vector<ToleranceRule> tolerances = {}) {
  OpSpec op;
  op.name = name;
  op.tolerances = std::move(tolerances);
  // Nearest copies elements: exact; the others compute them.
  op.args = {{"x", Access::in, "T", "B, C, H, W"},
             {"y", Access::out, "T", "B, C, Ho, Wo", {op.tolerances.empty() ? Match::exact : Match::tolerance}},
             status_output()};
  op.group = "spatial";
  op.symbol = "tl_interpolate_f32";
  op.summary = summary;
  op.spec = "operations.txt 7. Spatial: Interpolate";
  const std::string side = "1 .. 2^31 - 1";
  const char* mode_names[] = {"TL_INTERP_NEAREST", "TL_INTERP_BILINEAR", "TL_INTERP_AREA"};
  op.params = {
      {"B", ParamType::i64, ">= 0; 4 B C H W and 4 B C Ho Wo within int64_t"},
      {"C", ParamType::i64, ">= 0"},
      {"H", ParamType::i64, side + " (x's rows)"},
      {"W", ParamType::i64, side + " (x's columns)"},
      {"Ho", ParamType::i64, side + " (y's rows, H_out)"},
      {"Wo", ParamType::i64, side + " (y's columns, W_out)"},
      {"mode", ParamType::i32,
       std::to_string(mode) + " (" + mode_names[mode] + "); other modes are other entries, unknown ones refused"},
      {"align_corners", ParamType::i32,
       mode == TL_INTERP_BILINEAR ? "0 (half-pixel centres) or 1 (corners aligned)"
                                  : "0 (1 is refused: bilinear only)"}};
  op.domain = domain;
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edges().size());
  op.make_case = [mode](Rng& rng, int64_t i) { return make(mode, rng, i); };
  declare_c_call<decltype(tl_interpolate_f32)>(op, {"x", "y", "B", "C", "H", "W", "Ho", "Wo", "mode", "align_corners"});
  op.oracle = oracle;
  return op;
}

constexpr const char* kSizes =
    "the identity, factors 2..4 up and down, non-integer ratios both ways (5 <-> 3, 7 <-> 10), 1 <-> N, output "
    "rows around 8, 16, 32 floats, empty batches and channels; one case in ten past the edges has a bad argument "
    "(a spatial size < 1 or 2^31, B or C negative, an unknown mode, a bad align_corners, overflowing bytes), which "
    "must be refused";

}  // namespace

std::vector<OpSpec> spatial_interpolate() {
  static const std::string nearest = std::string(kSizes) + "; every value class, NaN payloads and -0 kept bit for bit";
  static const std::string bilinear =
      std::string(kSizes) +
      "; align_corners 0 and 1; finite values |x| <= 1e30 (a NaN or Inf tap at weight 0 "
      "still reaches the output, and which tap a float src floors to is rounding)";
  static const std::string area = std::string(kSizes) + "; every value class, |x| <= 1e30 (window sums stay finite)";
  return {
      declare(TL_INTERP_NEAREST, "InterpolateNearest",
              "y [B, C, Ho, Wo] from x [B, C, H, W], source floor(d in / out) per axis (exact integers)",
              nearest.c_str()),
      declare(TL_INTERP_BILINEAR, "InterpolateBilinear",
              "y [B, C, Ho, Wo] from x [B, C, H, W], bilinear: half-pixel centres or align_corners, PyTorch's float "
              "source coordinate",
              bilinear.c_str(),
              {{DType::f32, "8", "-",
                "PyTorch's float source coordinate src = (d + 0.5) fl(in/out) - 0.5 (or d "
                "fl((in-1)/(out-1))) errs by <= 3 u (src + 1) (three roundings), and the interpolant's "
                "slope is <= 2 M (M = max |x| of the 4 x 4 taps around: a float src may floor to the next "
                "cell): <= 3 u of 2 M (src_x + src_y + 2); l1 = src - i0 is exact, l0 = 1 - l1 <= u "
                "relative; four products, two sums, two products and a sum: <= 6 u of sum |w x|; products "
                "rounded into the subnormals <= 6 u FLT_MIN; scale s = sum |w x| + 2 M (src_x + src_y + 2) "
                "+ FLT_MIN: <= 6 u s"}}),
      declare(TL_INTERP_AREA, "InterpolateArea",
              "y [B, C, Ho, Wo] from x [B, C, H, W], area: adaptive average pooling over [floor(d in/out), "
              "ceil((d+1) in/out))",
              area.c_str(),
              {{DType::f32, "2", "-",
                "the window's sum in any order (k terms, recursive <= (k - 1) u sum |x|, pairwise less) "
                "then one division (<= u |y| <= u sum |x| / k): <= u sum |x| to first order, the scale s = "
                "sum |x| over the window (undivided); a multiply by a rounded 1/k adds <= u |y|: <= 1.5 u "
                "s; 2 covers the second-order terms"}}),
  };
}

}  // namespace konform::ops
