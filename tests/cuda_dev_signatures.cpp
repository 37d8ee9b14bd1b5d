// Every function of tinyllm/<family>.h that libtl_cuda serves has its twin in
// tinyllm/cuda/<family>.h with the same parameters plus a trailing
// tl_cuda_stream and the same return type: checked at compile time
// (cuda_symbols_test.sh checks that the libraries export every twin).
#include <type_traits>

#include "tinyllm/cuda/activations.h"
#include "tinyllm/cuda/attention.h"
#include "tinyllm/cuda/conv.h"
#include "tinyllm/cuda/elementwise.h"
#include "tinyllm/cuda/linalg.h"
#include "tinyllm/cuda/norm.h"
#include "tinyllm/cuda/pos.h"
#include "tinyllm/cuda/quant.h"
#include "tinyllm/cuda/sampling.h"
#include "tinyllm/cuda/spatial.h"
#include "tinyllm/cuda/tensor.h"

namespace {

template <class F>
struct WithStream;
template <class R, class... P>
struct WithStream<R(P...)> {
  using type = R(P..., tl_cuda_stream);
};

}  // namespace

#define TWIN(fn) \
  static_assert(std::is_same_v<decltype(fn##_dev), WithStream<decltype(fn)>::type>, #fn "_dev does not match " #fn);

TWIN(tl_silu_f32)
TWIN(tl_gelu_erf_f32)
TWIN(tl_gelu_tanh_f32)
TWIN(tl_relu_f32)
TWIN(tl_leaky_relu_f32)
TWIN(tl_prelu_f32)
TWIN(tl_sigmoid_f32)
TWIN(tl_tanh_f32)
TWIN(tl_softmax_f32)
TWIN(tl_swiglu_f32)
TWIN(tl_geglu_f32)
TWIN(tl_glu_f32)
TWIN(tl_sdpa_f32)
TWIN(tl_flash_attention_f32)
TWIN(tl_sdpa_cross_f32)
TWIN(tl_sdpa_window_f32)
TWIN(tl_qk_norm_f32)
TWIN(tl_conv_f32)
TWIN(tl_depthwise_conv2d_f32)
TWIN(tl_conv_transpose2d_f32)
TWIN(tl_causal_conv1d_f32)
TWIN(tl_pool_f32)
TWIN(tl_rmsnorm_f32)
TWIN(tl_rope_f32)
TWIN(tl_silu_mul_f32)
TWIN(tl_embedding_f32)
TWIN(tl_add_f32)
TWIN(tl_argmax_f32)
TWIN(tl_matmul_f32)
TWIN(tl_swiglu_ffn_f32)
TWIN(tl_geglu_ffn_f32)
TWIN(tl_glu_ffn_f32)
TWIN(tl_fused_swiglu_f32)
TWIN(tl_fused_norm_matmul_f32)
TWIN(tl_rms_norm_f32)
TWIN(tl_layer_norm_f32)
TWIN(tl_batch_norm_f32)
TWIN(tl_group_norm_f32)
TWIN(tl_instance_norm_f32)
TWIN(tl_ada_ln_f32)
TWIN(tl_ada_ln_zero_f32)
TWIN(tl_fused_skip_norm_f32)
TWIN(tl_rope_cache_f32)
TWIN(tl_rope_base_is_extreme)
TWIN(tl_rope_apply_f32)
TWIN(tl_multi_axis_rope_f32)
TWIN(tl_sinusoidal_embed_f32)
TWIN(tl_token_embed_f32)
TWIN(tl_pos_embed_f32)
TWIN(tl_relative_pos_embedding_f32)
TWIN(tl_quantize_q8_0_f32)
TWIN(tl_quantize_q4_0_f32)
TWIN(tl_quantize_q4_k_f32)
TWIN(tl_dequantize_q8_0_f32)
TWIN(tl_dequantize_q4_0_f32)
TWIN(tl_dequantize_q4_k_f32)
TWIN(tl_qmatmul_q8_0_f32)
TWIN(tl_qmatmul_q4_0_f32)
TWIN(tl_qmatmul_q4_k_f32)
TWIN(tl_sample_f32)
TWIN(tl_pixel_shuffle_f32)
TWIN(tl_pixel_unshuffle_f32)
TWIN(tl_patch_embed_f32)
TWIN(tl_unpatchify_f32)
TWIN(tl_interpolate_f32)
TWIN(tl_add_broadcast_f32)
TWIN(tl_sub_broadcast_f32)
TWIN(tl_mul_broadcast_f32)
TWIN(tl_div_broadcast_f32)
TWIN(tl_clamp_f32)
TWIN(tl_nan_to_num_f32)
TWIN(tl_argmax_axis_f32)
TWIN(tl_transpose_f32)
TWIN(tl_permute_f32)
TWIN(tl_reshape_f32)
TWIN(tl_concat_f32)
TWIN(tl_split_f32)
TWIN(tl_chunk_f32)
