// libtl_scalar.so: the `scalar` backend as a library konform loads by path,
// like any other backend. Each tl_* function of include/tinyllm/*.h forwards
// to its float instantiation of the oracle in konform::scalar; the headers'
// declarations make the compiler hold every signature to the ABI.
#include "impl/common/pos_args.hpp"
#include "scalar/activations.hpp"
#include "scalar/attention.hpp"
#include "scalar/conv.hpp"
#include "scalar/kv_cache.hpp"
#include "scalar/linalg.hpp"
#include "scalar/norm.hpp"
#include "scalar/pos.hpp"
#include "scalar/quant.hpp"
#include "scalar/sampling.hpp"
#include "scalar/scalar_kernels.hpp"
#include "scalar/spatial.hpp"
#include "scalar/tensor.hpp"
#include "tinyllm/activations.h"
#include "tinyllm/attention.h"
#include "tinyllm/conv.h"
#include "tinyllm/elementwise.h"
#include "tinyllm/kv_cache.h"
#include "tinyllm/linalg.h"
#include "tinyllm/norm.h"
#include "tinyllm/pos.h"
#include "tinyllm/quant.h"
#include "tinyllm/sampling.h"
#include "tinyllm/spatial.h"
#include "tinyllm/tensor.h"

namespace scalar = konform::scalar;

extern "C" {

// tinyllm/activations.h
void tl_silu_f32(const float* x, float* y, int64_t n) { scalar::silu_f32(x, y, n); }
void tl_gelu_erf_f32(const float* x, float* y, int64_t n) { scalar::gelu_erf_f32(x, y, n); }
void tl_gelu_tanh_f32(const float* x, float* y, int64_t n) { scalar::gelu_tanh_f32(x, y, n); }
void tl_relu_f32(const float* x, float* y, int64_t n) { scalar::relu_f32(x, y, n); }
void tl_leaky_relu_f32(const float* x, float* y, int64_t n, float alpha) { scalar::leaky_relu_f32(x, y, n, alpha); }
void tl_prelu_f32(const float* x, const float* slope, float* y, int64_t outer, int64_t channels, int64_t inner) {
  scalar::prelu_f32(x, slope, y, outer, channels, inner);
}
void tl_sigmoid_f32(const float* x, float* y, int64_t n) { scalar::sigmoid_f32(x, y, n); }
void tl_tanh_f32(const float* x, float* y, int64_t n) { scalar::tanh_f32(x, y, n); }
tl_status tl_softmax_f32(const float* x, float* y, const int64_t* shape, int rank, int axis) {
  return scalar::softmax_f32(x, y, shape, rank, axis);
}
void tl_swiglu_f32(const float* gate, const float* up, float* y, int64_t n) { scalar::swiglu_f32(gate, up, y, n); }
tl_status tl_geglu_f32(const float* gate, const float* up, float* y, int64_t n, int approximation) {
  return scalar::geglu_f32(gate, up, y, n, approximation);
}
void tl_glu_f32(const float* gate, const float* up, float* y, int64_t n) { scalar::glu_f32(gate, up, y, n); }

// tinyllm/attention.h
tl_status tl_sdpa_f32(const float* q, const float* k, const float* v, const float* mask, float* y, int64_t batch,
                      int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk, int64_t head_dim, int32_t causal,
                      tl_attn_mask mask_kind) {
  return scalar::sdpa_f32(q, k, v, mask, y, batch, num_heads, kv_heads, sq, sk, head_dim, causal, mask_kind);
}
tl_status tl_flash_attention_f32(const float* q, const float* k, const float* v, const float* mask, float* y,
                                 int64_t batch, int64_t num_heads, int64_t kv_heads, int64_t sq, int64_t sk,
                                 int64_t head_dim, int32_t causal, tl_attn_mask mask_kind) {
  return scalar::flash_attention_f32(q, k, v, mask, y, batch, num_heads, kv_heads, sq, sk, head_dim, causal, mask_kind);
}
tl_status tl_sdpa_cross_f32(const float* q, const float* k, const float* v, float* y, int64_t batch, int64_t num_heads,
                            int64_t sq, int64_t se, int64_t head_dim) {
  return scalar::sdpa_cross_f32(q, k, v, y, batch, num_heads, sq, se, head_dim);
}
tl_status tl_sdpa_window_f32(const float* q, const float* k, const float* v, float* y, int64_t batch, int64_t num_heads,
                             int64_t seq, int64_t head_dim, int64_t window) {
  return scalar::sdpa_window_f32(q, k, v, y, batch, num_heads, seq, head_dim, window);
}
tl_status tl_qk_norm_f32(const float* x, const float* g, float* y, int64_t tokens, int64_t num_heads, int64_t head_dim,
                         float eps) {
  return scalar::qk_norm_f32(x, g, y, tokens, num_heads, head_dim, eps);
}

// tinyllm/conv.h
tl_status tl_conv_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                      int64_t C_out, int64_t groups, int64_t n_dims, const int64_t* in_size, const int64_t* kernel,
                      const int64_t* stride, const int64_t* padding, const int64_t* dilation) {
  return scalar::conv_f32(x, w, bias, y, B, C_in, C_out, groups, n_dims, in_size, kernel, stride, padding, dilation);
}
tl_status tl_depthwise_conv2d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C,
                                  const int64_t in_size[2], const int64_t kernel[2], const int64_t stride[2],
                                  const int64_t padding[2], const int64_t dilation[2]) {
  return scalar::depthwise_conv2d_f32(x, w, bias, y, B, C, in_size, kernel, stride, padding, dilation);
}
tl_status tl_conv_transpose2d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                                  int64_t C_out, int64_t groups, const int64_t in_size[2], const int64_t kernel[2],
                                  const int64_t stride[2], const int64_t padding[2], const int64_t output_padding[2],
                                  const int64_t dilation[2]) {
  return scalar::conv_transpose2d_f32(x, w, bias, y, B, C_in, C_out, groups, in_size, kernel, stride, padding,
                                      output_padding, dilation);
}
tl_status tl_causal_conv1d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                               int64_t C_out, int64_t groups, int64_t T, int64_t kernel, int64_t stride,
                               int64_t dilation) {
  return scalar::causal_conv1d_f32(x, w, bias, y, B, C_in, C_out, groups, T, kernel, stride, dilation);
}
tl_status tl_pool_f32(const float* x, float* y, int64_t B, int64_t C, const int64_t in_size[2], const int64_t kernel[2],
                      const int64_t* stride, const int64_t* padding, int mode) {
  return scalar::pool_f32(x, y, B, C, in_size, kernel, stride, padding, mode);
}

// tinyllm/elementwise.h
void tl_rmsnorm_f32(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps) {
  scalar::rmsnorm_f32(x, w, y, rows, d, eps);
}
void tl_rope_f32(float* x, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t d_rot, const float* inv_freq,
                 float attn_scaling, int layout) {
  scalar::rope_f32(x, pos, T, H, D, d_rot, inv_freq, attn_scaling, layout);
}
void tl_silu_mul_f32(const float* gate, const float* up, float* y, int64_t n) { scalar::silu_mul_f32(gate, up, y, n); }
void tl_embedding_f32(const float* table, const int32_t* ids, float* out, int64_t n, int64_t d) {
  scalar::embedding_f32(table, ids, out, n, d);
}
void tl_add_f32(const float* a, const float* b, float* y, int64_t n) { scalar::add_f32(a, b, y, n); }
int32_t tl_argmax_f32(const float* x, int64_t n) { return scalar::argmax_f32(x, n); }

// tinyllm/kv_cache.h
const tl_kv_cache_api* tl_kv_cache_api_v1(void) { return scalar::kv_cache_api_v1(); }

// tinyllm/linalg.h
tl_status tl_matmul_f32(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K) {
  return scalar::matmul_f32(x, w, y, M, N, K);
}
tl_status tl_swiglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                            int64_t M, int64_t D, int64_t H) {
  return scalar::swiglu_ffn_f32(x, w_gate, w_up, w_down, y, M, D, H);
}
tl_status tl_geglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                           int64_t M, int64_t D, int64_t H, tl_ffn_gelu gelu) {
  return scalar::geglu_ffn_f32(x, w_gate, w_up, w_down, y, M, D, H, gelu);
}
tl_status tl_glu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                         int64_t M, int64_t D, int64_t H) {
  return scalar::glu_ffn_f32(x, w_gate, w_up, w_down, y, M, D, H);
}
tl_status tl_fused_swiglu_f32(const float* x, const float* w_gate, const float* w_up, float* h, int64_t M, int64_t D,
                              int64_t H) {
  return scalar::fused_swiglu_f32(x, w_gate, w_up, h, M, D, H);
}
tl_status tl_fused_norm_matmul_f32(const float* x, const float* norm_w, const float* w, float* y, int64_t M, int64_t N,
                                   int64_t K, float eps) {
  return scalar::fused_norm_matmul_f32(x, norm_w, w, y, M, N, K, eps);
}

// tinyllm/norm.h
tl_status tl_rms_norm_f32(const float* x, const float* g, float* y, const int64_t* shape, int32_t ndim, float eps) {
  return scalar::rms_norm_f32(x, g, y, shape, ndim, eps);
}
tl_status tl_layer_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, float eps) {
  return scalar::layer_norm_f32(x, g, b, y, shape, ndim, eps);
}
tl_status tl_batch_norm_f32(const float* x, const float* mean, const float* var, const float* g, const float* b,
                            float* y, const int64_t* shape, int32_t ndim, float eps) {
  return scalar::batch_norm_f32(x, mean, var, g, b, y, shape, ndim, eps);
}
tl_status tl_group_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, int64_t num_groups, float eps) {
  return scalar::group_norm_f32(x, g, b, y, shape, ndim, num_groups, eps);
}
tl_status tl_instance_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                               int32_t ndim, float eps) {
  return scalar::instance_norm_f32(x, g, b, y, shape, ndim, eps);
}
tl_status tl_ada_ln_f32(const float* x, const float* scale, const float* shift, float* y, const int64_t* shape,
                        int32_t ndim, float eps) {
  return scalar::ada_ln_f32(x, scale, shift, y, shape, ndim, eps);
}
tl_status tl_ada_ln_zero_f32(const float* x, const float* r, const float* gate, const float* scale, const float* shift,
                             float* h, float* y, const int64_t* shape, int32_t ndim, float eps) {
  return scalar::ada_ln_zero_f32(x, r, gate, scale, shift, h, y, shape, ndim, eps);
}
tl_status tl_fused_skip_norm_f32(const float* x, const float* skip, const float* g, float* sum, float* y,
                                 const int64_t* shape, int32_t ndim, float eps) {
  return scalar::fused_skip_norm_f32(x, skip, g, sum, y, shape, ndim, eps);
}

// tinyllm/pos.h
int tl_rope_base_is_extreme(float base) { return konform::impl::pos_args::base_is_extreme(base); }
tl_status tl_rope_cache_f32(float* cache, int64_t max_seq, int64_t rot_dim, float base) {
  return scalar::rope_cache_f32(cache, max_seq, rot_dim, base);
}
tl_status tl_rope_apply_f32(const float* x, float* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                            int64_t rot_dim, const float* cache, int64_t max_seq, int layout) {
  return scalar::rope_apply_f32(x, y, pos, T, H, D, rot_dim, cache, max_seq, layout);
}
tl_status tl_multi_axis_rope_f32(const float* x, float* y, const int32_t* pos, int64_t T, int64_t H, int64_t D,
                                 int64_t n_axes, const int64_t* axis_dims, const float* axis_bases, int layout) {
  return scalar::multi_axis_rope_f32(x, y, pos, T, H, D, n_axes, axis_dims, axis_bases, layout);
}
tl_status tl_sinusoidal_embed_f32(const float* t, float* y, int64_t n, int64_t dim, float max_period, float freq_shift,
                                  int layout) {
  return scalar::sinusoidal_embed_f32(t, y, n, dim, max_period, freq_shift, layout);
}
tl_status tl_token_embed_f32(const float* table, const int32_t* ids, float* out, int64_t n, int64_t vocab, int64_t d) {
  return scalar::token_embed_f32(table, ids, out, n, vocab, d);
}
tl_status tl_pos_embed_f32(const float* table, const int32_t* pos, float* out, int64_t n, int64_t max_pos, int64_t d) {
  return scalar::pos_embed_f32(table, pos, out, n, max_pos, d);
}
tl_status tl_relative_pos_embedding_f32(const float* table, const int32_t* q_pos, const int32_t* k_pos, float* bias,
                                        int64_t Lq, int64_t Lk, int64_t H, int64_t num_buckets, int64_t max_distance,
                                        int bidirectional) {
  return scalar::relative_pos_embedding_f32(table, q_pos, k_pos, bias, Lq, Lk, H, num_buckets, max_distance,
                                            bidirectional);
}

// tinyllm/quant.h
tl_status tl_quantize_q8_0_f32(const float* x, void* blocks, int64_t rows, int64_t k) {
  return scalar::quantize_q8_0_f32(x, blocks, rows, k);
}
tl_status tl_quantize_q4_0_f32(const float* x, void* blocks, int64_t rows, int64_t k) {
  return scalar::quantize_q4_0_f32(x, blocks, rows, k);
}
tl_status tl_quantize_q4_k_f32(const float* x, void* blocks, int64_t rows, int64_t k) {
  return scalar::quantize_q4_k_f32(x, blocks, rows, k);
}
tl_status tl_dequantize_q8_0_f32(const void* blocks, float* y, int64_t rows, int64_t k) {
  return scalar::dequantize_q8_0_f32(blocks, y, rows, k);
}
tl_status tl_dequantize_q4_0_f32(const void* blocks, float* y, int64_t rows, int64_t k) {
  return scalar::dequantize_q4_0_f32(blocks, y, rows, k);
}
tl_status tl_dequantize_q4_k_f32(const void* blocks, float* y, int64_t rows, int64_t k) {
  return scalar::dequantize_q4_k_f32(blocks, y, rows, k);
}
tl_status tl_qmatmul_q8_0_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return scalar::qmatmul_q8_0_f32(x, w, y, M, N, K);
}
tl_status tl_qmatmul_q4_0_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return scalar::qmatmul_q4_0_f32(x, w, y, M, N, K);
}
tl_status tl_qmatmul_q4_k_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return scalar::qmatmul_q4_k_f32(x, w, y, M, N, K);
}

// tinyllm/sampling.h
tl_status tl_sample_f32(const float* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                        float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed) {
  return scalar::sample_f32(logits, tokens, rows, vocab, method, temperature, top_k, top_p, min_p, seed);
}

// tinyllm/spatial.h
tl_status tl_pixel_shuffle_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r) {
  return scalar::pixel_shuffle_f32(x, y, B, C, H, W, r);
}
tl_status tl_pixel_unshuffle_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r) {
  return scalar::pixel_unshuffle_f32(x, y, B, C, H, W, r);
}
tl_status tl_patch_embed_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C,
                             int64_t H, int64_t W, int64_t D, int64_t p) {
  return scalar::patch_embed_f32(x, w, bias, y, B, C, H, W, D, p);
}
tl_status tl_unpatchify_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t p) {
  return scalar::unpatchify_f32(x, y, B, C, H, W, p);
}
tl_status tl_interpolate_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t H_out,
                             int64_t W_out, int32_t mode, int32_t align_corners) {
  return scalar::interpolate_f32(x, y, B, C, H, W, H_out, W_out, mode, align_corners);
}

// tinyllm/tensor.h
tl_status tl_add_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return scalar::add_broadcast_f32(a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);
}
tl_status tl_sub_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return scalar::sub_broadcast_f32(a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);
}
tl_status tl_mul_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return scalar::mul_broadcast_f32(a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);
}
tl_status tl_div_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return scalar::div_broadcast_f32(a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank);
}
tl_status tl_clamp_f32(const float* x, float* y, int64_t n, float lo, float hi) {
  return scalar::clamp_f32(x, y, n, lo, hi);
}
tl_status tl_nan_to_num_f32(const float* x, float* y, int64_t n, float nan, float posinf, float neginf) {
  return scalar::nan_to_num_f32(x, y, n, nan, posinf, neginf);
}
tl_status tl_argmax_axis_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index) {
  return scalar::argmax_axis_f32(x, shape, rank, axis, index);
}
tl_status tl_transpose_f32(const float* x, const int64_t* shape, int64_t rank, float* y) {
  return scalar::transpose_f32(x, shape, rank, y);
}
tl_status tl_permute_f32(const float* x, const int64_t* shape, int64_t rank, const int64_t* perm, float* y) {
  return scalar::permute_f32(x, shape, rank, perm, y);
}
tl_status tl_reshape_f32(const float* x, const int64_t* shape, int64_t rank, float* y, const int64_t* new_shape,
                         int64_t new_rank) {
  return scalar::reshape_f32(x, shape, rank, y, new_shape, new_rank);
}
tl_status tl_concat_f32(const float* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis,
                        float* y) {
  return scalar::concat_f32(xs, shapes, count, rank, axis, y);
}
tl_status tl_split_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,
                       int64_t count, float* const* ys) {
  return scalar::split_f32(x, shape, rank, axis, sizes, count, ys);
}
tl_status tl_chunk_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                       float* const* ys) {
  return scalar::chunk_f32(x, shape, rank, axis, chunks, ys);
}
}  // extern "C"
