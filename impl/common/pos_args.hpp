// Argument validation of tinyllm/pos.h, shared by the scalar and simd
// backends: every check runs before anything is written, and anything wrong
// becomes a tl_status with a message (impl::fail).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <utility>

#include "impl/common/status.hpp"
#include "tinyllm/pos.h"

namespace konform::impl::pos_args {

inline std::string str(int64_t v) { return std::to_string(v); }
inline std::string str(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}

inline tl_status invalid(const char* fn, const std::string& what) {
  return fail(TL_ERR_INVALID_ARGUMENT, std::string(fn) + ": " + what);
}

// Every size >= 0, and the elements of the largest tensor, as bytes, fit an
// int64_t.
inline tl_status check_sizes(const char* fn, std::initializer_list<std::pair<const char*, int64_t>> sizes) {
  int64_t elements = int64_t{sizeof(float)};
  bool overflow = false;
  for (const auto& [name, v] : sizes) {
    if (v < 0) return invalid(fn, std::string(name) + " = " + str(v) + " is negative");
    overflow = overflow || __builtin_mul_overflow(elements, v, &elements);
  }
  if (overflow) return invalid(fn, "the sizes multiply past what an int64_t byte count holds");
  return TL_OK;
}

// tl_rope_base_is_extreme: outside the spec's [1, 1e9] (NaN too).
inline int base_is_extreme(float base) { return !(base >= 1.0f && base <= 1e9f); }

inline bool positive_finite(float v) { return v > 0.0f && std::isfinite(v); }

inline tl_status check_base(const char* fn, const char* name, float base) {
  if (!positive_finite(base)) return invalid(fn, std::string(name) + " = " + str(base) + " must be finite and > 0");
  return TL_OK;
}

// A rotary width: even (RoPE rotates pairs), at least one pair.
inline tl_status check_even(const char* fn, const char* name, int64_t v) {
  if (v < 2) return invalid(fn, std::string(name) + " = " + str(v) + " must be >= 2");
  if (v % 2 != 0) return invalid(fn, std::string(name) + " = " + str(v) + " is odd: RoPE rotates pairs of entries");
  return TL_OK;
}

inline tl_status check_layout(const char* fn, int layout, int last) {
  if (layout < 0 || layout > last)
    return invalid(fn, "layout = " + str(int64_t{layout}) + " is not one of 0 .. " + str(int64_t{last}));
  return TL_OK;
}

inline tl_status rope_cache(int64_t max_seq, int64_t rot_dim, float base) {
  constexpr const char* fn = "tl_rope_cache_f32";
  if (tl_status s = check_even(fn, "rot_dim", rot_dim)) return s;
  if (max_seq < 1 || max_seq > TL_ROPE_MAX_POSITIONS)
    return invalid(fn, "max_seq = " + str(max_seq) + " is outside [1, " + str(int64_t{TL_ROPE_MAX_POSITIONS}) +
                           "]: past 2^24 a double angle is not accurate to f32");
  if (tl_status s = check_sizes(fn, {{"max_seq", max_seq}, {"rot_dim", rot_dim}})) return s;
  return check_base(fn, "base", base);
}

inline tl_status rope_apply(const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t rot_dim, int64_t max_seq,
                            int layout) {
  constexpr const char* fn = "tl_rope_apply_f32";
  if (tl_status s = check_sizes(fn, {{"T", T}, {"H", H}, {"D", D}})) return s;
  if (D % 2 != 0)
    return invalid(fn, "head_dim D = " + str(D) + " is odd: the spec refuses an odd head_dim at validation");
  if (tl_status s = check_even(fn, "rot_dim", rot_dim)) return s;
  if (rot_dim > D) return invalid(fn, "rot_dim = " + str(rot_dim) + " is larger than head_dim D = " + str(D));
  if (tl_status s = check_layout(fn, layout, TL_ROPE_INTERLEAVED)) return s;
  if (max_seq < 1) return invalid(fn, "max_seq = " + str(max_seq) + " must be >= 1");
  if (tl_status s = check_sizes(fn, {{"max_seq", max_seq}, {"rot_dim", rot_dim}})) return s;
  for (int64_t t = 0; t < T; ++t) {
    if (pos[t] < 0) return invalid(fn, "pos[" + str(t) + "] = " + str(int64_t{pos[t]}) + " is negative");
    if (pos[t] >= max_seq)
      return fail(TL_ERR_CONTEXT_OVERFLOW, std::string(fn) + ": ContextOverflowError: pos[" + str(t) +
                                               "] = " + str(int64_t{pos[t]}) + " is past the cache's last position " +
                                               str(max_seq - 1) + " (max_position_embeddings = " + str(max_seq) + ")");
  }
  return TL_OK;
}

// Every INVALID_ARGUMENT check before the one SHAPE check (the widths' sum),
// so the status does not depend on which axis is wrong first.
inline tl_status multi_axis_rope(int64_t T, int64_t H, int64_t D, int64_t n_axes, const int64_t* dims,
                                 const float* bases, int layout) {
  constexpr const char* fn = "tl_multi_axis_rope_f32";
  if (tl_status s = check_sizes(fn, {{"T", T}, {"H", H}, {"D", D}})) return s;
  if (n_axes < 1 || n_axes > TL_ROPE_MAX_AXES)
    return invalid(fn, "n_axes = " + str(n_axes) + " is outside [1, " + str(int64_t{TL_ROPE_MAX_AXES}) + "]");
  if (dims == nullptr || bases == nullptr) return invalid(fn, "axis_dims and axis_bases must not be NULL");
  if (tl_status s = check_layout(fn, layout, TL_ROPE_INTERLEAVED)) return s;
  for (int64_t a = 0; a < n_axes; ++a) {
    const std::string name = "axis_dims[" + str(a) + "]";
    if (tl_status s = check_even(fn, name.c_str(), dims[a])) return s;
  }
  for (int64_t a = 0; a < n_axes; ++a) {
    const std::string name = "axis_bases[" + str(a) + "]";
    if (tl_status s = check_base(fn, name.c_str(), bases[a])) return s;
  }
  int64_t sum = 0;
  for (int64_t a = 0; a < n_axes; ++a) {
    if (dims[a] > D)
      return fail(TL_ERR_SHAPE, std::string(fn) + ": axis_dims[" + str(a) + "] = " + str(dims[a]) +
                                    " is wider than head_dim D = " + str(D));
    sum += dims[a];  // at most 8 terms each <= D: no overflow
  }
  if (sum != D)
    return fail(TL_ERR_SHAPE,
                std::string(fn) + ": the axis widths sum to " + str(sum) + ", not head_dim D = " + str(D));
  return TL_OK;
}

inline tl_status sinusoidal_embed(int64_t n, int64_t dim, float max_period, float freq_shift, int layout) {
  constexpr const char* fn = "tl_sinusoidal_embed_f32";
  if (tl_status s = check_sizes(fn, {{"n", n}, {"dim", dim}})) return s;
  if (dim < 2 || dim % 2 != 0)
    return invalid(fn, "dim = " + str(dim) + " must be even and >= 2 (a sin and a cos per frequency)");
  if (!positive_finite(max_period)) return invalid(fn, "max_period = " + str(max_period) + " must be finite and > 0");
  if (!std::isfinite(freq_shift) || !(double(freq_shift) < double(dim / 2)))
    return invalid(fn, "freq_shift = " + str(freq_shift) + " must be finite and below dim / 2 = " + str(dim / 2));
  return check_layout(fn, layout, TL_SINUSOIDAL_COS_SIN);
}

inline tl_status token_embed(const int32_t* ids, int64_t n, int64_t vocab, int64_t d) {
  constexpr const char* fn = "tl_token_embed_f32";
  if (tl_status s = check_sizes(fn, {{"n", n}, {"d", d}})) return s;
  if (tl_status s = check_sizes(fn, {{"vocab", vocab}, {"d", d}})) return s;
  if (vocab < 1 || d < 1) return invalid(fn, "vocab = " + str(vocab) + " and d = " + str(d) + " must be >= 1");
  for (int64_t i = 0; i < n; ++i)
    if (ids[i] < 0 || ids[i] >= vocab)
      return invalid(
          fn, "ids[" + str(i) + "] = " + str(int64_t{ids[i]}) + " is outside the vocabulary [0, " + str(vocab) + ")");
  return TL_OK;
}

inline tl_status pos_embed(const int32_t* pos, int64_t n, int64_t max_pos, int64_t d) {
  constexpr const char* fn = "tl_pos_embed_f32";
  if (tl_status s = check_sizes(fn, {{"n", n}, {"d", d}})) return s;
  if (tl_status s = check_sizes(fn, {{"max_pos", max_pos}, {"d", d}})) return s;
  if (max_pos < 1 || d < 1) return invalid(fn, "max_pos = " + str(max_pos) + " and d = " + str(d) + " must be >= 1");
  for (int64_t i = 0; i < n; ++i) {
    if (pos[i] < 0) return invalid(fn, "pos[" + str(i) + "] = " + str(int64_t{pos[i]}) + " is negative");
    if (pos[i] >= max_pos)
      return fail(TL_ERR_CONTEXT_OVERFLOW, std::string(fn) + ": ContextOverflowError: pos[" + str(i) +
                                               "] = " + str(int64_t{pos[i]}) + " is past the table's last position " +
                                               str(max_pos - 1));
  }
  return TL_OK;
}

inline tl_status relative_pos_embedding(int64_t Lq, int64_t Lk, int64_t H, int64_t num_buckets, int64_t max_distance,
                                        int bidirectional) {
  constexpr const char* fn = "tl_relative_pos_embedding_f32";
  if (tl_status s = check_sizes(fn, {{"H", H}, {"Lq", Lq}, {"Lk", Lk}})) return s;
  if (H < 1) return invalid(fn, "H = " + str(H) + " must be >= 1");
  if (bidirectional != 0 && bidirectional != 1)
    return invalid(fn, "bidirectional = " + str(int64_t{bidirectional}) + " must be 0 or 1");
  const int64_t nb = bidirectional ? num_buckets / 2 : num_buckets;
  if (nb < 2 || num_buckets > 1024)
    return invalid(fn, "num_buckets = " + str(num_buckets) + " must be in [" + (bidirectional ? "4" : "2") +
                           ", 1024] (at least two buckets per side)");
  if (H > INT32_MAX / num_buckets)
    return invalid(fn, "num_buckets * H is past 2^31 - 1: the table is indexed by int32");
  const int64_t me = nb / 2;
  if (max_distance <= me || max_distance > INT32_MAX)
    return invalid(fn, "max_distance = " + str(max_distance) + " must be in (" + str(me) + ", 2^31 - 1]: past the " +
                           str(me) + " exact buckets the log-spaced ones need room");
  return TL_OK;
}

}  // namespace konform::impl::pos_args
