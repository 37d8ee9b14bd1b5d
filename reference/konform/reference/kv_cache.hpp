// The KV cache of tinyllm/kv_cache.h, written from spec/operations.txt §5
// ("KV cache": append, read as views, lifecycle rules 1-5).
//
// One source on the element type T: double is the oracle, float is the
// `scalar` backend (a cache only copies, so both hold the same values). The
// f16 and bf16 caches store each f32 value rounded once to the dtype:
// T = uint16_t with Store = ToF16 or ToBF16 (the scalar backend's), while
// their oracle keeps the f32 values in double and leaves that one rounding
// to the comparison, as the casts' does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "konform/reference/bf16.hpp"
#include "konform/reference/f16.hpp"
#include "konform/reference/tensor_shape.hpp"

namespace konform::reference {

// How an appended value becomes an element: the value itself (f32, and the
// oracle's double), or rounded once to f16 or bf16, to nearest with ties to
// even (the bit patterns).
template <typename T>
struct Copy {
  template <typename In>
  T operator()(In x) const {
    return static_cast<T>(x);
  }
};
struct ToF16 {
  uint16_t operator()(float x) const { return f32_to_f16(x); }
};
struct ToBF16 {
  uint16_t operator()(float x) const { return f32_to_bf16(x); }
};

template <typename T, class Store = Copy<T>>
class KvCache {
 public:
  // Rule 1: allocated once, to max_seq; element_bytes: the library's element
  // (4 for f32, 2 for f16 and bf16), whatever T the cache is computed in.
  static Verdict check_create(int64_t layers, int64_t kv_heads, int64_t head_dim, int64_t max_seq,
                              int element_bytes = 4) {
    for (int64_t n : {layers, kv_heads, head_dim, max_seq})
      if (n < 1) return refuse(TL_ERR_INVALID_ARGUMENT, "num_layers, kv_heads, head_dim and max_seq must be >= 1");
    long double bytes = 2.0L * element_bytes;
    for (int64_t n : {layers, kv_heads, head_dim, max_seq}) bytes *= static_cast<long double>(n);
    if (bytes > static_cast<long double>(INT64_MAX))
      return refuse(TL_ERR_INVALID_ARGUMENT, "the cache's size overflows int64_t");
    return {};
  }

  KvCache(int64_t layers, int64_t kv_heads, int64_t head_dim, int64_t max_seq)
      : layers_(layers),
        kv_heads_(kv_heads),
        head_dim_(head_dim),
        max_seq_(max_seq),
        k_(static_cast<size_t>(layers * kv_heads * max_seq * head_dim)),
        v_(k_.size()),
        appended_(static_cast<size_t>(layers), false) {}

  // Rule 5: the overflow is refused at the start of a forward, before any write.
  Verdict begin(int64_t s) {
    if (s < 1) return refuse(TL_ERR_INVALID_ARGUMENT, "a forward appends s >= 1 positions");
    if (s_ > 0) return refuse(TL_ERR_INVALID_ARGUMENT, "a forward is already in progress");
    if (s > max_seq_ - past_)
      return refuse(TL_ERR_CONTEXT_OVERFLOW, "past_seq_len " + std::to_string(past_) + " + s " + std::to_string(s) +
                                                 " > max_seq " + std::to_string(max_seq_));
    s_ = s;
    appended_.assign(appended_.size(), false);
    return {};
  }

  // K[h, p:p+s, :] = k_new[h, :, :] for each head, V likewise.
  template <typename In>
  Verdict append(int64_t layer, const In* k_new, const In* v_new) {
    if (s_ == 0) return refuse(TL_ERR_INVALID_ARGUMENT, "append outside a forward (call begin first)");
    if (layer < 0 || layer >= layers_) return refuse(TL_ERR_INVALID_ARGUMENT, "layer out of range");
    if (appended_[static_cast<size_t>(layer)])
      return refuse(TL_ERR_INVALID_ARGUMENT, "layer already appended in this forward");
    for (int64_t h = 0; h < kv_heads_; ++h)
      for (int64_t t = 0; t < s_; ++t)
        for (int64_t d = 0; d < head_dim_; ++d) {
          const int64_t from = (h * s_ + t) * head_dim_ + d, to = offset(layer, h, past_ + t) + d;
          k_[static_cast<size_t>(to)] = Store{}(k_new[from]);
          v_[static_cast<size_t>(to)] = Store{}(v_new[from]);
        }
    appended_[static_cast<size_t>(layer)] = true;
    return {};
  }

  // Rule 3: past_seq_len advances once, after every layer appended.
  Verdict commit() {
    if (s_ == 0) return refuse(TL_ERR_INVALID_ARGUMENT, "commit outside a forward");
    for (int64_t l = 0; l < layers_; ++l)
      if (!appended_[static_cast<size_t>(l)])
        return refuse(TL_ERR_INVALID_ARGUMENT, "layer " + std::to_string(l) + " has not appended in this forward");
    past_ += s_;
    s_ = 0;
    return {};
  }

  // Rule 4: no zeroing.
  void reset() {
    past_ = 0;
    s_ = 0;
  }

  // The view's length: past + s once the layer appended in this forward.
  int64_t length(int64_t layer) const { return past_ + (s_ > 0 && appended_[static_cast<size_t>(layer)] ? s_ : 0); }
  int64_t past_seq_len() const { return past_; }
  int64_t layers() const { return layers_; }
  int64_t head_stride() const { return max_seq_ * head_dim_; }
  const T* k(int64_t layer) const { return k_.data() + offset(layer, 0, 0); }
  const T* v(int64_t layer) const { return v_.data() + offset(layer, 0, 0); }

 private:
  int64_t offset(int64_t layer, int64_t h, int64_t t) const {
    return ((layer * kv_heads_ + h) * max_seq_ + t) * head_dim_;
  }

  int64_t layers_, kv_heads_, head_dim_, max_seq_;
  std::vector<T> k_, v_;
  std::vector<bool> appended_;
  int64_t past_ = 0;
  int64_t s_ = 0;  // positions of the forward in progress; 0 outside one
};

}  // namespace konform::reference
