#include "scalar/kernels.hpp"

#include "impl/common/attention_args.hpp"
#include "konform/reference/attention.hpp"

namespace konform::scalar {
namespace ref = konform::reference::attn;
namespace args = konform::impl::attention_args;

namespace {

// The keys of one FlashAttention tile in the scalar backend.
constexpr int64_t kFlashTile = 32;

ref::Dims dims(const args::Dims& n) { return {n.batch, n.heads, n.kv_heads, n.sq, n.sk, n.d}; }

}  // namespace

tl_status sdpa_f32(const float* q, const float* k, const float* v, const float* mask, float* y, int64_t batch,
                   int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim, int32_t causal,
                   tl_attn_mask mask_kind) {
  const args::Dims n{batch, num_heads, kv_heads, sq, sk, head_dim};
  if (tl_status s = args::check_sdpa("tl_sdpa_f32", n, mask_kind)) return s;
  ref::sdpa<float>(q, k, v, mask, y, dims(n), causal != 0, mask_kind);
  return TL_OK;
}

tl_status flash_attention_f32(const float* q, const float* k, const float* v, const float* mask, float* y,
                              int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk,
                              int64_t head_dim, int32_t causal, tl_attn_mask mask_kind) {
  const args::Dims n{batch, num_heads, kv_heads, sq, sk, head_dim};
  if (tl_status s = args::check_sdpa("tl_flash_attention_f32", n, mask_kind)) return s;
  ref::flash_attention<float>(q, k, v, mask, y, dims(n), causal != 0, mask_kind, kFlashTile);
  return TL_OK;
}

tl_status sdpa_cross_f32(const float* q, const float* k, const float* v, float* y, int64_t batch, int64_t num_heads,
                         int64_t sq, int64_t se, int64_t head_dim) {
  if (tl_status s =
          args::check_sdpa("tl_sdpa_cross_f32", {batch, num_heads, num_heads, sq, se, head_dim}, TL_ATTN_MASK_NONE))
    return s;
  ref::sdpa_cross<float>(q, k, v, y, batch, num_heads, sq, se, head_dim);
  return TL_OK;
}

tl_status sdpa_window_f32(const float* q, const float* k, const float* v, float* y, int64_t batch, int64_t num_heads,
                          int64_t seq, int64_t head_dim, int64_t window) {
  if (tl_status s = args::check_window("tl_sdpa_window_f32", {batch, num_heads, num_heads, seq, seq, head_dim}, window))
    return s;
  ref::sdpa_window<float>(q, k, v, y, batch, num_heads, seq, head_dim, window);
  return TL_OK;
}

tl_status qk_norm_f32(const float* x, const float* g, float* y, int64_t tokens, int64_t num_heads, int64_t head_dim,
                      float eps) {
  if (tl_status s = args::check_qk_norm("tl_qk_norm_f32", tokens, num_heads, head_dim, eps)) return s;
  ref::qk_norm<float>(x, g, y, tokens, num_heads, head_dim, eps);
  return TL_OK;
}

}  // namespace konform::scalar
