// The bookkeeping of tinyllm/kv_cache.h (sizes, past_seq_len, the forward in
// progress and which layers appended in it) and its refusals, shared by
// libtl_kernels and libtl_cuda: each backend keeps only its storage and its
// copies, so both refuse the same calls with the same words.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <type_traits>

#include "impl/common/status.hpp"
#include "tinyllm/kv_cache.h"

namespace konform::impl::kv_cache {

struct State {
  int64_t layers = 0, kv_heads = 0, head_dim = 0, max_seq = 0;
  int64_t past = 0;
  int64_t s = 0;                     // the forward in progress; 0 outside one
  std::unique_ptr<bool[]> appended;  // per layer, in the forward in progress

  int64_t layer_elements() const { return kv_heads * max_seq * head_dim; }
  // Where head h's first new position of `layer`'s K (or V) goes.
  int64_t append_offset(int64_t layer, int64_t h) const {
    return layer * layer_elements() + (h * max_seq + past) * head_dim;
  }
  int64_t view_length(int64_t layer) const { return past + (s > 0 && appended[layer] ? s : 0); }
};

// A create whose allocation failed (the State's, or a backend's storage).
inline tl_status out_of_memory() { return fail(TL_ERR_INVALID_ARGUMENT, "create: out of memory"); }

// Sizes >= 1 whose two tensors' bytes (of element_bytes each: 4 for f32, 2
// for f16 and bf16) fit an int64_t; `st` is then set up.
inline tl_status create(State& st, int64_t layers, int64_t kv_heads, int64_t head_dim, int64_t max_seq,
                        int element_bytes = 4) {
  if (layers < 1 || kv_heads < 1 || head_dim < 1 || max_seq < 1)
    return fail(TL_ERR_INVALID_ARGUMENT, "create: num_layers, kv_heads, head_dim and max_seq must be >= 1");
  const long double bytes = 2.0L * element_bytes * layers * kv_heads * head_dim * max_seq;
  if (bytes > static_cast<long double>(INT64_MAX))
    return fail(TL_ERR_INVALID_ARGUMENT, "create: the cache's size overflows int64_t");
  st.appended.reset(new (std::nothrow) bool[static_cast<size_t>(layers)]());
  if (st.appended == nullptr) return out_of_memory();
  st.layers = layers, st.kv_heads = kv_heads, st.head_dim = head_dim, st.max_seq = max_seq;
  return TL_OK;
}

inline tl_status begin(State& st, int64_t s) {
  if (s < 1) return fail(TL_ERR_INVALID_ARGUMENT, "begin: a forward appends s >= 1 positions");
  if (st.s > 0) return fail(TL_ERR_INVALID_ARGUMENT, "begin: a forward is already in progress");
  if (s > st.max_seq - st.past)
    return fail(TL_ERR_CONTEXT_OVERFLOW, "begin: past_seq_len " + std::to_string(st.past) + " + s " +
                                             std::to_string(s) + " > max_seq " + std::to_string(st.max_seq));
  st.s = s;
  for (int64_t l = 0; l < st.layers; ++l) st.appended[l] = false;
  return TL_OK;
}

// Before an append's copies; the backend marks the layer appended after them.
inline tl_status check_append(const State& st, int64_t layer) {
  if (st.s == 0) return fail(TL_ERR_INVALID_ARGUMENT, "append_f32: outside a forward (call begin first)");
  if (layer < 0 || layer >= st.layers) return fail(TL_ERR_INVALID_ARGUMENT, "append_f32: layer out of range");
  if (st.appended[layer]) return fail(TL_ERR_INVALID_ARGUMENT, "append_f32: layer already appended in this forward");
  return TL_OK;
}

inline tl_status check_view(const State& st, int64_t layer, const char* fn = "view_f32") {
  if (layer < 0 || layer >= st.layers) return fail(TL_ERR_INVALID_ARGUMENT, std::string(fn) + ": layer out of range");
  return TL_OK;
}

inline tl_status commit(State& st) {
  if (st.s == 0) return fail(TL_ERR_INVALID_ARGUMENT, "commit: outside a forward");
  for (int64_t l = 0; l < st.layers; ++l)
    if (!st.appended[l])
      return fail(TL_ERR_INVALID_ARGUMENT, "commit: layer " + std::to_string(l) + " has not appended in this forward");
  st.past += st.s;  // rule 3: once per forward
  st.s = 0;
  return TL_OK;
}

// Rule 4: past_seq_len = 0, no forward in progress, the memory left as it is.
inline void reset(State& st) {
  st.past = 0;
  st.s = 0;
}

// The table's functions that only read or move the bookkeeping, for a
// backend's Cache holding a State `st` and pointers `k`, `v` to its
// [layers][kv_heads][max_seq][head_dim] tensors (what a view points at):
// floats, or the bit patterns of f16 and bf16 (View tl_kv_view_half).
template <class Cache, class View = tl_kv_view_f32>
struct Table {
  static constexpr bool kHalf = std::is_same_v<View, tl_kv_view_half>;
  static Cache* of(tl_kv_cache* c) { return reinterpret_cast<Cache*>(c); }
  static const Cache* of(const tl_kv_cache* c) { return reinterpret_cast<const Cache*>(c); }
  static void destroy(tl_kv_cache* c) { delete of(c); }  // NULL is a no-op
  static tl_status begin(tl_kv_cache* c, int64_t s) { return kv_cache::begin(of(c)->st, s); }
  static tl_status view(const tl_kv_cache* cache, int64_t layer, View* out) {
    const Cache* c = of(cache);
    if (tl_status s = check_view(c->st, layer, kHalf ? "view_half" : "view_f32")) return s;
    const int64_t at = layer * c->st.layer_elements();
    *out = {c->k + at, c->v + at, c->st.view_length(layer), c->st.max_seq * c->st.head_dim};
    return TL_OK;
  }
  static tl_status commit(tl_kv_cache* c) { return kv_cache::commit(of(c)->st); }
  static void reset(tl_kv_cache* c) { kv_cache::reset(of(c)->st); }
  static int64_t past_seq_len(const tl_kv_cache* c) { return of(c)->st.past; }
  // The whole table (tl_kv_cache_api, or tl_kv_cache_half_api for a half
  // View) around the backend's own create and append_f32.
  using Api = std::conditional_t<kHalf, tl_kv_cache_half_api, tl_kv_cache_api>;
  static constexpr Api api(decltype(Api::create) create, decltype(Api::append_f32) append) {
    return {1, create, destroy, begin, append, view, commit, reset, past_seq_len};
  }
};

}  // namespace konform::impl::kv_cache
