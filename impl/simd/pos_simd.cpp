// libtl_kernels: the position-encoding ops of tinyllm/pos.h, compiled once per
// Highway target (foreach_target) and chosen at run time. Each exported
// function validates its arguments (impl/common/pos_args.hpp) before it
// dispatches, so a refused call writes nothing on every target.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/simd/pos_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "impl/simd/pos_embed-inl.h"
#include "impl/simd/pos_rope-inl.h"

#if HWY_ONCE
#include <cstring>
#include <vector>

#include "impl/common/pos_args.hpp"
#include "impl/common/pos_buckets.hpp"
#include "tinyllm/pos.h"
#include "tinyllm/tensor.h"

namespace konform::simd {

HWY_EXPORT(RopeCache);
HWY_EXPORT(RopeCacheF16);
HWY_EXPORT(RopeCacheBF16);
HWY_EXPORT(RopeApply);
HWY_EXPORT(MultiAxisRope);
HWY_EXPORT(SinusoidalEmbed);
HWY_EXPORT(RelativePosEmbedding);

// Rows copied with glibc's memcpy, itself dispatched on the CPU: bits,
// NaN payloads included, which is the contract.
// (f32, or the 2-byte elements of f16 and bf16.)
template <class T>
void GatherRows(const T* table, const int32_t* index, T* out, int64_t n, int64_t d) {
  const size_t row_bytes = static_cast<size_t>(d) * sizeof(T);
  for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * d, table + int64_t(index[i]) * d, row_bytes);
}

// Rope of f16 or bf16: a token's heads widened by the library's own casts
// (cast_simd.cpp), the f32 rotation in place, the rotated entries of each
// head rounded back; the tail stays x's bits (copied when y != x).
template <bool kBF16>
void RopeApplyHalf(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t rot_dim,
                   const float* cache, int layout) {
  std::vector<float> f(static_cast<size_t>(H * D));
  for (int64_t t = 0; t < T; ++t) {
    const uint16_t* xt = x + t * H * D;
    uint16_t* yt = y + t * H * D;
    (kBF16 ? tl_cast_bf16_to_f32 : tl_cast_f16_to_f32)(xt, f.data(), H * D);
    HWY_DYNAMIC_DISPATCH(RopeApply)(f.data(), f.data(), pos + t, 1, H, D, rot_dim, cache, layout);
    for (int64_t h = 0; h < H; ++h) {
      (kBF16 ? tl_cast_f32_to_bf16 : tl_cast_f32_to_f16)(f.data() + h * D, yt + h * D, rot_dim);
      if (yt != xt && rot_dim < D)
        std::memcpy(yt + h * D + rot_dim, xt + h * D + rot_dim, static_cast<size_t>(D - rot_dim) * 2);
    }
  }
}

// MultiAxisRope and SinusoidalEmbed of f16 or bf16: the inputs widened by
// the library's own casts, the f32 kernel `run` (in, out), the outputs
// rounded back; y == x is safe as the copy is read.
template <bool kBF16, class Run>
void InFloat(const uint16_t* x, int64_t count, uint16_t* y, int64_t out_count, const Run& run) {
  std::vector<float> in(static_cast<size_t>(count)), out(static_cast<size_t>(out_count));
  (kBF16 ? tl_cast_bf16_to_f32 : tl_cast_f16_to_f32)(x, in.data(), count);
  run(in.data(), out.data());
  (kBF16 ? tl_cast_f32_to_bf16 : tl_cast_f32_to_f16)(out.data(), y, out_count);
}

// RelativePosEmbedding of f16 or bf16: each row's buckets once (impl::
// T5Buckets), then 2-byte copies per head.
void RelativeBiasHalf(const uint16_t* table, const int32_t* q_pos, const int32_t* k_pos, uint16_t* bias, int64_t Lq,
                      int64_t Lk, int64_t H, int64_t num_buckets, int64_t max_distance, int bidirectional) {
  const impl::T5Buckets bucket(num_buckets, max_distance, bidirectional != 0);
  std::vector<int64_t> offset(static_cast<size_t>(Lk));
  for (int64_t i = 0; i < Lq; ++i) {
    for (int64_t j = 0; j < Lk; ++j) offset[static_cast<size_t>(j)] = int64_t(bucket(int64_t(k_pos[j]) - q_pos[i])) * H;
    for (int64_t h = 0; h < H; ++h) {
      uint16_t* out = bias + (h * Lq + i) * Lk;
      for (int64_t j = 0; j < Lk; ++j) out[j] = table[offset[static_cast<size_t>(j)] + h];
    }
  }
}

}  // namespace konform::simd

namespace ks = konform::simd;
namespace check = konform::impl::pos_args;

extern "C" {

tl_status tl_rope_cache_f32(float* cache, int64_t max_seq, int64_t rot_dim, float base) {
  if (tl_status s = check::rope_cache(max_seq, rot_dim, base)) return s;
  HWY_DYNAMIC_DISPATCH(ks::RopeCache)(cache, max_seq, rot_dim, base);
  return TL_OK;
}

tl_status tl_rope_cache_f16(uint16_t* cache, int64_t max_seq, int64_t rot_dim, float base) {
  if (tl_status s = check::rope_cache(max_seq, rot_dim, base)) return s;
  HWY_DYNAMIC_DISPATCH(ks::RopeCacheF16)(cache, max_seq, rot_dim, base);
  return TL_OK;
}

tl_status tl_rope_cache_bf16(uint16_t* cache, int64_t max_seq, int64_t rot_dim, float base) {
  if (tl_status s = check::rope_cache(max_seq, rot_dim, base)) return s;
  HWY_DYNAMIC_DISPATCH(ks::RopeCacheBF16)(cache, max_seq, rot_dim, base);
  return TL_OK;
}

int tl_rope_base_is_extreme(float base) { return check::base_is_extreme(base); }

tl_status tl_rope_apply_f32(const float* x, float* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                            int64_t rot_dim, const float* cache, int64_t max_seq, int layout) {
  if (tl_status s = check::rope_apply(pos, T, H, D, rot_dim, max_seq, layout)) return s;
  HWY_DYNAMIC_DISPATCH(ks::RopeApply)(x, y, pos, T, H, D, rot_dim, cache, layout);
  return TL_OK;
}

tl_status tl_rope_apply_f16(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                            int64_t rot_dim, const float* cache, int64_t max_seq, int layout) {
  if (tl_status s = check::rope_apply(pos, T, H, D, rot_dim, max_seq, layout)) return s;
  ks::RopeApplyHalf<false>(x, y, pos, T, H, D, rot_dim, cache, layout);
  return TL_OK;
}

tl_status tl_rope_apply_bf16(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                             int64_t rot_dim, const float* cache, int64_t max_seq, int layout) {
  if (tl_status s = check::rope_apply(pos, T, H, D, rot_dim, max_seq, layout)) return s;
  ks::RopeApplyHalf<true>(x, y, pos, T, H, D, rot_dim, cache, layout);
  return TL_OK;
}

tl_status tl_multi_axis_rope_f32(const float* x, float* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                                 int64_t n_axes, const int64_t* axis_dims, const float* axis_bases, int layout) {
  if (tl_status s = check::multi_axis_rope(T, H, D, n_axes, axis_dims, axis_bases, layout)) return s;
  HWY_DYNAMIC_DISPATCH(ks::MultiAxisRope)(x, y, pos, T, H, D, n_axes, axis_dims, axis_bases, layout);
  return TL_OK;
}

tl_status tl_sinusoidal_embed_f32(const float* t, float* y, int64_t n, int64_t dim, float max_period, float freq_shift,
                                  int layout) {
  if (tl_status s = check::sinusoidal_embed(n, dim, max_period, freq_shift, layout)) return s;
  HWY_DYNAMIC_DISPATCH(ks::SinusoidalEmbed)(t, y, n, dim, max_period, freq_shift, layout);
  return TL_OK;
}

tl_status tl_token_embed_f32(const float* table, const int32_t* ids, float* out, int64_t n, int64_t vocab, int64_t d) {
  if (tl_status s = check::token_embed(ids, n, vocab, d)) return s;
  ks::GatherRows(table, ids, out, n, d);
  return TL_OK;
}

tl_status tl_pos_embed_f32(const float* table, const int32_t* pos, float* out, int64_t n, int64_t max_pos, int64_t d) {
  if (tl_status s = check::pos_embed(pos, n, max_pos, d)) return s;
  ks::GatherRows(table, pos, out, n, d);
  return TL_OK;
}

#define KONFORM_EMBED_HALF(Dtype)                                                                                      \
  tl_status tl_token_embed_##Dtype(const uint16_t* table, const int32_t* ids, uint16_t* out, int64_t n, int64_t vocab, \
                                   int64_t d) {                                                                        \
    if (tl_status s = check::token_embed(ids, n, vocab, d)) return s;                                                  \
    ks::GatherRows(table, ids, out, n, d);                                                                             \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  tl_status tl_pos_embed_##Dtype(const uint16_t* table, const int32_t* pos, uint16_t* out, int64_t n, int64_t max_pos, \
                                 int64_t d) {                                                                          \
    if (tl_status s = check::pos_embed(pos, n, max_pos, d)) return s;                                                  \
    ks::GatherRows(table, pos, out, n, d);                                                                             \
    return TL_OK;                                                                                                      \
  }
KONFORM_EMBED_HALF(f16)
KONFORM_EMBED_HALF(bf16)
#undef KONFORM_EMBED_HALF

tl_status tl_relative_pos_embedding_f32(const float* table, const int32_t* q_pos, const int32_t* k_pos, float* bias,
                                        int64_t Lq, int64_t Lk, int64_t H, int64_t num_buckets, int64_t max_distance,
                                        int bidirectional) {
  if (tl_status s = check::relative_pos_embedding(Lq, Lk, H, num_buckets, max_distance, bidirectional)) return s;
  // A dispatched call over several lines: clang-format 14 would break it after the macro.
  // clang-format off
  HWY_DYNAMIC_DISPATCH(ks::RelativePosEmbedding)(table, q_pos, k_pos, bias, Lq, Lk, H, num_buckets, max_distance,
                                                  bidirectional);
  // clang-format on
  return TL_OK;
}

#define KONFORM_POS_HALF(Dtype, kBF16)                                                                                \
  tl_status tl_multi_axis_rope_##Dtype(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, int64_t H,      \
                                       int64_t D, int64_t n_axes, const int64_t* axis_dims, const float* axis_bases,  \
                                       int layout) {                                                                  \
    if (tl_status s = check::multi_axis_rope(T, H, D, n_axes, axis_dims, axis_bases, layout)) return s;               \
    ks::InFloat<kBF16>(x, T * H * D, y, T * H * D, [&](const float* xf, float* yf) {                                  \
      HWY_DYNAMIC_DISPATCH(ks::MultiAxisRope)(xf, yf, pos, T, H, D, n_axes, axis_dims, axis_bases, layout);           \
    });                                                                                                               \
    return TL_OK;                                                                                                     \
  }                                                                                                                   \
  tl_status tl_sinusoidal_embed_##Dtype(const uint16_t* t, uint16_t* y, int64_t n, int64_t dim, float max_period,     \
                                        float freq_shift, int layout) {                                               \
    if (tl_status s = check::sinusoidal_embed(n, dim, max_period, freq_shift, layout)) return s;                      \
    ks::InFloat<kBF16>(t, n, y, n * dim, [&](const float* tf, float* yf) {                                            \
      HWY_DYNAMIC_DISPATCH(ks::SinusoidalEmbed)(tf, yf, n, dim, max_period, freq_shift, layout);                      \
    });                                                                                                               \
    return TL_OK;                                                                                                     \
  }                                                                                                                   \
  tl_status tl_relative_pos_embedding_##Dtype(const uint16_t* table, const int32_t* q_pos, const int32_t* k_pos,      \
                                              uint16_t* bias, int64_t Lq, int64_t Lk, int64_t H, int64_t num_buckets, \
                                              int64_t max_distance, int bidirectional) {                              \
    if (tl_status s = check::relative_pos_embedding(Lq, Lk, H, num_buckets, max_distance, bidirectional)) return s;   \
    ks::RelativeBiasHalf(table, q_pos, k_pos, bias, Lq, Lk, H, num_buckets, max_distance, bidirectional);             \
    return TL_OK;                                                                                                     \
  }
KONFORM_POS_HALF(f16, false)
KONFORM_POS_HALF(bf16, true)
#undef KONFORM_POS_HALF

}  // extern "C"
#endif  // HWY_ONCE
