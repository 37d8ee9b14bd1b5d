/* tinyllm/spatial.h: the spatial ops of spec/operations.txt section 7
 * (Interpolate, PixelShuffle, PixelUnshuffle, PatchEmbed, Unpatchify).
 *
 * Conventions (as tinyllm/tensor.h): float32, contiguous and row-major;
 * images are NCHW, [B, C, H, W]; sizes are int64_t. Every function
 * validates its sizes and returns a tl_status (tinyllm/status.h): on
 * anything but TL_OK it has written nothing and tl_last_error() says why.
 *   TL_ERR_INVALID_ARGUMENT  a negative size, a factor r or patch p below 1,
 *                            a product that does not fit an int64_t (the
 *                            factor squared; H r and W r; 4 C r^2; 4 p^2 C;
 *                            4 B C H W; PatchEmbed's 4 C p^2 D and
 *                            4 B (H/p) (W/p) D), each formed left to right:
 *                            a 0 later in a list does not excuse an
 *                            overflow before it
 *   TL_ERR_SHAPE             a size the factor does not divide (named in
 *                            each function)
 *   TL_ERR_INVALID_ARGUMENT  a NULL pointer to a tensor that has elements
 * The checks run in that order: a call with two faults gets the first.
 * (Interpolate has its own list, below.)
 * A call whose tensors have no elements writes nothing and is TL_OK.
 * Outputs must not overlap inputs (every op here moves each element to
 * another place: none can run in place).
 */
#ifndef TINYLLM_SPATIAL_H
#define TINYLLM_SPATIAL_H

#include <stdint.h>

#include "tinyllm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PixelShuffle (torch.nn.PixelShuffle): x [B, C, H, W] with C = C' r^2
 * (TL_ERR_SHAPE otherwise) -> y [B, C', H r, W r],
 *   y[b, c, h r + i, w r + j] = x[b, c r^2 + i r + j, h, w]
 * (input channel c r^2 + i r + j becomes sub-pixel row i, column j of
 * output channel c). An exact copy: NaN payloads and -0 survive. */
tl_status tl_pixel_shuffle_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r);

/* PixelUnshuffle (torch.nn.PixelUnshuffle), the inverse: x [B, C, H, W]
 * with H and W multiples of r (TL_ERR_SHAPE otherwise) -> y [B, C r^2,
 * H / r, W / r],
 *   y[b, c r^2 + i r + j, h, w] = x[b, c, h r + i, w r + j]. An exact copy. */
tl_status tl_pixel_unshuffle_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r);

/* PatchEmbed (ViT, DiT): Conv2d with kernel = stride = p, no padding, the
 * output flattened to tokens. x [B, C, H, W] with H and W multiples of p
 * (TL_ERR_SHAPE otherwise); w [D, C, p, p] (Conv2d's weight); bias [D] or
 * NULL (no bias) -> y [B, N, D], N = (H / p) (W / p) tokens in raster order
 * (token n = hp (W / p) + wp for the patch at row hp, column wp):
 *   y[b, n, d] = bias[d] + sum over c, i, j of
 *                x[b, c, hp p + i, wp p + j] * w[d, c, i, j].
 * A dot product of K = C p p terms: judged against sum |x w| + |bias| like
 * Matmul (no summation order is promised). */
tl_status tl_patch_embed_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C,
                             int64_t H, int64_t W, int64_t D, int64_t p);

/* Unpatchify (DiT's final layer), the inverse of the patch layout: tokens
 * x [B, N, p p C] with N = (H / p) (W / p) in raster order, each token's
 * features ordered (i, j, c), c fastest -> the image y [B, C, H, W]
 * (B, C, H, W describe the output; H and W multiples of p, TL_ERR_SHAPE
 * otherwise):
 *   y[b, c, hp p + i, wp p + j] = x[b, hp (W / p) + wp, (i p + j) C + c].
 * (DiT: x.reshape(B, H/p, W/p, p, p, C), einsum "nhwpqc->nchpwq".) An exact
 * copy. */
tl_status tl_unpatchify_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t p);

/* Interpolate's mode, by value (PyTorch's F.interpolate modes). */
typedef enum tl_interp_mode {
  TL_INTERP_NEAREST = 0,  /* "nearest" */
  TL_INTERP_BILINEAR = 1, /* "bilinear" */
  TL_INTERP_AREA = 2      /* "area": adaptive average pooling */
} tl_interp_mode;

/* Interpolate (torch.nn.functional.interpolate with an output size): x
 * [B, C, H, W] -> y [B, C, H_out, W_out], each plane resized alone, each
 * axis by the same rule (in = H or W, out = H_out or W_out, d the output
 * index):
 *   NEAREST   source floor(d in / out), computed exactly in integers (PyTorch
 *             rounds d * (float)(in / out); the two agree unless in * out is
 *             past about 2^22). An exact copy: NaN payloads and -0 survive.
 *   BILINEAR  PyTorch's float arithmetic: with align_corners = 0, half-pixel
 *             centres, src = (d + 0.5) * (in / out) - 0.5, clamped at 0; with
 *             align_corners = 1, src = d * ((in - 1) / (out - 1)), 0 when
 *             out = 1. i0 = floor(src), i1 = min(i0 + 1, in - 1),
 *             l1 = src - i0, l0 = 1 - l1, and
 *               y = l0y (l0x x[i0y, i0x] + l1x x[i0y, i1x])
 *                 + l1y (l0x x[i1y, i0x] + l1x x[i1y, i1x]).
 *             Judged within a tolerance that admits src and the weights
 *             computed in float or better; every product is formed, so a
 *             NaN or Inf tap makes the output NaN even at weight 0.
 *   AREA      the mean of x over rows [floor(d in / out), ceil((d + 1) in /
 *             out)) times the same columns: the sum, divided by the count
 *             (any summation order; judged within a tolerance).
 * Refused, in this order, with TL_ERR_INVALID_ARGUMENT: B or C negative;
 * H, W, H_out or W_out outside 1 .. 2^31 - 1; an unknown mode; align_corners
 * other than 0, or 1 with a mode other than BILINEAR (PyTorch refuses it
 * there too); 4 B C H W or 4 B C H_out W_out past an int64_t; then a NULL x
 * or y that has elements. y must not overlap x. A library that implements
 * only some modes returns TL_ERR_UNSUPPORTED for the others (valid arguments
 * only; tinyllm/status.h), writing nothing. */
tl_status tl_interpolate_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t H_out,
                             int64_t W_out, int32_t mode, int32_t align_corners);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_SPATIAL_H */
