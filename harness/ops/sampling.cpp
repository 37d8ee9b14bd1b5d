// The Sample op of spec/operations.txt section 8 (tinyllm/sampling.h), one
// catalog entry per method: SampleGreedy, SampleTemperature, SampleTopK,
// SampleTopP, SampleMinP, all behind tl_sample_f32.
//
// SampleGreedy_f16 ... SampleMinP_bf16 are the same entries on f16 and bf16
// logits (tl_sample_f16, tl_sample_bf16): the same methods, oracle and
// judge, the logits widened exactly to float first; their cases are the
// half dtypes' own classes (half_logits.hpp).
//
// Greedy is exact: the oracle returns argmax per row. The other methods draw:
// u comes from the header's PCG32 stream (the same bits in the oracle and in
// every kernel), but which token u lands in depends on float rounding of the
// cumulative weights, so their tokens are judged by the verify hook
// (check `draw_matches_oracle`): in double the oracle computes, for the kept
// set(s) a correct float kernel may produce, the interval [lo, hi) of u that
// selects the kernel's token, and accepts the token when u lies within
// limit * 2^-24 * s of it, s the row's error scale (see `scale` below and the
// tolerance lines of reference/tolerances.tsv). Everywhere else a token that
// differs from the oracle's is a failure.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "konform/c_call.hpp"
#include "konform/compare.hpp"
#include "konform/op.hpp"
#include "konform/reference/sampling.hpp"
#include "konform/values.hpp"
#include "half_logits.hpp"
#include "norm_support.hpp"
#include "sampling_judge.hpp"
#include "tinyllm/sampling.h"

namespace konform::ops {

std::vector<OpSpec> sampling();

namespace {

namespace ref = reference::sampling;
using norm::status_arg;
using norm::status_expected;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// ---------------------------------------------------------------- status

// The header's rules, read independently of impl/ (tinyllm/sampling.h).
tl_status call_status(const Case& c) {
  const int64_t rows = c.iparam("rows"), vocab = c.iparam("vocab"), method = c.iparam("method");
  const double t = c.param("t"), p = c.param("p"), min_p = c.param("min_p");
  const int64_t k = c.iparam("k");
  if (rows < 0 || vocab < 1 || vocab > INT32_MAX) return TL_ERR_INVALID_ARGUMENT;
  if (static_cast<long double>(rows) * vocab * 4 > static_cast<long double>(INT64_MAX)) return TL_ERR_INVALID_ARGUMENT;
  if (method < 0 || method > 4) return TL_ERR_INVALID_ARGUMENT;
  if (method == ref::kGreedy) return TL_OK;
  if (!(t > 0) || std::isinf(t)) return TL_ERR_INVALID_ARGUMENT;
  if (method == ref::kTopK && (k < 1 || k > vocab)) return TL_ERR_INVALID_ARGUMENT;
  if (method == ref::kTopP && !(p > 0 && p <= 1)) return TL_ERR_INVALID_ARGUMENT;
  if (method == ref::kMinP && !(min_p >= 0 && min_p <= 1)) return TL_ERR_INVALID_ARGUMENT;
  return TL_OK;
}

// ---------------------------------------------------------------- cases

const char* method_name(int64_t m) {
  const char* names[] = {"greedy", "temperature", "top_k", "top_p", "min_p"};
  return m >= 0 && m <= 4 ? names[m] : "unknown";
}

// Vocabularies around the vector widths and the real ones (32000: Llama-2,
// 128256: Llama-3).
const std::vector<int64_t>& edge_vocabs() {
  static const std::vector<int64_t> v = {1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 64, 100, 1000, 32000, 128256};
  return v;
}

// One row of logits: N(0, s) with s from 0.3 (flat) to 8 (peaky); one logit
// far above the rest (the first token alone past p); small integers (ties,
// so the sorted order's tie rule matters); an offset of 1e3 (the max
// subtraction); -Inf masks (logit bias); NaN here and there; a row with no
// number; +Inf.
std::vector<float> logits_row(Rng& rng, int64_t n, int kind) {
  std::vector<float> x;
  switch (kind) {
    case 0:
    case 1: {
      const float s = static_cast<float>(rng.pick(std::vector<double>{0.3, 1.0, 2.0, 4.0, 8.0}));
      x = make_values(rng, ValueClass::normal, n);
      for (float& e : x) e *= s;
      break;
    }
    case 2:
      x = make_values(rng, ValueClass::normal, n);
      x[static_cast<size_t>(rng.range(0, n - 1))] = static_cast<float>(rng.uniform(3.0, 20.0));
      break;
    case 3: x = make_values(rng, ValueClass::ties, n); break;
    case 4:
      x = make_values(rng, ValueClass::normal, n);
      for (float& e : x) e = 1000.0f + 2.0f * e;
      break;
    case 5:
      x = make_values(rng, ValueClass::normal, n);
      for (float& e : x)
        if (rng.chance(0.3)) e = -kInf;
      break;
    case 6:
      x = make_values(rng, ValueClass::normal, n);
      for (float& e : x)
        if (rng.chance(0.1)) e = kNaN;
      break;
    case 7: x.assign(static_cast<size_t>(n), rng.chance(0.5) ? kNaN : -kInf); break;
    default:
      x = make_values(rng, ValueClass::normal, n);
      x[static_cast<size_t>(rng.range(0, n - 1))] = kInf;
      if (rng.chance(0.5)) x[static_cast<size_t>(rng.range(0, n - 1))] = kInf;
  }
  return x;
}

const char* kind_name(int kind) {
  const char* names[] = {"N(0,s)",     "N(0,s)", "one peak",  "ties", "offset 1e3",
                         "-Inf masks", "NaN",    "no number", "+Inf"};
  return names[kind];
}

// The half twins' edges: each class of half_logits.hpp once at a size of
// its own (the ties at real vocabularies: 4096 and Llama-2's 32000).
struct HalfEdge {
  int64_t vocab;
  int kind;
};
const std::vector<HalfEdge>& half_edges() {
  namespace hl = half_logits;
  static const std::vector<HalfEdge> e = {
      {1, hl::kRounded},    {2, hl::kZeros}, {17, hl::kNan},    {33, hl::kNegative}, {64, hl::kSubnormal},
      {100, hl::kExtremes}, {257, hl::kInf}, {4096, hl::kTies}, {32000, hl::kTies},  {31, hl::kBits}};
  return e;
}

// A case of `dtype`: f32's from its own classes at every size up to 128256;
// f16's and bf16's from half_logits.hpp's classes, vocabularies mostly up
// to 1000 and up to 4 rows (the settings and refusals are f32's).
Case make(DType dtype, Rng& rng, int64_t index, int64_t edges, int method) {
  const bool half = dtype != DType::f32;
  int64_t vocab = half && index < edges ? half_edges()[static_cast<size_t>(index)].vocab
                  : index < edges       ? edge_vocabs()[static_cast<size_t>(index)]
                  : half                ? (rng.chance(0.03)  ? 4096
                                           : rng.chance(0.7) ? rng.range(1, 64)
                                                             : rng.range(65, 1000))
                                        : (rng.chance(0.03) ? rng.pick(std::vector<int64_t>{32000, 128256})
                                                            : (rng.chance(0.5) ? rng.range(1, 64) : rng.range(65, 3000)));
  int64_t rows =
      vocab >= 32000 ? rng.range(1, 2) : rng.range(1, std::max<int64_t>(1, std::min<int64_t>(16, 40000 / vocab)));
  if (half) rows = std::min<int64_t>(rows, vocab >= 4096 ? 1 : 4);
  if (rng.chance(0.03)) rows = 0;
  int kind = rng.chance(0.6) ? static_cast<int>(rng.range(0, 4)) : static_cast<int>(rng.range(0, 8));
  if (half && index < edges) kind = half_edges()[static_cast<size_t>(index)].kind;
  const double ts[] = {1.0, 0.6, 0.1, 2.0, 0.01, 1e-3, 5.0, 100.0};
  double t = rng.chance(0.5) ? ts[rng.range(0, 7)] : std::exp(rng.uniform(std::log(0.05), std::log(10.0)));
  int64_t k = rng.chance(0.2) ? 1 : rng.chance(0.2) ? vocab : rng.range(1, std::min<int64_t>(vocab, 64));
  const double ps[] = {1.0, 0.95, 0.9, 0.5, 1e-6};
  double p = rng.chance(0.5) ? ps[rng.range(0, 4)] : rng.uniform(0.01, 1.0);
  const double mps[] = {0.0, 0.05, 0.1, 0.5, 1.0};
  double min_p = rng.chance(0.5) ? mps[rng.range(0, 4)] : rng.uniform(0.0, 1.0);
  // Never seed 0 here: the sweep calls twice and demands the same bits (seed 0
  // is checked by the property seed_zero_draws_kept_tokens).
  const auto seed = static_cast<uint64_t>(rng.range(1, (int64_t{1} << 53) - 1));
  int64_t m = method;
  std::string bad;
  if (index >= edges && rng.chance(0.1)) {
    switch (rng.range(0, 9)) {
      case 0:
        rows = -1;
        bad = "bad: rows = -1";
        break;
      case 1:
        vocab = 0;
        bad = "bad: vocab = 0";
        break;
      case 2:
        rows = vocab = int64_t{1} << 31;
        bad = "bad: vocab = 2^31 (and 2^64 bytes)";
        break;
      case 3:
        m = rng.chance(0.5) ? 5 : -1;
        bad = "bad: method " + std::to_string(m);
        break;
      case 4:
        t = rng.pick(std::vector<double>{0.0, -1.0, double(kNaN), double(kInf)});
        bad = "bad? temperature";
        break;
      case 5:
        k = rng.chance(0.5) ? 0 : vocab + 1;
        bad = "bad? top_k";
        break;
      case 6:
        p = rng.pick(std::vector<double>{0.0, -0.5, 1.5, double(kNaN)});
        bad = "bad? top_p";
        break;
      case 7:
        min_p = rng.pick(std::vector<double>{-0.1, 1.5, double(kNaN)});
        bad = "bad? min_p";
        break;
      default:
        rows = int64_t{1} << 40, vocab = int64_t{1} << 30;
        bad = "bad: rows * vocab * 4 overflows";
        break;
    }
  }
  Case c;
  c.params = {
      {"rows", double(rows)}, {"vocab", double(vocab)}, {"method", double(m)}, {"t", t}, {"k", double(k)}, {"p", p},
      {"min_p", min_p},       {"seed", double(seed)}};
  const bool valid = call_status(c) == TL_OK;
  const bool real = rows >= 0 && vocab >= 1 && vocab <= (int64_t{1} << 20) && rows <= (int64_t{1} << 20) / vocab;
  std::vector<float> x;
  std::vector<uint16_t> hx;
  if (real)
    for (int64_t r = 0; r < rows; ++r) {
      const int row_kind = r == 0 || rng.chance(0.7) ? kind : static_cast<int>(rng.range(0, 8));
      if (half) {
        const auto row = half_logits::row(dtype, rng, vocab, row_kind);
        hx.insert(hx.end(), row.begin(), row.end());
      } else {
        const auto row = logits_row(rng, vocab, row_kind);
        x.insert(x.end(), row.begin(), row.end());
      }
    }
  else x.assign(16, 0.0f);
  const std::vector<int64_t> shape = real ? std::vector<int64_t>{rows, vocab} : std::vector<int64_t>{16};
  c.args.push_back({"logits", Access::in, half ? half_logits::tensor(dtype, shape, hx) : Tensor::of_f32(shape, x)});
  c.args.push_back({"tokens", Access::out, Tensor::zeros(DType::i32, {real ? rows : 1}),
                    method == ref::kGreedy ? Match::exact : Match::tolerance});
  c.args.push_back(status_arg());
  c.label = "rows=" + std::to_string(rows) + " vocab=" + std::to_string(vocab) + " " + method_name(m) +
            " logits=" + (half ? half_logits::kind_name(kind) : kind_name(kind)) + " t=" + std::to_string(t) +
            " k=" + std::to_string(k) + " p=" + std::to_string(p) + " min_p=" + std::to_string(min_p) +
            " seed=" + std::to_string(seed) + (bad.empty() ? "" : " " + bad) + (valid ? "" : " (refused)");
  return c;
}

// ---------------------------------------------------------------- oracle and verify

Oracle oracle(const Case& c) {
  if (tl_status st = call_status(c)) return {{"status", status_expected(st)}};
  if (c.iparam("method") != ref::kGreedy) return {{"status", status_expected(TL_OK)}};  // tokens: verify below
  const int64_t rows = c.iparam("rows"), vocab = c.iparam("vocab");
  std::vector<float> scratch;
  const float* logits = half_logits::floats_of(c.in("logits"), scratch);
  Expected e;
  for (int64_t r = 0; r < rows; ++r) e.value.push_back(double(reference::argmax(logits + r * vocab, vocab)));
  e.scale.assign(e.value.size(), 0.0);
  return {{"status", status_expected(TL_OK)}, {"tokens", e}};
}

struct Settings {
  int method;
  float t, p, min_p;
  int64_t k;
  uint64_t seed;
};

Settings settings_of(const Case& c) {
  // The seed is a whole number below 2^53 (a double holds the parameters): a
  // reproducer's -1 or 1.5 is refused, not cast.
  const int64_t seed = c.iparam("seed");
  if (seed < 0 || seed > (int64_t{1} << 53))
    throw std::invalid_argument("parameter 'seed' is " + std::to_string(seed) + ", not an integer in 0 .. 2^53");
  return {c.iparam32("method"),
          static_cast<float>(c.param("t")),
          static_cast<float>(c.param("p")),
          static_cast<float>(c.param("min_p")),
          c.iparam("k"),
          static_cast<uint64_t>(seed)};
}

// The error terms of one weight, in units of 2^-24 relative: (l - m) and the
// division by t round once each (2 |x| absolute in x = (l - m) / t, which
// exp turns into 2 |x| relative in w), exp <= 4 ulp (Highway's ExpF ~2,
// libm's < 1).
double weight_error(float l, float m, float t) {
  if (std::isinf(m) || !std::isfinite(l)) return 0.0;  // weights exactly 0 or 1
  return 4.0 + 2.0 * std::fabs((double(l) - double(m)) / double(t));
}

// A candidate kept set, in its order, and its error scale s: n_S roundings of
// the running sum (recursive summation: <= (n_S - 1) u of Z), 2 for the
// product u * Z and the comparison, and each kept weight's own error e_i
// weighted by its probability p_i = w_i / Z.
struct Candidate {
  std::vector<int64_t> kept;
};

double scale_of(const std::vector<int64_t>& kept, const std::vector<double>& w, const std::vector<double>& e) {
  double z = 0, s = 0;
  for (int64_t i : kept) z += w[static_cast<size_t>(i)];
  for (int64_t i : kept)
    if (w[static_cast<size_t>(i)] > 0) s += w[static_cast<size_t>(i)] / z * e[static_cast<size_t>(i)];
  return double(kept.size()) + 2.0 + s;
}

// How far u lies from the interval of `token` in `kept`, in units of
// 2^-24 * s; +Inf when the token is not kept or has weight 0.
double distance(const std::vector<int64_t>& kept, const std::vector<double>& w, const std::vector<double>& e,
                int32_t token, double u, bool seeded) {
  double z = 0, before = -1;
  for (int64_t i : kept) {
    if (i == token) before = z;
    z += w[static_cast<size_t>(i)];
  }
  if (before < 0 || !(w[static_cast<size_t>(token)] > 0)) return INFINITY;
  if (!seeded) return 0.0;  // seed 0: any kept token of positive weight
  const double lo = before / z, hi = (before + w[static_cast<size_t>(token)]) / z;
  const double d = std::max({0.0, lo - u, u - hi});
  return d / (0x1p-24 * scale_of(kept, w, e));
}

// The kept sets a correct float kernel may produce for a row (TopP: see
// top_p_distance). Temperature and TopK have one (TopK compares the logits
// themselves: exact). MinP's threshold compares rounded weights with min_p: a
// weight within the op's limit of min_p may go either way. The kept set is
// monotone (the weights at or above a cut, as w is monotone in the logit),
// so the candidates are the cuts at each ambiguous value.
std::vector<std::vector<int64_t>> candidates(const float* l, int64_t n, const std::vector<double>& w,
                                             const std::vector<double>& e, const Settings& s, double limit) {
  std::vector<std::vector<int64_t>> out;
  if (s.method == ref::kTemperature) {
    out.push_back(ref::kept_positions<double>(l, n, w, s.method, s.k, s.p, s.min_p));
  } else if (s.method == ref::kTopK) {
    out.push_back(ref::kept_positions<double>(l, n, w, s.method, s.k, s.p, s.min_p));
  } else {  // MinP: w_i >= min_p (max(w) = 1)
    const double p = s.min_p;
    std::vector<double> ambiguous;
    for (size_t i = 0; i < w.size(); ++i)
      if (std::fabs(w[i] - p) <= limit * 0x1p-24 * e[i] * std::max(w[i], p)) ambiguous.push_back(w[i]);
    std::sort(ambiguous.begin(), ambiguous.end(), std::greater<double>());
    ambiguous.erase(std::unique(ambiguous.begin(), ambiguous.end()), ambiguous.end());
    if (ambiguous.size() > 16) ambiguous.resize(16);
    std::vector<double> cuts = {INFINITY};
    cuts.insert(cuts.end(), ambiguous.begin(), ambiguous.end());
    for (double cut : cuts) {
      std::vector<int64_t> kept;
      for (size_t i = 0; i < w.size(); ++i) {
        const bool amb = std::fabs(w[i] - p) <= limit * 0x1p-24 * e[i] * std::max(w[i], p);
        if (amb ? w[i] >= cut : w[i] >= p) kept.push_back(static_cast<int64_t>(i));
      }
      out.push_back(kept);
    }
  }
  return out;
}

// TopP: the kept set is a prefix of the sorted order whose length L compares
// rounded cumsums C_j = cum_j / Z with p, so any L from Lmin (the positions
// with C_j <= p - a) to Lmax (C_j <= p + a), a = limit * 2^-24 * s over the
// whole row, at least 1, is one a correct float kernel may produce. Token
// position j < L has the interval [cum_{j-1}, cum_j) / cum_{L-1}, which moves
// down as L grows: over L in [max(Lmin, j + 1), Lmax] the intervals (in
// ambiguous zones cum_{L-1} barely changes) span [cum_{j-1} / cum_{Lmax-1},
// cum_j / cum_{max(Lmin, j+1)-1}]; u is judged against that hull with the
// scale of the longest prefix.
double top_p_distance(const float* l, int64_t n, const std::vector<double>& w, const std::vector<double>& e,
                      const Settings& s, double limit, int32_t token, double u, bool seeded) {
  const std::vector<int64_t> order = ref::sorted_order(l, n);
  std::vector<double> cum(static_cast<size_t>(n));
  double c = 0;
  for (int64_t j = 0; j < n; ++j)
    cum[static_cast<size_t>(j)] = c += w[static_cast<size_t>(order[static_cast<size_t>(j)])];
  const double z = c, amb = limit * 0x1p-24 * scale_of(order, w, e);
  int64_t lmin = 0, lmax = 0;
  for (int64_t j = 0; j < n; ++j) {
    if (cum[static_cast<size_t>(j)] / z <= double(s.p) - amb && lmin == j) ++lmin;
    if (cum[static_cast<size_t>(j)] / z <= double(s.p) + amb && lmax == j) ++lmax;
  }
  lmin = std::max<int64_t>(lmin, 1), lmax = std::max<int64_t>(lmax, 1);
  int64_t pos = -1;
  for (int64_t j = 0; j < lmax; ++j)
    if (order[static_cast<size_t>(j)] == token) pos = j;
  if (pos < 0 || !(w[static_cast<size_t>(token)] > 0)) return INFINITY;
  if (!seeded) return 0.0;
  const int64_t shortest = std::max(lmin, pos + 1);
  const double lo = (pos > 0 ? cum[static_cast<size_t>(pos - 1)] : 0.0) / cum[static_cast<size_t>(lmax - 1)];
  const double hi = cum[static_cast<size_t>(pos)] / cum[static_cast<size_t>(shortest - 1)];
  const std::vector<int64_t> longest(order.begin(), order.begin() + lmax);
  return std::max({0.0, lo - u, u - hi}) / (0x1p-24 * scale_of(longest, w, e));
}

// One row's verdict: the drawn `token` of row r (logits l, its u from the
// case's seed) against the oracle's interval(s), in units of 2^-24 s.
ElementVerdict judge_row(const float* l, int64_t vocab, const Settings& s, double limit, int64_t r, int32_t token) {
  const std::vector<double> w = ref::weights<double>(l, vocab, s.t);
  float m = -kInf;
  for (int64_t i = 0; i < vocab; ++i)
    if (!std::isnan(l[i])) m = std::max(m, l[i]);
  std::vector<double> e(static_cast<size_t>(vocab));
  for (int64_t i = 0; i < vocab; ++i) e[static_cast<size_t>(i)] = weight_error(l[i], m, s.t);
  const double u = s.seed != 0 ? ref::draw_u(s.seed, r) : 0.0;
  const int32_t want = ref::sample_row<double>(l, vocab, s.method, s.t, s.k, s.p, s.min_p, u);
  ElementVerdict ev;
  ev.index = r;
  ev.expected = want;
  ev.got = token;
  ev.limit = limit;
  bool positive = false;
  for (double x : w) positive = positive || x > 0;
  if (!positive) {
    ev.error = token == -1 ? 0.0 : INFINITY;
    ev.why = "a row with no number must give -1, got " + std::to_string(token);
  } else if (token < 0 || token >= vocab) {
    ev.error = INFINITY;
    ev.why = "token " + std::to_string(token) + " outside [0, vocab)";
  } else {
    double best = INFINITY;
    if (s.method == ref::kTopP) best = top_p_distance(l, vocab, w, e, s, limit, token, u, s.seed != 0);
    else
      for (const auto& kept : candidates(l, vocab, w, e, s, limit))
        best = std::min(best, distance(kept, w, e, token, u, s.seed != 0));
    ev.error = best;
    ev.why = std::isinf(best) ? "token " + std::to_string(token) + " is not among the kept tokens of positive weight"
                              : "u = " + std::to_string(u) + " lies " + std::to_string(best) +
                                    " x 2^-24 s outside token " + std::to_string(token) + "'s interval";
    ev.why += " (the oracle draws " + std::to_string(want) + ")";
  }
  ev.ok = ev.error <= limit;
  return ev;
}

std::vector<Verification> verify(const Case& c, const std::map<std::string, Tensor>& outputs, double limit) {
  const int64_t rows = c.iparam("rows"), vocab = c.iparam("vocab");
  const Settings s = settings_of(c);
  const int32_t* got = outputs.at("tokens").i32();
  Verification v{"draw_matches_oracle", "tokens", "rows", {rows}, {}};
  Comparison& cmp = v.comparison;
  std::vector<float> scratch;
  const float* logits = half_logits::floats_of(c.in("logits"), scratch);
  for (int64_t r = 0; r < rows; ++r) {
    const ElementVerdict ev = judge_row(logits + r * vocab, vocab, s, limit, r, got[r]);
    ++cmp.metrics.elements;
    if (!ev.ok) ++cmp.mismatches;
    const bool worse =
        cmp.worst.index < 0 || (!ev.ok && cmp.worst.ok) || (ev.ok == cmp.worst.ok && ev.error > cmp.worst.error);
    if (worse) cmp.worst = ev;
  }
  return {v};
}

// ---------------------------------------------------------------- the entries

// The parameters every method's cases hold (the call takes them all): those
// the method reads with their accepted values, the others as unread.
std::vector<ParamSpec> params_of(int method) {
  const char* methods[] = {"0 (TL_SAMPLE_GREEDY)", "1 (TL_SAMPLE_TEMPERATURE)", "2 (TL_SAMPLE_TOP_K)",
                           "3 (TL_SAMPLE_TOP_P)", "4 (TL_SAMPLE_MIN_P)"};
  const std::string unread = "not read by this method, not validated: any value";
  const bool draws = method != ref::kGreedy;
  return {
      {"rows", ParamType::i64, ">= 0 (0 writes nothing); rows * vocab * 4 within int64_t"},
      {"vocab", ParamType::i64, "1 .. INT32_MAX"},
      {"method", ParamType::i32,
       std::string(methods[method]) + ", this entry's method (tl_sample_method 0 .. 4; others refused)", "0"},
      {"t", ParamType::f32, draws ? "the temperature: finite, > 0 (NaN refused)" : unread, "1.0"},
      {"k", ParamType::i64, method == ref::kTopK ? "top_k: 1 .. vocab" : unread},
      {"p", ParamType::f32, method == ref::kTopP ? "top_p: (0, 1] (NaN refused)" : unread},
      {"min_p", ParamType::f32, method == ref::kMinP ? "[0, 1] (NaN refused)" : unread},
      {"seed", ParamType::u64,
       draws ? "0: not reproducible (drawn from the clock); any other: a PCG32 stream per row, the same tokens on "
               "every machine; at most 2^53 (cases hold it as a double)"
             : "not read (no draw)"},
  };
}

OpSpec spec(const char* name, int method, const char* summary, std::vector<ToleranceRule> tolerances = {}) {
  OpSpec op;
  op.name = name;
  op.tolerances = std::move(tolerances);
  // Greedy's token is exact; a drawn one is judged on its u (tolerance).
  op.args = {{"logits", Access::in, "T", "rows, vocab"},
             {"tokens", Access::out, "i32", "rows", {op.tolerances.empty() ? Match::exact : Match::tolerance}},
             status_output()};
  op.group = "sampling";
  op.symbol = "tl_sample_f32";
  op.summary = summary;
  op.spec = "operations.txt 8. Sampling: Sample";
  op.params = params_of(method);
  op.domain =
      "vocab 1 .. 3000, 32000 and 128256, up to 16 rows; logits N(0, s) for s 0.3 .. 8, one peak, small "
      "integers (ties), an offset of 1e3, -Inf masks, NaN, rows with no number, +Inf; temperatures 1e-3 .. "
      "100; seeds 1 .. 2^53 (seed 0 by a property); 10% bad or unread settings";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_vocabs().size());
  op.make_case = [edges = op.edge_cases, method](Rng& rng, int64_t i) {
    return make(DType::f32, rng, i, edges, method);
  };
  declare_c_call<decltype(tl_sample_f32)>(
      op, {"logits", "tokens", "rows", "vocab", "method", "t", "k", "p", "min_p", "seed"});
  op.oracle = oracle;
  if (method != ref::kGreedy) op.verify = verify;
  return op;
}

// The f32 entry's twin on f16 or bf16 logits (tl_sample_f16, _bf16): its
// parameters, oracle and judge; the half classes' cases; the f32 rule
// unchanged, since every operation after the exact widening is f32's.
OpSpec half_twin(const OpSpec& f32, DType t, int method) {
  const std::string dtype(dtype_name(t));
  OpSpec op = f32;
  op.name = f32.name + "_" + dtype;
  op.dtype = t;
  op.symbol = "tl_sample_" + dtype;
  op.summary += "; logits " + dtype + ", widened exactly, the weights and sums in f32";
  for (ToleranceRule& r : op.tolerances) {
    r.dtype = t;
    r.why = f32.name + "'s rule, unchanged: the " + dtype +
            " logits are widened to f32 exactly (the op's inputs, not a rounding) and every weight, sum and "
            "comparison after that is f32's, with f32's error terms (u = 2^-24); " +
            r.why;
  }
  op.domain = "vocab 1 .. 1000, 4096 and 32000, up to 4 rows; " + dtype +
              " logits: rounded N(0, s), ties after rounding (a band of 4 ulps over up to 32000 tokens), NaN of "
              "random payloads and signs, -Inf masks and +Inf, +0/-0 among negatives, the largest finite values "
              "of both signs, subnormals, negatives only, random bit patterns; the settings and refusals of " +
              f32.name;
  op.edge_cases = static_cast<int64_t>(half_edges().size());
  op.make_case = [t, edges = op.edge_cases, method](Rng& rng, int64_t i) { return make(t, rng, i, edges, method); };
  declare_c_call<decltype(tl_sample_f16)>(  // bf16 alike
      op, {"logits", "tokens", "rows", "vocab", "method", "t", "k", "p", "min_p", "seed"});
  return op;
}

}  // namespace

ElementVerdict judge_draw(const Case& c, const float* row_logits, int64_t row, int32_t token, double limit) {
  return judge_row(row_logits, c.iparam("vocab"), settings_of(c), limit, row, token);
}

std::vector<OpSpec> sampling() {
  std::vector<OpSpec> ops = {
      spec("SampleGreedy", ref::kGreedy,
           "tokens[r] = argmax of logits[r, :] (lowest index on ties, NaN skipped, -1 without a number); settings "
           "unread; validates"),
      spec("SampleTemperature", ref::kTemperature,
           "a token per row drawn from softmax(logits / t) by the header's PCG32 u; validates",
           {{DType::f32, "2", "-",
             "judged on u, not on an element (harness/ops/sampling.cpp): a token passes when the PCG32 u"
             " lies within limit * 2^-24 * s of its interval [C_{j-1}, C_j) / Z in double; s = n_S (the "
             "running float sum of n_S kept weights, recursive: <= (n_S - 1) u of Z) + 2 (u * Z and the "
             "comparison) + sum_i p_i e_i, e_i = 4 + 2 |(l_i - m) / t| (the subtraction and the division"
             " each 1 u of x, exp turns x errors into relative errors of w; exp <= 4 ulp); every term is"
             " a first-order bound, 2 absorbs the second-order ones"}}),
      spec("SampleTopK", ref::kTopK,
           "a token drawn from softmax of the top_k largest logits / t (ties: lower index); validates",
           {{DType::f32, "2", "-",
             "SampleTemperature's rule and scale over the top_k kept weights in sorted order; the kept "
             "set compares the input logits themselves, exactly: no ambiguity"}}),
      spec("SampleTopP", ref::kTopP,
           "a token drawn from the sorted prefix with cumsum <= top_p (first token always kept), renormalised; "
           "validates",
           {{DType::f32, "2", "-",
             "SampleTemperature's rule and scale over the kept prefix; the prefix length compares C_j = "
             "cumsum_j / Z with p, which a float kernel may round either way when |C_j - p| <= limit * "
             "2^-24 * s over the whole vocabulary: every such length is a candidate kept set (the cumsum"
             " <= p boundary itself is checked exactly by top_p_boundary_is_inclusive, where all "
             "arithmetic is exact)"}}),
      spec("SampleMinP", ref::kMinP,
           "a token drawn from the tokens with prob >= min_p * max(prob), renormalised; validates",
           {{DType::f32, "2", "-",
             "SampleTemperature's rule and scale over the kept tokens; the kept set compares w_i with "
             "min_p * max(w) = min_p (exp(0) = 1 exactly), which a float kernel may round either way "
             "when |w_i - min_p| <= limit * 2^-24 * e_i * max(w_i, min_p): every cut at such a weight is"
             " a candidate kept set"}}),
  };
  const size_t f32_ops = ops.size();
  for (const DType t : {DType::f16, DType::bf16})
    for (size_t i = 0; i < f32_ops; ++i)  // in method order: ops[m] is method m's entry
      ops.push_back(half_twin(ops[i], t, static_cast<int>(i)));
  return ops;
}

}  // namespace konform::ops
