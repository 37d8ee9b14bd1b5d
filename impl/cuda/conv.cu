// libtl_cuda: the ops of tinyllm/conv.h on a CUDA device and their
// device-pointer twins, as elementwise.cu: Conv1d/2d/3d, DepthwiseConv, ConvTranspose2d,
// CausalConv1d and Pool. The geometry is checked and resolved by the host
// code the CPU backends run (impl/common/conv_args.hpp), and every tap is
// placed by the same map as the oracle's (reference/.../conv_shape.hpp,
// device code under nvcc), so the backends differ only in arithmetic. A
// convolution output is one thread: its products exact in double, summed in
// double in (channel, tap) order, rounded once to float, then the bias added
// in float; a zero pad is read as 0 and multiplied (0 * Inf is NaN, as the
// spec's loop), a transposed tap that lands on no input adds nothing.
#include <cmath>
#include <cstdint>

#include "impl/common/conv_args.hpp"
#include "impl/common/status.hpp"
#include "impl/cuda/abi.cuh"
#include "impl/cuda/grid.cuh"
#include "tinyllm/cuda/conv.h"

namespace kc = konform::cuda;
namespace ref = konform::reference;
namespace args = konform::impl::conv_args;

namespace konform::cuda {

// y[b, co, o] for every output k of [B, C_out, out...].
__global__ void conv_outputs(const float* x, const float* w, const float* bias, float* y, ref::ConvShape s,
                             int64_t count) {
  const int64_t KS = s.taps(), OS = s.out_elems(), IS = s.in_elems(), Cg = s.cin_g();
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    const int64_t o = k % OS, co = (k / OS) % s.C_out, b = k / (OS * s.C_out);
    const float* xg = x + (b * s.C_in + co / s.cout_g() * Cg) * IS;
    double sum = 0.0;
    for (int64_t ci = 0; ci < Cg; ++ci)
      for (int64_t kk = 0; kk < KS; ++kk) {
        const int64_t i = s.source(o, kk);
        const double wv = w[s.weight_index(co, ci, kk)];
        if (i >= 0) sum += static_cast<double>(xg[ci * IS + i]) * wv;
        else if (s.edge != ref::ConvEdge::transpose) sum += 0.0 * wv;
      }
    const float v = static_cast<float>(sum);
    y[k] = bias == nullptr ? v : v + bias[co];
  }
}

// Pool over [B C, spatial]: max (-inf at a pad; the first NaN of the window,
// quieted) or the window's sum (0 at a pad), in double, over prod(kernel).
__global__ void pool_outputs(const float* x, float* y, ref::ConvShape s, bool max, int64_t count) {
  const int64_t KS = s.taps(), OS = s.out_elems(), IS = s.in_elems();
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    const int64_t o = k % OS;
    const float* xc = x + (k / OS) * IS;
    if (max) {
      float acc = -INFINITY;
      for (int64_t kk = 0; kk < KS; ++kk) {
        const int64_t i = s.source(o, kk);
        if (i < 0) continue;
        const float v = xc[i];
        if (v != v) {
          acc = v + 0.0f;  // quiets a signaling NaN, as any arithmetic does
          break;
        }
        if (v > acc) acc = v;
      }
      y[k] = acc;
    } else {
      double sum = 0.0;
      for (int64_t kk = 0; kk < KS; ++kk)
        if (const int64_t i = s.source(o, kk); i >= 0) sum += xc[i];
      y[k] = static_cast<float>(sum) / static_cast<float>(KS);
    }
  }
}

}  // namespace konform::cuda

namespace {

// A checked convolution on device pointers: x [B, C_in, in...], w (C_in
// C_out / groups taps floats), bias [C_out] or NULL, y [B, C_out, out...].
tl_status run_conv(const args::Checked& c, const float* x, const float* w, const float* bias, float* y,
                   const char* where, tl_cuda_stream stream) {
  if (c.status != TL_OK) return konform::impl::fail(c.status, c.message);
  const ref::ConvShape& s = c.shape;
  const int64_t count = s.B * s.C_out * s.out_elems();
  if (count == 0) return TL_OK;
  kc::launch(kc::conv_outputs, kc::grid_for(count, kc::kThreads), kc::kThreads, stream, x, w, bias, y, s, count);
  kc::check_launch(where);
  return TL_OK;
}

// The host convolutions: x, w, bias in, y out, then the twin.
template <class Dev, class... Params>
tl_status conv_host(const args::Checked& c, const char* fn, Dev dev, const float* x, const float* w, const float* bias,
                    float* y, Params... params) {
  if (c.status != TL_OK) return konform::impl::fail(c.status, c.message);
  const ref::ConvShape& s = c.shape;
  const int64_t count = s.B * s.C_out * s.out_elems();
  if (count == 0) return TL_OK;
  return kc::on_device(fn, dev, kc::in(x, s.B * s.C_in * s.in_elems()), kc::in(w, s.C_in * s.cout_g() * s.taps()),
                       kc::in(bias, bias == nullptr ? 0 : s.C_out), kc::out(y, count), params...);
}

}  // namespace

TL_CUDA_EXPORT tl_status tl_conv_f32_dev(const float* x, const float* w, const float* bias, float* y, int64_t B,
                                         int64_t C_in, int64_t C_out, int64_t groups, int64_t n_dims,
                                         const int64_t* in_size, const int64_t* kernel, const int64_t* stride,
                                         const int64_t* padding, const int64_t* dilation, tl_cuda_stream stream) {
  return run_conv(args::conv(B, C_in, C_out, groups, n_dims, in_size, kernel, stride, padding, dilation), x, w, bias, y,
                  "tl_conv_f32_dev", stream);
}

TL_CUDA_EXPORT tl_status tl_conv_f32(const float* x, const float* w, const float* bias, float* y, int64_t B,
                                     int64_t C_in, int64_t C_out, int64_t groups, int64_t n_dims,
                                     const int64_t* in_size, const int64_t* kernel, const int64_t* stride,
                                     const int64_t* padding, const int64_t* dilation) {
  return conv_host(args::conv(B, C_in, C_out, groups, n_dims, in_size, kernel, stride, padding, dilation),
                   "tl_conv_f32", tl_conv_f32_dev, x, w, bias, y, B, C_in, C_out, groups, n_dims, in_size, kernel,
                   stride, padding, dilation);
}

TL_CUDA_EXPORT tl_status tl_depthwise_conv2d_f32_dev(const float* x, const float* w, const float* bias, float* y,
                                                     int64_t B, int64_t C, const int64_t in_size[2],
                                                     const int64_t kernel[2], const int64_t stride[2],
                                                     const int64_t padding[2], const int64_t dilation[2],
                                                     tl_cuda_stream stream) {
  return run_conv(args::depthwise(B, C, in_size, kernel, stride, padding, dilation), x, w, bias, y,
                  "tl_depthwise_conv2d_f32_dev", stream);
}

TL_CUDA_EXPORT tl_status tl_depthwise_conv2d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B,
                                                 int64_t C, const int64_t in_size[2], const int64_t kernel[2],
                                                 const int64_t stride[2], const int64_t padding[2],
                                                 const int64_t dilation[2]) {
  return conv_host(args::depthwise(B, C, in_size, kernel, stride, padding, dilation), "tl_depthwise_conv2d_f32",
                   tl_depthwise_conv2d_f32_dev, x, w, bias, y, B, C, in_size, kernel, stride, padding, dilation);
}

TL_CUDA_EXPORT tl_status tl_conv_transpose2d_f32_dev(const float* x, const float* w, const float* bias, float* y,
                                                     int64_t B, int64_t C_in, int64_t C_out, int64_t groups,
                                                     const int64_t in_size[2], const int64_t kernel[2],
                                                     const int64_t stride[2], const int64_t padding[2],
                                                     const int64_t output_padding[2], const int64_t dilation[2],
                                                     tl_cuda_stream stream) {
  return run_conv(
      args::conv_transpose2d(B, C_in, C_out, groups, in_size, kernel, stride, padding, output_padding, dilation), x, w,
      bias, y, "tl_conv_transpose2d_f32_dev", stream);
}

TL_CUDA_EXPORT tl_status tl_conv_transpose2d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B,
                                                 int64_t C_in, int64_t C_out, int64_t groups, const int64_t in_size[2],
                                                 const int64_t kernel[2], const int64_t stride[2],
                                                 const int64_t padding[2], const int64_t output_padding[2],
                                                 const int64_t dilation[2]) {
  return conv_host(
      args::conv_transpose2d(B, C_in, C_out, groups, in_size, kernel, stride, padding, output_padding, dilation),
      "tl_conv_transpose2d_f32", tl_conv_transpose2d_f32_dev, x, w, bias, y, B, C_in, C_out, groups, in_size, kernel,
      stride, padding, output_padding, dilation);
}

TL_CUDA_EXPORT tl_status tl_causal_conv1d_f32_dev(const float* x, const float* w, const float* bias, float* y,
                                                  int64_t B, int64_t C_in, int64_t C_out, int64_t groups, int64_t T,
                                                  int64_t kernel, int64_t stride, int64_t dilation,
                                                  tl_cuda_stream stream) {
  return run_conv(args::causal_conv1d(B, C_in, C_out, groups, T, kernel, stride, dilation), x, w, bias, y,
                  "tl_causal_conv1d_f32_dev", stream);
}

TL_CUDA_EXPORT tl_status tl_causal_conv1d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B,
                                              int64_t C_in, int64_t C_out, int64_t groups, int64_t T, int64_t kernel,
                                              int64_t stride, int64_t dilation) {
  return conv_host(args::causal_conv1d(B, C_in, C_out, groups, T, kernel, stride, dilation), "tl_causal_conv1d_f32",
                   tl_causal_conv1d_f32_dev, x, w, bias, y, B, C_in, C_out, groups, T, kernel, stride, dilation);
}

TL_CUDA_EXPORT tl_status tl_pool_f32_dev(const float* x, float* y, int64_t B, int64_t C, const int64_t in_size[2],
                                         const int64_t kernel[2], const int64_t* stride, const int64_t* padding,
                                         int mode, tl_cuda_stream stream) {
  const args::Checked c = args::pool(B, C, in_size, kernel, stride, padding, mode);
  if (c.status != TL_OK) return konform::impl::fail(c.status, c.message);
  const ref::ConvShape& s = c.shape;
  const int64_t count = s.B * s.C_in * s.out_elems();
  if (count == 0) return TL_OK;
  kc::launch(kc::pool_outputs, kc::grid_for(count, kc::kThreads), kc::kThreads, stream, x, y, s, mode == TL_POOL_MAX,
             count);
  kc::check_launch("tl_pool_f32_dev");
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_pool_f32(const float* x, float* y, int64_t B, int64_t C, const int64_t in_size[2],
                                     const int64_t kernel[2], const int64_t* stride, const int64_t* padding, int mode) {
  const args::Checked c = args::pool(B, C, in_size, kernel, stride, padding, mode);
  if (c.status != TL_OK) return konform::impl::fail(c.status, c.message);
  const ref::ConvShape& s = c.shape;
  const int64_t count = s.B * s.C_in * s.out_elems();
  if (count == 0) return TL_OK;
  return kc::on_device("tl_pool_f32", tl_pool_f32_dev, kc::in(x, s.B * s.C_in * s.in_elems()), kc::out(y, count), B, C,
                       in_size, kernel, stride, padding, mode);
}
