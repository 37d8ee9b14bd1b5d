/* wrap_act.h: tinyllm/activations.h over act_base.c (see wrap.h). */
#include "wrap.h"

#define tl_silu_f32 base_silu_f32
#define tl_gelu_erf_f32 base_gelu_erf_f32
#define tl_gelu_tanh_f32 base_gelu_tanh_f32
#define tl_relu_f32 base_relu_f32
#define tl_leaky_relu_f32 base_leaky_relu_f32
#define tl_prelu_f32 base_prelu_f32
#define tl_sigmoid_f32 base_sigmoid_f32
#define tl_tanh_f32 base_tanh_f32
#define tl_softmax_f32 base_softmax_f32
#define tl_swiglu_f32 base_swiglu_f32
#define tl_geglu_f32 base_geglu_f32
#define tl_glu_f32 base_glu_f32
#include "../act_base.c"
#undef tl_silu_f32
#undef tl_gelu_erf_f32
#undef tl_gelu_tanh_f32
#undef tl_relu_f32
#undef tl_leaky_relu_f32
#undef tl_prelu_f32
#undef tl_sigmoid_f32
#undef tl_tanh_f32
#undef tl_softmax_f32
#undef tl_swiglu_f32
#undef tl_geglu_f32
#undef tl_glu_f32

#define WRAP_UNARY(name)                                      \
  void tl_##name##_f32(const float* x, float* y, int64_t n) { \
    WRAP_BEFORE();                                            \
    base_##name##_f32(x, y, n);                               \
    WRAP_AFTER(y, n);                                         \
  }
WRAP_UNARY(silu)
WRAP_UNARY(gelu_erf)
WRAP_UNARY(gelu_tanh)
WRAP_UNARY(relu)
WRAP_UNARY(sigmoid)
WRAP_UNARY(tanh)

void tl_leaky_relu_f32(const float* x, float* y, int64_t n, float alpha) {
  WRAP_BEFORE();
  base_leaky_relu_f32(x, y, n, alpha);
  WRAP_AFTER(y, n);
}

void tl_prelu_f32(const float* x, const float* slope, float* y, int64_t outer, int64_t channels, int64_t inner) {
  WRAP_BEFORE();
  base_prelu_f32(x, slope, y, outer, channels, inner);
  WRAP_AFTER(y, outer * channels * inner);
}

tl_status tl_softmax_f32(const float* x, float* y, const int64_t* shape, int rank, int axis) {
  WRAP_BEFORE();
  const tl_status s = base_softmax_f32(x, y, shape, rank, axis);
  if (s == TL_OK) WRAP_AFTER(y, wrap_count(shape, rank));
  return s;
}

#define WRAP_GATED(name)                                                          \
  void tl_##name##_f32(const float* gate, const float* up, float* y, int64_t n) { \
    WRAP_BEFORE();                                                                \
    base_##name##_f32(gate, up, y, n);                                            \
    WRAP_AFTER(y, n);                                                             \
  }
WRAP_GATED(swiglu)
WRAP_GATED(glu)

tl_status tl_geglu_f32(const float* gate, const float* up, float* y, int64_t n, int approximation) {
  WRAP_BEFORE();
  const tl_status s = base_geglu_f32(gate, up, y, n, approximation);
  if (s == TL_OK) WRAP_AFTER(y, n);
  return s;
}
