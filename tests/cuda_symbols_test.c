/* libtl_cuda.so loads without a GPU and exports its kernels (those of
 * tinyllm/elementwise.h, activations.h, tensor.h, norm.h, pos.h, linalg.h, quant.h, attention.h, sampling.h
 * and kv_cache.h), tl_last_error and the probe of
 * tinyllm/backend.h, and not the static CUDA runtime. Runs anywhere the library was built: the probe's
 * answer is printed, not judged (cuda_check_test.sh judges the kernels). */
#include <dlfcn.h>
#include <stdio.h>

#include <tinyllm/backend.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: konform_cuda_symbols_test LIBTL_CUDA.so\n");
    return 2;
  }
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    printf("FAIL: cannot load %s: %s\n", argv[1], dlerror());
    return 1;
  }
  static const char *const symbols[] = {
      /* tinyllm/elementwise.h */
      "tl_rmsnorm_f32", "tl_rope_f32", "tl_silu_mul_f32", "tl_embedding_f32", "tl_add_f32", "tl_argmax_f32",
      /* tinyllm/activations.h */
      "tl_silu_f32", "tl_gelu_erf_f32", "tl_gelu_tanh_f32", "tl_relu_f32", "tl_leaky_relu_f32", "tl_prelu_f32",
      "tl_sigmoid_f32", "tl_tanh_f32", "tl_softmax_f32", "tl_swiglu_f32", "tl_geglu_f32", "tl_glu_f32",
      /* tinyllm/tensor.h */
      "tl_add_broadcast_f32", "tl_sub_broadcast_f32", "tl_mul_broadcast_f32", "tl_div_broadcast_f32", "tl_clamp_f32",
      "tl_nan_to_num_f32", "tl_argmax_axis_f32", "tl_transpose_f32", "tl_permute_f32", "tl_reshape_f32",
      "tl_concat_f32", "tl_split_f32", "tl_chunk_f32",
      /* tinyllm/norm.h */
      "tl_rms_norm_f32", "tl_layer_norm_f32", "tl_batch_norm_f32", "tl_group_norm_f32", "tl_instance_norm_f32",
      "tl_ada_ln_f32", "tl_ada_ln_zero_f32", "tl_fused_skip_norm_f32",
      /* tinyllm/pos.h */
      "tl_rope_cache_f32", "tl_rope_base_is_extreme", "tl_rope_apply_f32", "tl_multi_axis_rope_f32",
      "tl_sinusoidal_embed_f32", "tl_token_embed_f32", "tl_pos_embed_f32", "tl_relative_pos_embedding_f32",
      /* tinyllm/linalg.h */
      "tl_matmul_f32", "tl_swiglu_ffn_f32", "tl_geglu_ffn_f32", "tl_glu_ffn_f32", "tl_fused_swiglu_f32",
      "tl_fused_norm_matmul_f32",
      /* tinyllm/quant.h */
      "tl_quantize_q8_0_f32", "tl_quantize_q4_0_f32", "tl_quantize_q4_k_f32", "tl_dequantize_q8_0_f32",
      "tl_dequantize_q4_0_f32", "tl_dequantize_q4_k_f32", "tl_qmatmul_q8_0_f32", "tl_qmatmul_q4_0_f32",
      "tl_qmatmul_q4_k_f32",
      /* tinyllm/attention.h */
      "tl_sdpa_f32", "tl_flash_attention_f32", "tl_sdpa_cross_f32", "tl_sdpa_window_f32", "tl_qk_norm_f32",
      /* tinyllm/sampling.h */
      "tl_sample_f32",
      /* tinyllm/kv_cache.h */
      "tl_kv_cache_api_v1",
      /* tinyllm/status.h, tinyllm/backend.h */
      "tl_last_error", "tl_backend_unavailable"};
  int failures = 0;
  for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; ++i)
    if (dlsym(h, symbols[i]) == NULL) {
      printf("FAIL: %s does not export %s\n", argv[1], symbols[i]);
      ++failures;
    }
  /* The static CUDA runtime stays inside (impl/cuda/exports.map). */
  if (dlsym(h, "cudaMalloc") != NULL) {
    printf("FAIL: %s exports cudaMalloc\n", argv[1]);
    ++failures;
  }
  if (failures == 0) {
    typedef const char *(*probe_fn)(void);
    probe_fn probe;
    *(void **)&probe = dlsym(h, "tl_backend_unavailable");
    const char *why = probe();
    printf("tl_backend_unavailable: %s\n", why ? why : "NULL (a device is usable)");
    printf("ok: the kernels, tl_last_error and the probe are exported\n");
  }
  return failures == 0 ? 0 : 1;
}
