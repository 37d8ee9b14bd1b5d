/* wrap_conv.h: Conv and Pool of tinyllm/conv.h over conv_base.c (see
 * wrap.h); DepthwiseConv, ConvTranspose2d and CausalConv1d are the base's own. */
#include "wrap.h"

#define tl_conv_f32 base_conv_f32
#define tl_pool_f32 base_pool_f32
#include "../conv_base.c"
#undef tl_conv_f32
#undef tl_pool_f32

/* An output extent of a convolution or pool that the base accepted. */
static int64_t wrap_extent(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

tl_status tl_conv_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                      int64_t C_out, int64_t groups, int64_t n_dims, const int64_t* in_size, const int64_t* kernel,
                      const int64_t* stride, const int64_t* padding, const int64_t* dilation) {
  WRAP_BEFORE();
  const tl_status s =
      base_conv_f32(x, w, bias, y, B, C_in, C_out, groups, n_dims, in_size, kernel, stride, padding, dilation);
  if (s == TL_OK) {
    int64_t n = B * C_out;
    for (int64_t a = 0; a < n_dims; ++a) n *= wrap_extent(in_size[a], kernel[a], stride[a], padding[a], dilation[a]);
    WRAP_AFTER(y, n);
  }
  return s;
}

tl_status tl_pool_f32(const float* x, float* y, int64_t B, int64_t C, const int64_t in_size[2], const int64_t kernel[2],
                      const int64_t* stride, const int64_t* padding, int mode) {
  WRAP_BEFORE();
  const tl_status s = base_pool_f32(x, y, B, C, in_size, kernel, stride, padding, mode);
  if (s == TL_OK) {
    int64_t n = B * C;
    for (int a = 0; a < 2; ++a)
      n *= wrap_extent(in_size[a], kernel[a], stride ? stride[a] : kernel[a], padding ? padding[a] : 0, 1);
    WRAP_AFTER(y, n);
  }
  return s;
}
