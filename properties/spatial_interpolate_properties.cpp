// Properties of Interpolate (tinyllm/spatial.h, spec/operations.txt §7):
// worked examples of each mode from PyTorch's rules, the identity at the
// same size, nearest's integer upscaling, area's integer downscaling as
// average pooling, and bilinear's convexity (a constant stays, outputs stay
// within the inputs' range). The mutant named beside each in
// mutants/manifest.tsv breaks it.
#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "konform/properties.hpp"
#include "spatial_calls.hpp"
#include "support.hpp"

namespace konform {
namespace {

using namespace props;
namespace sc = calls::spatial;
using Resize = reference::spatial::Resize;
constexpr double kU = 0x1p-24;

int64_t pick(int64_t lo, int64_t hi) { return *rc::gen::inRange<int64_t>(lo, hi + 1); }

sc::Result run(const Backend& b, const std::vector<float>& x, const Resize& r) {
  const auto y = sc::interpolate(b, x, r);
  RC_ASSERT(y.status == TL_OK);
  RC_ASSERT(y.y.size() == static_cast<size_t>(r.B * r.C * r.Ho * r.Wo));
  return y;
}

// ---------------------------------------------------------------- worked examples

// Nearest 1 x 3 -> 1 x 5: sources floor(d 3/5) = 0, 0, 1, 1, 2 (rounding
// would give 0, 1, 1, 2, 2).
void nearest_hand_example(const Backend& b) {
  const auto y = run(b, {10, 20, 30}, {1, 1, 1, 3, 1, 5, TL_INTERP_NEAREST, 0});
  const std::vector<float> want = {10, 10, 20, 20, 30};
  RC_ASSERT(y.y == want);
}

// Bilinear [0, 1] -> 4: half-pixel centres give 0, 0.25, 0.75, 1 (PyTorch's
// align_corners=False); align_corners gives 0, 1/3, 2/3, 1.
void bilinear_hand_example(const Backend& b) {
  const auto y = run(b, {0, 1}, {1, 1, 1, 2, 1, 4, TL_INTERP_BILINEAR, 0});
  const double half[] = {0, 0.25, 0.75, 1};
  for (int k = 0; k < 4; ++k) RC_ASSERT(std::fabs(y.y[k] - half[k]) <= 8 * kU);
  const auto a = run(b, {0, 1}, {1, 1, 1, 2, 1, 4, TL_INTERP_BILINEAR, 1});
  const double corners[] = {0, 1.0 / 3, 2.0 / 3, 1};
  for (int k = 0; k < 4; ++k) RC_ASSERT(std::fabs(a.y[k] - corners[k]) <= 8 * kU);
}

// Area 1 x 5 -> 1 x 3: windows [0, 2), [1, 4), [3, 5) (adaptive average
// pooling's floor and ceil): 1.5, 3, 4.5.
void area_hand_example(const Backend& b) {
  const auto y = run(b, {1, 2, 3, 4, 5}, {1, 1, 1, 5, 1, 3, TL_INTERP_AREA, 0});
  const std::vector<float> want = {1.5f, 3.0f, 4.5f};
  RC_ASSERT(y.y == want);
}

// ---------------------------------------------------------------- properties

// At the same size every mode is the identity: nearest and area (windows
// of one) copy, bilinear's weights are 1 and 0 (finite x: values equal).
void same_size_is_identity(const Backend& b, int32_t mode) {
  const Resize r0{pick(1, 2), pick(1, 3), pick(1, 20), pick(1, 40), 1, 1, mode, 0};
  Resize r = r0;
  r.Ho = r.H;
  r.Wo = r.W;
  if (mode == TL_INTERP_BILINEAR) r.align_corners = *rc::gen::element(0, 1);
  const auto x = finite_floats(r.B * r.C * r.H * r.W);
  const auto y = run(b, x, r);
  for (size_t k = 0; k < x.size(); ++k) RC_ASSERT(y.y[k] == x[k]);
}

// Nearest upscaling by integer factors repeats each pixel k_h x k_w times.
void nearest_integer_upscale_repeats_pixels(const Backend& b) {
  const int64_t kh = pick(1, 4), kw = pick(1, 4);
  const Resize r{1, pick(1, 3), pick(1, 12), pick(1, 20), 0, 0, TL_INTERP_NEAREST, 0};
  Resize up = r;
  up.Ho = r.H * kh;
  up.Wo = r.W * kw;
  const auto x = finite_floats(r.C * r.H * r.W);
  const auto y = run(b, x, up);
  for (int64_t c = 0; c < r.C; ++c)
    for (int64_t i = 0; i < up.Ho; ++i)
      for (int64_t j = 0; j < up.Wo; ++j)
        RC_ASSERT(same_bits(y.y[(c * up.Ho + i) * up.Wo + j], x[(c * r.H + i / kh) * r.W + j / kw]));
}

// Area downscaling by integer factors is average pooling over k_h x k_w
// blocks, within the limit of the block's sum |x|.
void area_integer_downscale_is_average_pooling(const Backend& b) {
  const int64_t kh = pick(1, 4), kw = pick(1, 4);
  const Resize r{1, pick(1, 3), kh * pick(1, 8), kw * pick(1, 12), 0, 0, TL_INTERP_AREA, 0};
  Resize down = r;
  down.Ho = r.H / kh;
  down.Wo = r.W / kw;
  const auto x = finite_floats(r.C * r.H * r.W);
  const auto y = run(b, x, down);
  const double limit = limit_of("InterpolateArea");
  for (int64_t c = 0; c < r.C; ++c)
    for (int64_t i = 0; i < down.Ho; ++i)
      for (int64_t j = 0; j < down.Wo; ++j) {
        double sum = 0, mag = 0;
        for (int64_t a = 0; a < kh; ++a)
          for (int64_t e = 0; e < kw; ++e) {
            const double v = x[(c * r.H + i * kh + a) * r.W + j * kw + e];
            sum += v;
            mag += std::fabs(v);
          }
        RC_ASSERT(near(y.y[(c * down.Ho + i) * down.Wo + j], sum / double(kh * kw), mag, limit));
      }
}

Resize any_bilinear(int64_t C) {
  return {1, C, pick(1, 12), pick(1, 20), pick(1, 30), pick(1, 40), TL_INTERP_BILINEAR, *rc::gen::element(0, 1)};
}

// A constant image stays that constant: the slope is 0, so only the
// weighted sum's roundings remain, <= limit u |c|.
void bilinear_of_a_constant_is_that_constant(const Backend& b) {
  const Resize r = any_bilinear(1);
  const float c = finite_floats(1)[0];
  const auto y = run(b, std::vector<float>(static_cast<size_t>(r.H * r.W), c), r);
  const double limit = limit_of("InterpolateBilinear");
  for (float v : y.y) RC_ASSERT(std::fabs(double(v) - c) <= limit * kU * std::fabs(c));
}

// Each output is a convex combination of its taps: it lies within the
// inputs' [min, max], up to the roundings (limit u max |x|).
void bilinear_lies_within_input_range(const Backend& b) {
  const Resize r = any_bilinear(1);
  const auto x = finite_floats(r.H * r.W);
  const auto y = run(b, x, r);
  const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  const double slack = limit_of("InterpolateBilinear") * kU * std::max(std::fabs(*lo), std::fabs(*hi));
  for (float v : y.y) RC_ASSERT(v >= *lo - slack && v <= *hi + slack);
}

}  // namespace

namespace props {

std::vector<Property> spatial_interpolate_properties() {
  auto identity = [](int32_t mode) { return [mode](const Backend& b) { same_size_is_identity(b, mode); }; };
  return {
      {"hand_example", "InterpolateNearest", "unit", nearest_hand_example},
      {"hand_example", "InterpolateBilinear", "unit", bilinear_hand_example},
      {"hand_example", "InterpolateArea", "unit", area_hand_example},
      {"same_size_is_identity", "InterpolateNearest", "property", identity(TL_INTERP_NEAREST)},
      {"same_size_is_identity", "InterpolateBilinear", "property", identity(TL_INTERP_BILINEAR)},
      {"same_size_is_identity", "InterpolateArea", "property", identity(TL_INTERP_AREA)},
      {"nearest_integer_upscale_repeats_pixels", "InterpolateNearest", "property",
       nearest_integer_upscale_repeats_pixels},
      {"area_integer_downscale_is_average_pooling", "InterpolateArea", "property",
       area_integer_downscale_is_average_pooling},
      {"bilinear_of_a_constant_is_that_constant", "InterpolateBilinear", "property",
       bilinear_of_a_constant_is_that_constant},
      {"bilinear_lies_within_input_range", "InterpolateBilinear", "property", bilinear_lies_within_input_range},
  };
}

}  // namespace props
}  // namespace konform
