// Argument validation of tinyllm/attention.h and the mask's layout, shared by
// the scalar, simd and cuda backends: anything wrong becomes a tl_status with
// a message (impl::fail) before a byte is written.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "impl/common/status.hpp"
#include "tinyllm/attention.h"

namespace konform::impl::attention_args {

// The sizes of an Sdpa call (as reference::attn::Dims, which impl/simd
// cannot include).
struct Dims {
  int64_t batch = 1, heads = 1, kv_heads = 1, sq = 1, sk = 1, d = 1;
};

// The additive mask of a kind: its element strides along b, h and i (j's is
// 1; 0 broadcasts) and its element count; all 0 for TL_ATTN_MASK_NONE.
struct MaskLayout {
  int64_t b = 0, h = 0, i = 0, elements = 0;
};

inline MaskLayout mask_layout(const Dims& n, int kind) {
  switch (kind) {
    case TL_ATTN_MASK_PADDING: return {n.sk, 0, 0, n.batch * n.sk};
    case TL_ATTN_MASK_FULL: return {n.heads * n.sq * n.sk, n.sq * n.sk, n.sk, n.batch * n.heads * n.sq * n.sk};
    case TL_ATTN_MASK_SEQ: return {0, 0, n.sk, n.sq * n.sk};
    case TL_ATTN_MASK_BATCH: return {n.sq * n.sk, 0, n.sk, n.batch * n.sq * n.sk};
    default: return {};
  }
}

inline std::string str(int64_t v) { return std::to_string(v); }

// The product of `sizes` times 4 bytes fits an int64_t (all >= 0), as the
// harness reads the header: exactly, whatever the order of the factors.
inline bool fits(std::initializer_list<int64_t> sizes) {
  for (int64_t s : sizes)
    if (s == 0) return true;  // an empty tensor, however large the other sizes
  int64_t p = 4;
  for (int64_t s : sizes)
    if (__builtin_mul_overflow(p, s, &p)) return false;
  return true;
}

// Sdpa and FlashAttention: sizes, heads, GQA ratio, head_dim, keys, mask kind.
inline tl_status check_sdpa(const char* fn, const Dims& n, int mask_kind) {
  const std::string f(fn);
  for (const auto& [name, v] :
       {std::pair{"batch", n.batch}, std::pair{"num_heads", n.heads}, std::pair{"kv_heads", n.kv_heads},
        std::pair{"sq", n.sq}, std::pair{"sk", n.sk}, std::pair{"head_dim", n.d}})
    if (v < 0) return fail(TL_ERR_INVALID_ARGUMENT, f + ": " + name + " = " + str(v) + " is negative");
  if (n.heads < 1 || n.kv_heads < 1)
    return fail(TL_ERR_INVALID_ARGUMENT,
                f + ": num_heads = " + str(n.heads) + " and kv_heads = " + str(n.kv_heads) + " must be at least 1");
  if (mask_kind < TL_ATTN_MASK_NONE || mask_kind > TL_ATTN_MASK_BATCH)
    return fail(TL_ERR_INVALID_ARGUMENT, f + ": mask_kind = " + str(mask_kind) + " is not a tl_attn_mask");
  if (!fits({n.batch, n.heads, n.sq, n.d}) || !fits({n.batch, n.kv_heads, n.sk, n.d}) ||
      (mask_kind != TL_ATTN_MASK_NONE && !fits({n.batch, n.heads, n.sq, n.sk})))
    return fail(TL_ERR_INVALID_ARGUMENT, f + ": a tensor's byte count does not fit an int64_t");
  if (n.heads % n.kv_heads != 0)
    return fail(TL_ERR_SHAPE, f + ": num_heads = " + str(n.heads) + " is not a multiple of kv_heads = " +
                                  str(n.kv_heads) + " (GQA shares each KV head among a whole group of query heads)");
  if (n.d == 0) return fail(TL_ERR_SHAPE, f + ": head_dim is 0 (the scale 1 / sqrt(head_dim) is undefined)");
  if (n.sk == 0 && n.sq > 0) return fail(TL_ERR_SHAPE, f + ": sk is 0 (a softmax over no key)");
  return TL_OK;
}

// SdpaWindow: Sdpa's rules with kv_heads = num_heads and Sq = Sk = seq, plus a
// window >= 1 that divides seq.
inline tl_status check_window(const char* fn, const Dims& n, int64_t window) {
  if (tl_status s = check_sdpa(fn, n, TL_ATTN_MASK_NONE)) return s;
  if (window < 1) return fail(TL_ERR_INVALID_ARGUMENT, std::string(fn) + ": window = " + str(window) + " is below 1");
  if (n.sq % window != 0)
    return fail(TL_ERR_SHAPE,
                std::string(fn) + ": seq = " + str(n.sq) + " is not a whole number of windows of " + str(window));
  return TL_OK;
}

// QK-norm: sizes >= 0 and fitting, head_dim >= 1, eps finite and >= 0.
inline tl_status check_qk_norm(const char* fn, int64_t tokens, int64_t heads, int64_t d, float eps) {
  const std::string f(fn);
  if (tokens < 0 || heads < 0 || d < 0)
    return fail(TL_ERR_INVALID_ARGUMENT, f + ": tokens = " + str(tokens) + ", num_heads = " + str(heads) +
                                             ", head_dim = " + str(d) + ": none may be negative");
  if (!fits({tokens, heads, d})) return fail(TL_ERR_INVALID_ARGUMENT, f + ": x's byte count does not fit an int64_t");
  if (!(eps >= 0.0f) || std::isinf(eps))
    return fail(TL_ERR_INVALID_ARGUMENT, f + ": eps = " + std::to_string(eps) + " must be finite and >= 0");
  if (d == 0) return fail(TL_ERR_SHAPE, f + ": head_dim is 0 (an empty RmsNorm)");
  return TL_OK;
}

}  // namespace konform::impl::attention_args
