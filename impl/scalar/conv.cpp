#include "scalar/kernels.hpp"

#include "impl/common/conv_args.hpp"
#include "impl/common/status.hpp"
#include "konform/reference/conv.hpp"

namespace konform::scalar {
namespace ref = konform::reference;
namespace args = konform::impl::conv_args;

namespace {

tl_status run_conv(const args::Checked& c, const float* x, const float* w, const float* bias, float* y) {
  if (c.status != TL_OK) return impl::fail(c.status, c.message);
  ref::conv<float>(x, w, bias, y, c.shape);
  return TL_OK;
}

}  // namespace

tl_status conv_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in, int64_t C_out,
                   int64_t groups, int64_t n_dims, const int64_t* in_size, const int64_t* kernel, const int64_t* stride,
                   const int64_t* padding, const int64_t* dilation) {
  return run_conv(args::conv(B, C_in, C_out, groups, n_dims, in_size, kernel, stride, padding, dilation), x, w, bias,
                  y);
}

tl_status depthwise_conv2d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C,
                               const int64_t in_size[2], const int64_t kernel[2], const int64_t stride[2],
                               const int64_t padding[2], const int64_t dilation[2]) {
  return run_conv(args::depthwise(B, C, in_size, kernel, stride, padding, dilation), x, w, bias, y);
}

tl_status conv_transpose2d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                               int64_t C_out, int64_t groups, const int64_t in_size[2], const int64_t kernel[2],
                               const int64_t stride[2], const int64_t padding[2], const int64_t output_padding[2],
                               const int64_t dilation[2]) {
  return run_conv(
      args::conv_transpose2d(B, C_in, C_out, groups, in_size, kernel, stride, padding, output_padding, dilation), x, w,
      bias, y);
}

tl_status causal_conv1d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                            int64_t C_out, int64_t groups, int64_t T, int64_t kernel, int64_t stride,
                            int64_t dilation) {
  return run_conv(args::causal_conv1d(B, C_in, C_out, groups, T, kernel, stride, dilation), x, w, bias, y);
}

tl_status pool_f32(const float* x, float* y, int64_t B, int64_t C, const int64_t in_size[2], const int64_t kernel[2],
                   const int64_t* stride, const int64_t* padding, int mode) {
  const args::Checked c = args::pool(B, C, in_size, kernel, stride, padding, mode);
  if (c.status != TL_OK) return impl::fail(c.status, c.message);
  ref::pool<float>(x, y, c.shape, static_cast<ref::PoolMode>(mode));
  return TL_OK;
}

}  // namespace konform::scalar
