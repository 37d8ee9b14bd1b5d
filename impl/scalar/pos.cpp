#include "scalar/kernels.hpp"

#include "impl/common/pos_args.hpp"
#include "konform/reference/bf16.hpp"
#include "konform/reference/f16.hpp"
#include "konform/reference/pos.hpp"
#include <vector>

namespace konform::scalar {
namespace ref = konform::reference;
namespace check = konform::impl::pos_args;

int rope_base_is_extreme(float base) { return check::base_is_extreme(base); }

tl_status rope_cache_f32(float* cache, int64_t max_seq, int64_t rot_dim, float base) {
  if (tl_status s = check::rope_cache(max_seq, rot_dim, base)) return s;
  ref::rope_cache<float>(cache, max_seq, rot_dim, base);
  return TL_OK;
}

// The f16 and bf16 caches: each entry the f32 cache's (cos and sin of the
// double angle rounded to float), rounded once more to the dtype.
tl_status rope_cache_f16(uint16_t* cache, int64_t max_seq, int64_t rot_dim, float base) {
  if (tl_status s = check::rope_cache(max_seq, rot_dim, base)) return s;
  ref::rope_cache_rounded<double>(cache, max_seq, rot_dim, base,
                                  [](double v) { return ref::f32_to_f16(static_cast<float>(v)); });
  return TL_OK;
}
tl_status rope_cache_bf16(uint16_t* cache, int64_t max_seq, int64_t rot_dim, float base) {
  if (tl_status s = check::rope_cache(max_seq, rot_dim, base)) return s;
  ref::rope_cache_rounded<double>(cache, max_seq, rot_dim, base,
                                  [](double v) { return ref::f32_to_bf16(static_cast<float>(v)); });
  return TL_OK;
}

// y == x is allowed: the template reads both members of a pair before it
// writes either, and copies the tail onto itself.
tl_status rope_apply_f32(const float* x, float* y, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t rot_dim,
                         const float* cache, int64_t max_seq, int layout) {
  if (tl_status s = check::rope_apply(pos, T, H, D, rot_dim, max_seq, layout)) return s;
  ref::rope_apply<float>(x, y, pos, T, H, D, rot_dim, cache, layout);
  return TL_OK;
}

// The f16 and bf16 twins: the pair in float from the same cache, each member
// rounded once; the tail copied as bits.
tl_status rope_apply_f16(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                         int64_t rot_dim, const float* cache, int64_t max_seq, int layout) {
  if (tl_status s = check::rope_apply(pos, T, H, D, rot_dim, max_seq, layout)) return s;
  ref::rope_apply_half<ref::f16_to_f32, ref::f32_to_f16>(x, y, pos, T, H, D, rot_dim, cache, layout);
  return TL_OK;
}
tl_status rope_apply_bf16(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                          int64_t rot_dim, const float* cache, int64_t max_seq, int layout) {
  if (tl_status s = check::rope_apply(pos, T, H, D, rot_dim, max_seq, layout)) return s;
  ref::rope_apply_half<ref::bf16_to_f32, ref::f32_to_bf16>(x, y, pos, T, H, D, rot_dim, cache, layout);
  return TL_OK;
}

tl_status multi_axis_rope_f32(const float* x, float* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                              int64_t n_axes, const int64_t* axis_dims, const float* axis_bases, int layout) {
  if (tl_status s = check::multi_axis_rope(T, H, D, n_axes, axis_dims, axis_bases, layout)) return s;
  ref::multi_axis_rope<float>(x, y, pos, T, H, D, n_axes, axis_dims, axis_bases, layout);
  return TL_OK;
}

// f16 and bf16 twins of the ops without a cache: `count` inputs widened
// exactly, the float template `run` (in, out), `out_count` outputs rounded
// once; y == x is safe as the copy is read.
namespace {
template <float (*Widen)(uint16_t), uint16_t (*Narrow)(float), class Run>
void in_float(const uint16_t* x, int64_t count, uint16_t* y, int64_t out_count, const Run& run) {
  std::vector<float> in(static_cast<size_t>(count)), out(static_cast<size_t>(out_count));
  for (int64_t i = 0; i < count; ++i) in[static_cast<size_t>(i)] = Widen(x[i]);
  run(in.data(), out.data());
  for (int64_t i = 0; i < out_count; ++i) y[i] = Narrow(out[static_cast<size_t>(i)]);
}
}  // namespace

// generate_exports.py finds these definitions at the start of a line.
tl_status multi_axis_rope_f16(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                              int64_t n_axes, const int64_t* axis_dims, const float* axis_bases, int layout) {
  if (tl_status s = check::multi_axis_rope(T, H, D, n_axes, axis_dims, axis_bases, layout)) return s;
  in_float<ref::f16_to_f32, ref::f32_to_f16>(x, T * H * D, y, T * H * D, [&](const float* xf, float* yf) {
    ref::multi_axis_rope<float>(xf, yf, pos, T, H, D, n_axes, axis_dims, axis_bases, layout);
  });
  return TL_OK;
}
tl_status multi_axis_rope_bf16(const uint16_t* x, uint16_t* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                               int64_t n_axes, const int64_t* axis_dims, const float* axis_bases, int layout) {
  if (tl_status s = check::multi_axis_rope(T, H, D, n_axes, axis_dims, axis_bases, layout)) return s;
  in_float<ref::bf16_to_f32, ref::f32_to_bf16>(x, T * H * D, y, T * H * D, [&](const float* xf, float* yf) {
    ref::multi_axis_rope<float>(xf, yf, pos, T, H, D, n_axes, axis_dims, axis_bases, layout);
  });
  return TL_OK;
}
tl_status sinusoidal_embed_f16(const uint16_t* t, uint16_t* y, int64_t n, int64_t dim, float max_period,
                               float freq_shift, int layout) {
  if (tl_status s = check::sinusoidal_embed(n, dim, max_period, freq_shift, layout)) return s;
  in_float<ref::f16_to_f32, ref::f32_to_f16>(t, n, y, n * dim, [&](const float* tf, float* yf) {
    ref::sinusoidal_embed<float>(tf, yf, n, dim, max_period, freq_shift, layout);
  });
  return TL_OK;
}
tl_status sinusoidal_embed_bf16(const uint16_t* t, uint16_t* y, int64_t n, int64_t dim, float max_period,
                                float freq_shift, int layout) {
  if (tl_status s = check::sinusoidal_embed(n, dim, max_period, freq_shift, layout)) return s;
  in_float<ref::bf16_to_f32, ref::f32_to_bf16>(t, n, y, n * dim, [&](const float* tf, float* yf) {
    ref::sinusoidal_embed<float>(tf, yf, n, dim, max_period, freq_shift, layout);
  });
  return TL_OK;
}

tl_status sinusoidal_embed_f32(const float* t, float* y, int64_t n, int64_t dim, float max_period, float freq_shift,
                               int layout) {
  if (tl_status s = check::sinusoidal_embed(n, dim, max_period, freq_shift, layout)) return s;
  ref::sinusoidal_embed<float>(t, y, n, dim, max_period, freq_shift, layout);
  return TL_OK;
}

tl_status token_embed_f32(const float* table, const int32_t* ids, float* out, int64_t n, int64_t vocab, int64_t d) {
  if (tl_status s = check::token_embed(ids, n, vocab, d)) return s;
  ref::gather_rows<float>(table, ids, out, n, d);
  return TL_OK;
}

tl_status pos_embed_f32(const float* table, const int32_t* pos, float* out, int64_t n, int64_t max_pos, int64_t d) {
  if (tl_status s = check::pos_embed(pos, n, max_pos, d)) return s;
  ref::gather_rows<float>(table, pos, out, n, d);
  return TL_OK;
}

// The half tables: once the ids' check `status` passes, rows of 2-byte
// elements copied element by element.
namespace {
tl_status gather_half_rows(tl_status status, const uint16_t* table, const int32_t* index, uint16_t* out, int64_t n,
                           int64_t d) {
  if (status != TL_OK) return status;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < d; ++k) out[i * d + k] = table[int64_t(index[i]) * d + k];
  return TL_OK;
}
}  // namespace

// generate_exports.py finds these definitions at the start of a line.
tl_status token_embed_f16(const uint16_t* table, const int32_t* ids, uint16_t* out, int64_t n, int64_t vocab,
                          int64_t d) {
  return gather_half_rows(check::token_embed(ids, n, vocab, d), table, ids, out, n, d);
}
tl_status token_embed_bf16(const uint16_t* table, const int32_t* ids, uint16_t* out, int64_t n, int64_t vocab,
                           int64_t d) {
  return token_embed_f16(table, ids, out, n, vocab, d);  // the same 2-byte rows
}
tl_status pos_embed_f16(const uint16_t* table, const int32_t* pos, uint16_t* out, int64_t n, int64_t max_pos,
                        int64_t d) {
  return gather_half_rows(check::pos_embed(pos, n, max_pos, d), table, pos, out, n, d);
}
tl_status pos_embed_bf16(const uint16_t* table, const int32_t* pos, uint16_t* out, int64_t n, int64_t max_pos,
                         int64_t d) {
  return pos_embed_f16(table, pos, out, n, max_pos, d);
}

tl_status relative_pos_embedding_f32(const float* table, const int32_t* q_pos, const int32_t* k_pos, float* bias,
                                     int64_t Lq, int64_t Lk, int64_t H, int64_t num_buckets, int64_t max_distance,
                                     int bidirectional) {
  if (tl_status s = check::relative_pos_embedding(Lq, Lk, H, num_buckets, max_distance, bidirectional)) return s;
  ref::relative_pos_embedding<float>(table, q_pos, k_pos, bias, Lq, Lk, H, num_buckets, max_distance,
                                     bidirectional != 0);
  return TL_OK;
}

// f16 and bf16: the same buckets, 2-byte elements copied as bits.
tl_status relative_pos_embedding_f16(const uint16_t* table, const int32_t* q_pos, const int32_t* k_pos, uint16_t* bias,
                                     int64_t Lq, int64_t Lk, int64_t H, int64_t num_buckets, int64_t max_distance,
                                     int bidirectional) {
  if (tl_status s = check::relative_pos_embedding(Lq, Lk, H, num_buckets, max_distance, bidirectional)) return s;
  ref::relative_pos_embedding<uint16_t, uint16_t>(table, q_pos, k_pos, bias, Lq, Lk, H, num_buckets, max_distance,
                                                  bidirectional != 0);
  return TL_OK;
}
tl_status relative_pos_embedding_bf16(const uint16_t* table, const int32_t* q_pos, const int32_t* k_pos, uint16_t* bias,
                                      int64_t Lq, int64_t Lk, int64_t H, int64_t num_buckets, int64_t max_distance,
                                      int bidirectional) {
  return relative_pos_embedding_f16(table, q_pos, k_pos, bias, Lq, Lk, H, num_buckets, max_distance, bidirectional);
}

}  // namespace konform::scalar
