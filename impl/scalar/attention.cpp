#include "scalar/kernels.hpp"

#include "impl/common/attention_args.hpp"
#include <vector>

#include "konform/reference/attention.hpp"
#include "konform/reference/bf16.hpp"
#include "konform/reference/f16.hpp"

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

// f16 and bf16: q, k, v widened exactly, the float kernel `run` on them, y
// rounded once (Sdpa, FlashAttention, SdpaCross, SdpaWindow alike; `n`
// already checked).
namespace {
template <class Run>
void attention_half(bool bf16, const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y,
                    const args::Dims& n, const Run& run) {
  const auto widen = [bf16](const uint16_t* h, int64_t count) {
    std::vector<float> f(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i)
      f[static_cast<size_t>(i)] = bf16 ? reference::bf16_to_f32(h[i]) : reference::f16_to_f32(h[i]);
    return f;
  };
  const int64_t q_count = n.batch * n.heads * n.sq * n.d, kv_count = n.batch * n.kv_heads * n.sk * n.d;
  const std::vector<float> qf = widen(q, q_count), kf = widen(k, kv_count), vf = widen(v, kv_count);
  std::vector<float> yf(static_cast<size_t>(q_count));
  run(qf.data(), kf.data(), vf.data(), yf.data());
  for (int64_t i = 0; i < q_count; ++i)
    y[i] =
        bf16 ? reference::f32_to_bf16(yf[static_cast<size_t>(i)]) : reference::f32_to_f16(yf[static_cast<size_t>(i)]);
}

// Sdpa (flash false) or FlashAttention (flash true) of f16 or bf16.
tl_status sdpa_half(bool bf16, bool flash, const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask,
                    uint16_t* y, const args::Dims& n, int32_t causal, tl_attn_mask mask_kind) {
  const char* fn =
      flash ? (bf16 ? "tl_flash_attention_bf16" : "tl_flash_attention_f16") : (bf16 ? "tl_sdpa_bf16" : "tl_sdpa_f16");
  if (tl_status s = args::check_sdpa(fn, n, mask_kind)) return s;
  attention_half(bf16, q, k, v, y, n, [&](const float* qf, const float* kf, const float* vf, float* yf) {
    if (flash) ref::flash_attention<float>(qf, kf, vf, mask, yf, dims(n), causal != 0, mask_kind, kFlashTile);
    else ref::sdpa<float>(qf, kf, vf, mask, yf, dims(n), causal != 0, mask_kind);
  });
  return TL_OK;
}

tl_status cross_half(bool bf16, const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y,
                     const args::Dims& n) {
  if (tl_status s = args::check_sdpa(bf16 ? "tl_sdpa_cross_bf16" : "tl_sdpa_cross_f16", n, TL_ATTN_MASK_NONE)) return s;
  attention_half(bf16, q, k, v, y, n, [&](const float* qf, const float* kf, const float* vf, float* yf) {
    ref::sdpa_cross<float>(qf, kf, vf, yf, n.batch, n.heads, n.sq, n.sk, n.d);
  });
  return TL_OK;
}

tl_status window_half(bool bf16, const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y,
                      const args::Dims& n, int64_t window) {
  if (tl_status s = args::check_window(bf16 ? "tl_sdpa_window_bf16" : "tl_sdpa_window_f16", n, window)) return s;
  attention_half(bf16, q, k, v, y, n, [&](const float* qf, const float* kf, const float* vf, float* yf) {
    ref::sdpa_window<float>(qf, kf, vf, yf, n.batch, n.heads, n.sq, n.d, window);
  });
  return TL_OK;
}
}  // namespace

// generate_exports.py finds these definitions at the start of a line.
tl_status sdpa_f16(const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask, uint16_t* y,
                   int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim,
                   int32_t causal, tl_attn_mask mask_kind) {
  return sdpa_half(false, false, q, k, v, mask, y, {batch, num_heads, kv_heads, sq, sk, head_dim}, causal, mask_kind);
}
tl_status sdpa_bf16(const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask, uint16_t* y,
                    int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim,
                    int32_t causal, tl_attn_mask mask_kind) {
  return sdpa_half(true, false, q, k, v, mask, y, {batch, num_heads, kv_heads, sq, sk, head_dim}, causal, mask_kind);
}
tl_status flash_attention_f16(const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask, uint16_t* y,
                              int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk,
                              int64_t head_dim, int32_t causal, tl_attn_mask mask_kind) {
  return sdpa_half(false, true, q, k, v, mask, y, {batch, num_heads, kv_heads, sq, sk, head_dim}, causal, mask_kind);
}
tl_status flash_attention_bf16(const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask, uint16_t* y,
                               int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk,
                               int64_t head_dim, int32_t causal, tl_attn_mask mask_kind) {
  return sdpa_half(true, true, q, k, v, mask, y, {batch, num_heads, kv_heads, sq, sk, head_dim}, causal, mask_kind);
}
tl_status sdpa_cross_f16(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y, int64_t batch,
                         int64_t num_heads, int64_t sq, int64_t se, int64_t head_dim) {
  return cross_half(false, q, k, v, y, {batch, num_heads, num_heads, sq, se, head_dim});
}
tl_status sdpa_cross_bf16(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y, int64_t batch,
                          int64_t num_heads, int64_t sq, int64_t se, int64_t head_dim) {
  return cross_half(true, q, k, v, y, {batch, num_heads, num_heads, sq, se, head_dim});
}
tl_status sdpa_window_f16(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y, int64_t batch,
                          int64_t num_heads, int64_t seq, int64_t head_dim, int64_t window) {
  return window_half(false, q, k, v, y, {batch, num_heads, num_heads, seq, seq, head_dim}, window);
}
tl_status sdpa_window_bf16(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y, int64_t batch,
                           int64_t num_heads, int64_t seq, int64_t head_dim, int64_t window) {
  return window_half(true, q, k, v, y, {batch, num_heads, num_heads, seq, seq, head_dim}, window);
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

// QK-norm of f16 or bf16: RmsNorm's half twin on tokens * num_heads rows of
// head_dim (its refusals checked here first, under this op's name).
tl_status qk_norm_f16(const uint16_t* x, const float* g, uint16_t* y, int64_t tokens, int64_t num_heads,
                      int64_t head_dim, float eps) {
  if (tl_status s = args::check_qk_norm("tl_qk_norm_f16", tokens, num_heads, head_dim, eps)) return s;
  const int64_t shape[2] = {tokens * num_heads, head_dim};
  return rms_norm_f16(x, g, y, shape, 2, eps);
}
tl_status qk_norm_bf16(const uint16_t* x, const float* g, uint16_t* y, int64_t tokens, int64_t num_heads,
                       int64_t head_dim, float eps) {
  if (tl_status s = args::check_qk_norm("tl_qk_norm_bf16", tokens, num_heads, head_dim, eps)) return s;
  const int64_t shape[2] = {tokens * num_heads, head_dim};
  return rms_norm_bf16(x, g, y, shape, 2, eps);
}

}  // namespace konform::scalar
