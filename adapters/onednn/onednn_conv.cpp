// The oneDNN peer adapter's convolutions, pooling, matmul family and spatial
// ops (the rest, and the rules every call follows, in onednn_pointwise.cpp).
// Convolutions let oneDNN choose its layouts (format `any`, as frameworks call
// it), so its fast kernels are the ones judged; NCHW buffers are reordered in
// and out.
//   Conv1d/2d/3d, DepthwiseConv   convolution_forward (groups as oneDNN's
//                        [g, C_out/g, C_in/g, k...] weights)
//   ConvTranspose2d      deconvolution_forward, weights read through strides;
//                        output_padding as that much less right padding
//   CausalConv1d         x's first sample copied dilation (k - 1) times on the
//                        left (the spec's replicate padding), then an unpadded
//                        convolution_forward
//   Pool                 pooling_forward: pooling_max, or
//                        pooling_avg_include_padding
//   Matmul               matmul, w [N, K] read through strides as [K, N]
//   SwiGlu/GeGlu/Glu_FFN, FusedSwiGlu   matmuls, eltwise, binary_mul
//   PixelShuffle, PixelUnshuffle, Unpatchify   one reorder through permuted
//                        strides (6-d)
//   PatchEmbed           convolution_forward with kernel = stride = p, its
//                        output written channels-last (= [B, N, D])
//   Interpolate          resampling_linear for bilinear with align_corners = 0;
//                        nearest, area and align_corners = 1 are
//                        TL_ERR_UNSUPPORTED (oneDNN's nearest picks another
//                        source pixel than PyTorch's floor(d in / out))
#include <cstdint>
#include <string>
#include <vector>

#include "adapters/layout_moves.hpp"
#include "adapters/onednn/dnnl_glue.hpp"
#include "impl/common/conv_args.hpp"
#include "impl/common/linalg_args.hpp"
#include "impl/common/spatial_args.hpp"
#include "tinyllm/conv.h"
#include "tinyllm/linalg.h"
#include "tinyllm/spatial.h"

namespace ki = konform::impl;
namespace args = konform::impl::spatial_args;
using namespace konform::peer::onednn;
using dnnl::algorithm;
using dnnl::prop_kind;

namespace {

// One (de)convolution as oneDNN describes it. Weights are given in the
// caller's layout by their strides; oneDNN dilations count the gaps (d - 1).
struct Conv {
  dims src, wei, wei_strides, dst, strides, dil, pad_l, pad_r;
  dnnl::memory::desc dst_user;  // the caller's layout of y
  bool transpose = false;
};

// Runs the (de)convolution `Prim` in the layouts oneDNN chose, reordering the
// caller's x and w in and y out where they differ.
template <class Prim>
void convolve_as(const Conv& c, const float* x, const float* w, const float* bias, float* y) {
  const auto bias_md = bias ? plain({c.dst[1]}) : dnnl::memory::desc();
  const auto alg = c.transpose ? algorithm::deconvolution_direct : algorithm::convolution_direct;
  typename Prim::primitive_desc pd({prop_kind::forward_inference, alg, any(c.src), any(c.wei), bias_md, any(c.dst),
                                    c.strides, c.dil, c.pad_l, c.pad_r},
                                   cpu());
  dnnl::memory src_user = wrap(plain(c.src), x), wei_user = wrap(strided(c.wei, c.wei_strides), w);
  dnnl::memory dst_user = wrap(c.dst_user, y);
  dnnl::memory dst = pd.dst_desc() == c.dst_user ? dst_user : dnnl::memory(pd.dst_desc(), cpu());
  Args a{{DNNL_ARG_SRC, as_layout(src_user, pd.src_desc())},
         {DNNL_ARG_WEIGHTS, as_layout(wei_user, pd.weights_desc())},
         {DNNL_ARG_DST, dst}};
  if (bias) a.emplace(DNNL_ARG_BIAS, wrap(bias_md, bias));
  run(Prim(pd), a);
  if (dst != dst_user) run(dnnl::reorder(dst, dst_user), {{DNNL_ARG_FROM, dst}, {DNNL_ARG_TO, dst_user}});
}

void convolve(const Conv& c, const float* x, const float* w, const float* bias, float* y) {
  if (count(c.dst) == 0) return;
  if (c.transpose) convolve_as<dnnl::deconvolution_forward>(c, x, w, bias, y);
  else convolve_as<dnnl::convolution_forward>(c, x, w, bias, y);
}

// The convolution of a checked ConvShape (Conv1d/2d/3d, depthwise, and the
// causal one after its left padding): weights [C_out, C_in/g, k...], as
// oneDNN's [g, C_out/g, C_in/g, k...] when grouped.
Conv forward_conv(const ki::conv_args::ConvShape& s) {
  Conv c;
  c.src = {s.B, s.C_in};
  c.dst = {s.B, s.C_out};
  if (s.groups > 1) c.wei = {s.groups, s.C_out / s.groups, s.C_in / s.groups};
  else c.wei = {s.C_out, s.C_in};
  for (int a = 0; a < s.nd; ++a) {
    c.src.push_back(s.in[a]), c.dst.push_back(s.out[a]), c.wei.push_back(s.kernel[a]);
    c.strides.push_back(s.stride[a]), c.dil.push_back(s.dil[a] - 1), c.pad_l.push_back(s.pad[a]);
    // oneDNN wants the right padding that makes its extent formula give out.
    c.pad_r.push_back((s.out[a] - 1) * s.stride[a] + (s.kernel[a] - 1) * s.dil[a] + 1 - s.in[a] - s.pad[a]);
  }
  c.wei_strides = row_major_strides(c.wei);
  c.dst_user = plain(c.dst);
  return c;
}

tl_status run_conv(const char* fn, const ki::conv_args::Checked& c, const float* x, const float* w, const float* bias,
                   float* y) {
  if (c.status != TL_OK) return ki::fail(c.status, c.message);
  return guarded(fn, [&] { convolve(forward_conv(c.shape), x, w, bias, y); });
}

// y [M, N] = x [M, K] times w [N, K] transposed: oneDNN's matmul with w read
// through strides as [K, N].
void matmul(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K) {
  if (M * N == 0) return;
  const auto src = plain({M, K}), wei = strided({K, N}, {1, K}), dst = plain({M, N});
  dnnl::matmul::primitive_desc pd({src, wei, dst}, cpu());
  run(dnnl::matmul(pd), {{DNNL_ARG_SRC, wrap(src, x)}, {DNNL_ARG_WEIGHTS, wrap(wei, w)}, {DNNL_ARG_DST, wrap(dst, y)}});
}

void eltwise(float* v, int64_t n, algorithm alg, float alpha) {
  const auto d = plain({n});
  dnnl::eltwise_forward::primitive_desc pd({prop_kind::forward_inference, alg, d, alpha, 0.f}, cpu());
  run(dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, wrap(d, v)}, {DNNL_ARG_DST, wrap(d, v)}});
}

void multiply(float* a, const float* b, int64_t n) {
  const auto d = plain({n});
  dnnl::binary::primitive_desc pd({algorithm::binary_mul, d, d, d}, cpu());
  run(dnnl::binary(pd), {{DNNL_ARG_SRC_0, wrap(d, a)}, {DNNL_ARG_SRC_1, wrap(d, b)}, {DNNL_ARG_DST, wrap(d, a)}});
}

// h [M, H] = act(x w_gate^T) * (x w_up^T): two matmuls, an eltwise and a
// binary multiply.
void gated_projection(algorithm act, float alpha, const float* x, const float* w_gate, const float* w_up, float* h,
                      int64_t M, int64_t D, int64_t H) {
  if (M * H == 0) return;
  std::vector<float> up(static_cast<size_t>(M * H));
  matmul(x, w_gate, h, M, H, D);
  matmul(x, w_up, up.data(), M, H, D);
  eltwise(h, M * H, act, alpha);
  multiply(h, up.data(), M * H);
}

tl_status ffn(const char* fn, algorithm act, float alpha, const float* x, const float* w_gate, const float* w_up,
              const float* w_down, float* y, int64_t M, int64_t D, int64_t H) {
  if (tl_status s = ki::linalg_args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;
  return guarded(fn, [&] {
    std::vector<float> h(static_cast<size_t>(M * H));
    gated_projection(act, alpha, x, w_gate, w_up, h.data(), M, D, H);
    matmul(h.data(), w_down, y, M, D, H);
  });
}

}  // namespace

extern "C" {

// ---- tinyllm/conv.h -----------------------------------------------------------

tl_status tl_conv_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                      int64_t C_out, int64_t groups, int64_t n_dims, const int64_t* in_size, const int64_t* kernel,
                      const int64_t* stride, const int64_t* padding, const int64_t* dilation) {
  return run_conv("tl_conv_f32",
                  ki::conv_args::conv(B, C_in, C_out, groups, n_dims, in_size, kernel, stride, padding, dilation), x, w,
                  bias, y);
}

tl_status tl_depthwise_conv2d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C,
                                  const int64_t in_size[2], const int64_t kernel[2], const int64_t stride[2],
                                  const int64_t padding[2], const int64_t dilation[2]) {
  return run_conv("tl_depthwise_conv2d_f32", ki::conv_args::depthwise(B, C, in_size, kernel, stride, padding, dilation),
                  x, w, bias, y);
}

// oneDNN's deconvolution: weights [C_in, C_out/g, k...] read through strides
// as its [g, C_out/g, C_in/g, k...]; output_padding lengthens the far end,
// which oneDNN takes as that much less right padding.
tl_status tl_conv_transpose2d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                                  int64_t C_out, int64_t groups, const int64_t in_size[2], const int64_t kernel[2],
                                  const int64_t stride[2], const int64_t padding[2], const int64_t output_padding[2],
                                  const int64_t dilation[2]) {
  const auto c = ki::conv_args::conv_transpose2d(B, C_in, C_out, groups, in_size, kernel, stride, padding,
                                                 output_padding, dilation);
  if (c.status != TL_OK) return ki::fail(c.status, c.message);
  const auto& s = c.shape;
  const int64_t ig = C_in / groups, og = C_out / groups, taps = s.kernel[0] * s.kernel[1];
  Conv k;
  k.transpose = true;
  k.src = {B, C_in, s.in[0], s.in[1]};
  k.dst = {B, C_out, s.out[0], s.out[1]};
  if (groups > 1) {
    k.wei = {groups, og, ig, s.kernel[0], s.kernel[1]};
    k.wei_strides = {ig * og * taps, taps, og * taps, s.kernel[1], 1};
  } else {
    k.wei = {C_out, C_in, s.kernel[0], s.kernel[1]};
    k.wei_strides = {taps, C_out * taps, s.kernel[1], 1};
  }
  for (int a = 0; a < 2; ++a) {
    k.strides.push_back(s.stride[a]), k.dil.push_back(s.dil[a] - 1), k.pad_l.push_back(s.pad[a]);
    k.pad_r.push_back(s.pad[a] - output_padding[a]);
  }
  k.dst_user = plain(k.dst);
  return guarded("tl_conv_transpose2d_f32", [&] { convolve(k, x, w, bias, y); });
}

// The spec's replicate padding on the left is a copy of x[.., 0] (made
// here); the convolution over the padded signal, unpadded, is oneDNN's.
tl_status tl_causal_conv1d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                               int64_t C_out, int64_t groups, int64_t T, int64_t kernel, int64_t stride,
                               int64_t dilation) {
  const auto c = ki::conv_args::causal_conv1d(B, C_in, C_out, groups, T, kernel, stride, dilation);
  if (c.status != TL_OK) return ki::fail(c.status, c.message);
  return guarded("tl_causal_conv1d_f32", [&] {
    const std::vector<float> padded = konform::peer::replicate_left(x, B * C_in, T, c.shape.pad[0]);
    ki::conv_args::ConvShape s = c.shape;
    s.in[0] += s.pad[0], s.pad[0] = 0;
    convolve(forward_conv(s), padded.data(), w, bias, y);
  });
}

// oneDNN's pooling: max, or the average that counts the padding.
tl_status tl_pool_f32(const float* x, float* y, int64_t B, int64_t C, const int64_t in_size[2], const int64_t kernel[2],
                      const int64_t* stride, const int64_t* padding, int mode) {
  const auto c = ki::conv_args::pool(B, C, in_size, kernel, stride, padding, mode);
  if (c.status != TL_OK) return ki::fail(c.status, c.message);
  const auto& s = c.shape;
  return guarded("tl_pool_f32", [&] {
    const dims src{B, C, s.in[0], s.in[1]}, dst{B, C, s.out[0], s.out[1]};
    if (count(dst) == 0) return;
    dims st, k, pl, pr;
    for (int a = 0; a < 2; ++a) {
      st.push_back(s.stride[a]), k.push_back(s.kernel[a]), pl.push_back(s.pad[a]);
      pr.push_back((s.out[a] - 1) * s.stride[a] + s.kernel[a] - s.in[a] - s.pad[a]);
    }
    const auto alg = mode == TL_POOL_MAX ? algorithm::pooling_max : algorithm::pooling_avg_include_padding;
    const auto sd = plain(src), dd = plain(dst);
    dnnl::pooling_forward::primitive_desc pd({prop_kind::forward_inference, alg, sd, dd, st, k, pl, pr}, cpu());
    run(dnnl::pooling_forward(pd), {{DNNL_ARG_SRC, wrap(sd, x)}, {DNNL_ARG_DST, wrap(dd, y)}});
  });
}

// ---- tinyllm/linalg.h ---------------------------------------------------------

tl_status tl_matmul_f32(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K) {
  if (tl_status s = ki::linalg_args::check_sizes("tl_matmul_f32", {{"M", M}, {"N", N}, {"K", K}})) return s;
  return guarded("tl_matmul_f32", [&] { matmul(x, w, y, M, N, K); });
}

tl_status tl_swiglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                            int64_t M, int64_t D, int64_t H) {
  return ffn("tl_swiglu_ffn_f32", algorithm::eltwise_swish, 1.f, x, w_gate, w_up, w_down, y, M, D, H);
}

tl_status tl_geglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                           int64_t M, int64_t D, int64_t H, tl_ffn_gelu gelu) {
  if (tl_status s = ki::linalg_args::check_gelu("tl_geglu_ffn_f32", gelu)) return s;
  return ffn("tl_geglu_ffn_f32", gelu == TL_FFN_GELU_ERF ? algorithm::eltwise_gelu_erf : algorithm::eltwise_gelu_tanh,
             0.f, x, w_gate, w_up, w_down, y, M, D, H);
}

tl_status tl_glu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                         int64_t M, int64_t D, int64_t H) {
  return ffn("tl_glu_ffn_f32", algorithm::eltwise_logistic, 0.f, x, w_gate, w_up, w_down, y, M, D, H);
}

tl_status tl_fused_swiglu_f32(const float* x, const float* w_gate, const float* w_up, float* h, int64_t M, int64_t D,
                              int64_t H) {
  const char* fn = "tl_fused_swiglu_f32";
  if (tl_status s = ki::linalg_args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;
  return guarded(fn, [&] { gated_projection(algorithm::eltwise_swish, 1.f, x, w_gate, w_up, h, M, D, H); });
}

// ---- tinyllm/spatial.h --------------------------------------------------------

tl_status tl_pixel_shuffle_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r) {
  if (tl_status s = args::check_copy({"tl_pixel_shuffle_f32", args::Kind::shuffle, B, C, H, W, r}, x, y)) return s;
  // [B, C', r, r, H, W] -> [B, C', H, r, W, r]
  return guarded("tl_pixel_shuffle_f32", [&] { permute(x, y, {B, C / (r * r), r, r, H, W}, {0, 1, 4, 2, 5, 3}); });
}

tl_status tl_pixel_unshuffle_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r) {
  if (tl_status s = args::check_copy({"tl_pixel_unshuffle_f32", args::Kind::unshuffle, B, C, H, W, r}, x, y)) return s;
  // [B, C, H/r, r, W/r, r] -> [B, C, r, r, H/r, W/r]
  return guarded("tl_pixel_unshuffle_f32", [&] { permute(x, y, {B, C, H / r, r, W / r, r}, {0, 1, 3, 5, 2, 4}); });
}

tl_status tl_unpatchify_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t p) {
  if (tl_status s = args::check_copy({"tl_unpatchify_f32", args::Kind::unpatchify, B, C, H, W, p}, x, y)) return s;
  // [B, H/p, W/p, p, p, C] -> [B, C, H/p, p, W/p, p]
  return guarded("tl_unpatchify_f32", [&] { permute(x, y, {B, H / p, W / p, p, p, C}, {0, 5, 1, 3, 2, 4}); });
}

// A convolution with kernel = stride = p whose output oneDNN writes
// channels-last: [B, D, H/p, W/p] in nhwc is y's [B, N, D].
tl_status tl_patch_embed_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C,
                             int64_t H, int64_t W, int64_t D, int64_t p) {
  const char* fn = "tl_patch_embed_f32";
  if (tl_status s = args::check({fn, args::Kind::patch_embed, B, C, H, W, p, D})) return s;
  if (tl_status s = args::need(fn, x, B * C * H * W, "x")) return s;
  if (tl_status s = args::need(fn, w, D * C * p * p, "w")) return s;
  if (tl_status s = args::need(fn, y, B * (H / p) * (W / p) * D, "y")) return s;
  if (B * (H / p) * (W / p) * D == 0) return TL_OK;
  return guarded(fn, [&] {
    Conv k;
    k.src = {B, C, H, W};
    k.wei = {D, C, p, p};
    k.wei_strides = row_major_strides(k.wei);
    k.dst = {B, D, H / p, W / p};
    k.strides = {p, p}, k.dil = {0, 0}, k.pad_l = {0, 0}, k.pad_r = {0, 0};
    k.dst_user = dnnl::memory::desc(k.dst, dnnl::memory::data_type::f32, tag::nhwc);
    convolve(k, x, w, bias, y);
  });
}

// oneDNN's resampling: linear is PyTorch's bilinear with half-pixel centres
// (align_corners = 0). Its nearest picks another source pixel than PyTorch's
// floor(d in / out), and it has no align_corners or area mode: those cases
// are TL_ERR_UNSUPPORTED.
tl_status tl_interpolate_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t H_out,
                             int64_t W_out, int32_t mode, int32_t align_corners) {
  const char* fn = "tl_interpolate_f32";
  if (tl_status s = args::check_interpolate(B, C, H, W, H_out, W_out, mode, align_corners)) return s;
  if (tl_status s = args::need(fn, x, B * C * H * W, "x")) return s;
  if (tl_status s = args::need(fn, y, B * C * H_out * W_out, "y")) return s;
  if (mode != TL_INTERP_BILINEAR || align_corners != 0)
    return ki::fail(TL_ERR_UNSUPPORTED, std::string(fn) +
                                            ": oneDNN's resampling has only bilinear with half-pixel "
                                            "centres (align_corners = 0) in PyTorch's sense");
  if (B * C == 0) return TL_OK;
  return guarded(fn, [&] {
    const auto sd = plain({B, C, H, W}), dd = plain({B, C, H_out, W_out});
    dnnl::resampling_forward::primitive_desc pd({prop_kind::forward_inference, algorithm::resampling_linear, sd, dd},
                                                cpu());
    run(dnnl::resampling_forward(pd), {{DNNL_ARG_SRC, wrap(sd, x)}, {DNNL_ARG_DST, wrap(dd, y)}});
  });
}

}  // extern "C"
