// libtl_kernels: the ops of tinyllm/attention.h, compiled once per Highway
// target (foreach_target) and chosen at run time (HWY_DYNAMIC_DISPATCH). The
// kernels live in attention-inl.h; this file validates the arguments and
// dispatches. QK-norm is the RmsNorm kernel of norm-inl.h over rows of
// head_dim (tl_rms_norm_f32 on [tokens * num_heads, head_dim]).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/simd/attention_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "impl/simd/attention-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {

// Dispatchable wrappers (HWY_EXPORT needs plain functions of this namespace).
inline void AttnSdpa(const float* q, const float* k, const float* v, float* y, const AttnGeometry& g) {
  attn::Sdpa(q, k, v, y, g);
}
inline void AttnFlash(const float* q, const float* k, const float* v, float* y, const AttnGeometry& g) {
  attn::Flash(q, k, v, y, g);
}
inline void AttnWindow(const float* q, const float* k, const float* v, float* y, int64_t batch, int64_t heads,
                       int64_t seq, int64_t dim, int64_t window) {
  attn::SdpaWindow(q, k, v, y, batch, heads, seq, dim, window);
}
// A half KV cache (bf16 or f16 bits), q and y already f32: the kernels widen
// K and V a row or a tile at a time (attention-inl.h).
using KvF16 = attn::KvHalf<half::F16>;
using KvBF16 = attn::KvHalf<half::BF16>;
inline void AttnSdpaHalf(bool bf16, const float* q, const uint16_t* k, const uint16_t* v, float* y,
                         const AttnGeometry& g) {
  if (bf16) attn::Sdpa<KvBF16>(q, k, v, y, g);
  else attn::Sdpa<KvF16>(q, k, v, y, g);
}
inline void AttnFlashHalf(bool bf16, const float* q, const uint16_t* k, const uint16_t* v, float* y,
                          const AttnGeometry& g) {
  if (bf16) attn::Flash<KvBF16>(q, k, v, y, g);
  else attn::Flash<KvF16>(q, k, v, y, g);
}
inline void AttnWindowHalf(bool bf16, const float* q, const uint16_t* k, const uint16_t* v, float* y, int64_t batch,
                           int64_t heads, int64_t seq, int64_t dim, int64_t window) {
  if (bf16) attn::SdpaWindow<KvBF16>(q, k, v, y, batch, heads, seq, dim, window);
  else attn::SdpaWindow<KvF16>(q, k, v, y, batch, heads, seq, dim, window);
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <vector>

#include "impl/common/attention_args.hpp"
#include "tinyllm/attention.h"
#include "tinyllm/norm.h"
#include "tinyllm/tensor.h"

namespace konform::simd {

HWY_EXPORT(AttnSdpa);
HWY_EXPORT(AttnFlash);
HWY_EXPORT(AttnWindow);
HWY_EXPORT(AttnSdpaHalf);
HWY_EXPORT(AttnFlashHalf);
HWY_EXPORT(AttnWindowHalf);

}  // namespace konform::simd

namespace ks = konform::simd;
namespace ka = konform::impl::attention_args;

namespace {

// The kernels' view of a validated Sdpa call: sizes and mask strides.
ks::AttnGeometry geometry(const ka::Dims& n, const float* mask, int32_t causal, tl_attn_mask kind) {
  const ka::MaskLayout m = ka::mask_layout(n, kind);
  return {n.batch, n.heads, n.kv_heads, n.sq, n.sk, n.d, causal != 0, kind == TL_ATTN_MASK_NONE ? nullptr : mask,
          m.b,     m.h,     m.i};
}

// f16 and bf16: q widened by the library's own casts (cast_simd.cpp), the
// half kernel `run` on it and the cache as stored (K and V widened inside,
// a row or a tile at a time: a decode moves the cache's own bytes, not an
// f32 copy of them), y rounded back (`n` already checked).
template <class Run>
void AttentionHalf(bool bf16, const uint16_t* q, uint16_t* y, const ka::Dims& n, const Run& run) {
  const int64_t q_count = n.batch * n.heads * n.sq * n.d;
  std::vector<float> qf(static_cast<size_t>(q_count)), yf(static_cast<size_t>(q_count));
  (bf16 ? tl_cast_bf16_to_f32 : tl_cast_f16_to_f32)(q, qf.data(), q_count);
  run(qf.data(), yf.data());
  (bf16 ? tl_cast_f32_to_bf16 : tl_cast_f32_to_f16)(yf.data(), y, q_count);
}

// Sdpa (flash false) or FlashAttention (flash true) of f16 or bf16.
tl_status SdpaHalf(bool bf16, bool flash, const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask,
                   uint16_t* y, const ka::Dims& n, int32_t causal, tl_attn_mask mask_kind) {
  const char* fn =
      flash ? (bf16 ? "tl_flash_attention_bf16" : "tl_flash_attention_f16") : (bf16 ? "tl_sdpa_bf16" : "tl_sdpa_f16");
  if (tl_status s = ka::check_sdpa(fn, n, mask_kind)) return s;
  AttentionHalf(bf16, q, y, n, [&](const float* qf, float* yf) {
    const ks::AttnGeometry g = geometry(n, mask, causal, mask_kind);
    if (flash) HWY_DYNAMIC_DISPATCH(ks::AttnFlashHalf)(bf16, qf, k, v, yf, g);
    else HWY_DYNAMIC_DISPATCH(ks::AttnSdpaHalf)(bf16, qf, k, v, yf, g);
  });
  return TL_OK;
}

tl_status CrossHalf(bool bf16, const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y,
                    const ka::Dims& n) {
  if (tl_status s = ka::check_sdpa(bf16 ? "tl_sdpa_cross_bf16" : "tl_sdpa_cross_f16", n, TL_ATTN_MASK_NONE)) return s;
  AttentionHalf(bf16, q, y, n, [&](const float* qf, float* yf) {
    HWY_DYNAMIC_DISPATCH(ks::AttnSdpaHalf)(bf16, qf, k, v, yf, geometry(n, nullptr, 0, TL_ATTN_MASK_NONE));
  });
  return TL_OK;
}

tl_status WindowHalf(bool bf16, const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y, const ka::Dims& n,
                     int64_t window) {
  if (tl_status s = ka::check_window(bf16 ? "tl_sdpa_window_bf16" : "tl_sdpa_window_f16", n, window)) return s;
  AttentionHalf(bf16, q, y, n, [&](const float* qf, float* yf) {
    HWY_DYNAMIC_DISPATCH(ks::AttnWindowHalf)(bf16, qf, k, v, yf, n.batch, n.heads, n.sq, n.d, window);
  });
  return TL_OK;
}

}  // namespace

extern "C" {

tl_status tl_sdpa_f32(const float* q, const float* k, const float* v, const float* mask, float* y, int64_t batch,
                      int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim, int32_t causal,
                      tl_attn_mask mask_kind) {
  const ka::Dims n{batch, num_heads, kv_heads, sq, sk, head_dim};
  if (tl_status s = ka::check_sdpa("tl_sdpa_f32", n, mask_kind)) return s;
  HWY_DYNAMIC_DISPATCH(ks::AttnSdpa)(q, k, v, y, geometry(n, mask, causal, mask_kind));
  return TL_OK;
}

tl_status tl_flash_attention_f32(const float* q, const float* k, const float* v, const float* mask, float* y,
                                 int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk,
                                 int64_t head_dim, int32_t causal, tl_attn_mask mask_kind) {
  const ka::Dims n{batch, num_heads, kv_heads, sq, sk, head_dim};
  if (tl_status s = ka::check_sdpa("tl_flash_attention_f32", n, mask_kind)) return s;
  HWY_DYNAMIC_DISPATCH(ks::AttnFlash)(q, k, v, y, geometry(n, mask, causal, mask_kind));
  return TL_OK;
}

tl_status tl_flash_attention_f16(const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask,
                                 uint16_t* y, int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq,
                                 int64_t sk, int64_t head_dim, int32_t causal, tl_attn_mask mask_kind) {
  return SdpaHalf(false, true, q, k, v, mask, y, {batch, num_heads, kv_heads, sq, sk, head_dim}, causal, mask_kind);
}

tl_status tl_flash_attention_bf16(const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask,
                                  uint16_t* y, int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq,
                                  int64_t sk, int64_t head_dim, int32_t causal, tl_attn_mask mask_kind) {
  return SdpaHalf(true, true, q, k, v, mask, y, {batch, num_heads, kv_heads, sq, sk, head_dim}, causal, mask_kind);
}

tl_status tl_sdpa_cross_f32(const float* q, const float* k, const float* v, float* y, int64_t batch, int64_t num_heads,
                            int64_t sq, int64_t se, int64_t head_dim) {
  const ka::Dims n{batch, num_heads, num_heads, sq, se, head_dim};
  if (tl_status s = ka::check_sdpa("tl_sdpa_cross_f32", n, TL_ATTN_MASK_NONE)) return s;
  HWY_DYNAMIC_DISPATCH(ks::AttnSdpa)(q, k, v, y, geometry(n, nullptr, 0, TL_ATTN_MASK_NONE));
  return TL_OK;
}

tl_status tl_sdpa_window_f32(const float* q, const float* k, const float* v, float* y, int64_t batch, int64_t num_heads,
                             int64_t seq, int64_t head_dim, int64_t window) {
  const ka::Dims n{batch, num_heads, num_heads, seq, seq, head_dim};
  if (tl_status s = ka::check_window("tl_sdpa_window_f32", n, window)) return s;
  HWY_DYNAMIC_DISPATCH(ks::AttnWindow)(q, k, v, y, batch, num_heads, seq, head_dim, window);
  return TL_OK;
}

tl_status tl_qk_norm_f32(const float* x, const float* g, float* y, int64_t tokens, int64_t num_heads, int64_t head_dim,
                         float eps) {
  if (tl_status s = ka::check_qk_norm("tl_qk_norm_f32", tokens, num_heads, head_dim, eps)) return s;
  if (tokens == 0 || num_heads == 0) return TL_OK;
  const int64_t shape[2] = {tokens * num_heads, head_dim};
  return tl_rms_norm_f32(x, g, y, shape, 2, eps);
}

tl_status tl_sdpa_f16(const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask, uint16_t* y,
                      int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim,
                      int32_t causal, tl_attn_mask mask_kind) {
  return SdpaHalf(false, false, q, k, v, mask, y, {batch, num_heads, kv_heads, sq, sk, head_dim}, causal, mask_kind);
}

tl_status tl_sdpa_bf16(const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* mask, uint16_t* y,
                       int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim,
                       int32_t causal, tl_attn_mask mask_kind) {
  return SdpaHalf(true, false, q, k, v, mask, y, {batch, num_heads, kv_heads, sq, sk, head_dim}, causal, mask_kind);
}

tl_status tl_sdpa_cross_f16(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y, int64_t batch,
                            int64_t num_heads, int64_t sq, int64_t se, int64_t head_dim) {
  return CrossHalf(false, q, k, v, y, {batch, num_heads, num_heads, sq, se, head_dim});
}

tl_status tl_sdpa_cross_bf16(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y, int64_t batch,
                             int64_t num_heads, int64_t sq, int64_t se, int64_t head_dim) {
  return CrossHalf(true, q, k, v, y, {batch, num_heads, num_heads, sq, se, head_dim});
}

tl_status tl_sdpa_window_f16(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y, int64_t batch,
                             int64_t num_heads, int64_t seq, int64_t head_dim, int64_t window) {
  return WindowHalf(false, q, k, v, y, {batch, num_heads, num_heads, seq, seq, head_dim}, window);
}

tl_status tl_sdpa_window_bf16(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* y, int64_t batch,
                              int64_t num_heads, int64_t seq, int64_t head_dim, int64_t window) {
  return WindowHalf(true, q, k, v, y, {batch, num_heads, num_heads, seq, seq, head_dim}, window);
}

// QK-norm of f16 or bf16: the library's half RmsNorm on tokens * num_heads
// rows of head_dim, its refusals checked here first under this op's name.
tl_status tl_qk_norm_f16(const uint16_t* x, const float* g, uint16_t* y, int64_t tokens, int64_t num_heads,
                         int64_t head_dim, float eps) {
  if (tl_status s = ka::check_qk_norm("tl_qk_norm_f16", tokens, num_heads, head_dim, eps)) return s;
  const int64_t shape[2] = {tokens * num_heads, head_dim};
  return tl_rms_norm_f16(x, g, y, shape, 2, eps);
}

tl_status tl_qk_norm_bf16(const uint16_t* x, const float* g, uint16_t* y, int64_t tokens, int64_t num_heads,
                          int64_t head_dim, float eps) {
  if (tl_status s = ka::check_qk_norm("tl_qk_norm_bf16", tokens, num_heads, head_dim, eps)) return s;
  const int64_t shape[2] = {tokens * num_heads, head_dim};
  return tl_rms_norm_bf16(x, g, y, shape, 2, eps);
}

}  // extern "C"
#endif  // HWY_ONCE
