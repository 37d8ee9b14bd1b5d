// The test catalog of spec/elementwise-kernels.txt §4, one property each,
// named as there. Each states a fact of the contract and can fail: the
// mutant named beside it in §5 breaks it.
#include <bit>
#include <cfloat>
#include <cmath>
#include <limits>

#include "calls.hpp"
#include "konform/properties.hpp"
#include "konform/reference/elementwise.hpp"
#include "support.hpp"

namespace konform {
namespace {

using namespace props;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> ones(int64_t n) { return std::vector<float>(static_cast<size_t>(n), 1.0f); }

// ---------------------------------------------------------------- rmsnorm

void rmsnorm_hand_example(const Backend& b) {
  const auto y = calls::rmsnorm(b, {3, 4}, {1, 0.5f}, 1, 2, 0.0f);
  RC_ASSERT(matches_printed(y[0], 0.8485281, 0.8485281, limit_of("elementwise_rmsnorm")));  // the scale: |y|
  RC_ASSERT(matches_printed(y[1], 0.5656854, 0.5656854, limit_of("elementwise_rmsnorm")));
}

// [1e-3, 1e-3] with eps = 1e-6 gives 0.7071 (eps outside: 0.999; sum not
// divided by d: 0.577); a zero row gives zeros; tiny rows of any width
// match the oracle, where eps decides the result.
void rmsnorm_eps_is_inside_the_root(const Backend& b) {
  const auto y = calls::rmsnorm(b, {1e-3f, 1e-3f}, ones(2), 1, 2, 1e-6f);
  RC_ASSERT(std::fabs(y[0] - 0.70710678) < 1e-6 && std::fabs(y[1] - 0.70710678) < 1e-6);

  const int64_t d = *rc::gen::inRange<int64_t>(1, 300);
  const auto zeros = calls::rmsnorm(b, std::vector<float>(static_cast<size_t>(d), 0.0f), ones(d), 1, d, 1e-5f);
  for (float v : zeros) RC_ASSERT(v == 0.0f);

  const float eps = *rc::gen::element(1e-5f, 1e-6f);
  auto x = finite_floats(d);
  for (float& v : x) v *= std::sqrt(eps) * 0x1p-20f;  // mean square at or below eps
  const auto w = finite_floats(d);
  const auto got = calls::rmsnorm(b, x, w, 1, d, eps);
  std::vector<double> want(static_cast<size_t>(d));
  reference::rmsnorm<double>(x.data(), w.data(), want.data(), 1, d, eps);
  for (int64_t i = 0; i < d; ++i) RC_ASSERT(near(got[i], want[i], std::fabs(want[i]), limit_of("elementwise_rmsnorm")));
}

// Every row alone equals the row in a batch of up to 12, bit for bit, and
// y == x gives the same bits as a separate output.
void rmsnorm_rows_are_independent_and_in_place(const Backend& b) {
  const int64_t rows = *rc::gen::inRange<int64_t>(1, 13), d = *rc::gen::inRange<int64_t>(1, 200);
  const auto x = finite_floats(rows * d), w = finite_floats(d);
  const float eps = *rc::gen::element(1e-5f, 1e-6f, 0.0f);
  const auto batch = calls::rmsnorm(b, x, w, rows, d, eps);
  const auto in_place = calls::rmsnorm(b, x, w, rows, d, eps, true);
  RC_ASSERT(same_bits(batch[0], in_place[0]));
  for (size_t k = 0; k < batch.size(); ++k) RC_ASSERT(same_bits(batch[k], in_place[k]));
  for (int64_t r = 0; r < rows; ++r) {
    const std::vector<float> row(x.begin() + r * d, x.begin() + (r + 1) * d);
    const auto alone = calls::rmsnorm(b, row, w, 1, d, eps);
    for (int64_t i = 0; i < d; ++i) RC_ASSERT(same_bits(alone[i], batch[r * d + i]));
  }
}

// ---------------------------------------------------------------- rope

void rope_hand_example(const Backend& b) {
  const auto y = calls::rope(b, {1, 2, 3, 4}, {1}, 1, 1, 4, 4, {1.0f, 0.01f}, 1.0f, 0);
  const double want[] = {-1.9841107, 1.9599007, 2.4623779, 4.0197997};
  const double pair[] = {4, 6, 4, 6};  // the scale: |a| + |b| of the rotated pair (x0, x2), (x1, x3)
  for (int i = 0; i < 4; ++i) RC_ASSERT(matches_printed(y[i], want[i], pair[i], limit_of("elementwise_rope")));
}

// The interleaved worked example; position 0 leaves every finite x as it is.
void rope_interleaved_layout_and_position_zero(const Backend& b) {
  const auto y = calls::rope(b, {1, 2, 3, 4}, {1}, 1, 1, 4, 4, {1.0f, 0.01f}, 1.0f, 1);
  const double want[] = {-1.1426397, 1.9220756, 2.9598507, 4.0297995};
  const double pair[] = {3, 3, 7, 7};  // the scale: |a| + |b| of the pairs (x0, x1), (x2, x3)
  for (int i = 0; i < 4; ++i) RC_ASSERT(matches_printed(y[i], want[i], pair[i], limit_of("elementwise_rope")));

  const int64_t H = *rc::gen::inRange<int64_t>(1, 4), half = *rc::gen::inRange<int64_t>(1, 40);
  const int64_t D = 2 * half, T = *rc::gen::inRange<int64_t>(1, 4);
  const int layout = *rc::gen::inRange(0, 2);
  const auto x = finite_floats(T * H * D), freq = finite_floats(half);
  const auto same = calls::rope(b, x, std::vector<int32_t>(static_cast<size_t>(T), 0), T, H, D, D, freq, 1.0f, layout);
  for (size_t k = 0; k < x.size(); ++k) RC_ASSERT(same_bits(same[k], x[k]));
}

// The tail past d_rot is untouched; mu = 2 doubles every rotated entry; and
// [T, H, D] indexing matches the oracle with a distinct position per token.
void rope_partial_rotary_and_scaling(const Backend& b) {
  const int64_t T = *rc::gen::inRange<int64_t>(1, 5), H = *rc::gen::inRange<int64_t>(1, 5);
  const int64_t d_rot = 2 * *rc::gen::inRange<int64_t>(1, 40), D = d_rot + *rc::gen::inRange<int64_t>(1, 20);
  const int layout = *rc::gen::inRange(0, 2);
  const auto x = finite_floats(T * H * D);
  std::vector<float> freq(static_cast<size_t>(d_rot / 2));
  for (int64_t i = 0; i < d_rot / 2; ++i) freq[i] = static_cast<float>(std::pow(10000.0, -2.0 * i / d_rot));
  std::vector<int32_t> pos(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) pos[t] = static_cast<int32_t>(3 * t + 1);

  const auto once = calls::rope(b, x, pos, T, H, D, d_rot, freq, 1.0f, layout);
  const auto twice = calls::rope(b, x, pos, T, H, D, d_rot, freq, 2.0f, layout);
  std::vector<double> want(x.size());
  reference::rope<double>(x.data(), want.data(), pos.data(), T, H, D, d_rot, freq.data(), 1.0f, layout);
  for (int64_t k = 0; k < T * H; ++k)
    for (int64_t i = 0; i < D; ++i) {
      const int64_t e = k * D + i;
      if (i >= d_rot) {
        RC_ASSERT(same_bits(once[e], x[e]));
        RC_ASSERT(same_bits(twice[e], x[e]));
      } else {
        RC_ASSERT(twice[e] == 2.0f * once[e]);
        // Against the pair's length, the scale the tolerance table uses.
        int64_t p = layout == 0 ? (i < d_rot / 2 ? i + d_rot / 2 : i - d_rot / 2) : (i ^ 1);
        RC_ASSERT(near(once[e], want[e], std::fabs(x[e]) + std::fabs(x[k * D + p]), limit_of("elementwise_rope")));
      }
    }
}

// Every pair keeps its length times mu, any shape, position and layout.
void rope_is_a_rotation(const Backend& b) {
  const int64_t T = *rc::gen::inRange<int64_t>(1, 4), H = *rc::gen::inRange<int64_t>(1, 4);
  const int64_t d_rot = 2 * *rc::gen::inRange<int64_t>(1, 40), D = d_rot + *rc::gen::inRange<int64_t>(0, 5);
  const int layout = *rc::gen::inRange(0, 2);
  const float mu = *rc::gen::element(1.0f, 0.5f, 1.25f);
  const auto x = finite_floats(T * H * D);
  std::vector<float> freq(static_cast<size_t>(d_rot / 2));
  for (int64_t i = 0; i < d_rot / 2; ++i) freq[i] = static_cast<float>(std::pow(500000.0, -2.0 * i / d_rot));
  std::vector<int32_t> pos(static_cast<size_t>(T));
  for (auto& p : pos) p = *rc::gen::inRange<int32_t>(0, 1 << 20);
  const auto y = calls::rope(b, x, pos, T, H, D, d_rot, freq, mu, layout);
  for (int64_t k = 0; k < T * H; ++k)
    for (int64_t i = 0; i < d_rot / 2; ++i) {
      int64_t ia, ib;
      reference::rope_pair(layout, d_rot, i, &ia, &ib);
      const double a = x[k * D + ia], bb = x[k * D + ib], a2 = y[k * D + ia], b2 = y[k * D + ib];
      const double before = mu * std::hypot(a, bb), after = std::hypot(a2, b2);
      RC_ASSERT(near(after, before, mu * (std::fabs(a) + std::fabs(bb)), limit_of("elementwise_rope")));
    }
}

// ---------------------------------------------------------------- silu_mul

void silu_mul_hand_example(const Backend& b) {
  const auto y = calls::silu_mul(b, {0, 1, -1}, {5, 2, 3});
  RC_ASSERT(y[0] == 0.0f);
  RC_ASSERT(matches_printed(y[1], 1.4621172, 1.4621172,
                            limit_of("elementwise_silu_mul")));  // the scale: |y| (the rest is 0 here)
  RC_ASSERT(matches_printed(y[2], -0.8068243, 0.8068243, limit_of("elementwise_silu_mul")));
}

// Gates +-100 and -1e4 give the limits: g u for large g, zero (no NaN) for
// large negative g, with any finite up.
void silu_mul_saturates_without_nan(const Backend& b) {
  const std::vector<float> gate = {100.0f, -100.0f, -1e4f, 1e4f, 88.8f, -88.8f};
  const auto up = finite_floats(static_cast<int64_t>(gate.size()));
  const auto y = calls::silu_mul(b, gate, up);
  for (float v : y) RC_ASSERT(!std::isnan(v));
  RC_ASSERT(near(y[0], 100.0 * up[0], std::fabs(100.0 * up[0]), limit_of("elementwise_silu_mul")));
  RC_ASSERT(std::fabs(y[1]) <= 1e-40 * std::fabs(up[1]));
  RC_ASSERT(y[2] == 0.0f);
  RC_ASSERT(near(y[3], 1e4 * up[3], std::fabs(1e4 * up[3]), limit_of("elementwise_silu_mul")));
  RC_ASSERT(near(y[4], 88.8 * up[4], std::fabs(88.8 * up[4]), limit_of("elementwise_silu_mul")));
  RC_ASSERT(std::fabs(y[5]) <= 1e-36 * std::fabs(up[5]));
}

// ---------------------------------------------------------------- embedding

// Repeated and out-of-order ids gather exactly their rows.
void embedding_gathers_rows(const Backend& b) {
  const int64_t V = *rc::gen::inRange<int64_t>(2, 20), d = *rc::gen::inRange<int64_t>(1, 70);
  const auto table = finite_floats(V * d);
  auto ids = *rc::gen::container<std::vector<int32_t>>(rc::gen::inRange<int32_t>(0, static_cast<int32_t>(V)));
  ids.push_back(static_cast<int32_t>(V - 1));  // never only row 0
  ids.push_back(static_cast<int32_t>(V - 1));  // and a repeat
  const auto out = calls::embedding(b, table, V, ids, d);
  for (size_t t = 0; t < ids.size(); ++t)
    for (int64_t i = 0; i < d; ++i) RC_ASSERT(same_bits(out[t * d + i], table[ids[t] * d + i]));
}

// ---------------------------------------------------------------- add

// y = a + b rounded once, with y == a as well as with a separate y.
void add_in_place(const Backend& b) {
  const int64_t n = *rc::gen::inRange<int64_t>(0, 300);
  const auto a = finite_floats(n), bv = finite_floats(n);
  const auto separate = calls::add(b, a, bv), in_place = calls::add(b, a, bv, true);
  for (int64_t i = 0; i < n; ++i) {
    RC_ASSERT(separate[i] == a[i] + bv[i]);
    RC_ASSERT(same_bits(in_place[i], separate[i]));
  }
}

// ---------------------------------------------------------------- argmax

void argmax_hand_example(const Backend& b) { RC_ASSERT(calls::argmax(b, {2, 7, 7, -1}) == 1); }

// Ties go to the lowest index, NaN is skipped (first place included), -1
// for an empty or all-NaN row, all -Inf gives 0.
void argmax_ties_nan_and_empty(const Backend& b) {
  RC_ASSERT(calls::argmax(b, {}) == -1);
  RC_ASSERT(calls::argmax(b, {kNaN, kNaN, kNaN}) == -1);
  RC_ASSERT(calls::argmax(b, {-kInf, -kInf}) == 0);
  RC_ASSERT(calls::argmax(b, {kNaN, 1.0f, 3.0f, 3.0f}) == 2);

  const int64_t n = *rc::gen::inRange<int64_t>(1, 200);
  std::vector<float> x = finite_floats(n);
  for (float& v : x) v = std::fmod(std::fabs(v), 4.0f);  // values below the maximum 5
  const int64_t first = *rc::gen::inRange<int64_t>(0, n);
  for (int64_t i = first; i < n; ++i)
    if (i == first || *rc::gen::arbitrary<bool>()) x[i] = 5.0f;
  for (int64_t i = 0; i < n; ++i)
    if (i != first && *rc::gen::inRange(0, 8) == 0) x[i] = kNaN;
  if (first > 0) x[0] = kNaN;
  RC_ASSERT(calls::argmax(b, x) == first);
  std::vector<float> all_nan(static_cast<size_t>(n), kNaN);
  RC_ASSERT(calls::argmax(b, all_nan) == -1);
}

}  // namespace

namespace props {

std::vector<Property> elementwise_properties() {
  return {
      {"hand_example", "elementwise_rmsnorm", "unit", rmsnorm_hand_example},
      {"rmsnorm_eps_is_inside_the_root", "elementwise_rmsnorm", "boundary", rmsnorm_eps_is_inside_the_root},
      {"rmsnorm_rows_are_independent_and_in_place", "elementwise_rmsnorm", "property",
       rmsnorm_rows_are_independent_and_in_place},
      {"hand_example", "elementwise_rope", "unit", rope_hand_example},
      {"rope_interleaved_layout_and_position_zero", "elementwise_rope", "unit",
       rope_interleaved_layout_and_position_zero},
      {"rope_partial_rotary_and_scaling", "elementwise_rope", "unit", rope_partial_rotary_and_scaling},
      {"rope_is_a_rotation", "elementwise_rope", "property", rope_is_a_rotation},
      {"hand_example", "elementwise_silu_mul", "unit", silu_mul_hand_example},
      {"silu_mul_saturates_without_nan", "elementwise_silu_mul", "boundary", silu_mul_saturates_without_nan},
      {"embedding_gathers_rows", "elementwise_embedding", "unit", embedding_gathers_rows},
      {"add_in_place", "elementwise_add", "unit", add_in_place},
      {"hand_example", "elementwise_argmax", "unit", argmax_hand_example},
      {"argmax_ties_nan_and_empty", "elementwise_argmax", "boundary", argmax_ties_nan_and_empty},
  };
}

}  // namespace props

}  // namespace konform
