// Properties of Rope, Rope_cache and MultiAxisRope (spec §3, tinyllm/pos.h):
// the spec's notes (position 0 is the identity, an odd head_dim and a
// position past max_position_embeddings are refused, each axis of a
// multi-axis Rope is a Rope of its own) and the math (a rotation; the cache
// is the formula). Each can fail: mutants/pos_base.c's mutants break them.
#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "konform/properties.hpp"
#include "konform/reference/pos.hpp"
#include "pos_calls.hpp"
#include "support.hpp"
#include "tinyllm/pos.h"

namespace konform {
namespace {

using namespace props;
namespace calls = pos_calls;

// The cache of the contract (the oracle's convention, rounded to float).
std::vector<float> contract_cache(int64_t max_seq, int64_t rot, float base) {
  std::vector<float> cache(static_cast<size_t>(max_seq * rot));
  reference::rope_cache<float>(cache.data(), max_seq, rot, base);
  return cache;
}

float any_base() { return *rc::gen::element(10000.0f, 500000.0f, 1000000.0f, 100.0f, 2.5f, 1e9f); }

// The partner of entry i within a rotary range of width `width` (i < width).
int64_t partner(int layout, int64_t width, int64_t i) {
  if (layout == TL_ROPE_INTERLEAVED) return i ^ 1;
  return i < width / 2 ? i + width / 2 : i - width / 2;
}

// ---------------------------------------------------------------- Rope

// The worked example of spec/elementwise-kernels.txt §3 (x = [1, 2, 3, 4],
// position 1, frequencies [1, 0.01] = base 10000 over 4), both pairings.
void rope_hand_example(const Backend& b) {
  const auto cache = contract_cache(2, 4, 10000.0f);
  const auto neox = calls::rope(b, {1, 2, 3, 4}, {1}, 1, 1, 4, 4, cache, 2, TL_ROPE_NEOX);
  const auto inter = calls::rope(b, {1, 2, 3, 4}, {1}, 1, 1, 4, 4, cache, 2, TL_ROPE_INTERLEAVED);
  RC_ASSERT(neox.status == TL_OK && inter.status == TL_OK);
  const double want_neox[] = {-1.9841107, 1.9599007, 2.4623779, 4.0197997};
  const double want_inter[] = {-1.1426397, 1.9220756, 2.9598507, 4.0297995};
  // The op's scale |a c| + |b s| of each pair: (x0, x2) and (x1, x3) at angles 1 and 0.01 (neox),
  // (x0, x1) and (x2, x3) at the same angles (interleaved).
  const double c0 = std::cos(1.0), s0 = std::sin(1.0), c1 = std::cos(0.01), s1 = std::sin(0.01);
  const double scale_neox[] = {1 * c0 + 3 * s0, 2 * c1 + 4 * s1, 1 * s0 + 3 * c0, 2 * s1 + 4 * c1};
  const double scale_inter[] = {1 * c0 + 2 * s0, 1 * s0 + 2 * c0, 3 * c1 + 4 * s1, 3 * s1 + 4 * c1};
  const double limit = limit_of("Rope");
  for (int i = 0; i < 4; ++i) {
    RC_ASSERT(matches_printed(neox.out[i], want_neox[i], scale_neox[i], limit));
    RC_ASSERT(matches_printed(inter.out[i], want_inter[i], scale_inter[i], limit));
  }
}

// A one-hot x: the 1 at entry i moves only into i and its partner as the
// layout names it (j + rot/2 for NeoX, 2j + 1 for interleaved); past rot_dim
// it stays where it is.
void rope_layouts_pair_as_named(const Backend& b) {
  const int64_t D = 2 * *rc::gen::inRange<int64_t>(1, 40), rot = 2 * *rc::gen::inRange<int64_t>(1, D / 2 + 1);
  const int layout = *rc::gen::inRange(0, 2);
  const int64_t max_seq = *rc::gen::inRange<int64_t>(2, 200);
  const int32_t p = *rc::gen::inRange<int32_t>(1, static_cast<int32_t>(max_seq));
  const int64_t i = *rc::gen::inRange<int64_t>(0, D);
  std::vector<float> x(static_cast<size_t>(D), 0.0f);
  x[i] = 1.0f;
  const auto y = calls::rope(b, x, {p}, 1, 1, D, rot, contract_cache(max_seq, rot, any_base()), max_seq, layout);
  RC_ASSERT(y.status == TL_OK);
  const int64_t q = i < rot ? partner(layout, rot, i) : i;
  for (int64_t k = 0; k < D; ++k)
    if (k != i && k != q) RC_ASSERT(y.out[k] == 0.0f);
  if (i >= rot) RC_ASSERT(y.out[i] == 1.0f);
  else RC_ASSERT(y.out[q] != 0.0f && std::fabs(y.out[i]) <= 1.0f);  // sin and cos of a non-zero angle
}

// Position 0 is the identity (cos 1, sin 0), with a one-row cache too.
void rope_position_zero_is_identity(const Backend& b) {
  const int64_t T = *rc::gen::inRange<int64_t>(1, 4), H = *rc::gen::inRange<int64_t>(1, 4);
  const int64_t D = 2 * *rc::gen::inRange<int64_t>(1, 40), rot = 2 * *rc::gen::inRange<int64_t>(1, D / 2 + 1);
  const int layout = *rc::gen::inRange(0, 2);
  const int64_t max_seq = *rc::gen::inRange<int64_t>(1, 50);
  const auto x = finite_floats(T * H * D);
  const auto y = calls::rope(b, x, std::vector<int32_t>(static_cast<size_t>(T), 0), T, H, D, rot,
                             contract_cache(max_seq, rot, any_base()), max_seq, layout);
  RC_ASSERT(y.status == TL_OK);
  for (size_t k = 0; k < x.size(); ++k) RC_ASSERT(y.out[k] == x[k]);
}

// Every pair keeps its length, any shape, position and layout.
void rope_is_a_rotation(const Backend& b) {
  const int64_t T = *rc::gen::inRange<int64_t>(1, 4), H = *rc::gen::inRange<int64_t>(1, 4);
  const int64_t D = 2 * *rc::gen::inRange<int64_t>(1, 40), rot = 2 * *rc::gen::inRange<int64_t>(1, D / 2 + 1);
  const int layout = *rc::gen::inRange(0, 2);
  const int64_t max_seq = *rc::gen::inRange<int64_t>(1, 1000);
  std::vector<int32_t> pos(static_cast<size_t>(T));
  for (auto& p : pos) p = *rc::gen::inRange<int32_t>(0, static_cast<int32_t>(max_seq));
  const auto x = finite_floats(T * H * D);
  const auto y = calls::rope(b, x, pos, T, H, D, rot, contract_cache(max_seq, rot, any_base()), max_seq, layout);
  RC_ASSERT(y.status == TL_OK);
  for (int64_t r = 0; r < T * H; ++r)
    for (int64_t i = 0; i < rot; ++i) {
      const int64_t ia = r * D + i, ib = r * D + partner(layout, rot, i);
      const double before = std::hypot(double(x[ia]), double(x[ib])),
                   after = std::hypot(double(y.out[ia]), double(y.out[ib]));
      RC_ASSERT(near(after, before, std::fabs(x[ia]) + std::fabs(x[ib]), limit_of("Rope")));
    }
}

// Rope from the cache is Rope from the spec's formula: the cache's rounding
// (2^-25 absolute) on top of the rotation's own limit.
void rope_from_the_cache_is_the_formula(const Backend& b) {
  const int64_t T = *rc::gen::inRange<int64_t>(1, 4), H = *rc::gen::inRange<int64_t>(1, 3);
  const int64_t D = 2 * *rc::gen::inRange<int64_t>(1, 40), rot = 2 * *rc::gen::inRange<int64_t>(1, D / 2 + 1);
  const int layout = *rc::gen::inRange(0, 2);
  const float base = any_base();
  const int64_t max_seq = *rc::gen::inRange<int64_t>(1, 1000);
  std::vector<int32_t> pos(static_cast<size_t>(T));
  for (auto& p : pos) p = *rc::gen::inRange<int32_t>(0, static_cast<int32_t>(max_seq));
  const auto x = finite_floats(T * H * D);
  const auto y = calls::rope(b, x, pos, T, H, D, rot, contract_cache(max_seq, rot, base), max_seq, layout);
  RC_ASSERT(y.status == TL_OK);
  std::vector<double> want(x.size());
  reference::rope_direct<double>(x.data(), want.data(), pos.data(), T, H, D, rot, base, layout);
  for (int64_t r = 0; r < T * H; ++r)
    for (int64_t i = 0; i < D; ++i) {
      const int64_t e = r * D + i;
      if (i >= rot) RC_ASSERT(same_bits(y.out[e], x[e]));
      else
        RC_ASSERT(near(y.out[e], want[e], std::fabs(x[e]) + std::fabs(x[r * D + partner(layout, rot, i)]),
                       limit_of("Rope") + 1));
    }
}

// y == x gives the bits of a separate output.
void rope_in_place(const Backend& b) {
  const int64_t T = *rc::gen::inRange<int64_t>(1, 4), H = *rc::gen::inRange<int64_t>(1, 4);
  const int64_t D = 2 * *rc::gen::inRange<int64_t>(1, 40), rot = 2 * *rc::gen::inRange<int64_t>(1, D / 2 + 1);
  const int layout = *rc::gen::inRange(0, 2);
  const int64_t max_seq = 64;
  std::vector<int32_t> pos(static_cast<size_t>(T));
  for (auto& p : pos) p = *rc::gen::inRange<int32_t>(0, 64);
  const auto x = finite_floats(T * H * D);
  const auto cache = contract_cache(max_seq, rot, 10000.0f);
  const auto apart = calls::rope(b, x, pos, T, H, D, rot, cache, max_seq, layout);
  const auto in_place = calls::rope(b, x, pos, T, H, D, rot, cache, max_seq, layout, true);
  RC_ASSERT(apart.status == TL_OK && in_place.status == TL_OK);
  for (size_t k = 0; k < x.size(); ++k) RC_ASSERT(same_bits(apart.out[k], in_place.out[k]));
}

// ContextOverflowError for a position at or past max_seq, at any token (the
// last one too: checked before anything is written); a negative position is
// an invalid argument; max_seq - 1 is the last valid one.
void rope_refuses_position_past_the_cache(const Backend& b) {
  const int64_t T = *rc::gen::inRange<int64_t>(1, 5), H = *rc::gen::inRange<int64_t>(1, 3);
  const int64_t D = 2 * *rc::gen::inRange<int64_t>(1, 20);
  const int layout = *rc::gen::inRange(0, 2);
  const int64_t max_seq = *rc::gen::inRange<int64_t>(1, 64);
  const auto cache = contract_cache(max_seq, D, 10000.0f);
  const auto x = finite_floats(T * H * D);
  std::vector<int32_t> pos(static_cast<size_t>(T));
  for (auto& p : pos) p = *rc::gen::inRange<int32_t>(0, static_cast<int32_t>(max_seq));
  const int64_t t = *rc::gen::element(T - 1, *rc::gen::inRange<int64_t>(0, T));

  pos[t] = static_cast<int32_t>(max_seq - 1);
  RC_ASSERT(calls::rope(b, x, pos, T, H, D, D, cache, max_seq, layout).status == TL_OK);
  pos[t] = static_cast<int32_t>(max_seq + *rc::gen::inRange<int64_t>(0, 3));
  RC_ASSERT(calls::rope(b, x, pos, T, H, D, D, cache, max_seq, layout).status == TL_ERR_CONTEXT_OVERFLOW);
  RC_ASSERT(calls::rope(b, x, pos, T, H, D, D, cache, max_seq, layout, true).status == TL_ERR_CONTEXT_OVERFLOW);
  pos[t] = *rc::gen::element(-1, INT32_MIN);
  RC_ASSERT(calls::rope(b, x, pos, T, H, D, D, cache, max_seq, layout).status == TL_ERR_INVALID_ARGUMENT);
}

// An odd head_dim is refused even when the rotated part is even, and so is
// an odd rot_dim; nothing is written.
void rope_refuses_odd_head_dim(const Backend& b) {
  const int64_t half = *rc::gen::inRange<int64_t>(1, 20), H = *rc::gen::inRange<int64_t>(1, 3);
  const int64_t D = 2 * half + 1, rot = 2 * half;
  const int layout = *rc::gen::inRange(0, 2);
  const auto cache = contract_cache(8, rot, 10000.0f);
  const auto x = finite_floats(H * D);
  RC_ASSERT(calls::rope(b, x, {3}, 1, H, D, rot, cache, 8, layout).status == TL_ERR_INVALID_ARGUMENT);
  const auto even = finite_floats(H * (D + 1));
  RC_ASSERT(calls::rope(b, even, {3}, 1, H, D + 1, rot - 1, cache, 8, layout).status == TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(calls::rope(b, even, {3}, 1, H, D + 1, rot, cache, 8, layout).status == TL_OK);
}

// ---------------------------------------------------------------- Rope_cache

void rope_cache_hand_example(const Backend& b) {
  const auto c = calls::rope_cache(b, 2, 4, 10000.0f);
  RC_ASSERT(c.status == TL_OK);
  RC_ASSERT(c.out[0] == 1.0f && c.out[1] == 1.0f && c.out[2] == 0.0f && c.out[3] == 0.0f);
  const double want[] = {0.5403023, 0.9999500, 0.8414710, 0.0099998333};
  for (int i = 0; i < 4; ++i)
    RC_ASSERT(matches_printed(c.out[4 + i], want[i], 1.0, limit_of("Rope_cache")));  // absolute
}

// Every entry is cos or sin of p * base^(-2j/rot_dim) formed in double, within
// the limit (absolute): at thousands of positions an f32 angle is off by
// thousands of units, an exponent of j/d instead of 2j/d by far more.
void rope_cache_equals_direct_computation(const Backend& b) {
  const int64_t rot = 2 * *rc::gen::inRange<int64_t>(1, 25), max_seq = *rc::gen::inRange<int64_t>(1, 3000);
  const float base = *rc::gen::element(any_base(), 1e10f, 1.0f);
  const auto c = calls::rope_cache(b, max_seq, rot, base);
  RC_ASSERT(c.status == TL_OK);
  const int64_t half = rot / 2;
  for (int64_t j = 0; j < half; ++j) {
    const double f = std::pow(double(base), -double(2 * j) / double(rot));
    for (int64_t p = 0; p < max_seq; p += 1 + p / 8) {
      RC_ASSERT(near(c.out[p * rot + j], std::cos(double(p) * f), 1.0, limit_of("Rope_cache")));
      RC_ASSERT(near(c.out[p * rot + half + j], std::sin(double(p) * f), 1.0, limit_of("Rope_cache")));
    }
  }
}

// Row p does not depend on max_seq (a prefix of a longer cache, bit for bit);
// row 0 is (1, 0); every (cos, sin) is on the unit circle.
void rope_cache_rows_do_not_depend_on_max_seq(const Backend& b) {
  const int64_t rot = 2 * *rc::gen::inRange<int64_t>(1, 33), longer = *rc::gen::inRange<int64_t>(2, 600);
  const int64_t shorter = *rc::gen::inRange<int64_t>(1, longer);
  const float base = any_base();
  const auto a = calls::rope_cache(b, shorter, rot, base), c = calls::rope_cache(b, longer, rot, base);
  RC_ASSERT(a.status == TL_OK && c.status == TL_OK);
  for (int64_t k = 0; k < shorter * rot; ++k) RC_ASSERT(same_bits(a.out[k], c.out[k]));
  const int64_t half = rot / 2;
  for (int64_t j = 0; j < half; ++j) RC_ASSERT(c.out[j] == 1.0f && c.out[half + j] == 0.0f);
  for (int64_t p = 0; p < longer; ++p)
    for (int64_t j = 0; j < half; ++j) {
      const double cs = c.out[p * rot + j], sn = c.out[p * rot + half + j];
      RC_ASSERT(std::fabs(cs * cs + sn * sn - 1.0) <= 4 * 0x1p-24);
    }
}

// Odd or empty rotary widths, no positions or more than 2^24, and bases that
// are not finite positive numbers are refused; the spec's extreme bases
// (< 1, > 1e9) are permitted.
void rope_cache_refuses_bad_arguments(const Backend& b) {
  const int64_t rot = 2 * *rc::gen::inRange<int64_t>(1, 20), max_seq = *rc::gen::inRange<int64_t>(1, 40);
  RC_ASSERT(calls::rope_cache(b, max_seq, rot - 1, 10000.0f).status == TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(calls::rope_cache(b, max_seq, 0, 10000.0f).status == TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(calls::rope_cache(b, 0, rot, 10000.0f).status == TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(calls::rope_cache(b, int64_t{TL_ROPE_MAX_POSITIONS} + 1, rot, 10000.0f).status == TL_ERR_INVALID_ARGUMENT);
  const float bad = *rc::gen::element(0.0f, -1.0f, -10000.0f, std::numeric_limits<float>::quiet_NaN(),
                                      std::numeric_limits<float>::infinity());
  RC_ASSERT(calls::rope_cache(b, max_seq, rot, bad).status == TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(calls::rope_cache(b, max_seq, rot, *rc::gen::element(0.5f, 0.9f, 2e9f, 1e20f)).status == TL_OK);
}

// ---------------------------------------------------------------- MultiAxisRope

// x = [1..6], axes of widths [2, 4] at positions [3, 2] with bases
// [10000, 100]: angles 3 (axis 0) and 2, 0.2 (axis 1); digits from mpmath.
void multi_axis_hand_example(const Backend& b) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  const auto neox = calls::multi_axis_rope(b, x, {3, 2}, 1, 1, 6, {2, 4}, {10000.0f, 100.0f}, TL_ROPE_NEOX);
  const auto inter = calls::multi_axis_rope(b, x, {3, 2}, 1, 1, 6, {2, 4}, {10000.0f, 100.0f}, TL_ROPE_INTERLEAVED);
  RC_ASSERT(neox.status == TL_OK && inter.status == TL_OK);
  const double want_neox[] = {-1.2722325, -1.8388650, -5.7949276, 2.7282503, 0.64715810, 6.6750768};
  const double want_inter[] = {-1.2722325, -1.8388650, -4.8856302, 1.0633049, 3.7083169, 6.8737461};
  // The op's scale |a| + |b| of each element's pair: (x0, x1) on axis 0; (x2, x4), (x3, x5) (neox) or
  // (x2, x3), (x4, x5) (interleaved) on axis 1.
  const double scale_neox[] = {3, 3, 8, 10, 8, 10}, scale_inter[] = {3, 3, 7, 7, 11, 11};
  const double limit = limit_of("MultiAxisRope");
  for (int i = 0; i < 6; ++i) {
    RC_ASSERT(matches_printed(neox.out[i], want_neox[i], scale_neox[i], limit));
    RC_ASSERT(matches_printed(inter.out[i], want_inter[i], scale_inter[i], limit));
  }
}

// With one axis, MultiAxisRope is Rope: the same as the backend's Rope from
// the contract's cache (when it has one) and as the spec's formula.
void multi_axis_rope_one_axis_is_rope(const Backend& b) {
  const int64_t T = *rc::gen::inRange<int64_t>(1, 4), H = *rc::gen::inRange<int64_t>(1, 3);
  const int64_t D = 2 * *rc::gen::inRange<int64_t>(1, 40);
  const int layout = *rc::gen::inRange(0, 2);
  const float base = any_base();
  std::vector<int32_t> pos(static_cast<size_t>(T));
  for (auto& p : pos) p = *rc::gen::inRange<int32_t>(0, 2000);
  const auto x = finite_floats(T * H * D);
  const auto y = calls::multi_axis_rope(b, x, pos, T, H, D, {D}, {base}, layout);
  RC_ASSERT(y.status == TL_OK);
  std::vector<double> want(x.size());
  reference::rope_direct<double>(x.data(), want.data(), pos.data(), T, H, D, D, base, layout);
  const bool has_rope = b.symbol("tl_rope_apply_f32") != nullptr;
  const auto rope =
      has_rope ? calls::rope(b, x, pos, T, H, D, D, contract_cache(2000, D, base), 2000, layout) : calls::Result{};
  for (int64_t r = 0; r < T * H; ++r)
    for (int64_t i = 0; i < D; ++i) {
      const int64_t e = r * D + i;
      const double pair = std::fabs(x[e]) + std::fabs(x[r * D + partner(layout, D, i)]);
      RC_ASSERT(near(y.out[e], want[e], pair, limit_of("MultiAxisRope")));
      if (has_rope) RC_ASSERT(near(y.out[e], rope.out[e], pair, limit_of("MultiAxisRope") + limit_of("Rope") + 1));
    }
}

// Every sub-range is the Rope of its own axis: its width, its position, its
// base (swapped sub-ranges or one base for all fail here).
void multi_axis_rope_axes_are_independent_ropes(const Backend& b) {
  const int64_t n_axes = *rc::gen::inRange<int64_t>(2, 5), T = *rc::gen::inRange<int64_t>(1, 4);
  const int64_t H = *rc::gen::inRange<int64_t>(1, 3);
  const int layout = *rc::gen::inRange(0, 2);
  std::vector<int64_t> dims(static_cast<size_t>(n_axes));
  std::vector<float> bases(static_cast<size_t>(n_axes));
  int64_t D = 0;
  for (int64_t a = 0; a < n_axes; ++a) {
    dims[a] = 2 * *rc::gen::inRange<int64_t>(1, 17);
    bases[a] = *rc::gen::element(10000.0f, 100.0f, 256.0f, 1000000.0f, 20.0f);
    D += dims[a];
  }
  std::vector<int32_t> pos(static_cast<size_t>(T * n_axes));
  for (auto& p : pos) p = *rc::gen::inRange<int32_t>(-500, 500);
  const auto x = finite_floats(T * H * D);
  const auto y = calls::multi_axis_rope(b, x, pos, T, H, D, dims, bases, layout);
  RC_ASSERT(y.status == TL_OK);
  int64_t offset = 0;
  for (int64_t a = 0; a < n_axes; ++a) {
    for (int64_t r = 0; r < T * H; ++r) {
      const int64_t t = r / H;
      std::vector<float> slice(x.begin() + r * D + offset, x.begin() + r * D + offset + dims[a]);
      std::vector<double> want(slice.size());
      reference::rope_direct<double>(slice.data(), want.data(), &pos[t * n_axes + a], 1, 1, dims[a], dims[a], bases[a],
                                     layout);
      for (int64_t i = 0; i < dims[a]; ++i) {
        const double pair = std::fabs(slice[i]) + std::fabs(slice[partner(layout, dims[a], i)]);
        RC_ASSERT(near(y.out[r * D + offset + i], want[i], pair, limit_of("MultiAxisRope")));
      }
    }
    offset += dims[a];
  }
}

// An odd or zero axis width is an invalid argument, widths that do not sum
// to head_dim a shape error; nothing is written.
void multi_axis_rope_refuses_bad_widths(const Backend& b) {
  const int64_t w = 2 * *rc::gen::inRange<int64_t>(1, 10), v = 2 * *rc::gen::inRange<int64_t>(1, 10);
  const auto x = finite_floats(w + v), wider = finite_floats(w + v + 2);
  const std::vector<float> bases = {10000.0f, 100.0f};
  RC_ASSERT(calls::multi_axis_rope(b, wider, {1, 2}, 1, 1, w + v + 1, {w + 1, v}, bases, TL_ROPE_NEOX).status ==
            TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(calls::multi_axis_rope(b, x, {1, 2}, 1, 1, w + v, {0, w + v}, bases, TL_ROPE_NEOX).status ==
            TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(calls::multi_axis_rope(b, wider, {1, 2}, 1, 1, w + v + 2, {w, v}, bases, TL_ROPE_NEOX).status ==
            TL_ERR_SHAPE);
  RC_ASSERT(calls::multi_axis_rope(b, x, {1, 2}, 1, 1, w + v, {w, v}, {10000.0f, 0.0f}, TL_ROPE_INTERLEAVED).status ==
            TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(calls::multi_axis_rope(b, x, {1, 2}, 1, 1, w + v, {w, v}, bases, TL_ROPE_INTERLEAVED).status == TL_OK);
}

}  // namespace

namespace props {

std::vector<Property> pos_rope_properties() {
  return {
      {"hand_example", "Rope", "unit", rope_hand_example},
      {"rope_layouts_pair_as_named", "Rope", "property", rope_layouts_pair_as_named},
      {"rope_position_zero_is_identity", "Rope", "property", rope_position_zero_is_identity},
      {"rope_is_a_rotation", "Rope", "property", rope_is_a_rotation},
      {"rope_from_the_cache_is_the_formula", "Rope", "property", rope_from_the_cache_is_the_formula},
      {"rope_in_place", "Rope", "property", rope_in_place},
      {"rope_refuses_position_past_the_cache", "Rope", "boundary", rope_refuses_position_past_the_cache},
      {"rope_refuses_odd_head_dim", "Rope", "boundary", rope_refuses_odd_head_dim},
      {"hand_example", "Rope_cache", "unit", rope_cache_hand_example},
      {"rope_cache_equals_direct_computation", "Rope_cache", "property", rope_cache_equals_direct_computation},
      {"rope_cache_rows_do_not_depend_on_max_seq", "Rope_cache", "property", rope_cache_rows_do_not_depend_on_max_seq},
      {"rope_cache_refuses_bad_arguments", "Rope_cache", "boundary", rope_cache_refuses_bad_arguments},
      {"hand_example", "MultiAxisRope", "unit", multi_axis_hand_example},
      {"multi_axis_rope_one_axis_is_rope", "MultiAxisRope", "property", multi_axis_rope_one_axis_is_rope},
      {"multi_axis_rope_axes_are_independent_ropes", "MultiAxisRope", "property",
       multi_axis_rope_axes_are_independent_ropes},
      {"multi_axis_rope_refuses_bad_widths", "MultiAxisRope", "boundary", multi_axis_rope_refuses_bad_widths},
  };
}

}  // namespace props
}  // namespace konform
