// The properties of the norm ops (tinyllm/norm.h), from spec/operations.txt
// §2 and §10 and from the math of each op. Each can fail: the mutants of
// mutants/norm_base.c named in mutants/manifest.tsv break them.
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>

#include "konform/properties.hpp"
#include "konform/reference/norm.hpp"
#include "norm_calls.hpp"
#include "support.hpp"

namespace konform {
namespace {

using namespace props;
namespace call = calls::norm;
using call::Floats;
using call::Shape;
using ops::norm::centred_scale;
using ops::norm::range_stats;
using ops::norm::RangeStats;

Floats ones(int64_t n) { return Floats(static_cast<size_t>(n), 1.0f); }
Floats zeros(int64_t n) { return Floats(static_cast<size_t>(n), 0.0f); }

// Two results of one backend that each meet the op's limit against the same
// oracle are within twice the limit of each other.
bool agree(double a, double b, double scale, const char* op) { return near(a, b, scale, 2 * limit_of(op)); }

Floats slice(const Floats& v, int64_t begin, int64_t n) { return Floats(v.begin() + begin, v.begin() + begin + n); }

// n values base + spread * t, t in [-1, 1] on a grid of 2^-20, the first two
// exactly base - spread and base + spread: never a constant range.
void fill_range(float* x, int64_t n, float base, float spread) {
  const auto ticks =
      *rc::gen::container<std::vector<int>>(static_cast<size_t>(n), rc::gen::inRange(-(1 << 20), (1 << 20) + 1));
  for (int64_t i = 0; i < n; ++i) x[i] = base + spread * (static_cast<float>(ticks[static_cast<size_t>(i)]) * 0x1p-20f);
  if (n >= 2) x[0] = base - spread, x[1] = base + spread;
}

// Rows of one spread 2^-10 .. 2^10 around one offset of up to 64 spreads: the
// scale of a normalized element stays within ~100 times its magnitude.
Floats offset_rows(int64_t rows, int64_t d) {
  const float spread = std::ldexp(1.0f, *rc::gen::inRange(-10, 11));
  const float base = spread * static_cast<float>(*rc::gen::inRange(-64, 65));
  Floats x(static_cast<size_t>(rows * d));
  for (int64_t r = 0; r < rows; ++r) fill_range(x.data() + r * d, d, base, spread);
  return x;
}

// The scale of a LayerNorm-like element of x with gain 1 and bias 0.
double unit_scale(double x, const RangeStats& s) { return centred_scale(x, s, 1.0, 0.0); }

// y normalized from x[0, n) with gain 1 and bias 0 has mean 0 and variance
// var / (var + eps), to within what `op`'s limit allows each element: |mean|
// <= limit u mean(s), |variance - want| <= 2 limit u mean(|y| s) + (limit u)^2
// mean(s^2), s the elements' scales.
void assert_unit_moments(const float* x, const float* y, int64_t n, float eps, const char* op) {
  const RangeStats st = range_stats(x, n, eps);
  const double var = reference::moments<double>(x, n).var, u = 0x1p-24, limit = limit_of(op);
  double mean = 0, scale = 0, cross = 0, sq_scale = 0, second = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double s = unit_scale(x[i], st);
    mean += y[i] / double(n), scale += s / double(n);
    cross += std::fabs(y[i]) * s / double(n), sq_scale += s * s / double(n);
  }
  for (int64_t i = 0; i < n; ++i) second += (y[i] - mean) * (y[i] - mean) / double(n);
  RC_ASSERT(std::fabs(mean) <= limit * u * scale + 1e-12);
  RC_ASSERT(std::fabs(second - var / (var + eps)) <= 2 * limit * u * cross + limit * limit * u * u * sq_scale + 1e-12);
}

// The shapes of the rows properties: [rows, d] or [a, b, d].
Shape rows_shape(int64_t rows, int64_t d) {
  if (rows % 2 == 0 && *rc::gen::arbitrary<bool>()) return {2, rows / 2, d};
  return {rows, d};
}

// A worked example: each printed figure (7 significant digits) is the
// oracle's, and the backend meets the oracle within the op's own limit and
// scale, as the sweep judges it.
void assert_worked(const call::Result& r, const std::string& out, const std::vector<double>& printed) {
  RC_ASSERT(r.status == 0);
  const Expected& e = r.want.at(out);
  for (size_t i = 0; i < printed.size(); ++i) {
    RC_ASSERT(agrees_to_7_digits(e.value[i], printed[i]));
    RC_ASSERT(near(r[out][i], e.value[i], e.scale[i], r.limit));
  }
}

// ---------------------------------------------------------------- RmsNorm

void rms_norm_hand_example(const Backend& b) {
  assert_worked(call::rms_norm(b, {3, 4}, {1, 0.5f}, {1, 2}, 0.0f), "y", {0.8485281, 0.5656854});
}

// [1e-3, 1e-3] with eps = 1e-6: 0.70710678 (eps after the root: 0.999); rows
// whose mean square is at most eps match the oracle, where eps decides.
void rms_norm_eps_is_inside_the_root(const Backend& b) {
  const auto r = call::rms_norm(b, {1e-3f, 1e-3f}, ones(2), {2}, 1e-6f);
  RC_ASSERT(std::fabs(r["y"][0] - 0.70710678) < 1e-6 && std::fabs(r["y"][1] - 0.70710678) < 1e-6);

  const int64_t d = *rc::gen::inRange<int64_t>(1, 300);
  const float eps = *rc::gen::element(1e-5f, 1e-6f);
  Floats x = finite_floats(d);
  for (float& v : x) v *= std::sqrt(eps) * 0x1p-20f;
  const Floats g = finite_floats(d);
  const auto got = call::rms_norm(b, x, g, {d}, eps)["y"];
  std::vector<double> want(static_cast<size_t>(d));
  reference::rms_norm<double>(x.data(), g.data(), want.data(), 1, d, eps);
  for (int64_t i = 0; i < d; ++i) RC_ASSERT(near(got[i], want[i], std::fabs(want[i]), limit_of("RmsNorm")));
}

// Every row alone gives the bits it gets in a batch of up to 12 rows of any
// shape [..., D], and y == x gives the same bits as a separate y.
void rms_norm_rows_are_independent_and_in_place(const Backend& b) {
  const int64_t rows = *rc::gen::inRange<int64_t>(1, 13), d = *rc::gen::inRange<int64_t>(1, 200);
  const Shape shape = rows_shape(rows, d);
  const Floats x = finite_floats(rows * d), g = finite_floats(d);
  const float eps = *rc::gen::element(1e-5f, 0.0f);
  const auto batch = call::rms_norm(b, x, g, shape, eps)["y"];
  const auto in_place = call::rms_norm(b, x, g, shape, eps, true)["y"];
  for (size_t k = 0; k < batch.size(); ++k) RC_ASSERT(same_bits(batch[k], in_place[k]));
  for (int64_t r = 0; r < rows; ++r) {
    const auto alone = call::rms_norm(b, slice(x, r * d, d), g, {d}, eps)["y"];
    for (int64_t i = 0; i < d; ++i) RC_ASSERT(same_bits(alone[i], batch[r * d + i]));
  }
}

// ---------------------------------------------------------------- LayerNorm

// [1, 2, 3, 4]: mean 2.5, variance 1.25; gain [1, 2, 1, 0.5], bias [0, 1, 0, -1].
void layer_norm_hand_example(const Backend& b) {
  assert_worked(call::layer_norm(b, {1, 2, 3, 4}, {1, 2, 1, 0.5f}, {0, 1, 0, -1}, {1, 4}, 0.0f), "y",
                {-1.3416408, 0.1055728, 0.4472136, -0.3291796});
}

// With g = 1 and b = 0 every row comes out with mean 0 and variance
// var / (var + eps), to within what the limit allows each element: the
// variance divides by D (not D - 1), is centred on the mean, and eps sits
// inside the root.
void layer_norm_mean_zero_variance_one(const Backend& b) {
  const int64_t rows = *rc::gen::inRange<int64_t>(1, 5), d = *rc::gen::inRange<int64_t>(2, 300);
  const Floats x = offset_rows(rows, d);
  const float eps = *rc::gen::element(0.0f, 1e-5f);
  const auto y = call::layer_norm(b, x, ones(d), zeros(d), {rows, d}, eps)["y"];
  for (int64_t r = 0; r < rows; ++r) assert_unit_moments(x.data() + r * d, y.data() + r * d, d, eps, "LayerNorm");
}

// [1e-3, -1e-3] with eps = 1e-6: variance 1e-6, so +-1e-3 / sqrt(2e-6) =
// +-0.70710678 (eps after the root: +-0.999).
void layer_norm_eps_is_inside_the_root(const Backend& b) {
  const auto y = call::layer_norm(b, {1e-3f, -1e-3f}, ones(2), zeros(2), {2}, 1e-6f)["y"];
  RC_ASSERT(std::fabs(y[0] - 0.70710678) < 1e-6 && std::fabs(y[1] + 0.70710678) < 1e-6);
}

void layer_norm_rows_are_independent_and_in_place(const Backend& b) {
  const int64_t rows = *rc::gen::inRange<int64_t>(1, 13), d = *rc::gen::inRange<int64_t>(1, 200);
  const Shape shape = rows_shape(rows, d);
  const Floats x = offset_rows(rows, d), g = finite_floats(d), bias = finite_floats(d);
  const float eps = *rc::gen::element(1e-5f, 1e-12f);
  const auto batch = call::layer_norm(b, x, g, bias, shape, eps)["y"];
  const auto in_place = call::layer_norm(b, x, g, bias, shape, eps, true)["y"];
  for (size_t k = 0; k < batch.size(); ++k) RC_ASSERT(same_bits(batch[k], in_place[k]));
  for (int64_t r = 0; r < rows; ++r) {
    const auto alone = call::layer_norm(b, slice(x, r * d, d), g, bias, {d}, eps)["y"];
    for (int64_t i = 0; i < d; ++i) RC_ASSERT(same_bits(alone[i], batch[r * d + i]));
  }
}

// ---------------------------------------------------------------- BatchNorm

// x[1, 2, 2] = [[1, 3], [2, 6]], running mean [1, 2], var [4, 16], gain
// [1, 2], bias [0, 1]: [[0, 1], [1, 3]].
void batch_norm_hand_example(const Backend& b) {
  const auto y = call::batch_norm(b, {1, 3, 2, 6}, {1, 2}, {4, 16}, {1, 2}, {0, 1}, {1, 2, 2}, 0.0f)["y"];
  const float want[] = {0, 1, 1, 3};
  for (int i = 0; i < 4; ++i) RC_ASSERT(y[i] == want[i]);
}

// Inference mode: every sample is normalized by the running statistics, so a
// sample alone gives the bits it gets in any batch (batch statistics would
// change with the batch), even a batch of identical samples, whose own
// variance is 0; and y == x gives the same bits.
void batch_norm_uses_running_statistics(const Backend& b) {
  const int64_t n = *rc::gen::inRange<int64_t>(2, 5), c = *rc::gen::inRange<int64_t>(1, 9);
  const int64_t s = *rc::gen::inRange<int64_t>(1, 40), per = c * s;
  const Floats mean = finite_floats(c), g = finite_floats(c), bias = finite_floats(c);
  Floats var = finite_floats(c);
  for (float& v : var) v = std::fabs(v);
  Floats x = finite_floats(n * per);
  if (*rc::gen::arbitrary<bool>())  // every sample a copy of the first
    for (int64_t k = per; k < n * per; ++k) x[k] = x[k % per];
  const auto batch = call::batch_norm(b, x, mean, var, g, bias, {n, c, s}, 1e-5f)["y"];
  const auto in_place = call::batch_norm(b, x, mean, var, g, bias, {n, c, s}, 1e-5f, true)["y"];
  for (size_t k = 0; k < batch.size(); ++k) RC_ASSERT(same_bits(batch[k], in_place[k]));
  for (int64_t k = 0; k < n; ++k) {
    const auto alone = call::batch_norm(b, slice(x, k * per, per), mean, var, g, bias, {1, c, s}, 1e-5f)["y"];
    for (int64_t i = 0; i < per; ++i) RC_ASSERT(same_bits(alone[i], batch[k * per + i]));
  }
}

// ---------------------------------------------------------------- GroupNorm

// x[1, 4] with 2 groups: [1, 3] and [10, 14] normalize to [-1, 1] each;
// gain [1, 1, 2, 2], bias [0, 0, 0, 1]: [-1, 1, -2, 3].
void group_norm_hand_example(const Backend& b) {
  const auto y = call::group_norm(b, {1, 3, 10, 14}, {1, 1, 2, 2}, {0, 0, 0, 1}, {1, 4}, 2, 0.0f)["y"];
  const float want[] = {-1, 1, -2, 3};
  for (int i = 0; i < 4; ++i) RC_ASSERT(y[i] == want[i]);
}

// A group is C/G consecutive channels: with g = 1, b = 0 and every group of
// its own offset and spread, each group comes out with mean 0 and variance 1.
void group_norm_groups_are_consecutive_channels(const Backend& b) {
  const int64_t groups = *rc::gen::inRange<int64_t>(2, 6), per_group = *rc::gen::inRange<int64_t>(2, 5);
  const int64_t c = groups * per_group, s = *rc::gen::inRange<int64_t>(1, 20), size = per_group * s;
  const float eps = *rc::gen::element(0.0f, 1e-5f);
  Floats x(static_cast<size_t>(c * s));
  for (int64_t k = 0; k < groups; ++k)
    fill_range(x.data() + k * size, size, static_cast<float>(8 * k), static_cast<float>(k + 1));
  const auto y = call::group_norm(b, x, ones(c), zeros(c), {1, c, s}, groups, eps)["y"];
  for (int64_t k = 0; k < groups; ++k)
    assert_unit_moments(x.data() + k * size, y.data() + k * size, size, eps, "GroupNorm");
}

// groups = C is InstanceNorm; groups = 1 is LayerNorm over (C, spatial...)
// with the per-channel gain and bias spread over each channel's positions.
void group_norm_extremes_are_instance_and_layer_norm(const Backend& b) {
  const int64_t n = *rc::gen::inRange<int64_t>(1, 3), c = *rc::gen::inRange<int64_t>(1, 7);
  const int64_t s = *rc::gen::inRange<int64_t>(2, 30), per = c * s;
  const Floats x = offset_rows(n, per), g = finite_floats(c), bias = finite_floats(c);
  const float eps = *rc::gen::element(1e-5f, 0.0f);
  const auto as_groups = call::group_norm(b, x, g, bias, {n, c, s}, c, eps)["y"];
  const auto instance = call::instance_norm(b, x, g, bias, {n, c, s}, eps)["y"];
  for (int64_t k = 0; k < n * c; ++k) {
    const RangeStats st = range_stats(x.data() + k * s, s, eps);
    for (int64_t i = k * s; i < (k + 1) * s; ++i)
      RC_ASSERT(agree(as_groups[i], instance[i], centred_scale(x[i], st, std::fabs(g[k % c]), std::fabs(bias[k % c])),
                      "GroupNorm"));
  }
  Floats g_wide, b_wide;
  for (int64_t j = 0; j < c; ++j)
    for (int64_t i = 0; i < s; ++i) g_wide.push_back(g[j]), b_wide.push_back(bias[j]);
  const auto one_group = call::group_norm(b, x, g, bias, {n, c, s}, 1, eps)["y"];
  const auto layer = call::layer_norm(b, x, g_wide, b_wide, {n, per}, eps)["y"];
  for (int64_t k = 0; k < n; ++k) {
    const RangeStats st = range_stats(x.data() + k * per, per, eps);
    for (int64_t i = k * per; i < (k + 1) * per; ++i) {
      const int64_t j = (i % per) / s;
      RC_ASSERT(
          agree(one_group[i], layer[i], centred_scale(x[i], st, std::fabs(g[j]), std::fabs(bias[j])), "GroupNorm"));
    }
  }
}

// num_groups must divide C and be at least 1: the call is refused, with the
// status the header names, and y is left as it was (the guarded call checks).
void group_norm_refuses_groups_not_dividing_c(const Backend& b) {
  const int64_t c = *rc::gen::element<int64_t>(4, 6, 9, 10), s = *rc::gen::inRange<int64_t>(1, 5);
  const Floats x = finite_floats(c * s), g = ones(c), bias = zeros(c);
  int64_t bad = 2;
  while (c % bad == 0) ++bad;
  RC_ASSERT(call::group_norm(b, x, g, bias, {1, c, s}, bad, 1e-5f).status == TL_ERR_SHAPE);
  RC_ASSERT(call::group_norm(b, x, g, bias, {1, c, s}, c + 1, 1e-5f).status == TL_ERR_SHAPE);
  RC_ASSERT(call::group_norm(b, x, g, bias, {1, c, s}, 0, 1e-5f).status == TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(call::group_norm(b, x, g, bias, {1, c, s}, -c, 1e-5f).status == TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(call::group_norm(b, x, g, bias, {1, c, s}, c, 1e-5f).status == TL_OK);
}

// Every sample alone gives the bits it gets in a batch; y == x the same bits.
void group_norm_samples_are_independent_and_in_place(const Backend& b) {
  const int64_t n = *rc::gen::inRange<int64_t>(2, 5), groups = *rc::gen::inRange<int64_t>(1, 4);
  const int64_t c = groups * *rc::gen::inRange<int64_t>(1, 4), s = *rc::gen::inRange<int64_t>(1, 40), per = c * s;
  const Floats x = offset_rows(n, per), g = finite_floats(c), bias = finite_floats(c);
  const auto batch = call::group_norm(b, x, g, bias, {n, c, s}, groups, 1e-5f)["y"];
  const auto in_place = call::group_norm(b, x, g, bias, {n, c, s}, groups, 1e-5f, true)["y"];
  for (size_t k = 0; k < batch.size(); ++k) RC_ASSERT(same_bits(batch[k], in_place[k]));
  for (int64_t k = 0; k < n; ++k) {
    const auto alone = call::group_norm(b, slice(x, k * per, per), g, bias, {1, c, s}, groups, 1e-5f)["y"];
    for (int64_t i = 0; i < per; ++i) RC_ASSERT(same_bits(alone[i], batch[k * per + i]));
  }
}

// ---------------------------------------------------------------- InstanceNorm

// x[1, 2, 2] = [[1, 3], [10, 14]]: [-1, 1] per channel; gain [1, 2], bias
// [0, 1]: [-1, 1, -1, 3].
void instance_norm_hand_example(const Backend& b) {
  const auto y = call::instance_norm(b, {1, 3, 10, 14}, {1, 2}, {0, 1}, {1, 2, 2}, 0.0f)["y"];
  const float want[] = {-1, 1, -1, 3};
  for (int i = 0; i < 4; ++i) RC_ASSERT(y[i] == want[i]);
}

// Statistics per (sample, channel) over the spatial positions only: with
// g = 1, b = 0 every instance has mean 0 and variance 1, whatever the other
// samples and channels hold; a sample alone gives its bits in the batch.
void instance_norm_is_per_sample_and_channel(const Backend& b) {
  const int64_t n = *rc::gen::inRange<int64_t>(1, 4), c = *rc::gen::inRange<int64_t>(1, 6);
  const int64_t s = *rc::gen::inRange<int64_t>(2, 40), per = c * s;
  const float eps = *rc::gen::element(0.0f, 1e-5f);
  Floats x(static_cast<size_t>(n * per));
  for (int64_t k = 0; k < n * c; ++k)
    fill_range(x.data() + k * s, s, static_cast<float>(4 * k), 1.0f + static_cast<float>(k % 3));
  const auto y = call::instance_norm(b, x, ones(c), zeros(c), {n, c, s}, eps)["y"];
  for (int64_t k = 0; k < n * c; ++k) assert_unit_moments(x.data() + k * s, y.data() + k * s, s, eps, "InstanceNorm");
  for (int64_t k = 0; k < n; ++k) {
    const auto alone = call::instance_norm(b, slice(x, k * per, per), ones(c), zeros(c), {1, c, s}, eps)["y"];
    for (int64_t i = 0; i < per; ++i) RC_ASSERT(same_bits(alone[i], y[k * per + i]));
  }
}

// ---------------------------------------------------------------- AdaLN

// [1, 2, 3, 4] normalizes to [-1.3416408, -0.4472136, 0.4472136, 1.3416408];
// scale [0, 1, -1, 0.5], shift [0, 0, 5, 1]: (1 + scale) multiplies.
void ada_ln_hand_example(const Backend& b) {
  assert_worked(call::ada_ln(b, {1, 2, 3, 4}, {0, 1, -1, 0.5f}, {0, 0, 5, 1}, {1, 1, 4}, 0.0f), "y",
                {-1.3416408, -0.8944272, 5.0, 3.0124612});
}

// scale = shift = 0 is LayerNorm with g = 1, b = 0 (the spec: no learned g/b).
void ada_ln_zero_modulation_is_layer_norm(const Backend& b) {
  const int64_t batch = *rc::gen::inRange<int64_t>(1, 4), tokens = *rc::gen::inRange<int64_t>(1, 4);
  const int64_t d = *rc::gen::inRange<int64_t>(1, 200), rows = batch * tokens;
  const Floats x = offset_rows(rows, d);
  const float eps = *rc::gen::element(1e-5f, 1e-6f);
  const auto ada = call::ada_ln(b, x, zeros(batch * d), zeros(batch * d), {batch, tokens, d}, eps)["y"];
  const auto layer = call::layer_norm(b, x, ones(d), zeros(d), {rows, d}, eps)["y"];
  for (int64_t r = 0; r < rows; ++r) {
    const RangeStats st = range_stats(x.data() + r * d, d, eps);
    for (int64_t i = r * d; i < (r + 1) * d; ++i) RC_ASSERT(agree(ada[i], layer[i], unit_scale(x[i], st), "AdaLN"));
  }
}

// Every token of sample k is LayerNorm with gain 1 + scale[k] and bias
// shift[k]: the conditioning broadcasts over the tokens, never across samples.
void ada_ln_modulates_per_sample(const Backend& b) {
  const int64_t batch = *rc::gen::inRange<int64_t>(2, 4), tokens = *rc::gen::inRange<int64_t>(2, 4);
  const int64_t d = *rc::gen::inRange<int64_t>(1, 100), rows = batch * tokens;
  const Floats x = offset_rows(rows, d), scale = finite_floats(batch * d), shift = finite_floats(batch * d);
  const auto ada = call::ada_ln(b, x, scale, shift, {batch, tokens, d}, 1e-5f)["y"];
  for (int64_t k = 0; k < batch; ++k) {
    Floats gain = slice(scale, k * d, d);
    for (float& v : gain) v = 1.0f + v;  // rounded like the kernels' 1 + scale
    const Floats bias = slice(shift, k * d, d);
    const auto layer = call::layer_norm(b, slice(x, k * tokens * d, tokens * d), gain, bias, {tokens, d}, 1e-5f)["y"];
    for (int64_t t = 0; t < tokens; ++t) {
      const int64_t r = k * tokens + t;
      const RangeStats st = range_stats(x.data() + r * d, d, 1e-5f);
      for (int64_t i = 0; i < d; ++i)
        RC_ASSERT(agree(ada[r * d + i], layer[t * d + i],
                        centred_scale(x[r * d + i], st, 1 + std::fabs(scale[k * d + i]), std::fabs(shift[k * d + i])),
                        "AdaLN"));
    }
  }
}

void ada_ln_rows_are_independent_and_in_place(const Backend& b) {
  const int64_t batch = *rc::gen::inRange<int64_t>(1, 4), tokens = *rc::gen::inRange<int64_t>(1, 4);
  const int64_t d = *rc::gen::inRange<int64_t>(1, 150);
  const Floats x = offset_rows(batch * tokens, d), scale = finite_floats(batch * d), shift = finite_floats(batch * d);
  const auto all = call::ada_ln(b, x, scale, shift, {batch, tokens, d}, 1e-5f)["y"];
  const auto in_place = call::ada_ln(b, x, scale, shift, {batch, tokens, d}, 1e-5f, true)["y"];
  for (size_t k = 0; k < all.size(); ++k) RC_ASSERT(same_bits(all[k], in_place[k]));
  for (int64_t k = 0; k < batch; ++k)
    for (int64_t t = 0; t < tokens; ++t) {
      const int64_t r = k * tokens + t;
      const auto alone =
          call::ada_ln(b, slice(x, r * d, d), slice(scale, k * d, d), slice(shift, k * d, d), {1, d}, 1e-5f)["y"];
      for (int64_t i = 0; i < d; ++i) RC_ASSERT(same_bits(alone[i], all[r * d + i]));
    }
}

// ---------------------------------------------------------------- AdaLN_Zero

// h = [1, 2, 3, 4] + [0, 1, 2, -1] * 1 = [1, 3, 5, 3]; AdaLN with scale =
// shift = 0: mean 3, variance 2, y = [-1.4142136, 0, 1.4142136, 0].
void ada_ln_zero_hand_example(const Backend& b) {
  const auto r = call::ada_ln_zero(b, {1, 2, 3, 4}, {1, 1, 1, 1}, {0, 1, 2, -1}, zeros(4), zeros(4), {1, 4}, 0.0f);
  const float h[] = {1, 3, 5, 3};
  for (int i = 0; i < 4; ++i) RC_ASSERT(r["h"][i] == h[i]);
  assert_worked(r, "y", {-1.4142136, 0, 1.4142136, 0});
}

// The zero-initialized conditioning (gate = 0) leaves the residual stream as
// it was, bit for bit, and y is AdaLN of it; h == x too.
void ada_ln_zero_gate_zero_keeps_the_stream(const Backend& b) {
  const int64_t batch = *rc::gen::inRange<int64_t>(1, 4), tokens = *rc::gen::inRange<int64_t>(1, 3);
  const int64_t d = *rc::gen::inRange<int64_t>(1, 150);
  const Shape shape = {batch, tokens, d};
  const Floats x = offset_rows(batch * tokens, d), r = finite_floats(batch * tokens * d);
  const Floats scale = finite_floats(batch * d), shift = finite_floats(batch * d);
  const bool in_place = *rc::gen::arbitrary<bool>();
  const auto got = call::ada_ln_zero(b, x, r, zeros(batch * d), scale, shift, shape, 1e-5f, in_place);
  const auto ada = call::ada_ln(b, x, scale, shift, shape, 1e-5f)["y"];
  for (size_t k = 0; k < x.size(); ++k) {
    RC_ASSERT(same_bits(got["h"][k], x[k]));
    const int64_t row = static_cast<int64_t>(k) / d, j = (row / tokens) * d + static_cast<int64_t>(k) % d;
    const RangeStats st = range_stats(x.data() + row * d, d, 1e-5f);
    RC_ASSERT(agree(got["y"][k], ada[k], centred_scale(x[k], st, 1 + std::fabs(scale[j]), std::fabs(shift[j])),
                    "AdaLN_Zero"));
  }
}

// h is x + gate * r, gate per sample, rounded as the spec's formula allows,
// bit for bit: the product and the sum each rounded to float (the unfused Mul
// then Add) or the sum rounded once (one fused multiply-add); y is the
// backend's own AdaLN of h.
void ada_ln_zero_residual_is_mul_add_or_fma(const Backend& b) {
  const int64_t batch = *rc::gen::inRange<int64_t>(1, 4), tokens = *rc::gen::inRange<int64_t>(1, 3);
  const int64_t d = *rc::gen::inRange<int64_t>(1, 150);
  const Shape shape = {batch, tokens, d};
  const Floats x = finite_floats(batch * tokens * d), r = finite_floats(batch * tokens * d);
  const Floats gate = finite_floats(batch * d), scale = finite_floats(batch * d), shift = finite_floats(batch * d);
  const auto got = call::ada_ln_zero(b, x, r, gate, scale, shift, shape, 1e-5f);
  const auto ada = call::ada_ln(b, got["h"], scale, shift, shape, 1e-5f)["y"];
  for (size_t k = 0; k < x.size(); ++k) {
    const int64_t row = static_cast<int64_t>(k) / d, j = (row / tokens) * d + static_cast<int64_t>(k) % d;
    RC_ASSERT(same_bits(got["h"][k], reference::gated_residual(x[k], gate[j], r[k])) ||
              same_bits(got["h"][k], reference::gated_residual_fused(x[k], gate[j], r[k])));
    const RangeStats st = range_stats(got["h"].data() + row * d, d, 1e-5f);
    RC_ASSERT(agree(got["y"][k], ada[k], centred_scale(got["h"][k], st, 1 + std::fabs(scale[j]), std::fabs(shift[j])),
                    "AdaLN_Zero"));
  }
}

// ---------------------------------------------------------------- FusedSkipNorm

// x + skip = [3, 4]: the rmsnorm example, 0.8485281 and 0.5656854.
void fused_skip_norm_hand_example(const Backend& b) {
  const auto r = call::fused_skip_norm(b, {1, 2}, {2, 2}, {1, 0.5f}, {1, 2}, 0.0f);
  RC_ASSERT(r["sum"][0] == 3.0f && r["sum"][1] == 4.0f);
  assert_worked(r, "y", {0.8485281, 0.5656854});
}

// The unfused composition, Add then RmsNorm: sum is x + skip rounded once, bit
// for bit, and y is within twice RmsNorm's limit of the backend's own RmsNorm
// of that sum (tighter than the spec's 1e-4), whatever sum aliases.
void fused_skip_norm_matches_unfused(const Backend& b) {
  const int64_t rows = *rc::gen::inRange<int64_t>(1, 6), d = *rc::gen::inRange<int64_t>(1, 200);
  const Floats x = finite_floats(rows * d), skip = finite_floats(rows * d), g = finite_floats(d);
  const std::string alias = *rc::gen::element<std::string>("", "x", "skip");
  const auto fused = call::fused_skip_norm(b, x, skip, g, {rows, d}, 1e-6f, alias);
  for (size_t k = 0; k < x.size(); ++k) RC_ASSERT(same_bits(fused["sum"][k], x[k] + skip[k]));
  const auto unfused = call::rms_norm(b, fused["sum"], g, {rows, d}, 1e-6f)["y"];
  for (size_t k = 0; k < x.size(); ++k) {
    RC_ASSERT(agree(fused["y"][k], unfused[k], std::fabs(unfused[k]), "FusedSkipNorm"));
    RC_ASSERT(std::fabs(fused["y"][k] - unfused[k]) <= 1e-4 * std::fabs(unfused[k]) + 1e-30);
  }
}

void fused_skip_norm_rows_are_independent(const Backend& b) {
  const int64_t rows = *rc::gen::inRange<int64_t>(1, 9), d = *rc::gen::inRange<int64_t>(1, 200);
  const Shape shape = rows_shape(rows, d);
  const Floats x = finite_floats(rows * d), skip = finite_floats(rows * d), g = finite_floats(d);
  const auto batch = call::fused_skip_norm(b, x, skip, g, shape, 1e-5f)["y"];
  for (int64_t r = 0; r < rows; ++r) {
    const auto alone = call::fused_skip_norm(b, slice(x, r * d, d), slice(skip, r * d, d), g, {d}, 1e-5f)["y"];
    for (int64_t i = 0; i < d; ++i) RC_ASSERT(same_bits(alone[i], batch[r * d + i]));
  }
}

}  // namespace

namespace props {

std::vector<Property> norm_properties() {
  return {
      {"hand_example", "RmsNorm", "unit", rms_norm_hand_example},
      {"rms_norm_eps_is_inside_the_root", "RmsNorm", "boundary", rms_norm_eps_is_inside_the_root},
      {"rms_norm_rows_are_independent_and_in_place", "RmsNorm", "property", rms_norm_rows_are_independent_and_in_place},
      {"hand_example", "LayerNorm", "unit", layer_norm_hand_example},
      {"layer_norm_mean_zero_variance_one", "LayerNorm", "property", layer_norm_mean_zero_variance_one},
      {"layer_norm_eps_is_inside_the_root", "LayerNorm", "boundary", layer_norm_eps_is_inside_the_root},
      {"layer_norm_rows_are_independent_and_in_place", "LayerNorm", "property",
       layer_norm_rows_are_independent_and_in_place},
      {"hand_example", "BatchNorm", "unit", batch_norm_hand_example},
      {"batch_norm_uses_running_statistics", "BatchNorm", "property", batch_norm_uses_running_statistics},
      {"hand_example", "GroupNorm", "unit", group_norm_hand_example},
      {"group_norm_groups_are_consecutive_channels", "GroupNorm", "property",
       group_norm_groups_are_consecutive_channels},
      {"group_norm_extremes_are_instance_and_layer_norm", "GroupNorm", "property",
       group_norm_extremes_are_instance_and_layer_norm},
      {"group_norm_refuses_groups_not_dividing_c", "GroupNorm", "boundary", group_norm_refuses_groups_not_dividing_c},
      {"group_norm_samples_are_independent_and_in_place", "GroupNorm", "property",
       group_norm_samples_are_independent_and_in_place},
      {"hand_example", "InstanceNorm", "unit", instance_norm_hand_example},
      {"instance_norm_is_per_sample_and_channel", "InstanceNorm", "property", instance_norm_is_per_sample_and_channel},
      {"hand_example", "AdaLN", "unit", ada_ln_hand_example},
      {"ada_ln_zero_modulation_is_layer_norm", "AdaLN", "property", ada_ln_zero_modulation_is_layer_norm},
      {"ada_ln_modulates_per_sample", "AdaLN", "property", ada_ln_modulates_per_sample},
      {"ada_ln_rows_are_independent_and_in_place", "AdaLN", "property", ada_ln_rows_are_independent_and_in_place},
      {"hand_example", "AdaLN_Zero", "unit", ada_ln_zero_hand_example},
      {"ada_ln_zero_gate_zero_keeps_the_stream", "AdaLN_Zero", "property", ada_ln_zero_gate_zero_keeps_the_stream},
      {"ada_ln_zero_residual_is_mul_add_or_fma", "AdaLN_Zero", "property", ada_ln_zero_residual_is_mul_add_or_fma},
      {"hand_example", "FusedSkipNorm", "unit", fused_skip_norm_hand_example},
      {"fused_skip_norm_matches_unfused", "FusedSkipNorm", "property", fused_skip_norm_matches_unfused},
      {"fused_skip_norm_rows_are_independent", "FusedSkipNorm", "property", fused_skip_norm_rows_are_independent},
  };
}

}  // namespace props
}  // namespace konform
