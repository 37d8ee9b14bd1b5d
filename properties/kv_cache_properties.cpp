// The properties of the KV cache (tinyllm/kv_cache.h), from the lifecycle
// rules of spec/operations.txt §5. Each can fail: the mutants of
// mutants/kv_cache_base.c named in mutants/manifest.tsv break them.
#include <cstdint>
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "konform/properties.hpp"
#include "konform/rng.hpp"
#include "support.hpp"
#include "tinyllm/kv_cache.h"

namespace konform {
namespace {

using Floats = std::vector<float>;

// A cache of the backend under test, destroyed with the object.
class Cache {
 public:
  Cache(const Backend& b, int64_t layers, int64_t kv_heads, int64_t head_dim, int64_t max_seq)
      : layers_(layers), kv_heads_(kv_heads), head_dim_(head_dim), max_seq_(max_seq) {
    void* fn = b.symbol("tl_kv_cache_api_v1");
    if (fn == nullptr) throw std::runtime_error("the backend has no tl_kv_cache_api_v1");
    api_ = reinterpret_cast<decltype(&tl_kv_cache_api_v1)>(fn)();
    RC_ASSERT(api_ != nullptr && api_->abi_version == 1u);
    RC_ASSERT(api_->create(layers, kv_heads, head_dim, max_seq, &cache_) == TL_OK);
  }
  ~Cache() { api_->destroy(cache_); }
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  tl_status begin(int64_t s) { return api_->begin(cache_, s); }
  tl_status append(int64_t layer, const Floats& k, const Floats& v) {
    return api_->append_f32(cache_, layer, k.data(), v.data());
  }
  tl_status commit() { return api_->commit(cache_); }
  void reset() { api_->reset(cache_); }
  int64_t past() const { return api_->past_seq_len(cache_); }
  tl_kv_view_f32 view(int64_t layer) const {
    tl_kv_view_f32 v{};
    RC_ASSERT(api_->view_f32(cache_, layer, &v) == TL_OK);
    return v;
  }
  // K (or V) of a layer as [kv_heads, length, head_dim], copied out of the view.
  Floats read(int64_t layer, bool values) const {
    const tl_kv_view_f32 v = view(layer);
    RC_ASSERT(v.length >= 0 && v.length <= max_seq_);  // the rows past max_seq are not the cache's
    const float* base = values ? v.v : v.k;
    Floats out;
    for (int64_t h = 0; h < kv_heads_; ++h)
      for (int64_t t = 0; t < v.length * head_dim_; ++t) out.push_back(base[h * v.head_stride + t]);
    return out;
  }
  // One whole forward of s positions, every layer from `k` and `v` ([layers, kv_heads, s, head_dim]).
  void forward(int64_t s, const Floats& k, const Floats& v) {
    RC_ASSERT(begin(s) == TL_OK);
    const size_t chunk = static_cast<size_t>(kv_heads_ * s * head_dim_);
    for (int64_t l = 0; l < layers_; ++l) {
      const Floats kl(k.begin() + l * chunk, k.begin() + (l + 1) * chunk),
          vl(v.begin() + l * chunk, v.begin() + (l + 1) * chunk);
      RC_ASSERT(append(l, kl, vl) == TL_OK);
    }
    RC_ASSERT(commit() == TL_OK);
  }

 private:
  const tl_kv_cache_api* api_ = nullptr;
  tl_kv_cache* cache_ = nullptr;
  int64_t layers_, kv_heads_, head_dim_, max_seq_;
};

Floats seeded_floats(int64_t n) {
  Rng rng(*rc::gen::arbitrary<uint64_t>());
  Floats v(static_cast<size_t>(n));
  for (float& e : v) e = static_cast<float>(rng.range(-1 << 20, 1 << 20)) * 0x1p-10f;
  return v;
}

// Positions [from, from + s) of a [layers, kv_heads, T, head_dim] sequence, as
// one forward's [layers, kv_heads, s, head_dim].
Floats slice(const Floats& all, int64_t layers, int64_t kv_heads, int64_t total, int64_t head_dim, int64_t from,
             int64_t s) {
  Floats out;
  for (int64_t lh = 0; lh < layers * kv_heads; ++lh)
    for (int64_t t = from; t < from + s; ++t)
      for (int64_t d = 0; d < head_dim; ++d) out.push_back(all[static_cast<size_t>((lh * total + t) * head_dim + d)]);
  return out;
}

// The spec's append, by hand: one layer, two KV heads of head_dim 2, three
// positions. A prefill of 2 then a decode step fill it; one more overflows.
void kv_cache_hand_example(const Backend& b) {
  Cache c(b, 1, 2, 2, 3);
  c.forward(2, {1, 2, 3, 4, 5, 6, 7, 8}, {-1, -2, -3, -4, -5, -6, -7, -8});
  RC_ASSERT(c.past() == 2);
  c.forward(1, {9, 10, 11, 12}, {-9, -10, -11, -12});
  RC_ASSERT(c.past() == 3);
  RC_ASSERT(c.read(0, false) == Floats({1, 2, 3, 4, 9, 10, 5, 6, 7, 8, 11, 12}));
  RC_ASSERT(c.read(0, true) == Floats({-1, -2, -3, -4, -9, -10, -5, -6, -7, -8, -11, -12}));
  RC_ASSERT(c.view(0).head_stride == 6);
  RC_ASSERT(c.begin(1) == TL_ERR_CONTEXT_OVERFLOW);
  RC_ASSERT(c.past() == 3);
}

// Decoding a sequence token by token (or in any chunks) leaves the cache as
// one prefill of the whole sequence does, bit for bit.
void decode_equals_prefill(const Backend& b) {
  const int64_t layers = *rc::gen::inRange<int64_t>(1, 4), kv = *rc::gen::inRange<int64_t>(1, 4);
  const int64_t d = *rc::gen::element<int64_t>(1, 3, 8, 64), total = *rc::gen::inRange<int64_t>(1, 24);
  const int64_t max_seq = total + *rc::gen::inRange<int64_t>(0, 4);
  const Floats k = seeded_floats(layers * kv * total * d), v = seeded_floats(layers * kv * total * d);
  Cache prefill(b, layers, kv, d, max_seq), decode(b, layers, kv, d, max_seq);
  prefill.forward(total, k, v);
  for (int64_t t = 0; t < total;) {
    const int64_t s = t == 0 ? *rc::gen::inRange<int64_t>(1, total + 1)
                             : std::min<int64_t>(*rc::gen::inRange<int64_t>(1, 4), total - t);
    decode.forward(s, slice(k, layers, kv, total, d, t, s), slice(v, layers, kv, total, d, t, s));
    t += s;
    RC_ASSERT(decode.past() == t);
  }
  for (int64_t l = 0; l < layers; ++l) {
    RC_ASSERT(decode.read(l, false) == prefill.read(l, false));
    RC_ASSERT(decode.read(l, true) == prefill.read(l, true));
  }
}

// past_seq_len moves once per forward, after every layer appended: a layer's
// view grows when it appends, the others' do not, and commit refuses while a
// layer is missing.
void past_advances_once_per_forward(const Backend& b) {
  const int64_t layers = *rc::gen::inRange<int64_t>(2, 5), kv = *rc::gen::inRange<int64_t>(1, 3), d = 4;
  const int64_t p = *rc::gen::inRange<int64_t>(0, 6), s = *rc::gen::inRange<int64_t>(1, 4);
  Cache c(b, layers, kv, d, p + s);
  if (p > 0) c.forward(p, seeded_floats(layers * kv * p * d), seeded_floats(layers * kv * p * d));
  RC_ASSERT(c.begin(s) == TL_OK);
  const int64_t missing = *rc::gen::inRange<int64_t>(0, layers);
  const Floats k = seeded_floats(kv * s * d), v = seeded_floats(kv * s * d);
  for (int64_t l = 0; l < layers; ++l) {
    if (l == missing) continue;
    RC_ASSERT(c.append(l, k, v) == TL_OK);
    RC_ASSERT(c.past() == p);
    RC_ASSERT(c.view(l).length == p + s);
  }
  RC_ASSERT(c.view(missing).length == p);
  RC_ASSERT(c.commit() == TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(c.past() == p);
  RC_ASSERT(c.append(missing, k, v) == TL_OK);
  RC_ASSERT(c.commit() == TL_OK);
  RC_ASSERT(c.past() == p + s);
}

// A forward past max_seq is refused at begin with ContextOverflowError; the
// cache is as it was (no truncated write), and a forward that fits still runs.
void overflow_is_refused_whole(const Backend& b) {
  const int64_t layers = *rc::gen::inRange<int64_t>(1, 3), kv = *rc::gen::inRange<int64_t>(1, 3), d = 3;
  const int64_t max_seq = *rc::gen::inRange<int64_t>(1, 12), p = *rc::gen::inRange<int64_t>(0, max_seq + 1);
  Cache c(b, layers, kv, d, max_seq);
  if (p > 0) c.forward(p, seeded_floats(layers * kv * p * d), seeded_floats(layers * kv * p * d));
  const Floats before = c.read(0, false);
  const int64_t s = max_seq - p + *rc::gen::inRange<int64_t>(1, 4);
  RC_ASSERT(c.begin(s) == TL_ERR_CONTEXT_OVERFLOW);
  RC_ASSERT(c.past() == p);
  RC_ASSERT(c.read(0, false) == before);
  RC_ASSERT(c.append(0, seeded_floats(kv * s * d), seeded_floats(kv * s * d)) == TL_ERR_INVALID_ARGUMENT);
  if (p < max_seq) {
    const int64_t fits = max_seq - p;
    c.forward(fits, seeded_floats(layers * kv * fits * d), seeded_floats(layers * kv * fits * d));
    RC_ASSERT(c.past() == max_seq);
  }
}

// reset() starts over at position 0 (a new sequence reads only what it
// appended), whatever was there before.
void reset_starts_a_new_sequence(const Backend& b) {
  const int64_t kv = *rc::gen::inRange<int64_t>(1, 3), d = *rc::gen::element<int64_t>(2, 16);
  const int64_t max_seq = *rc::gen::inRange<int64_t>(2, 16);
  const int64_t first = *rc::gen::inRange<int64_t>(1, max_seq + 1), second = *rc::gen::inRange<int64_t>(1, max_seq + 1);
  Cache c(b, 1, kv, d, max_seq);
  c.forward(first, seeded_floats(kv * first * d), seeded_floats(kv * first * d));
  c.reset();
  RC_ASSERT(c.past() == 0);
  RC_ASSERT(c.view(0).length == 0);
  const Floats k = seeded_floats(kv * second * d), v = seeded_floats(kv * second * d);
  c.forward(second, k, v);
  RC_ASSERT(c.past() == second);
  RC_ASSERT(c.read(0, false) == k);
  RC_ASSERT(c.read(0, true) == v);
}

}  // namespace

namespace props {

std::vector<Property> kv_cache_properties() {
  return {
      {"hand_example", "KvCache", "unit", kv_cache_hand_example},
      {"decode_equals_prefill", "KvCache", "property", decode_equals_prefill},
      {"past_advances_once_per_forward", "KvCache", "property", past_advances_once_per_forward},
      {"overflow_is_refused_whole", "KvCache", "boundary", overflow_is_refused_whole},
      {"reset_starts_a_new_sequence", "KvCache", "property", reset_starts_a_new_sequence},
  };
}

}  // namespace props
}  // namespace konform
