// End to end (issue 5): a tiny decoder -- two layers, GQA, QK-norm, RoPE,
// SwiGLU, a KV cache, greedy sampling -- with seeded random weights, run
// the way a runtime runs it: once from libtl_kernels' C ABI (on every SIMD
// target of this machine) and once from the oracle, each op the double
// reference on float inputs with its result rounded to float, as a float
// runtime hands tensors from op to op.
//
// Claims: over 64 decode steps after an 8-token prompt both produce the same
// tokens, and every logit stays within the spec's 1e-4 for composed F32 ops,
// scaled like every reduction here: 1e-4 * sum_k |h_k * W_lm[j, k]| (the
// magnitude of the final dot product, so cancellation raises no false alarm);
// prefill plus decode gives the logits one forward over the whole sequence
// gives (within the same bound), so the cache composes with attention.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "konform/reference/attention.hpp"
#include "konform/reference/elementwise.hpp"
#include "konform/reference/kv_cache.hpp"
#include "konform/reference/linalg.hpp"
#include "konform/rng.hpp"
#include "tinyllm/attention.h"
#include "tinyllm/dispatch.h"
#include "tinyllm/elementwise.h"
#include "tinyllm/kv_cache.h"
#include "tinyllm/linalg.h"

namespace konform {
namespace {

using Floats = std::vector<float>;
namespace ref = reference;

struct Config {
  int64_t vocab = 96, dim = 64, heads = 4, kv_heads = 2, head_dim = 16, hidden = 128, layers = 2, max_seq = 80;
  float eps = 1e-6f, rope_base = 10000.0f;
};

struct Layer {
  Floats attn_norm, wq, wk, wv, wo, q_norm, k_norm, ffn_norm, w_gate, w_up, w_down;
};

struct Weights {
  Floats embed, final_norm, lm_head, inv_freq;
  std::vector<Layer> layers;
};

// Uniform in [-a, a] with a = sqrt(3 / fan_in): variance 1 / fan_in, so
// activations keep their size through the layers.
Floats dense(Rng& rng, int64_t rows, int64_t cols) {
  Floats w(static_cast<size_t>(rows * cols));
  const double a = std::sqrt(3.0 / static_cast<double>(cols));
  for (float& e : w) e = static_cast<float>(a * (2 * rng.unit() - 1));
  return w;
}
Floats gain(Rng& rng, int64_t n) {
  Floats g(static_cast<size_t>(n));
  for (float& e : g) e = static_cast<float>(1 + 0.2 * (2 * rng.unit() - 1));
  return g;
}

Weights make_weights(const Config& c, uint64_t seed) {
  Rng rng(seed);
  Weights w;
  w.embed.resize(static_cast<size_t>(c.vocab * c.dim));  // entries of variance 1
  for (float& e : w.embed) e = static_cast<float>(std::sqrt(3.0) * (2 * rng.unit() - 1));
  for (int64_t l = 0; l < c.layers; ++l) {
    Layer L;
    L.attn_norm = gain(rng, c.dim);
    L.wq = dense(rng, c.heads * c.head_dim, c.dim);
    L.wk = dense(rng, c.kv_heads * c.head_dim, c.dim);
    L.wv = dense(rng, c.kv_heads * c.head_dim, c.dim);
    L.wo = dense(rng, c.dim, c.heads * c.head_dim);
    L.q_norm = gain(rng, c.head_dim);
    L.k_norm = gain(rng, c.head_dim);
    L.ffn_norm = gain(rng, c.dim);
    L.w_gate = dense(rng, c.hidden, c.dim);
    L.w_up = dense(rng, c.hidden, c.dim);
    L.w_down = dense(rng, c.dim, c.hidden);
    w.layers.push_back(L);
  }
  w.final_norm = gain(rng, c.dim);
  w.lm_head = dense(rng, c.vocab, c.dim);
  for (int64_t i = 0; i < c.head_dim / 2; ++i)
    w.inv_freq.push_back(static_cast<float>(std::pow(static_cast<double>(c.rope_base), -2.0 * i / c.head_dim)));
  return w;
}

Floats rounded(const std::vector<double>& y) { return Floats(y.begin(), y.end()); }

// The ops from libtl_kernels (whichever SIMD target is forced).
struct Library {
  const tl_kv_cache_api* api = tl_kv_cache_api_v1();
  tl_kv_cache* cache = nullptr;
  Library(const Config& c) { EXPECT_EQ(api->create(c.layers, c.kv_heads, c.head_dim, c.max_seq, &cache), TL_OK); }
  ~Library() { api->destroy(cache); }

  Floats embed(const Floats& table, const std::vector<int32_t>& ids, int64_t d) {
    Floats y(ids.size() * d);
    tl_embedding_f32(table.data(), ids.data(), y.data(), static_cast<int64_t>(ids.size()), d);
    return y;
  }
  Floats rmsnorm(const Floats& x, const Floats& g, int64_t rows, int64_t d, float eps) {
    Floats y(x.size());
    tl_rmsnorm_f32(x.data(), g.data(), y.data(), rows, d, eps);
    return y;
  }
  Floats matmul(const Floats& x, const Floats& w, int64_t M, int64_t N, int64_t K) {
    Floats y(static_cast<size_t>(M * N));
    EXPECT_EQ(tl_matmul_f32(x.data(), w.data(), y.data(), M, N, K), TL_OK) << tl_last_error();
    return y;
  }
  Floats qk_norm(const Floats& x, const Floats& g, int64_t tokens, int64_t heads, int64_t d, float eps) {
    Floats y(x.size());
    EXPECT_EQ(tl_qk_norm_f32(x.data(), g.data(), y.data(), tokens, heads, d, eps), TL_OK) << tl_last_error();
    return y;
  }
  Floats rope(Floats x, const std::vector<int32_t>& pos, int64_t heads, int64_t d, const Floats& inv_freq) {
    tl_rope_f32(x.data(), pos.data(), static_cast<int64_t>(pos.size()), heads, d, d, inv_freq.data(), 1.0f, 0);
    return x;
  }
  Floats attention(const Floats& q, const Floats& k, const Floats& v, int64_t heads, int64_t kv_heads, int64_t sq,
                   int64_t sk, int64_t d) {
    Floats y(q.size());
    EXPECT_EQ(tl_flash_attention_f32(q.data(), k.data(), v.data(), nullptr, y.data(), 1, heads, kv_heads, sq, sk, d, 1,
                                     TL_ATTN_MASK_NONE),
              TL_OK)
        << tl_last_error();
    return y;
  }
  Floats silu_mul(const Floats& g, const Floats& u) {
    Floats y(g.size());
    tl_silu_mul_f32(g.data(), u.data(), y.data(), static_cast<int64_t>(g.size()));
    return y;
  }
  Floats add(const Floats& a, const Floats& b) {
    Floats y(a.size());
    tl_add_f32(a.data(), b.data(), y.data(), static_cast<int64_t>(a.size()));
    return y;
  }
  bool begin(int64_t s) { return api->begin(cache, s) == TL_OK; }
  // Appends K and V ([kv_heads, s, d]) and returns the layer's view packed as [kv_heads, length, d].
  void append_and_read(int64_t layer, const Floats& k, const Floats& v, int64_t kv_heads, int64_t d, Floats* k_all,
                       Floats* v_all, int64_t* length) {
    EXPECT_EQ(api->append_f32(cache, layer, k.data(), v.data()), TL_OK) << tl_last_error();
    tl_kv_view_f32 view{};
    EXPECT_EQ(api->view_f32(cache, layer, &view), TL_OK);
    *length = view.length;
    k_all->clear(), v_all->clear();
    for (int64_t h = 0; h < kv_heads; ++h) {
      k_all->insert(k_all->end(), view.k + h * view.head_stride, view.k + h * view.head_stride + view.length * d);
      v_all->insert(v_all->end(), view.v + h * view.head_stride, view.v + h * view.head_stride + view.length * d);
    }
  }
  void commit() { EXPECT_EQ(api->commit(cache), TL_OK) << tl_last_error(); }
};

// The same ops from the oracle: the double reference, rounded to float.
struct Oracle {
  ref::KvCache<double> cache;
  Oracle(const Config& c) : cache(c.layers, c.kv_heads, c.head_dim, c.max_seq) {}

  template <typename F>
  static Floats run(size_t n, F f) {
    std::vector<double> y(n);
    f(y.data());
    return rounded(y);
  }
  Floats embed(const Floats& table, const std::vector<int32_t>& ids, int64_t d) {
    return run(ids.size() * d, [&](double* y) {
      ref::embedding<double>(table.data(), ids.data(), y, static_cast<int64_t>(ids.size()), d);
    });
  }
  Floats rmsnorm(const Floats& x, const Floats& g, int64_t rows, int64_t d, float eps) {
    return run(x.size(), [&](double* y) { ref::rmsnorm<double>(x.data(), g.data(), y, rows, d, eps); });
  }
  Floats matmul(const Floats& x, const Floats& w, int64_t M, int64_t N, int64_t K) {
    return run(static_cast<size_t>(M * N), [&](double* y) { ref::matmul<double>(x.data(), w.data(), y, M, N, K); });
  }
  Floats qk_norm(const Floats& x, const Floats& g, int64_t tokens, int64_t heads, int64_t d, float eps) {
    return run(x.size(), [&](double* y) { ref::attn::qk_norm<double>(x.data(), g.data(), y, tokens, heads, d, eps); });
  }
  Floats rope(const Floats& x, const std::vector<int32_t>& pos, int64_t heads, int64_t d, const Floats& inv_freq) {
    return run(x.size(), [&](double* y) {
      ref::rope<double>(x.data(), y, pos.data(), static_cast<int64_t>(pos.size()), heads, d, d, inv_freq.data(), 1.0f,
                        0);
    });
  }
  Floats attention(const Floats& q, const Floats& k, const Floats& v, int64_t heads, int64_t kv_heads, int64_t sq,
                   int64_t sk, int64_t d) {
    return run(q.size(), [&](double* y) {
      ref::attn::sdpa<double>(q.data(), k.data(), v.data(), nullptr, y, ref::attn::Dims{1, heads, kv_heads, sq, sk, d},
                              true, ref::attn::kMaskNone);
    });
  }
  Floats silu_mul(const Floats& g, const Floats& u) {
    return run(g.size(),
               [&](double* y) { ref::silu_mul<double>(g.data(), u.data(), y, static_cast<int64_t>(g.size())); });
  }
  Floats add(const Floats& a, const Floats& b) {
    return run(a.size(), [&](double* y) { ref::add<double>(a.data(), b.data(), y, static_cast<int64_t>(a.size())); });
  }
  bool begin(int64_t s) { return cache.begin(s).ok(); }
  void append_and_read(int64_t layer, const Floats& k, const Floats& v, int64_t kv_heads, int64_t d, Floats* k_all,
                       Floats* v_all, int64_t* length) {
    EXPECT_TRUE(cache.append(layer, k.data(), v.data()).ok());
    *length = cache.length(layer);
    k_all->clear(), v_all->clear();
    for (int64_t h = 0; h < kv_heads; ++h)
      for (int64_t i = 0; i < *length * d; ++i) {
        k_all->push_back(static_cast<float>(cache.k(layer)[h * cache.head_stride() + i]));
        v_all->push_back(static_cast<float>(cache.v(layer)[h * cache.head_stride() + i]));
      }
  }
  void commit() { EXPECT_TRUE(cache.commit().ok()); }
};

// [s, n, d] <-> [n, s, d]
Floats swap01(const Floats& x, int64_t a, int64_t b, int64_t d) {
  Floats y(x.size());
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j) std::copy_n(x.begin() + (i * b + j) * d, d, y.begin() + (j * a + i) * d);
  return y;
}

struct Step {
  Floats logits;   // [s, vocab]
  Floats final_h;  // [s, dim], the input of the LM head (for the tolerance's scale)
};

// One forward of the tokens `ids` at positions past .. past + s - 1.
template <typename Ops>
Step forward(Ops& ops, const Config& c, const Weights& w, const std::vector<int32_t>& ids, int64_t past) {
  const int64_t s = static_cast<int64_t>(ids.size()), hd = c.head_dim;
  std::vector<int32_t> pos(static_cast<size_t>(s));
  for (int64_t t = 0; t < s; ++t) pos[t] = static_cast<int32_t>(past + t);
  EXPECT_TRUE(ops.begin(s));
  Floats x = ops.embed(w.embed, ids, c.dim);
  for (int64_t l = 0; l < c.layers; ++l) {
    const Layer& L = w.layers[static_cast<size_t>(l)];
    const Floats h = ops.rmsnorm(x, L.attn_norm, s, c.dim, c.eps);
    Floats q = ops.matmul(h, L.wq, s, c.heads * hd, c.dim);
    Floats k = ops.matmul(h, L.wk, s, c.kv_heads * hd, c.dim);
    const Floats v = ops.matmul(h, L.wv, s, c.kv_heads * hd, c.dim);
    q = ops.rope(ops.qk_norm(q, L.q_norm, s, c.heads, hd, c.eps), pos, c.heads, hd, w.inv_freq);  // QK-norm before RoPE
    k = ops.rope(ops.qk_norm(k, L.k_norm, s, c.kv_heads, hd, c.eps), pos, c.kv_heads, hd, w.inv_freq);
    Floats k_all, v_all;
    int64_t length = 0;
    ops.append_and_read(l, swap01(k, s, c.kv_heads, hd), swap01(v, s, c.kv_heads, hd), c.kv_heads, hd, &k_all, &v_all,
                        &length);
    EXPECT_EQ(length, past + s);
    const Floats y = ops.attention(swap01(q, s, c.heads, hd), k_all, v_all, c.heads, c.kv_heads, s, length, hd);
    x = ops.add(x, ops.matmul(swap01(y, c.heads, s, hd), L.wo, s, c.dim, c.heads * hd));
    const Floats h2 = ops.rmsnorm(x, L.ffn_norm, s, c.dim, c.eps);
    const Floats a =
        ops.silu_mul(ops.matmul(h2, L.w_gate, s, c.hidden, c.dim), ops.matmul(h2, L.w_up, s, c.hidden, c.dim));
    x = ops.add(x, ops.matmul(a, L.w_down, s, c.dim, c.hidden));
  }
  ops.commit();
  Step out;
  out.final_h = ops.rmsnorm(x, w.final_norm, s, c.dim, c.eps);
  out.logits = ops.matmul(out.final_h, w.lm_head, s, c.vocab, c.dim);
  return out;
}

int32_t greedy(const float* logits, int64_t vocab) { return tl_argmax_f32(logits, vocab); }

// The tolerance of logit j of a row: 1e-4 * sum_k |h_k * W[j, k]|.
double limit(const Config& c, const Weights& w, const float* h, int64_t j) {
  double s = 0;
  for (int64_t k = 0; k < c.dim; ++k)
    s += std::fabs(static_cast<double>(h[k]) * w.lm_head[static_cast<size_t>(j * c.dim + k)]);
  return 1e-4 * s;
}

struct Generation {
  std::vector<int32_t> tokens;  // generated
  std::vector<Floats> logits;   // one row per generated token (the row it was chosen from)
  std::vector<Floats> final_h;
};

constexpr int kPrompt = 8, kSteps = 64;

template <typename Ops>
Generation generate(const Config& c, const Weights& w, const std::vector<int32_t>& prompt) {
  Ops ops(c);
  Generation r;
  Step st = forward(ops, c, w, prompt, 0);
  int64_t past = static_cast<int64_t>(prompt.size());
  for (int step = 0; step < kSteps; ++step) {
    const size_t last = st.logits.size() / c.vocab - 1;
    r.logits.emplace_back(st.logits.begin() + last * c.vocab, st.logits.begin() + (last + 1) * c.vocab);
    r.final_h.emplace_back(st.final_h.begin() + last * c.dim, st.final_h.begin() + (last + 1) * c.dim);
    r.tokens.push_back(greedy(r.logits.back().data(), c.vocab));
    if (step + 1 == kSteps) break;
    st = forward(ops, c, w, {r.tokens.back()}, past);
    ++past;
  }
  return r;
}

std::vector<int32_t> prompt_of(const Config& c) {
  Rng rng(11);
  std::vector<int32_t> p;
  for (int i = 0; i < kPrompt; ++i) p.push_back(static_cast<int32_t>(rng.range(0, c.vocab - 1)));
  return p;
}

std::vector<std::string> targets() {
  std::vector<std::string> t;
  for (int i = 0; i < tl_simd_target_count(); ++i) t.emplace_back(tl_simd_target_name(i));
  return t;
}

class Decoder : public ::testing::Test {
 protected:
  Config c;
  Weights w = make_weights(c, 20261201);
  std::vector<int32_t> prompt = prompt_of(c);
};

TEST_F(Decoder, LibraryMatchesOracleOver64Steps) {
  const Generation oracle = generate<Oracle>(c, w, prompt);
  // The oracle's own margin: at every step the chosen logit leads every other
  // by more than both their limits, or a legitimate near-tie could flip a token.
  for (int step = 0; step < kSteps; ++step) {
    const Floats& row = oracle.logits[step];
    const float* h = oracle.final_h[step].data();
    const int32_t top = oracle.tokens[step];
    for (int64_t j = 0; j < c.vocab; ++j)
      if (j != top)
        ASSERT_GT(row[top] - row[j], limit(c, w, h, top) + limit(c, w, h, j))
            << "step " << step << ": logits " << top << " and " << j << " nearly tie; choose another weight seed";
  }
  for (const std::string& target : targets()) {
    ASSERT_EQ(tl_simd_force_target(target.c_str()), 0) << target;
    const Generation lib = generate<Library>(c, w, prompt);
    double worst = 0;
    for (int step = 0; step < kSteps; ++step) {
      ASSERT_EQ(lib.tokens[step], oracle.tokens[step]) << target << ": token " << step << " differs";
      for (int64_t j = 0; j < c.vocab; ++j) {
        const double err = std::fabs(static_cast<double>(lib.logits[step][j]) - oracle.logits[step][j]);
        const double lim = limit(c, w, oracle.final_h[step].data(), j);
        ASSERT_LE(err, lim) << target << ": step " << step << " logit " << j << ": library " << lib.logits[step][j]
                            << ", oracle " << oracle.logits[step][j];
        worst = std::max(worst, err / lim);
      }
    }
    std::printf("decoder on %s: 64 of 64 tokens as the oracle's; largest logit error %.3g of its limit\n",
                target.c_str(), worst);
  }
  tl_simd_force_target(nullptr);
}

// Prefill of the prompt, then 63 decode steps through the cache, against one
// forward over the prompt and the generated tokens with a fresh cache: the
// logits of every generated position agree, and so do the greedy tokens.
TEST_F(Decoder, PrefillPlusDecodeEqualsRecomputation) {
  const Generation decoded = generate<Library>(c, w, prompt);
  std::vector<int32_t> all = prompt;
  all.insert(all.end(), decoded.tokens.begin(), decoded.tokens.end() - 1);
  Library fresh(c);
  const Step whole = forward(fresh, c, w, all, 0);
  double worst = 0;
  for (int step = 0; step < kSteps; ++step) {
    const float* row = whole.logits.data() + (kPrompt - 1 + step) * c.vocab;
    EXPECT_EQ(greedy(row, c.vocab), decoded.tokens[step]) << "step " << step;
    for (int64_t j = 0; j < c.vocab; ++j) {
      const double lim = limit(c, w, decoded.final_h[step].data(), j);
      const double err = std::fabs(static_cast<double>(row[j]) - decoded.logits[step][j]);
      ASSERT_LE(err, lim) << "step " << step << " logit " << j;
      worst = std::max(worst, err / lim);
    }
  }
  std::printf("prefill + decode against one forward of %zu tokens: largest logit difference %.3g of the limit\n",
              all.size(), worst);
}

// The cache refuses the 81st position of an 80-position model: no silent
// truncation mid-generation.
TEST_F(Decoder, RefusesToOverflowTheCache) {
  Library lib(c);
  std::vector<int32_t> ids(static_cast<size_t>(c.max_seq), 1);
  forward(lib, c, w, ids, 0);
  EXPECT_EQ(lib.api->begin(lib.cache, 1), TL_ERR_CONTEXT_OVERFLOW);
  EXPECT_EQ(lib.api->past_seq_len(lib.cache), c.max_seq);
}

}  // namespace
}  // namespace konform
