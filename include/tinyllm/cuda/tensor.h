/* tinyllm/cuda/tensor.h: the device-pointer twins of tinyllm/tensor.h
 * (generated from it by ci/op_tables.py).
 *
 * Each tl_X_dev takes tl_X's parameters, whose semantics tinyllm/tensor.h
 * gives, plus the stream its work is enqueued on; the contract (device
 * pointers for tensor data, host pointers for parameters, asynchrony) is
 * tinyllm/cuda/stream.h's. */
#ifndef TINYLLM_CUDA_TENSOR_H
#define TINYLLM_CUDA_TENSOR_H

#include <stdint.h>

#include "tinyllm/tensor.h"
#include "tinyllm/cuda/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

tl_status tl_add_broadcast_f32_dev(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                                   const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                                   int64_t y_rank, tl_cuda_stream stream);
tl_status tl_sub_broadcast_f32_dev(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                                   const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                                   int64_t y_rank, tl_cuda_stream stream);
tl_status tl_mul_broadcast_f32_dev(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                                   const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                                   int64_t y_rank, tl_cuda_stream stream);
tl_status tl_div_broadcast_f32_dev(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                                   const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                                   int64_t y_rank, tl_cuda_stream stream);
tl_status tl_add_broadcast_f16_dev(const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b,
                                   const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape,
                                   int64_t y_rank, tl_cuda_stream stream);
tl_status tl_add_broadcast_bf16_dev(const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b,
                                    const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape,
                                    int64_t y_rank, tl_cuda_stream stream);
tl_status tl_sub_broadcast_f16_dev(const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b,
                                   const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape,
                                   int64_t y_rank, tl_cuda_stream stream);
tl_status tl_sub_broadcast_bf16_dev(const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b,
                                    const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape,
                                    int64_t y_rank, tl_cuda_stream stream);
tl_status tl_mul_broadcast_f16_dev(const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b,
                                   const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape,
                                   int64_t y_rank, tl_cuda_stream stream);
tl_status tl_mul_broadcast_bf16_dev(const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b,
                                    const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape,
                                    int64_t y_rank, tl_cuda_stream stream);
tl_status tl_div_broadcast_f16_dev(const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b,
                                   const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape,
                                   int64_t y_rank, tl_cuda_stream stream);
tl_status tl_div_broadcast_bf16_dev(const uint16_t* a, const int64_t* a_shape, int64_t a_rank, const uint16_t* b,
                                    const int64_t* b_shape, int64_t b_rank, uint16_t* y, const int64_t* y_shape,
                                    int64_t y_rank, tl_cuda_stream stream);
tl_status tl_clamp_f32_dev(const float* x, float* y, int64_t n, float lo, float hi, tl_cuda_stream stream);
tl_status tl_clamp_f16_dev(const uint16_t* x, uint16_t* y, int64_t n, float lo, float hi, tl_cuda_stream stream);
tl_status tl_clamp_bf16_dev(const uint16_t* x, uint16_t* y, int64_t n, float lo, float hi, tl_cuda_stream stream);
void tl_cast_f32_to_f16_dev(const float* x, uint16_t* y, int64_t n, tl_cuda_stream stream);
void tl_cast_f32_to_bf16_dev(const float* x, uint16_t* y, int64_t n, tl_cuda_stream stream);
void tl_cast_f16_to_f32_dev(const uint16_t* x, float* y, int64_t n, tl_cuda_stream stream);
void tl_cast_bf16_to_f32_dev(const uint16_t* x, float* y, int64_t n, tl_cuda_stream stream);
tl_status tl_nan_to_num_f32_dev(const float* x, float* y, int64_t n, float nan, float posinf, float neginf,
                                tl_cuda_stream stream);
tl_status tl_nan_to_num_f16_dev(const uint16_t* x, uint16_t* y, int64_t n, float nan, float posinf, float neginf,
                                tl_cuda_stream stream);
tl_status tl_nan_to_num_bf16_dev(const uint16_t* x, uint16_t* y, int64_t n, float nan, float posinf, float neginf,
                                 tl_cuda_stream stream);
tl_status tl_argmax_axis_f32_dev(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index,
                                 tl_cuda_stream stream);
tl_status tl_argmax_axis_f16_dev(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index,
                                 tl_cuda_stream stream);
tl_status tl_argmax_axis_bf16_dev(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int32_t* index,
                                  tl_cuda_stream stream);
tl_status tl_transpose_f32_dev(const float* x, const int64_t* shape, int64_t rank, float* y, tl_cuda_stream stream);
tl_status tl_transpose_f16_dev(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y,
                               tl_cuda_stream stream);
tl_status tl_transpose_bf16_dev(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y,
                                tl_cuda_stream stream);
tl_status tl_permute_f32_dev(const float* x, const int64_t* shape, int64_t rank, const int64_t* perm, float* y,
                             tl_cuda_stream stream);
tl_status tl_permute_f16_dev(const uint16_t* x, const int64_t* shape, int64_t rank, const int64_t* perm, uint16_t* y,
                             tl_cuda_stream stream);
tl_status tl_permute_bf16_dev(const uint16_t* x, const int64_t* shape, int64_t rank, const int64_t* perm, uint16_t* y,
                              tl_cuda_stream stream);
tl_status tl_reshape_f32_dev(const float* x, const int64_t* shape, int64_t rank, float* y, const int64_t* new_shape,
                             int64_t new_rank, tl_cuda_stream stream);
tl_status tl_reshape_f16_dev(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y,
                             const int64_t* new_shape, int64_t new_rank, tl_cuda_stream stream);
tl_status tl_reshape_bf16_dev(const uint16_t* x, const int64_t* shape, int64_t rank, uint16_t* y,
                              const int64_t* new_shape, int64_t new_rank, tl_cuda_stream stream);
tl_status tl_concat_f32_dev(const float* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis,
                            float* y, tl_cuda_stream stream);
tl_status tl_concat_f16_dev(const uint16_t* const* xs, const int64_t* shapes, int64_t count, int64_t rank, int64_t axis,
                            uint16_t* y, tl_cuda_stream stream);
tl_status tl_concat_bf16_dev(const uint16_t* const* xs, const int64_t* shapes, int64_t count, int64_t rank,
                             int64_t axis, uint16_t* y, tl_cuda_stream stream);
tl_status tl_split_f32_dev(const float* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,
                           int64_t count, float* const* ys, tl_cuda_stream stream);
tl_status tl_split_f16_dev(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,
                           int64_t count, uint16_t* const* ys, tl_cuda_stream stream);
tl_status tl_split_bf16_dev(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,
                            int64_t count, uint16_t* const* ys, tl_cuda_stream stream);
tl_status tl_chunk_f32_dev(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                           float* const* ys, tl_cuda_stream stream);
tl_status tl_chunk_f16_dev(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                           uint16_t* const* ys, tl_cuda_stream stream);
tl_status tl_chunk_bf16_dev(const uint16_t* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                            uint16_t* const* ys, tl_cuda_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_CUDA_TENSOR_H */
