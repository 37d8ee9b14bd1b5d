/* wrap_tensor.h: tinyllm/tensor.h over tensor_base.c (see wrap.h). Concat,
 * Split, Chunk and Argmax are the base's own (copies and an index). */
#include "wrap.h"

#define tl_add_broadcast_f32 base_add_broadcast_f32
#define tl_sub_broadcast_f32 base_sub_broadcast_f32
#define tl_mul_broadcast_f32 base_mul_broadcast_f32
#define tl_div_broadcast_f32 base_div_broadcast_f32
#define tl_clamp_f32 base_clamp_f32
#define tl_nan_to_num_f32 base_nan_to_num_f32
#define tl_transpose_f32 base_transpose_f32
#define tl_permute_f32 base_permute_f32
#define tl_reshape_f32 base_reshape_f32
#include "../tensor_base.c"
#undef tl_add_broadcast_f32
#undef tl_sub_broadcast_f32
#undef tl_mul_broadcast_f32
#undef tl_div_broadcast_f32
#undef tl_clamp_f32
#undef tl_nan_to_num_f32
#undef tl_transpose_f32
#undef tl_permute_f32
#undef tl_reshape_f32

#define WRAP_BROADCAST(name)                                                                                     \
  tl_status tl_##name##_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,    \
                                      const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,  \
                                      int64_t y_rank) {                                                          \
    WRAP_BEFORE();                                                                                               \
    const tl_status s = base_##name##_broadcast_f32(a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank); \
    if (s == TL_OK) WRAP_AFTER(y, wrap_count(y_shape, y_rank));                                                  \
    return s;                                                                                                    \
  }
WRAP_BROADCAST(add)
WRAP_BROADCAST(sub)
WRAP_BROADCAST(mul)
WRAP_BROADCAST(div)

tl_status tl_clamp_f32(const float* x, float* y, int64_t n, float lo, float hi) {
  WRAP_BEFORE();
  const tl_status s = base_clamp_f32(x, y, n, lo, hi);
  if (s == TL_OK) WRAP_AFTER(y, n);
  return s;
}

tl_status tl_nan_to_num_f32(const float* x, float* y, int64_t n, float nan, float posinf, float neginf) {
  WRAP_BEFORE();
  const tl_status s = base_nan_to_num_f32(x, y, n, nan, posinf, neginf);
  if (s == TL_OK) WRAP_AFTER(y, n);
  return s;
}

tl_status tl_transpose_f32(const float* x, const int64_t* shape, int64_t rank, float* y) {
  WRAP_BEFORE();
  const tl_status s = base_transpose_f32(x, shape, rank, y);
  if (s == TL_OK) WRAP_AFTER(y, wrap_count(shape, rank));
  return s;
}

tl_status tl_permute_f32(const float* x, const int64_t* shape, int64_t rank, const int64_t* perm, float* y) {
  WRAP_BEFORE();
  const tl_status s = base_permute_f32(x, shape, rank, perm, y);
  if (s == TL_OK) WRAP_AFTER(y, wrap_count(shape, rank));
  return s;
}

tl_status tl_reshape_f32(const float* x, const int64_t* shape, int64_t rank, float* y, const int64_t* new_shape,
                         int64_t new_rank) {
  WRAP_BEFORE();
  const tl_status s = base_reshape_f32(x, shape, rank, y, new_shape, new_rank);
  if (s == TL_OK) WRAP_AFTER(y, wrap_count(shape, rank));
  return s;
}
