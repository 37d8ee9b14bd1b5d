// Properties of SinusoidalEmbed, TokenEmbed, PosEmbed and RelativePosEmbedding
// (spec §3, tinyllm/pos.h): the spec's formula and layout, sines and cosines
// on the unit circle, exact gathers that refuse bad indices before writing,
// and T5's buckets monotone in distance. Each can fail: mutants/pos_base.c's
// mutants break them.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "konform/properties.hpp"
#include "pos_calls.hpp"
#include "support.hpp"
#include "tinyllm/pos.h"

namespace konform {
namespace {

using namespace props;
namespace calls = pos_calls;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// ---------------------------------------------------------------- SinusoidalEmbed

// Where sin_j and cos_j of a row of width dim sit in each layout.
int64_t sin_at(int layout, int64_t dim, int64_t j) { return layout == 0 ? 2 * j : layout == 1 ? j : dim / 2 + j; }
int64_t cos_at(int layout, int64_t dim, int64_t j) { return layout == 0 ? 2 * j + 1 : layout == 1 ? dim / 2 + j : j; }

// The spec's form at t = 1, dim = 4 (frequencies 1 and 0.01), and diffusers'
// (sin | cos halves, freq_shift 1) at t = 500 (frequencies 1 and 1e-4).
void sinusoidal_hand_example(const Backend& b) {
  const auto spec = calls::sinusoidal_embed(b, {1.0f}, 4, 10000.0f, 0.0f, TL_SINUSOIDAL_INTERLEAVED);
  RC_ASSERT(spec.status == TL_OK);
  const double want_spec[] = {0.8414710, 0.5403023, 0.0099998333, 0.9999500};
  const double limit = limit_of("SinusoidalEmbed");  // judged absolutely: the scale is 1
  for (int i = 0; i < 4; ++i) RC_ASSERT(matches_printed(spec.out[i], want_spec[i], 1.0, limit));
  const auto diffusers = calls::sinusoidal_embed(b, {500.0f}, 4, 10000.0f, 1.0f, TL_SINUSOIDAL_SIN_COS);
  RC_ASSERT(diffusers.status == TL_OK);
  const double want_diffusers[] = {-0.46777181, 0.049979169, -0.88384927, 0.99875026};
  for (int i = 0; i < 4; ++i) RC_ASSERT(matches_printed(diffusers.out[i], want_diffusers[i], 1.0, limit));
}

// At t = 0 every sine is 0 and every cosine 1, where the layout says.
void sinusoidal_zero_timestep(const Backend& b) {
  const int64_t dim = 2 * *rc::gen::inRange<int64_t>(1, 100);
  const int layout = *rc::gen::inRange(0, 3);
  const float period = *rc::gen::element(10000.0f, 1000.0f, 100.0f), shift = *rc::gen::element(0.0f, 1.0f);
  if (!(double(shift) < double(dim / 2))) return;
  const auto y = calls::sinusoidal_embed(b, {0.0f, -0.0f}, dim, period, shift, layout);
  RC_ASSERT(y.status == TL_OK);
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t j = 0; j < dim / 2; ++j) {
      RC_ASSERT(y.out[r * dim + sin_at(layout, dim, j)] == 0.0f);
      RC_ASSERT(y.out[r * dim + cos_at(layout, dim, j)] == 1.0f);
    }
}

// Every component is in [-1, 1], every (sin_j, cos_j) on the unit circle,
// and the three layouts hold the same values in their own places.
void sinusoidal_components_on_the_unit_circle(const Backend& b) {
  const int64_t dim = 2 * *rc::gen::inRange<int64_t>(1, 100), n = *rc::gen::inRange<int64_t>(1, 5);
  std::vector<float> t(static_cast<size_t>(n));
  for (auto& v : t) v = static_cast<float>(*rc::gen::inRange(-20000000, 20000001)) * 1e-3f;
  const float period = *rc::gen::element(10000.0f, 1000.0f, 100.0f), shift = *rc::gen::element(0.0f, 1.0f);
  if (!(double(shift) < double(dim / 2))) return;
  std::vector<calls::Result> y;
  for (int layout = 0; layout < 3; ++layout) {
    y.push_back(calls::sinusoidal_embed(b, t, dim, period, shift, layout));
    RC_ASSERT(y.back().status == TL_OK);
  }
  const double limit = limit_of("SinusoidalEmbed");
  for (int64_t r = 0; r < n; ++r)
    for (int64_t j = 0; j < dim / 2; ++j) {
      const double s = y[0].out[r * dim + 2 * j], c = y[0].out[r * dim + 2 * j + 1];
      RC_ASSERT(std::fabs(s) <= 1.0 && std::fabs(c) <= 1.0);
      RC_ASSERT(std::fabs(s * s + c * c - 1.0) <= 4 * 0x1p-24);
      for (int layout = 1; layout < 3; ++layout) {
        RC_ASSERT(near(y[layout].out[r * dim + sin_at(layout, dim, j)], s, 1.0, 2 * limit));
        RC_ASSERT(near(y[layout].out[r * dim + cos_at(layout, dim, j)], c, 1.0, 2 * limit));
      }
    }
}

// The frequencies are exp(-j ln(max_period) / (half - freq_shift)): against
// the formula in double for periods and shifts other than the spec's.
void sinusoidal_frequencies_follow_max_period_and_shift(const Backend& b) {
  const int64_t dim = 2 * *rc::gen::inRange<int64_t>(2, 80);
  const float period = *rc::gen::element(10000.0f, 1000.0f, 100.0f, 10.0f, 100000.0f);
  const float shift = *rc::gen::element(0.0f, 1.0f, 0.5f);
  const int layout = *rc::gen::inRange(0, 3);
  std::vector<float> t = {static_cast<float>(*rc::gen::inRange(0, 1000)), 0.25f, 999.0f};
  const auto y = calls::sinusoidal_embed(b, t, dim, period, shift, layout);
  RC_ASSERT(y.status == TL_OK);
  const int64_t half = dim / 2;
  for (size_t r = 0; r < t.size(); ++r)
    for (int64_t j = 0; j < half; ++j) {
      const double angle =
          double(t[r]) * std::exp(-double(j) * std::log(double(period)) / (double(half) - double(shift)));
      RC_ASSERT(near(y.out[r * dim + sin_at(layout, dim, j)], std::sin(angle), 1.0, limit_of("SinusoidalEmbed")));
      RC_ASSERT(near(y.out[r * dim + cos_at(layout, dim, j)], std::cos(angle), 1.0, limit_of("SinusoidalEmbed")));
    }
}

void sinusoidal_refuses_bad_arguments(const Backend& b) {
  const int64_t dim = 2 * *rc::gen::inRange<int64_t>(1, 20);
  const std::vector<float> t = {1.0f, 500.0f};
  RC_ASSERT(calls::sinusoidal_embed(b, t, dim - 1, 10000.0f, 0.0f, 0).status == TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(calls::sinusoidal_embed(b, t, 0, 10000.0f, 0.0f, 0).status == TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(calls::sinusoidal_embed(b, t, dim, *rc::gen::element(0.0f, -1.0f, kNaN), 0.0f, 0).status ==
            TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(calls::sinusoidal_embed(b, t, dim, 10000.0f, float(dim / 2), 0).status == TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(calls::sinusoidal_embed(b, t, dim, 10000.0f, 0.0f, *rc::gen::element(-1, 3)).status ==
            TL_ERR_INVALID_ARGUMENT);
}

// ---------------------------------------------------------------- TokenEmbed, PosEmbed

// Repeated, out-of-order indices, both ends of the table: exactly their rows.
void gathers_rows(const Backend& b, const char* op) {
  const int64_t rows = *rc::gen::inRange<int64_t>(1, 40), d = *rc::gen::inRange<int64_t>(1, 70);
  const auto table = finite_floats(rows * d);
  auto index = *rc::gen::container<std::vector<int32_t>>(rc::gen::inRange<int32_t>(0, static_cast<int32_t>(rows)));
  index.push_back(static_cast<int32_t>(rows - 1));
  index.push_back(0);
  index.push_back(static_cast<int32_t>(rows - 1));
  const auto y = calls::embed(b, op, table, rows, d, index);
  RC_ASSERT(y.status == TL_OK);
  for (size_t i = 0; i < index.size(); ++i)
    for (int64_t k = 0; k < d; ++k) RC_ASSERT(same_bits(y.out[i * d + k], table[index[i] * d + k]));
}

void token_embed_gathers_rows(const Backend& b) { gathers_rows(b, "TokenEmbed"); }
void pos_embed_gathers_rows(const Backend& b) { gathers_rows(b, "PosEmbed"); }

// One index past the table (at the end of the batch, too) or negative: the
// call is refused with `past` or TL_ERR_INVALID_ARGUMENT and writes nothing;
// rows - 1 is fine.
void refuses_outside_the_table(const Backend& b, const char* op, tl_status past) {
  const int64_t rows = *rc::gen::inRange<int64_t>(1, 40), d = *rc::gen::inRange<int64_t>(1, 20);
  const auto table = finite_floats(rows * d);
  std::vector<int32_t> index = *rc::gen::container<std::vector<int32_t>>(
      static_cast<size_t>(*rc::gen::inRange(1, 10)), rc::gen::inRange<int32_t>(0, static_cast<int32_t>(rows)));
  const size_t at = *rc::gen::element(index.size() - 1, size_t{0});
  index[at] = static_cast<int32_t>(rows - 1);
  RC_ASSERT(calls::embed(b, op, table, rows, d, index).status == TL_OK);
  index[at] = static_cast<int32_t>(*rc::gen::element(rows, rows + 1, int64_t{INT32_MAX}));
  RC_ASSERT(calls::embed(b, op, table, rows, d, index).status == past);
  index[at] = *rc::gen::element(-1, INT32_MIN);
  RC_ASSERT(calls::embed(b, op, table, rows, d, index).status == TL_ERR_INVALID_ARGUMENT);
}

void token_embed_refuses_ids_outside_vocab(const Backend& b) {
  refuses_outside_the_table(b, "TokenEmbed", TL_ERR_INVALID_ARGUMENT);
}
void pos_embed_refuses_positions_past_the_table(const Backend& b) {
  refuses_outside_the_table(b, "PosEmbed", TL_ERR_CONTEXT_OVERFLOW);
}

// ---------------------------------------------------------------- RelativePosEmbedding

// The bucket of key position k against a query at 0, read from a one-head
// table whose row b holds b.
std::vector<float> buckets_of(const Backend& b, const std::vector<int32_t>& k, int64_t nb, int64_t md, bool bidir) {
  std::vector<float> table(static_cast<size_t>(nb));
  for (int64_t i = 0; i < nb; ++i) table[i] = static_cast<float>(i);
  const auto y = calls::relative_pos_embedding(b, table, {0}, k, 1, nb, md, bidir);
  RC_ASSERT(y.status == TL_OK);
  return y.out;
}

// T5's defaults (32 buckets, max_distance 128), both directions; the buckets
// from HF's _relative_position_bucket (which agrees with the exact floor here).
void relative_hand_example(const Backend& b) {
  const std::vector<int32_t> r = {0,   1,  -1, 7,   -7, 8,  -8,  11,  -11, 12,   -12,  15,   16,
                                  -16, 31, 32, -32, 63, 64, -64, 127, 128, -128, 1000, -1000};
  const int bidir[] = {0, 17, 1, 23, 7, 24, 8, 24, 8, 25, 9, 25, 26, 10, 27, 28, 12, 29, 30, 14, 31, 31, 15, 31, 15};
  const int causal[] = {0, 0, 1, 0, 7, 0, 8, 0, 11, 0, 12, 0, 0, 16, 0, 0, 21, 0, 0, 26, 0, 0, 31, 0, 31};
  const auto yb = buckets_of(b, r, 32, 128, true), yc = buckets_of(b, r, 32, 128, false);
  for (size_t i = 0; i < r.size(); ++i) {
    RC_ASSERT(yb[i] == float(bidir[i]));
    RC_ASSERT(yc[i] == float(causal[i]));
  }
}

// Along each side the bucket never decreases with the distance; distances
// below num_buckets/4 (bidirectional) or /2 are their own bucket; from
// max_distance on, the side's last bucket; causal: keys after the query
// share bucket 0.
void relative_buckets_monotone_in_distance(const Backend& b) {
  const bool bidir = *rc::gen::arbitrary<bool>();
  const int64_t nb = *rc::gen::element<int64_t>(4, 8, 16, 32, 64, 128, 320) + *rc::gen::inRange<int64_t>(0, 3);
  const int64_t side = bidir ? nb / 2 : nb, me = side / 2;
  const int64_t md = *rc::gen::element<int64_t>(me + 1, 2 * me, 128, 500, 2000);
  if (md <= me) return;
  const int64_t reach = std::min<int64_t>(md + 50, 3000);
  std::vector<int32_t> k;
  for (int64_t n = -reach; n <= reach; ++n) k.push_back(static_cast<int32_t>(n));
  const auto y = buckets_of(b, k, nb, md, bidir);
  const auto at = [&](int64_t r) { return static_cast<int64_t>(y[r + reach]); };
  RC_ASSERT(at(0) == 0);
  for (int64_t n = 1; n <= reach; ++n) {
    RC_ASSERT(at(-n) >= at(-(n - 1)));
    if (n < me) RC_ASSERT(at(-n) == n);
    if (n >= md) RC_ASSERT(at(-n) == side - 1);
    if (bidir) {
      RC_ASSERT(at(n) == side + at(-n));  // the same distance, on the keys' side
    } else {
      RC_ASSERT(at(n) == 0);
    }
  }
}

// The bias depends on k - q alone (every position shifted alike gives the
// same bits), and head h reads column h of the table.
void relative_bias_depends_only_on_the_offset(const Backend& b) {
  const int64_t H = *rc::gen::inRange<int64_t>(1, 5), nb = *rc::gen::element<int64_t>(32, 64, 8);
  const bool bidir = *rc::gen::arbitrary<bool>();
  const int64_t md = *rc::gen::element<int64_t>(128, 50, 1000);
  const auto q = *rc::gen::container<std::vector<int32_t>>(static_cast<size_t>(*rc::gen::inRange(1, 8)),
                                                           rc::gen::inRange<int32_t>(-100000, 100000));
  const auto k = *rc::gen::container<std::vector<int32_t>>(static_cast<size_t>(*rc::gen::inRange(1, 20)),
                                                           rc::gen::inRange<int32_t>(-100000, 100000));
  const int32_t shift = *rc::gen::inRange<int32_t>(-1000000, 1000000);
  std::vector<int32_t> q2 = q, k2 = k;
  for (auto& v : q2) v += shift;
  for (auto& v : k2) v += shift;
  std::vector<float> table(static_cast<size_t>(nb * H));
  for (int64_t i = 0; i < nb; ++i)
    for (int64_t h = 0; h < H; ++h) table[i * H + h] = static_cast<float>(1000 * i + h);
  const auto y = calls::relative_pos_embedding(b, table, q, k, H, nb, md, bidir);
  const auto y2 = calls::relative_pos_embedding(b, table, q2, k2, H, nb, md, bidir);
  RC_ASSERT(y.status == TL_OK && y2.status == TL_OK);
  const size_t plane = q.size() * k.size();
  for (size_t e = 0; e < y.out.size(); ++e) {
    RC_ASSERT(same_bits(y.out[e], y2.out[e]));
    const int64_t h = static_cast<int64_t>(e / plane);
    RC_ASSERT(y.out[e] - float(h) == y.out[e % plane]);
  }
}

void relative_refuses_bad_arguments(const Backend& b) {
  const std::vector<float> table(64 * 2, 1.0f);
  const std::vector<int32_t> q = {0, 5}, k = {0, 1, 2};
  RC_ASSERT(calls::relative_pos_embedding(b, table, q, k, 2, 3, 128, true).status == TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(calls::relative_pos_embedding(b, table, q, k, 2, 1, 128, false).status == TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(calls::relative_pos_embedding(b, table, q, k, 2, 1025, 128, false).status == TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(calls::relative_pos_embedding(b, table, q, k, 2, 32, 8, true).status == TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(calls::relative_pos_embedding(b, table, q, k, 2, 32, int64_t{INT32_MAX} + 1, true).status ==
            TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(calls::relative_pos_embedding(b, table, q, k, 0, 32, 128, true).status == TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(calls::relative_pos_embedding(b, table, q, k, 2, 32, 9, true).status == TL_OK);
}

}  // namespace

namespace props {

std::vector<Property> pos_embed_properties() {
  return {
      {"hand_example", "SinusoidalEmbed", "unit", sinusoidal_hand_example},
      {"sinusoidal_zero_timestep", "SinusoidalEmbed", "boundary", sinusoidal_zero_timestep},
      {"sinusoidal_components_on_the_unit_circle", "SinusoidalEmbed", "property",
       sinusoidal_components_on_the_unit_circle},
      {"sinusoidal_frequencies_follow_max_period_and_shift", "SinusoidalEmbed", "property",
       sinusoidal_frequencies_follow_max_period_and_shift},
      {"sinusoidal_refuses_bad_arguments", "SinusoidalEmbed", "boundary", sinusoidal_refuses_bad_arguments},
      {"token_embed_gathers_rows", "TokenEmbed", "property", token_embed_gathers_rows},
      {"token_embed_refuses_ids_outside_vocab", "TokenEmbed", "boundary", token_embed_refuses_ids_outside_vocab},
      {"pos_embed_gathers_rows", "PosEmbed", "property", pos_embed_gathers_rows},
      {"pos_embed_refuses_positions_past_the_table", "PosEmbed", "boundary",
       pos_embed_refuses_positions_past_the_table},
      {"hand_example", "RelativePosEmbedding", "unit", relative_hand_example},
      {"relative_buckets_monotone_in_distance", "RelativePosEmbedding", "property",
       relative_buckets_monotone_in_distance},
      {"relative_bias_depends_only_on_the_offset", "RelativePosEmbedding", "property",
       relative_bias_depends_only_on_the_offset},
      {"relative_refuses_bad_arguments", "RelativePosEmbedding", "boundary", relative_refuses_bad_arguments},
  };
}

}  // namespace props
}  // namespace konform
