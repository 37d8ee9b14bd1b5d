// The properties of the attention ops (tinyllm/attention.h), from
// spec/operations.txt §5 and its QK-norm part. Each can fail: the mutants of
// mutants/attention_base.c named in mutants/manifest.tsv break them.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "konform/call.hpp"
#include "konform/op.hpp"
#include "konform/properties.hpp"
#include "konform/reference/norm.hpp"
#include "konform/rng.hpp"
#include "support.hpp"

namespace konform {
namespace {

using namespace props;
using Floats = std::vector<float>;

struct Sizes {
  int64_t B = 1, H = 1, KV = 1, Sq = 1, Sk = 1, D = 1;
};

struct Call {
  Floats y;
  Oracle want;  // the catalog's oracle for the same case: value and scale
};

const OpSpec& op_named(const char* name) {
  const OpSpec* o = find_op(name);
  if (o == nullptr) throw std::logic_error(std::string("no op ") + name + " in the catalog");
  return *o;
}

Arg status_arg() { return {"status", Access::out, Tensor::zeros(DType::i32, {1}), Match::exact}; }

// Sdpa or FlashAttention (or SdpaCross / SdpaWindow with their params) on
// plain vectors; a refused valid call fails the property.
Call attend(const Backend& b, const char* op, const Sizes& s, const Floats& q, const Floats& k, const Floats& v,
            bool causal = false, int mask_kind = 0, const Floats& mask = {}, int64_t window = 0) {
  Case c;
  c.params = {{"B", double(s.B)},   {"H", double(s.H)},   {"KV", double(s.KV)},
              {"Sq", double(s.Sq)}, {"Sk", double(s.Sk)}, {"D", double(s.D)}};
  const std::string name = op;
  if (name == "Sdpa" || name == "FlashAttention") {
    c.params["causal"] = causal ? 1.0 : 0.0;
    c.params["mask"] = double(mask_kind);
  }
  if (name == "SdpaWindow") c.params["window"] = double(window);
  c.args.push_back({"q", Access::in, Tensor::of_f32({s.B, s.H, s.Sq, s.D}, q)});
  c.args.push_back({"k", Access::in, Tensor::of_f32({s.B, s.KV, s.Sk, s.D}, k)});
  c.args.push_back({"v", Access::in, Tensor::of_f32({s.B, s.KV, s.Sk, s.D}, v)});
  if (mask_kind != 0) c.args.push_back({"mask", Access::in, Tensor::of_f32({static_cast<int64_t>(mask.size())}, mask)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {s.B, s.H, s.Sq, s.D})});
  c.args.push_back(status_arg());
  const OpSpec& o = op_named(op);
  const auto got = run_op(b, o, c);
  const int32_t status = got.at("status").i32()[0];
  if (status != 0) throw std::runtime_error(name + " refused valid arguments: status " + std::to_string(status));
  const Tensor& t = got.at("y");
  return {Floats(t.f32(), t.f32() + t.elements()), o.oracle(c)};
}

Floats normal(int64_t n, float scale = 1.0f) {
  // Values on a grid of 2^-10 in [-1, 1), times scale, drawn from a generated
  // seed: RapidCheck then shrinks the sizes and one seed instead of every
  // element, which took over a minute on a failing FlashAttention.
  Rng rng(*rc::gen::arbitrary<uint64_t>());
  Floats v(static_cast<size_t>(n));
  for (float& e : v) e = static_cast<float>(rng.range(-1024, 1023)) * 0x1p-10f * scale;
  return v;
}

Sizes shrink(Sizes s);

Sizes random_sizes(bool gqa, int64_t max_sk = 100) {
  Sizes s;
  s.B = *rc::gen::inRange<int64_t>(1, 3);
  s.KV = *rc::gen::inRange<int64_t>(1, 4);
  s.H = gqa ? s.KV * *rc::gen::inRange<int64_t>(1, 4) : s.KV;
  s.Sk = *rc::gen::inRange<int64_t>(1, max_sk + 1);
  s.Sq = *rc::gen::element<int64_t>(1, 1, s.Sk, *rc::gen::inRange<int64_t>(1, 20));
  s.D = *rc::gen::element<int64_t>(1, 3, 4, 8, 16, 17, 32, 64);
  return shrink(s);
}

// At most 2^16 multiply-adds a call: each property run calls a kernel
// (twice, guarded) and the double oracle a few times. Sq shrinks first, Sk
// only once Sq is 1 (Sq <= Sk stays true).
Sizes shrink(Sizes s) {
  while (s.B * s.H * s.Sq * s.Sk * s.D > (int64_t{1} << 16)) {
    if (s.Sq > 1) s.Sq = (s.Sq + 1) / 2;
    else if (s.B > 1) --s.B;
    else if (s.D > 8) s.D /= 2;
    else s.Sk = (s.Sk + 1) / 2;
  }
  return s;
}

int64_t q_count(const Sizes& s) { return s.B * s.H * s.Sq * s.D; }
int64_t kv_count(const Sizes& s) { return s.B * s.KV * s.Sk * s.D; }

// got within `limits` times the op's limit of the oracle's value, at its scale.
void assert_near_oracle(const Call& c, const char* op, double limits = 1.0) {
  const Expected& e = c.want.at("y");
  for (size_t i = 0; i < c.y.size(); ++i) RC_ASSERT(near(c.y[i], e.value[i], e.scale[i], limits * limit_of(op)));
}

// ---------------------------------------------------------------- Sdpa

// q = (2, 0, 0, 0): scale 1/2, so the scores are k's first elements, 0 and
// ln 3: p = (1/4, 3/4) and y = v0 / 4 + 3 v1 / 4 = (4, -1, 0, 0).
void sdpa_hand_example(const Backend& b) {
  Sizes s;
  s.Sk = 2, s.D = 4;
  const float ln3 = 1.0986122886681098f;
  const auto r = attend(b, "Sdpa", s, {2, 0, 0, 0}, {0, 0, 0, 0, ln3, 0, 0, 0}, {1, 2, 0, 0, 5, -2, 0, 0});
  RC_ASSERT(agrees_to_7_digits(r.want.at("y").value[0], 4.0) && agrees_to_7_digits(r.want.at("y").value[1], -1.0));
  assert_near_oracle(r, "Sdpa");  // the op's limit and scale, as the sweep judges
  RC_ASSERT(r.y[2] == 0.0f && r.y[3] == 0.0f);
}

// K and V of kv_heads heads give what Sdpa gives on them expanded to
// num_heads heads by repeat_interleave (head h reads KV head h / group), and
// not what tiling (h % kv_heads) would give.
void gqa_is_repeat_interleave(const Backend& b) {
  Sizes s = random_sizes(true, 40);
  s.KV = *rc::gen::inRange<int64_t>(2, 5);
  s.H = s.KV * *rc::gen::inRange<int64_t>(2, 4);
  s = shrink(s);
  const int64_t group = s.H / s.KV;
  const Floats q = normal(q_count(s)), k = normal(kv_count(s));
  Floats v = normal(kv_count(s));
  // KV head kh's values offset by 2 kh: the heads differ whatever was drawn,
  // so the tiled expansion reads other values than the interleaved one.
  for (size_t i = 0; i < v.size(); ++i)
    v[i] += 2.0f * static_cast<float>(static_cast<int64_t>(i) / (s.Sk * s.D) % s.KV);
  const bool causal = *rc::gen::arbitrary<bool>();
  const auto gqa = attend(b, "Sdpa", s, q, k, v, causal);
  Sizes e = s;
  e.KV = s.H;
  const int64_t per_head = s.Sk * s.D;
  Floats ki(static_cast<size_t>(kv_count(e))), vi(ki.size()), kt(ki.size()), vt(ki.size());
  for (int64_t bb = 0; bb < s.B; ++bb)
    for (int64_t h = 0; h < s.H; ++h)
      for (int64_t t = 0; t < per_head; ++t) {
        const size_t to = static_cast<size_t>((bb * s.H + h) * per_head + t);
        const size_t inter = static_cast<size_t>((bb * s.KV + h / group) * per_head + t);
        const size_t tiled = static_cast<size_t>((bb * s.KV + h % s.KV) * per_head + t);
        ki[to] = k[inter], vi[to] = v[inter], kt[to] = k[tiled], vt[to] = v[tiled];
      }
  const auto expanded = attend(b, "Sdpa", e, q, ki, vi, causal);
  const auto tiled = attend(b, "Sdpa", e, q, kt, vt, causal);
  const Expected& w = expanded.want.at("y");
  bool differs_from_tiled = false;
  for (size_t i = 0; i < gqa.y.size(); ++i) {
    RC_ASSERT(near(gqa.y[i], expanded.y[i], w.scale[i], 2 * limit_of("Sdpa")));
    differs_from_tiled |= !near(gqa.y[i], tiled.y[i], w.scale[i], 2 * limit_of("Sdpa"));
  }
  RC_ASSERT(differs_from_tiled);
}

// Causal rows whose every key is masked (Sq > Sk: query i sees keys up to
// i + Sk - Sq < 0), and rows whose padding mask is -1e4 everywhere, stay
// finite and match the oracle: -1e4 is added, never -inf.
void fully_masked_row_is_finite(const Backend& b, const char* op) {
  Sizes s = random_sizes(true, 20);
  s.B = 1, s.D = std::min<int64_t>(s.D, 16);
  s.Sq = s.Sk + *rc::gen::inRange<int64_t>(1, 6);
  // Scores of spread ~1..3: a masked row's softmax is far from uniform.
  const Floats q = normal(q_count(s), 3.0f), k = normal(kv_count(s), 3.0f), v = normal(kv_count(s));
  Floats pad = normal(s.B * s.Sk);
  for (float& m : pad) m = m > 0 ? 0.0f : -1e4f;
  for (int64_t j = 0; j < s.Sk; ++j) pad[static_cast<size_t>(j)] = -1e4f;  // sample 0: every key padded
  const bool padded = *rc::gen::arbitrary<bool>();
  const auto r = attend(b, op, s, q, k, v, true, padded ? 1 : 0, padded ? pad : Floats{});
  for (float y : r.y) RC_ASSERT(std::isfinite(y));
  assert_near_oracle(r, op);
}

// Causal attention of query i ignores the keys after its position
// i + Sk - Sq: new keys and values there leave row i as it was, within the
// limit; and the key at exactly that position is seen (a value moved by 64
// there moves y).
void causal_ignores_later_keys(const Backend& b, const char* op) {
  Sizes s = random_sizes(true, 60);
  s.Sq = *rc::gen::inRange<int64_t>(1, s.Sk + 1);
  s = shrink(s);
  const Floats q = normal(q_count(s));
  Floats k = normal(kv_count(s)), v = normal(kv_count(s));
  const auto before = attend(b, op, s, q, k, v, true);
  const int64_t i = *rc::gen::inRange<int64_t>(0, s.Sq);
  const int64_t pos = i + s.Sk - s.Sq;  // the last key query i sees
  Floats k2 = k, v2 = v;
  for (int64_t bk = 0; bk < s.B * s.KV; ++bk)
    for (int64_t j = pos + 1; j < s.Sk; ++j)
      for (int64_t t = 0; t < s.D; ++t) {
        const size_t at = static_cast<size_t>((bk * s.Sk + j) * s.D + t);
        k2[at] = -k2[at] * 3.0f + 1.0f, v2[at] = v2[at] * 5.0f - 2.0f;
      }
  const auto after = attend(b, op, s, q, k2, v2, true);
  const Expected& w = before.want.at("y");
  for (int64_t bh = 0; bh < s.B * s.H; ++bh)
    for (int64_t t = 0; t < s.D; ++t) {
      const size_t at = static_cast<size_t>((bh * s.Sq + i) * s.D + t);
      RC_ASSERT(near(after.y[at], before.y[at], w.scale[at], 2 * limit_of(op)));
    }
  Floats v3 = v;
  for (int64_t bk = 0; bk < s.B * s.KV; ++bk) v3[static_cast<size_t>((bk * s.Sk + pos) * s.D)] += 64.0f;
  const auto moved = attend(b, op, s, q, k, v3, true);
  RC_ASSERT(std::fabs(moved.y[static_cast<size_t>(i * s.D)] - before.y[static_cast<size_t>(i * s.D)]) > 1e-3);
}

// Row i of a causal prefill over Sk = Sq keys is the decode step of query i
// over the first i + 1 keys (Sq = 1: the query is the last position).
void causal_decode_equals_prefill_row(const Backend& b, const char* op) {
  Sizes s = random_sizes(true, 40);
  s.B = 1;
  s.Sk = std::min<int64_t>(s.Sk, 24), s.D = std::min<int64_t>(s.D, 32);
  s.Sq = s.Sk;
  const Floats q = normal(q_count(s)), k = normal(kv_count(s)), v = normal(kv_count(s));
  const auto prefill = attend(b, op, s, q, k, v, true);
  const int64_t i = *rc::gen::inRange<int64_t>(0, s.Sq);
  Sizes d = s;
  d.Sq = 1, d.Sk = i + 1;
  Floats qd, kd, vd;
  for (int64_t h = 0; h < s.H; ++h)
    qd.insert(qd.end(), q.begin() + (h * s.Sq + i) * s.D, q.begin() + (h * s.Sq + i + 1) * s.D);
  for (int64_t h = 0; h < s.KV; ++h) {
    kd.insert(kd.end(), k.begin() + h * s.Sk * s.D, k.begin() + (h * s.Sk + i + 1) * s.D);
    vd.insert(vd.end(), v.begin() + h * s.Sk * s.D, v.begin() + (h * s.Sk + i + 1) * s.D);
  }
  const auto decode = attend(b, op, d, qd, kd, vd, true);
  const Expected& w = decode.want.at("y");
  for (int64_t h = 0; h < s.H; ++h)
    for (int64_t t = 0; t < s.D; ++t) {
      const size_t at = static_cast<size_t>(h * s.D + t);
      RC_ASSERT(
          near(decode.y[at], prefill.y[static_cast<size_t>((h * s.Sq + i) * s.D + t)], w.scale[at], 2 * limit_of(op)));
    }
}

// ---------------------------------------------------------------- FlashAttention

// FlashAttention gives Sdpa's result within the sum of their limits, on every mask
// kind, causal or not, decode (Sq = 1) included, over keys spanning several
// tiles; scores up to a few hundred move the running max between tiles.
void flash_attention_matches_sdpa(const Backend& b) {
  Sizes s = random_sizes(true, 200);
  const float spread = *rc::gen::element(1.0f, 4.0f, 16.0f);
  const Floats q = normal(q_count(s), spread), k = normal(kv_count(s), spread), v = normal(kv_count(s));
  const bool causal = *rc::gen::arbitrary<bool>();
  const int kind = *rc::gen::inRange(0, 5);
  const int64_t mask_n[] = {0, s.B * s.Sk, s.B * s.H * s.Sq * s.Sk, s.Sq * s.Sk, s.B * s.Sq * s.Sk};
  Floats mask = normal(mask_n[kind]);
  for (float& m : mask) m = m < -0.5f ? -1e4f : m;
  const auto sdpa = attend(b, "Sdpa", s, q, k, v, causal, kind, mask);
  const auto flash = attend(b, "FlashAttention", s, q, k, v, causal, kind, mask);
  const Expected& w = sdpa.want.at("y");
  const double limit = limit_of("Sdpa") + limit_of("FlashAttention");
  for (size_t i = 0; i < sdpa.y.size(); ++i) RC_ASSERT(near(flash.y[i], sdpa.y[i], w.scale[i], limit));
}

// ---------------------------------------------------------------- SdpaCross, SdpaWindow

// SdpaCross is Sdpa with kv_heads = num_heads, no causal mask and no mask,
// whatever the decoder and encoder lengths.
void cross_equals_sdpa(const Backend& b) {
  Sizes s = random_sizes(false, 80);
  s.Sq = *rc::gen::inRange<int64_t>(2, 12);
  s = shrink(s);
  const Floats q = normal(q_count(s)), k = normal(kv_count(s)), v = normal(kv_count(s));
  const auto cross = attend(b, "SdpaCross", s, q, k, v);
  const auto sdpa = attend(b, "Sdpa", s, q, k, v);
  const Expected& w = sdpa.want.at("y");
  for (size_t i = 0; i < sdpa.y.size(); ++i) RC_ASSERT(near(cross.y[i], sdpa.y[i], w.scale[i], 2 * limit_of("Sdpa")));
}

// Each window of SdpaWindow is Sdpa on that window's positions alone: no
// key of a neighbouring window leaks in, none of its own is left out.
void window_is_sdpa_per_window(const Backend& b) {
  Sizes s;
  s.B = 1;
  s.H = s.KV = *rc::gen::inRange<int64_t>(1, 3);
  const int64_t w = *rc::gen::inRange<int64_t>(1, 12), windows = *rc::gen::inRange<int64_t>(2, 5);
  s.Sq = s.Sk = w * windows;
  s.D = *rc::gen::element<int64_t>(1, 4, 8, 17);
  const Floats q = normal(q_count(s)), k = normal(kv_count(s)), v = normal(kv_count(s));
  const auto all = attend(b, "SdpaWindow", s, q, k, v, false, 0, {}, w);
  const int64_t at = *rc::gen::inRange<int64_t>(0, windows);
  Sizes one = s;
  one.Sq = one.Sk = w;
  Floats qw, kw, vw;
  for (int64_t h = 0; h < s.H; ++h) {
    const auto from = (h * s.Sq + at * w) * s.D, to = from + w * s.D;
    qw.insert(qw.end(), q.begin() + from, q.begin() + to);
    kw.insert(kw.end(), k.begin() + from, k.begin() + to);
    vw.insert(vw.end(), v.begin() + from, v.begin() + to);
  }
  const auto alone = attend(b, "Sdpa", one, qw, kw, vw);
  const Expected& e = alone.want.at("y");
  for (int64_t h = 0; h < s.H; ++h)
    for (int64_t t = 0; t < w * s.D; ++t) {
      const size_t mine = static_cast<size_t>(h * w * s.D + t);
      RC_ASSERT(near(all.y[static_cast<size_t>((h * s.Sq + at * w) * s.D + t)], alone.y[mine], e.scale[mine],
                     2 * limit_of("Sdpa")));
    }
}

// ---------------------------------------------------------------- QK-norm

Floats qk_norm(const Backend& b, const Floats& x, const Floats& g, int64_t tokens, int64_t heads, int64_t d,
               float eps) {
  Case c;
  c.params = {{"tokens", double(tokens)}, {"heads", double(heads)}, {"D", double(d)}, {"eps", double(eps)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({tokens, heads, d}, x)});
  c.args.push_back({"g", Access::in, Tensor::of_f32({d}, g)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {tokens, heads, d})});
  c.args.push_back(status_arg());
  const auto got = run_op(b, op_named("QkNorm"), c);
  if (got.at("status").i32()[0] != 0) throw std::runtime_error("QkNorm refused valid arguments");
  const Tensor& t = got.at("y");
  return Floats(t.f32(), t.f32() + t.elements());
}

// [3, 4] and [0.3, 0.4] as two heads with gain [1, 0.5]: each head is
// normalized by its own root mean square (3.5355 and 0.35355), so both give
// (3, 4 * 0.5) / 3.5355 = (0.8485281, 0.5656854); one norm over both heads
// would not.
void qk_norm_hand_example(const Backend& b) {
  const auto y = qk_norm(b, {3, 4, 0.3f, 0.4f}, {1, 0.5f}, 1, 2, 2, 0.0f);
  const double limit = limit_of("QkNorm");  // of |y|, RmsNorm's scale
  RC_ASSERT(matches_printed(y[0], 0.8485281, 0.8485281, limit) && matches_printed(y[2], 0.8485281, 0.8485281, limit));
  RC_ASSERT(matches_printed(y[1], 0.5656854, 0.5656854, limit) && matches_printed(y[3], 0.5656854, 0.5656854, limit));
}

// Heads of magnitudes 2^-12 .. 2^12 side by side: every head comes out as
// RmsNorm of that head alone (the reduction over head_dim, not num_heads *
// head_dim), with the gain applied per element of head_dim.
void qk_norm_is_per_head(const Backend& b) {
  const int64_t tokens = *rc::gen::inRange<int64_t>(1, 4), heads = *rc::gen::inRange<int64_t>(2, 9);
  const int64_t d = *rc::gen::element<int64_t>(1, 2, 8, 16, 64, 128);
  const float eps = *rc::gen::element(1e-6f, 1e-5f);
  Floats x = normal(tokens * heads * d);
  for (int64_t r = 0; r < tokens * heads; ++r) {
    const float mag = std::ldexp(1.0f, *rc::gen::inRange(-12, 13));
    for (int64_t t = 0; t < d; ++t) x[static_cast<size_t>(r * d + t)] = x[static_cast<size_t>(r * d + t)] * mag + mag;
  }
  const Floats g = normal(d);
  const auto y = qk_norm(b, x, g, tokens, heads, d, eps);
  for (int64_t r = 0; r < tokens * heads; ++r) {
    std::vector<double> want(static_cast<size_t>(d));
    reference::rms_norm<double>(x.data() + r * d, g.data(), want.data(), 1, d, eps);
    for (int64_t t = 0; t < d; ++t)
      RC_ASSERT(near(y[static_cast<size_t>(r * d + t)], want[static_cast<size_t>(t)],
                     std::fabs(want[static_cast<size_t>(t)]), limit_of("QkNorm")));
  }
}

}  // namespace

namespace props {

std::vector<Property> attention_properties() {
  const auto both = [](void (*f)(const Backend&, const char*), const char* op) {
    return [f, op](const Backend& b) { f(b, op); };
  };
  return {
      {"hand_example", "Sdpa", "unit", sdpa_hand_example},
      {"gqa_is_repeat_interleave", "Sdpa", "property", gqa_is_repeat_interleave},
      {"fully_masked_row_is_finite", "Sdpa", "boundary", both(fully_masked_row_is_finite, "Sdpa")},
      {"causal_ignores_later_keys", "Sdpa", "property", both(causal_ignores_later_keys, "Sdpa")},
      {"causal_decode_equals_prefill_row", "Sdpa", "property", both(causal_decode_equals_prefill_row, "Sdpa")},
      {"flash_attention_matches_sdpa", "FlashAttention", "property", flash_attention_matches_sdpa},
      {"fully_masked_row_is_finite", "FlashAttention", "boundary", both(fully_masked_row_is_finite, "FlashAttention")},
      {"causal_ignores_later_keys", "FlashAttention", "property", both(causal_ignores_later_keys, "FlashAttention")},
      {"causal_decode_equals_prefill_row", "FlashAttention", "property",
       both(causal_decode_equals_prefill_row, "FlashAttention")},
      {"cross_equals_sdpa", "SdpaCross", "property", cross_equals_sdpa},
      {"window_is_sdpa_per_window", "SdpaWindow", "property", window_is_sdpa_per_window},
      {"hand_example", "QkNorm", "unit", qk_norm_hand_example},
      {"qk_norm_is_per_head", "QkNorm", "property", qk_norm_is_per_head},
  };
}

}  // namespace props
}  // namespace konform
