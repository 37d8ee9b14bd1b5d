/* wrap_norm.h: tinyllm/norm.h over norm_base.c (see wrap.h). */
#include "wrap.h"

#define tl_rms_norm_f32 base_rms_norm_f32
#define tl_layer_norm_f32 base_layer_norm_f32
#define tl_batch_norm_f32 base_batch_norm_f32
#define tl_group_norm_f32 base_group_norm_f32
#define tl_instance_norm_f32 base_instance_norm_f32
#define tl_ada_ln_f32 base_ada_ln_f32
#define tl_ada_ln_zero_f32 base_ada_ln_zero_f32
#define tl_fused_skip_norm_f32 base_fused_skip_norm_f32
#include "../norm_base.c"
#undef tl_rms_norm_f32
#undef tl_layer_norm_f32
#undef tl_batch_norm_f32
#undef tl_group_norm_f32
#undef tl_instance_norm_f32
#undef tl_ada_ln_f32
#undef tl_ada_ln_zero_f32
#undef tl_fused_skip_norm_f32

tl_status tl_rms_norm_f32(const float* x, const float* g, float* y, const int64_t* shape, int32_t ndim, float eps) {
  WRAP_BEFORE();
  const tl_status s = base_rms_norm_f32(x, g, y, shape, ndim, eps);
  if (s == TL_OK) WRAP_AFTER(y, wrap_count(shape, ndim));
  return s;
}

tl_status tl_layer_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, float eps) {
  WRAP_BEFORE();
  const tl_status s = base_layer_norm_f32(x, g, b, y, shape, ndim, eps);
  if (s == TL_OK) WRAP_AFTER(y, wrap_count(shape, ndim));
  return s;
}

tl_status tl_batch_norm_f32(const float* x, const float* mean, const float* var, const float* g, const float* b,
                            float* y, const int64_t* shape, int32_t ndim, float eps) {
  WRAP_BEFORE();
  const tl_status s = base_batch_norm_f32(x, mean, var, g, b, y, shape, ndim, eps);
  if (s == TL_OK) WRAP_AFTER(y, wrap_count(shape, ndim));
  return s;
}

tl_status tl_group_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, int64_t num_groups, float eps) {
  WRAP_BEFORE();
  const tl_status s = base_group_norm_f32(x, g, b, y, shape, ndim, num_groups, eps);
  if (s == TL_OK) WRAP_AFTER(y, wrap_count(shape, ndim));
  return s;
}

tl_status tl_instance_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                               int32_t ndim, float eps) {
  WRAP_BEFORE();
  const tl_status s = base_instance_norm_f32(x, g, b, y, shape, ndim, eps);
  if (s == TL_OK) WRAP_AFTER(y, wrap_count(shape, ndim));
  return s;
}

tl_status tl_ada_ln_f32(const float* x, const float* scale, const float* shift, float* y, const int64_t* shape,
                        int32_t ndim, float eps) {
  WRAP_BEFORE();
  const tl_status s = base_ada_ln_f32(x, scale, shift, y, shape, ndim, eps);
  if (s == TL_OK) WRAP_AFTER(y, wrap_count(shape, ndim));
  return s;
}

tl_status tl_ada_ln_zero_f32(const float* x, const float* r, const float* gate, const float* scale, const float* shift,
                             float* h, float* y, const int64_t* shape, int32_t ndim, float eps) {
  WRAP_BEFORE();
  const tl_status s = base_ada_ln_zero_f32(x, r, gate, scale, shift, h, y, shape, ndim, eps);
  if (s == TL_OK) {
    WRAP_AFTER(h, wrap_count(shape, ndim));
    WRAP_AFTER(y, wrap_count(shape, ndim));
  }
  return s;
}

tl_status tl_fused_skip_norm_f32(const float* x, const float* skip, const float* g, float* sum, float* y,
                                 const int64_t* shape, int32_t ndim, float eps) {
  WRAP_BEFORE();
  const tl_status s = base_fused_skip_norm_f32(x, skip, g, sum, y, shape, ndim, eps);
  if (s == TL_OK) {
    WRAP_AFTER(sum, wrap_count(shape, ndim));
    WRAP_AFTER(y, wrap_count(shape, ndim));
  }
  return s;
}
