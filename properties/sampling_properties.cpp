// The properties of the Sample op (tinyllm/sampling.h, spec/operations.txt
// §8). Each can fail: the mutants of mutants/sampling_base.c named in
// mutants/manifest.tsv break them.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "konform/call.hpp"
#include "konform/op.hpp"
#include "konform/properties.hpp"
#include "konform/reference/sampling.hpp"
#include "konform/rng.hpp"
#include "konform/tolerance.hpp"
#include "ops/half_logits.hpp"
#include "ops/sampling_judge.hpp"
#include "support.hpp"

namespace konform {
namespace {

using namespace props;
namespace ref = reference::sampling;
using Floats = std::vector<float>;
using Tokens = std::vector<int32_t>;

struct Settings {
  float t = 1.0f;
  int64_t k = 1;
  float p = 1.0f, min_p = 0.0f;
  uint64_t seed = 1;
};

// The method of an op, f32 or half (SampleTopP_f16: top_p).
int method_of(const std::string& op) {
  const auto is = [&op](const char* name) { return op.rfind(name, 0) == 0; };
  if (is("SampleGreedy")) return ref::kGreedy;
  if (is("SampleTemperature")) return ref::kTemperature;
  if (is("SampleTopK")) return ref::kTopK;
  if (is("SampleTopP")) return ref::kTopP;
  return ref::kMinP;
}

// The case of op `o` on `logits` ([rows, vocab], any dtype) with settings s.
Case case_of(const OpSpec& o, Tensor logits, const Settings& s) {
  const int64_t rows = logits.shape[0], vocab = logits.shape[1];
  Case c;
  c.params = {{"rows", double(rows)},     {"vocab", double(vocab)}, {"method", double(method_of(o.name))},
              {"t", double(s.t)},         {"k", double(s.k)},       {"p", double(s.p)},
              {"min_p", double(s.min_p)}, {"seed", double(s.seed)}};
  c.args.push_back({"logits", Access::in, std::move(logits)});
  c.args.push_back({"tokens", Access::out, Tensor::zeros(DType::i32, {rows}), Match::exact});
  c.args.push_back({"status", Access::out, Tensor::zeros(DType::i32, {1}), Match::exact});
  return c;
}

// The case through op `o` on backend b; a refused valid call fails.
Tokens sample(const Backend& b, const OpSpec& o, const Case& c) {
  const auto got = run_op(b, o, c);
  const int32_t status = got.at("status").i32()[0];
  if (status != 0) throw std::runtime_error(o.name + " refused valid arguments: status " + std::to_string(status));
  const Tensor& t = got.at("tokens");
  return Tokens(t.i32(), t.i32() + t.elements());
}

const OpSpec& op_named(const std::string& op) {
  const OpSpec* o = find_op(op);
  if (o == nullptr) throw std::logic_error("no op " + op + " in the catalog");
  return *o;
}

// `rows` rows of `vocab` logits through the op; a refused valid call fails.
Tokens sample(const Backend& b, const char* op, const Floats& logits, int64_t rows, int64_t vocab, const Settings& s) {
  const OpSpec& o = op_named(op);
  return sample(b, o, case_of(o, Tensor::of_f32({rows, vocab}, logits), s));
}

// n logits on a grid of 2^-6 in [-4, 4), times `scale`, from a generated seed
// (RapidCheck shrinks the seed, not every element); `ties` rounds them to
// small integers so equal logits repeat.
Floats logits(int64_t n, float scale, bool ties) {
  Rng rng(*rc::gen::arbitrary<uint64_t>());
  Floats v(static_cast<size_t>(n));
  for (float& e : v)
    e = ties ? static_cast<float>(rng.range(-3, 3)) : static_cast<float>(rng.range(-256, 255)) * 0x1p-6f * scale;
  return v;
}

Floats repeat(const Floats& row, int64_t rows) {
  Floats all;
  for (int64_t r = 0; r < rows; ++r) all.insert(all.end(), row.begin(), row.end());
  return all;
}

uint64_t any_seed() { return *rc::gen::inRange<uint64_t>(1, uint64_t{1} << 53); }

// ---------------------------------------------------------------- Greedy

// Rows with repeated maxima and NaN (a NaN first): the token is the lowest
// index of the largest number, NaN skipped, as tl_argmax_f32.
void greedy_is_lowest_argmax(const Backend& b) {
  const int64_t vocab = *rc::gen::inRange<int64_t>(1, 80), rows = *rc::gen::inRange<int64_t>(1, 6);
  Floats x = logits(rows * vocab, 1.0f, true);
  Rng rng(*rc::gen::arbitrary<uint64_t>());
  for (float& e : x)
    if (rng.chance(0.1)) e = NAN;
  if (*rc::gen::arbitrary<bool>()) x[0] = NAN;
  Settings s;
  s.t = NAN;  // unread by Greedy: must not be refused
  const Tokens got = sample(b, "SampleGreedy", x, rows, vocab, s);
  for (int64_t r = 0; r < rows; ++r)
    RC_ASSERT(got[static_cast<size_t>(r)] == reference::argmax(x.data() + r * vocab, vocab));
}

// ---------------------------------------------------------------- reductions to Greedy

// TopK with k = 1 keeps only the largest logit (lowest index on ties): Greedy,
// whatever the temperature and seed.
void top_k_1_equals_greedy(const Backend& b) {
  const int64_t vocab = *rc::gen::inRange<int64_t>(1, 200), rows = *rc::gen::inRange<int64_t>(1, 8);
  const Floats x = logits(rows * vocab, 2.0f, *rc::gen::arbitrary<bool>());
  Settings s;
  s.k = 1;
  s.t = *rc::gen::element(0.1f, 0.7f, 1.0f, 3.0f, 50.0f);
  s.seed = any_seed();
  const Tokens got = sample(b, "SampleTopK", x, rows, vocab, s);
  for (int64_t r = 0; r < rows; ++r)
    RC_ASSERT(got[static_cast<size_t>(r)] == reference::argmax(x.data() + r * vocab, vocab));
}

// TopP with p below every probability keeps only the first sorted token (the
// always-kept one): Greedy. The largest probability is >= 1 / vocab > p.
void top_p_tiny_equals_greedy(const Backend& b) {
  const int64_t vocab = *rc::gen::inRange<int64_t>(1, 200), rows = *rc::gen::inRange<int64_t>(1, 8);
  const Floats x = logits(rows * vocab, 2.0f, *rc::gen::arbitrary<bool>());
  Settings s;
  s.p = *rc::gen::element(1e-7f, 1e-6f, 1e-4f);
  s.t = *rc::gen::element(0.5f, 1.0f, 2.0f);
  s.seed = any_seed();
  const Tokens got = sample(b, "SampleTopP", x, rows, vocab, s);
  for (int64_t r = 0; r < rows; ++r)
    RC_ASSERT(got[static_cast<size_t>(r)] == reference::argmax(x.data() + r * vocab, vocab));
}

// ---------------------------------------------------------------- the seed

// The same seed gives the same tokens, call after call; another seed gives
// other tokens (64 rows of a flat distribution over 64 tokens: the same 64
// tokens by chance has probability 2^-384).
void fixed_seed_is_reproducible(const Backend& b, const char* op) {
  const int64_t vocab = 64, rows = 64;
  const Floats x = repeat(Floats(static_cast<size_t>(vocab), 0.5f), rows);
  Settings s;
  s.k = vocab, s.p = 1.0f, s.min_p = 0.0f;
  s.seed = any_seed();
  const Tokens first = sample(b, op, x, rows, vocab, s);
  RC_ASSERT(sample(b, op, x, rows, vocab, s) == first);
  Settings other = s;
  other.seed = s.seed + *rc::gen::inRange<uint64_t>(1, 1000);
  RC_ASSERT(sample(b, op, x, rows, vocab, other) != first);
  // The header's stream, bit for bit: on a flat distribution of 64 tokens the
  // token is floor(u * 64) exactly (every cumulative weight is exact).
  for (int64_t r = 0; r < rows; ++r)
    RC_ASSERT(first[static_cast<size_t>(r)] == static_cast<int32_t>(std::floor(ref::draw_u(s.seed, r) * 64)));
}

// seed 0 is "not reproducible": two calls draw differently (64 rows over 8
// equally likely kept tokens: the same 64 tokens twice has probability
// 2^-192), and every token is still one of the kept ones (TopK k = 8 of 64
// equal logits: indices 0 .. 7, ties by lower index).
void seed_zero_draws_kept_tokens(const Backend& b) {
  const int64_t vocab = 64, rows = 64;
  const Floats x(static_cast<size_t>(vocab * rows), *rc::gen::element(0.0f, -3.5f, 12.0f));
  Settings s;
  s.k = 8, s.seed = 0;
  const Tokens first = sample(b, "SampleTopK", x, rows, vocab, s), second = sample(b, "SampleTopK", x, rows, vocab, s);
  for (int32_t t : first) RC_ASSERT(t >= 0 && t < 8);
  for (int32_t t : second) RC_ASSERT(t >= 0 && t < 8);
  RC_ASSERT(first != second);
}

// ---------------------------------------------------------------- frequencies

// Pearson's chi-square over many rows of one distribution against the
// oracle's probabilities (double, over the kept set): bins with an expected
// count below 5 are pooled; a token of probability 0 drawn at all fails. The
// critical value at significance 1e-6 (Wilson-Hilferty: z = 4.753) makes a
// false alarm a one-in-a-million event for a correct kernel, and the
// distributions and seeds come from a fixed list, so a verdict never changes
// from run to run.
void sampled_frequencies_match_oracle(const Backend& b, const char* op) {
  struct Fixed {
    int64_t vocab;
    float scale, t;
    int64_t k;
    float p, min_p;
  };
  static const Fixed list[] = {{10, 1.0f, 1.0f, 4, 0.9f, 0.05f},
                               {24, 2.0f, 0.7f, 7, 0.8f, 0.1f},
                               {50, 1.0f, 2.0f, 20, 0.5f, 0.2f},
                               {7, 3.0f, 1.5f, 3, 0.95f, 0.02f}};
  static const uint64_t seeds[] = {1, 2, 3};
  const size_t pick = *rc::gen::inRange<size_t>(0, 12);
  const Fixed& f = list[pick % 4];
  Settings s;
  s.t = f.t, s.k = f.k, s.p = f.p, s.min_p = f.min_p, s.seed = seeds[pick / 4];
  // Fixed logits: an LCG on a grid, independent of RapidCheck.
  Floats row(static_cast<size_t>(f.vocab));
  uint32_t h = 12345u + static_cast<uint32_t>(pick % 4);
  for (float& e : row) {
    h = h * 1664525u + 1013904223u;
    e = (static_cast<float>(h >> 20) / 4096.0f - 0.5f) * 4.0f * f.scale;
  }
  const int64_t rows = 4000;
  const Tokens got = sample(b, op, repeat(row, rows), rows, f.vocab, s);
  const std::vector<double> w = ref::weights<double>(row.data(), f.vocab, s.t);
  const std::vector<int64_t> kept =
      ref::kept_positions<double>(row.data(), f.vocab, w, method_of(op), s.k, s.p, s.min_p);
  std::vector<double> prob(static_cast<size_t>(f.vocab), 0.0);
  double z = 0;
  for (int64_t i : kept) z += w[static_cast<size_t>(i)];
  for (int64_t i : kept) prob[static_cast<size_t>(i)] = w[static_cast<size_t>(i)] / z;
  std::vector<double> count(static_cast<size_t>(f.vocab), 0.0);
  for (int32_t t : got) {
    RC_ASSERT(t >= 0 && t < f.vocab);
    RC_ASSERT(prob[static_cast<size_t>(t)] > 0.0);
    count[static_cast<size_t>(t)] += 1;
  }
  double chi2 = 0, pooled_obs = 0, pooled_exp = 0;
  int bins = 0;
  for (int64_t i = 0; i < f.vocab; ++i) {
    const double e = prob[static_cast<size_t>(i)] * rows;
    if (e == 0) continue;
    if (e < 5) {
      pooled_obs += count[static_cast<size_t>(i)], pooled_exp += e;
      continue;
    }
    chi2 += (count[static_cast<size_t>(i)] - e) * (count[static_cast<size_t>(i)] - e) / e;
    ++bins;
  }
  if (pooled_exp > 0) chi2 += (pooled_obs - pooled_exp) * (pooled_obs - pooled_exp) / pooled_exp, ++bins;
  if (bins < 2) return;  // one bin: nothing to test beyond the support above
  const double df = bins - 1, z6 = 4.753;
  const double critical = df * std::pow(1 - 2 / (9 * df) + z6 * std::sqrt(2 / (9 * df)), 3);
  RC_ASSERT(chi2 <= critical);
}

// ---------------------------------------------------------------- boundaries

// 2^a equal logits and p = j / 2^a: every cumulative probability (i + 1) /
// 2^a is exact in float and double, so "cumsum <= p" keeps exactly j tokens
// (the j-th at cumsum == p included): over 512 rows only tokens 0 .. j-1
// appear, and each of them does.
void top_p_boundary_is_inclusive(const Backend& b) {
  const int64_t vocab = *rc::gen::element<int64_t>(2, 4, 8, 16), rows = 512;
  const int64_t j = *rc::gen::inRange<int64_t>(1, vocab + 1);
  Settings s;
  s.p = static_cast<float>(j) / static_cast<float>(vocab);
  s.t = *rc::gen::element(0.5f, 1.0f, 3.0f);
  s.seed = any_seed();
  const float level = *rc::gen::element(0.0f, 1.5f, -7.25f);
  const Tokens got = sample(b, "SampleTopP", Floats(static_cast<size_t>(rows * vocab), level), rows, vocab, s);
  std::vector<int> seen(static_cast<size_t>(vocab), 0);
  for (int32_t t : got) {
    RC_ASSERT(t >= 0 && t < j);
    seen[static_cast<size_t>(t)] = 1;
  }
  for (int64_t i = 0; i < j; ++i) RC_ASSERT(seen[static_cast<size_t>(i)] == 1);
}

// min_p = 1 keeps exactly the tokens at the max (w = 1 >= 1 * max(w)), ties
// included; min_p = 0 keeps every token of positive weight. Over 256 rows the
// tied maxima all appear and nothing else does.
void min_p_threshold_is_inclusive(const Backend& b) {
  const int64_t vocab = *rc::gen::inRange<int64_t>(2, 40), rows = 256;
  Floats row = logits(vocab, 1.0f, true);
  const float top = *std::max_element(row.begin(), row.end());
  Settings s;
  s.min_p = 1.0f;
  s.t = *rc::gen::element(0.5f, 1.0f, 2.0f);
  s.seed = any_seed();
  const Tokens got = sample(b, "SampleMinP", repeat(row, rows), rows, vocab, s);
  std::vector<int> seen(static_cast<size_t>(vocab), 0);
  for (int32_t t : got) {
    RC_ASSERT(t >= 0 && t < vocab);
    RC_ASSERT(row[static_cast<size_t>(t)] == top);
    seen[static_cast<size_t>(t)] = 1;
  }
  int64_t ties = 0;
  for (int64_t i = 0; i < vocab; ++i) ties += row[static_cast<size_t>(i)] == top;
  if (ties <= 8)  // each of <= 8 tied maxima missed by 256 draws: < 8 (7/8)^256 = 1e-14
    for (int64_t i = 0; i < vocab; ++i)
      if (row[static_cast<size_t>(i)] == top) RC_ASSERT(seen[static_cast<size_t>(i)] == 1);
}

// ---------------------------------------------------------------- half logits

// A half twin (SampleTopP_f16) draws as its f32 op (SampleTopP) on the
// exactly widened logits: the same seed, settings and so the same u per row.
// The f32 draw is the backend's own tl_sample_f32, or where the backend
// exports none (a plugin of the half ops alone) the spec's f32 computation
// (the oracle in float). The two may differ only where u lies within the f32
// op's own band of a boundary: a differing row's half token must pass
// draw_matches_oracle's judgement (limit 2, scale s on the widened logits),
// as the check judges it; nothing stricter. The rows are a few levels of
// logits, each repeated at random indices, their gaps 0.05 .. 2 temperatures
// (weights 0.13 .. 0.95 of the max, far from f16's subnormals): every token
// of a level has the same weight, so a weight that is rounded (to the half
// dtype, say) moves every boundary past that level's tokens the same way,
// up to a quarter of the relative error (2^-13 in f16) when the levels share
// the mass; over at most 64 tokens the f32 band (2 * 2^-24 * s, s <= 64 + 2
// + 4 + 2 * 6) stays below 2^-16, so 1024 rows of draws (u from the row's
// stream) find such a move.
void half_draw_is_the_f32_draw(const Backend& b, const std::string& op) {
  const OpSpec& half = op_named(op);
  const OpSpec& f32 = op_named(op.substr(0, op.rfind('_')));
  const DType dtype = half.dtype;
  const int64_t vocab = *rc::gen::inRange<int64_t>(8, 65), rows = 512;
  const int levels = *rc::gen::inRange(2, 5);
  Rng rng(*rc::gen::arbitrary<uint64_t>());
  Settings s;
  s.k = rng.range(1, vocab), s.p = rng.chance(0.5) ? 1.0f : static_cast<float>(rng.uniform(0.6, 1.0));
  s.min_p = static_cast<float>(rng.uniform(0.0, 0.5));
  s.seed = any_seed();
  // The top two levels 0.1 .. 4 apart; the temperature puts the second's
  // weight (0.3 .. 0.95) halfway between two neighbours in the dtype.
  const double top = half_value(dtype, half_bits(dtype, rng.uniform(-8.0, 8.0)));
  const double second = half_value(dtype, half_bits(dtype, top - rng.uniform(0.1, 4.0)));
  double w = rng.uniform(0.3, 0.95);
  const double spacing = std::ldexp(2 * unit_roundoff(dtype), std::ilogb(w));
  w = (std::floor(w / spacing) + 0.5) * spacing;
  s.t = static_cast<float>((second - top) / std::log(w));
  std::vector<uint16_t> level = {half_bits(dtype, top), half_bits(dtype, second)};
  for (double l = second; static_cast<int>(level.size()) < levels;)
    level.push_back(half_bits(dtype, l -= rng.uniform(0.05, 2.0) * s.t));
  std::vector<uint16_t> row(static_cast<size_t>(vocab));
  for (uint16_t& v : row) v = level[static_cast<size_t>(rng.range(0, levels - 1))];
  row[static_cast<size_t>(rng.range(0, vocab - 1))] = level[0];
  row[static_cast<size_t>(rng.range(0, vocab - 1))] = level[1];
  std::vector<uint16_t> bits;
  for (int64_t r = 0; r < rows; ++r) bits.insert(bits.end(), row.begin(), row.end());
  const Case hc = case_of(half, ops::half_logits::tensor(dtype, {rows, vocab}, bits), s);
  std::vector<float> scratch;
  const float* wide = ops::half_logits::floats_of(hc.in("logits"), scratch);
  const Floats widened(wide, wide + rows * vocab);
  const Tokens got = sample(b, half, hc);
  Tokens want(static_cast<size_t>(rows));
  if (b.symbol(f32.symbol) != nullptr) want = sample(b, f32, case_of(f32, Tensor::of_f32({rows, vocab}, widened), s));
  else ref::sample<float>(widened.data(), want.data(), rows, vocab, method_of(op), s.t, s.k, s.p, s.min_p, s.seed);
  const double limit = ToleranceTable::builtin().find(op, dtype)->limit;
  for (int64_t r = 0; r < rows; ++r) {
    if (got[static_cast<size_t>(r)] == want[static_cast<size_t>(r)]) continue;
    const ElementVerdict v = ops::judge_draw(hc, widened.data() + r * vocab, r, got[static_cast<size_t>(r)], limit);
    RC_LOG() << "row " << r << ": " << op << " drew " << got[static_cast<size_t>(r)] << ", " << f32.name << " "
             << want[static_cast<size_t>(r)] << "; " << v.why << "\n";
    RC_ASSERT(v.ok);
  }
}

}  // namespace

namespace props {

std::vector<Property> sampling_properties() {
  const auto both = [](void (*f)(const Backend&, const char*), const char* op) {
    return [f, op](const Backend& b) { f(b, op); };
  };
  std::vector<Property> out = {
      {"greedy_is_lowest_argmax", "SampleGreedy", "property", greedy_is_lowest_argmax},
      {"top_k_1_equals_greedy", "SampleTopK", "property", top_k_1_equals_greedy},
      {"top_p_tiny_equals_greedy", "SampleTopP", "property", top_p_tiny_equals_greedy},
      {"top_p_boundary_is_inclusive", "SampleTopP", "boundary", top_p_boundary_is_inclusive},
      {"seed_zero_draws_kept_tokens", "SampleTopK", "property", seed_zero_draws_kept_tokens},
      {"min_p_threshold_is_inclusive", "SampleMinP", "boundary", min_p_threshold_is_inclusive},
  };
  for (const char* op : {"SampleTemperature", "SampleTopK", "SampleTopP", "SampleMinP"}) {
    out.push_back({"fixed_seed_is_reproducible", op, "property", both(fixed_seed_is_reproducible, op)});
    out.push_back({"sampled_frequencies_match_oracle", op, "property", both(sampled_frequencies_match_oracle, op)});
    for (const char* dtype : {"_f16", "_bf16"}) {
      const std::string half = std::string(op) + dtype;
      out.push_back({"half_draw_is_the_f32_draw", half, "property",
                     [half](const Backend& b) { half_draw_is_the_f32_draw(b, half); }});
    }
  }
  return out;
}

}  // namespace props
}  // namespace konform
