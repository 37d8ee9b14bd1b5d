/* tinyllm/cuda/spatial.h: the device-pointer twins of tinyllm/spatial.h
 * (generated from it by ci/op_tables.py).
 *
 * Each tl_X_dev takes tl_X's parameters, whose semantics tinyllm/spatial.h
 * gives, plus the stream its work is enqueued on; the contract (device
 * pointers for tensor data, host pointers for parameters, asynchrony) is
 * tinyllm/cuda/stream.h's. */
#ifndef TINYLLM_CUDA_SPATIAL_H
#define TINYLLM_CUDA_SPATIAL_H

#include <stdint.h>

#include "tinyllm/spatial.h"
#include "tinyllm/cuda/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

tl_status tl_pixel_shuffle_f32_dev(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r,
                                   tl_cuda_stream stream);
tl_status tl_pixel_unshuffle_f32_dev(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r,
                                     tl_cuda_stream stream);
tl_status tl_patch_embed_f32_dev(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C,
                                 int64_t H, int64_t W, int64_t D, int64_t p, tl_cuda_stream stream);
tl_status tl_unpatchify_f32_dev(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t p,
                                tl_cuda_stream stream);
tl_status tl_interpolate_f32_dev(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t H_out,
                                 int64_t W_out, int32_t mode, int32_t align_corners, tl_cuda_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_CUDA_SPATIAL_H */
