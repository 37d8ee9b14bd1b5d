/* libtl_cuda.so loads without a GPU and exports its kernels (those of
 * tinyllm/elementwise.h, activations.h, tensor.h, attention.h, sampling.h, kv_cache.h), tl_last_error and the probe of
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
