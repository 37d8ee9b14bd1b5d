/* tinyllm/conv.h: the convolutions and Pool of spec/operations.txt section 6:
 * Conv1d/Conv2d/Conv3d (one function, 1 to 3 spatial dimensions),
 * DepthwiseConv, ConvTranspose2d, CausalConv1d and Pool (max or average).
 *
 * Conventions (as tinyllm/elementwise.h): float32 tensors, contiguous and
 * row-major, channels first (NCHW, NCDHW); sizes are int64_t; per-dimension
 * parameters are arrays of one entry per spatial dimension, outermost first
 * (for 2-d: {H, W}). No output may overlap an input. bias may be NULL (no
 * bias).
 *
 * Every function validates its arguments and returns a tl_status
 * (tinyllm/status.h): on anything but TL_OK it has written nothing and
 * tl_last_error() names the function and the argument. Data pointers are the
 * caller's to get right; the size arrays must not be NULL unless stated.
 *   TL_ERR_INVALID_ARGUMENT  B < 0; a channel count, group count, input
 *                            extent, kernel extent, stride or dilation < 1; a
 *                            padding < 0; n_dims outside 1..3; an unknown
 *                            pool mode; an output_padding outside
 *                            0 .. max(stride, dilation) - 1; any size above
 *                            TL_CONV_MAX_SIZE; a tensor whose byte count does
 *                            not fit an int64_t
 *   TL_ERR_SHAPE             C_in or C_out not a multiple of groups; an
 *                            output extent < 1 (the dilated kernel longer
 *                            than the padded input)
 *   TL_ERR_UNSUPPORTED       valid arguments this library does not implement
 *                            (one pool mode, 3-d convolutions, ...): counted
 *                            as unsupported, not failed (tinyllm/status.h)
 *
 * Numerics: each output is a dot product of K = (C_in / groups) *
 * prod(kernel) terms, plus the bias. libtl_kernels sums the terms in the
 * spec's loop order (input channel, then the taps, row-major) in one chain
 * of multiply-adds (fused on AVX2 and AVX-512), then adds the bias.
 */
#ifndef TINYLLM_CONV_H
#define TINYLLM_CONV_H

#include <stdint.h>

#include "tinyllm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest extent, channel count, stride, padding or dilation accepted:
 * 2^31 - 1, so the spec's index arithmetic never overflows an int64_t. */
#define TL_CONV_MAX_SIZE 2147483647

/* ---- Conv1d, Conv2d, Conv3d ------------------------------------------------
 * x: [B, C_in, in...], w: [C_out, C_in/groups, kernel...], bias: [C_out] or
 * NULL, y: [B, C_out, out...] with n_dims spatial dimensions (1, 2 or 3):
 *   out[a] = (in[a] + 2 padding[a] - dilation[a] (kernel[a] - 1) - 1) / stride[a] + 1
 *   y[b, co, o] = bias[co] + sum over ci < C_in/groups, taps k of
 *     x[b, g C_in/groups + ci, o stride + k dilation - padding] * w[co, ci, k]
 * with g = co / (C_out/groups) and 0 read outside the input (zero padding on
 * both sides). groups = 1 is the standard convolution, groups = C_in = C_out
 * depthwise, anything between grouped. */
tl_status tl_conv_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                      int64_t C_out, int64_t groups, int64_t n_dims, const int64_t* in_size, const int64_t* kernel,
                      const int64_t* stride, const int64_t* padding, const int64_t* dilation);

/* ---- DepthwiseConv ---------------------------------------------------------
 * tl_conv_f32 with 2 spatial dimensions and groups = C_in = C_out = C: each
 * channel has its own filter. x: [B, C, H, W], w: [C, 1, kH, kW], bias: [C]
 * or NULL, y: [B, C, H', W']; the 2-entry arrays as in tl_conv_f32. */
tl_status tl_depthwise_conv2d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C,
                                  const int64_t in_size[2], const int64_t kernel[2], const int64_t stride[2],
                                  const int64_t padding[2], const int64_t dilation[2]);

/* ---- ConvTranspose2d -------------------------------------------------------
 * The adjoint of Conv2d's x -> y map (learned upsampling, PyTorch's
 * ConvTranspose2d). x: [B, C_in, H, W], w: [C_in, C_out/groups, kH, kW],
 * bias: [C_out] or NULL, y: [B, C_out, H', W']:
 *   out[a] = (in[a] - 1) stride[a] - 2 padding[a] + dilation[a] (kernel[a] - 1)
 *            + output_padding[a] + 1
 *   y[b, co, o] = bias[co] + sum over ci < C_in/groups and taps k with
 *     i = (o + padding - k dilation) / stride a whole number in [0, in) of
 *     x[b, g C_in/groups + ci, i] * w[g C_in/groups + ci, co - g C_out/groups, k]
 * with g = co / (C_out/groups); output_padding (0 .. max(stride, dilation)
 * - 1) lengthens the output at the far end only. */
tl_status tl_conv_transpose2d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                                  int64_t C_out, int64_t groups, const int64_t in_size[2], const int64_t kernel[2],
                                  const int64_t stride[2], const int64_t padding[2], const int64_t output_padding[2],
                                  const int64_t dilation[2]);

/* ---- CausalConv1d ----------------------------------------------------------
 * A 1-d convolution over time whose output t reads no input after t stride:
 * the spec's "replicate-pad left". x: [B, C_in, T], w: [C_out, C_in/groups,
 * kernel], bias: [C_out] or NULL, y: [B, C_out, T'], T' = (T - 1) / stride + 1:
 *   y[b, co, t] = bias[co] + sum over ci, k of
 *     x[b, g C_in/groups + ci, max(0, t stride + k dilation - dilation (kernel - 1))] * w[co, ci, k]
 * The dilation (kernel - 1) samples left of the start repeat x[.., 0] (the
 * replicate padding of HunyuanVideo's causal convolutions); nothing is
 * padded on the right. Requires T >= 1. */
tl_status tl_causal_conv1d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                               int64_t C_out, int64_t groups, int64_t T, int64_t kernel, int64_t stride,
                               int64_t dilation);

/* ---- Pool ------------------------------------------------------------------ */
typedef enum tl_pool_mode {
  TL_POOL_MAX = 0, /* the window's maximum; -inf at a pad */
  TL_POOL_AVG = 1  /* the window's sum (0 at a pad) / (kH kW): pads count */
} tl_pool_mode;

/* x: [B, C, H, W], y: [B, C, H', W'], each channel pooled alone:
 *   out[a] = (in[a] + 2 padding[a] - kernel[a]) / stride[a] + 1
 *   y[b, c, i, j] = REDUCE over ki < kH, kj < kW of
 *     x[b, c, i sH + ki - pH, j sW + kj - pW]
 * stride NULL means stride = kernel (the spec's default: non-overlapping);
 * padding NULL means 0. Max: a window with a NaN gives its first NaN in
 * row-major order, quieted; a window wholly in the padding gives -inf; of +0
 * and -0 either is the maximum. Avg: divides by kH kW whatever the padding
 * (the spec's formula; PyTorch's count_include_pad = True). */
tl_status tl_pool_f32(const float* x, float* y, int64_t B, int64_t C, const int64_t in_size[2], const int64_t kernel[2],
                      const int64_t* stride, const int64_t* padding, int mode);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_CONV_H */
