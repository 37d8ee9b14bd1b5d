// The properties of the KV cache (tinyllm/kv_cache.h), from the lifecycle
// rules of spec/operations.txt §5, for the f32 cache and the f16 and bf16
// ones alike: a half cache's reads are its stored values widened exactly,
// and what it must have stored is each f32 value rounded once to the dtype
// (stored() below). Each can fail: the mutants of mutants/kv_cache_base.c
// and mutants/half_base.c named in mutants/manifest.tsv break them.
#include <cstdint>
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "konform/dtype.hpp"
#include "konform/properties.hpp"
#include "konform/rng.hpp"
#include "support.hpp"
#include "tinyllm/kv_cache.h"

namespace konform {
namespace {

using Floats = std::vector<float>;

// A cache of the backend under test, destroyed with the object: the f32
// table (tl_kv_cache_api_v1) or a half one (tl_kv_cache_f16_api_v1, _bf16_),
// by the dtype of the op the property runs for.
class Cache {
 public:
  Cache(const Backend& b, DType t, int64_t layers, int64_t kv_heads, int64_t head_dim, int64_t max_seq)
      : t_(t), layers_(layers), kv_heads_(kv_heads), head_dim_(head_dim), max_seq_(max_seq) {
    const std::string symbol =
        t == DType::f32 ? "tl_kv_cache_api_v1" : "tl_kv_cache_" + std::string(dtype_name(t)) + "_api_v1";
    void* fn = b.symbol(symbol.c_str());
    if (fn == nullptr) throw std::runtime_error("the backend has no " + symbol);
    if (t == DType::f32) {
      f32_ = reinterpret_cast<decltype(&tl_kv_cache_api_v1)>(fn)();
      RC_ASSERT(f32_ != nullptr && f32_->abi_version == 1u);
      RC_ASSERT(f32_->create(layers, kv_heads, head_dim, max_seq, &cache_) == TL_OK);
    } else {
      half_ = reinterpret_cast<decltype(&tl_kv_cache_f16_api_v1)>(fn)();
      RC_ASSERT(half_ != nullptr && half_->abi_version == 1u);
      RC_ASSERT(half_->create(layers, kv_heads, head_dim, max_seq, &cache_) == TL_OK);
    }
  }
  ~Cache() { f32_ ? f32_->destroy(cache_) : half_->destroy(cache_); }
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  tl_status begin(int64_t s) { return f32_ ? f32_->begin(cache_, s) : half_->begin(cache_, s); }
  tl_status append(int64_t layer, const Floats& k, const Floats& v) {
    return f32_ ? f32_->append_f32(cache_, layer, k.data(), v.data())
                : half_->append_f32(cache_, layer, k.data(), v.data());
  }
  tl_status commit() { return f32_ ? f32_->commit(cache_) : half_->commit(cache_); }
  void reset() { f32_ ? f32_->reset(cache_) : half_->reset(cache_); }
  int64_t past() const { return f32_ ? f32_->past_seq_len(cache_) : half_->past_seq_len(cache_); }
  // The view's length and head stride (its pointers are read() alone's).
  struct View {
    int64_t length, head_stride;
  };
  View view(int64_t layer) const {
    if (f32_) {
      tl_kv_view_f32 v{};
      RC_ASSERT(f32_->view_f32(cache_, layer, &v) == TL_OK);
      return {v.length, v.head_stride};
    }
    tl_kv_view_half v{};
    RC_ASSERT(half_->view_half(cache_, layer, &v) == TL_OK);
    return {v.length, v.head_stride};
  }
  // K (or V) of a layer as [kv_heads, length, head_dim], copied out of the
  // view (a half cache's bit patterns widened exactly).
  Floats read(int64_t layer, bool values) const {
    const View v = view(layer);
    RC_ASSERT(v.length >= 0 && v.length <= max_seq_);  // the rows past max_seq are not the cache's
    const void* base = nullptr;
    if (f32_) {
      tl_kv_view_f32 f{};
      f32_->view_f32(cache_, layer, &f);
      base = values ? f.v : f.k;
    } else {
      tl_kv_view_half h{};
      half_->view_half(cache_, layer, &h);
      base = values ? h.v : h.k;
    }
    Floats out;
    for (int64_t h = 0; h < kv_heads_; ++h)
      for (int64_t t = 0; t < v.length * head_dim_; ++t) {
        const int64_t at = h * v.head_stride + t;
        out.push_back(f32_ ? static_cast<const float*>(base)[at]
                           : static_cast<float>(half_value(t_, static_cast<const uint16_t*>(base)[at])));
      }
    return out;
  }
  // What the cache must hold for appended values x: x itself in f32, each
  // rounded once to the dtype (to nearest, ties to even) in f16 and bf16.
  Floats stored(Floats x) const {
    if (t_ != DType::f32)
      for (float& e : x) e = static_cast<float>(round_to(t_, e));
    return x;
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
  const tl_kv_cache_api* f32_ = nullptr;
  const tl_kv_cache_half_api* half_ = nullptr;
  tl_kv_cache* cache_ = nullptr;
  DType t_;
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
void kv_cache_hand_example(const Backend& b, DType t) {
  Cache c(b, t, 1, 2, 2, 3);
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
void decode_equals_prefill(const Backend& b, DType t) {
  const int64_t layers = *rc::gen::inRange<int64_t>(1, 4), kv = *rc::gen::inRange<int64_t>(1, 4);
  const int64_t d = *rc::gen::element<int64_t>(1, 3, 8, 64), total = *rc::gen::inRange<int64_t>(1, 24);
  const int64_t max_seq = total + *rc::gen::inRange<int64_t>(0, 4);
  const Floats k = seeded_floats(layers * kv * total * d), v = seeded_floats(layers * kv * total * d);
  Cache prefill(b, t, layers, kv, d, max_seq), decode(b, t, layers, kv, d, max_seq);
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
void past_advances_once_per_forward(const Backend& b, DType t) {
  const int64_t layers = *rc::gen::inRange<int64_t>(2, 5), kv = *rc::gen::inRange<int64_t>(1, 3), d = 4;
  const int64_t p = *rc::gen::inRange<int64_t>(0, 6), s = *rc::gen::inRange<int64_t>(1, 4);
  Cache c(b, t, layers, kv, d, p + s);
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
void overflow_is_refused_whole(const Backend& b, DType t) {
  const int64_t layers = *rc::gen::inRange<int64_t>(1, 3), kv = *rc::gen::inRange<int64_t>(1, 3), d = 3;
  const int64_t max_seq = *rc::gen::inRange<int64_t>(1, 12), p = *rc::gen::inRange<int64_t>(0, max_seq + 1);
  Cache c(b, t, layers, kv, d, max_seq);
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
void reset_starts_a_new_sequence(const Backend& b, DType t) {
  const int64_t kv = *rc::gen::inRange<int64_t>(1, 3), d = *rc::gen::element<int64_t>(2, 16);
  const int64_t max_seq = *rc::gen::inRange<int64_t>(2, 16);
  const int64_t first = *rc::gen::inRange<int64_t>(1, max_seq + 1), second = *rc::gen::inRange<int64_t>(1, max_seq + 1);
  Cache c(b, t, 1, kv, d, max_seq);
  c.forward(first, seeded_floats(kv * first * d), seeded_floats(kv * first * d));
  c.reset();
  RC_ASSERT(c.past() == 0);
  RC_ASSERT(c.view(0).length == 0);
  const Floats k = seeded_floats(kv * second * d), v = seeded_floats(kv * second * d);
  c.forward(second, k, v);
  RC_ASSERT(c.past() == second);
  RC_ASSERT(c.read(0, false) == c.stored(k));
  RC_ASSERT(c.read(0, true) == c.stored(v));
}

}  // namespace

namespace props {

std::vector<Property> kv_cache_properties() {
  std::vector<Property> out;
  for (const DType t : {DType::f32, DType::f16, DType::bf16}) {
    const std::string op = t == DType::f32 ? "KvCache" : "KvCache_" + std::string(dtype_name(t));
    const auto with = [t](void (*f)(const Backend&, DType)) { return [t, f](const Backend& b) { f(b, t); }; };
    out.push_back({"hand_example", op, "unit", with(kv_cache_hand_example)});
    out.push_back({"decode_equals_prefill", op, "property", with(decode_equals_prefill)});
    out.push_back({"past_advances_once_per_forward", op, "property", with(past_advances_once_per_forward)});
    out.push_back({"overflow_is_refused_whole", op, "boundary", with(overflow_is_refused_whole)});
    out.push_back({"reset_starts_a_new_sequence", op, "property", with(reset_starts_a_new_sequence)});
  }
  return out;
}

}  // namespace props
}  // namespace konform
