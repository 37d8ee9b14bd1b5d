/* tinyllm/cuda/norm.h: the device-pointer twins of tinyllm/norm.h
 * (generated from it by ci/op_tables.py).
 *
 * Each tl_X_dev takes tl_X's parameters, whose semantics tinyllm/norm.h
 * gives, plus the stream its work is enqueued on; the contract (device
 * pointers for tensor data, host pointers for parameters, asynchrony) is
 * tinyllm/cuda/stream.h's. */
#ifndef TINYLLM_CUDA_NORM_H
#define TINYLLM_CUDA_NORM_H

#include <stdint.h>

#include "tinyllm/norm.h"
#include "tinyllm/cuda/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

tl_status tl_rms_norm_f32_dev(const float* x, const float* g, float* y, const int64_t* shape, int32_t ndim, float eps,
                              tl_cuda_stream stream);
tl_status tl_rms_norm_f16_dev(const uint16_t* x, const float* g, uint16_t* y, const int64_t* shape, int32_t ndim,
                              float eps, tl_cuda_stream stream);
tl_status tl_rms_norm_bf16_dev(const uint16_t* x, const float* g, uint16_t* y, const int64_t* shape, int32_t ndim,
                               float eps, tl_cuda_stream stream);
tl_status tl_layer_norm_f32_dev(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                                int32_t ndim, float eps, tl_cuda_stream stream);
tl_status tl_layer_norm_f16_dev(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                                int32_t ndim, float eps, tl_cuda_stream stream);
tl_status tl_layer_norm_bf16_dev(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                                 int32_t ndim, float eps, tl_cuda_stream stream);
tl_status tl_batch_norm_f32_dev(const float* x, const float* mean, const float* var, const float* g, const float* b,
                                float* y, const int64_t* shape, int32_t ndim, float eps, tl_cuda_stream stream);
tl_status tl_batch_norm_f16_dev(const uint16_t* x, const float* mean, const float* var, const float* g, const float* b,
                                uint16_t* y, const int64_t* shape, int32_t ndim, float eps, tl_cuda_stream stream);
tl_status tl_batch_norm_bf16_dev(const uint16_t* x, const float* mean, const float* var, const float* g, const float* b,
                                 uint16_t* y, const int64_t* shape, int32_t ndim, float eps, tl_cuda_stream stream);
tl_status tl_group_norm_f32_dev(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                                int32_t ndim, int64_t num_groups, float eps, tl_cuda_stream stream);
tl_status tl_group_norm_f16_dev(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                                int32_t ndim, int64_t num_groups, float eps, tl_cuda_stream stream);
tl_status tl_group_norm_bf16_dev(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                                 int32_t ndim, int64_t num_groups, float eps, tl_cuda_stream stream);
tl_status tl_instance_norm_f32_dev(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                                   int32_t ndim, float eps, tl_cuda_stream stream);
tl_status tl_instance_norm_f16_dev(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                                   int32_t ndim, float eps, tl_cuda_stream stream);
tl_status tl_instance_norm_bf16_dev(const uint16_t* x, const float* g, const float* b, uint16_t* y,
                                    const int64_t* shape, int32_t ndim, float eps, tl_cuda_stream stream);
tl_status tl_ada_ln_f32_dev(const float* x, const float* scale, const float* shift, float* y, const int64_t* shape,
                            int32_t ndim, float eps, tl_cuda_stream stream);
tl_status tl_ada_ln_f16_dev(const uint16_t* x, const float* scale, const float* shift, uint16_t* y,
                            const int64_t* shape, int32_t ndim, float eps, tl_cuda_stream stream);
tl_status tl_ada_ln_bf16_dev(const uint16_t* x, const float* scale, const float* shift, uint16_t* y,
                             const int64_t* shape, int32_t ndim, float eps, tl_cuda_stream stream);
tl_status tl_ada_ln_zero_f32_dev(const float* x, const float* r, const float* gate, const float* scale,
                                 const float* shift, float* h, float* y, const int64_t* shape, int32_t ndim, float eps,
                                 tl_cuda_stream stream);
tl_status tl_ada_ln_zero_f16_dev(const uint16_t* x, const uint16_t* r, const float* gate, const float* scale,
                                 const float* shift, uint16_t* h, uint16_t* y, const int64_t* shape, int32_t ndim,
                                 float eps, tl_cuda_stream stream);
tl_status tl_ada_ln_zero_bf16_dev(const uint16_t* x, const uint16_t* r, const float* gate, const float* scale,
                                  const float* shift, uint16_t* h, uint16_t* y, const int64_t* shape, int32_t ndim,
                                  float eps, tl_cuda_stream stream);
tl_status tl_fused_skip_norm_f32_dev(const float* x, const float* skip, const float* g, float* sum, float* y,
                                     const int64_t* shape, int32_t ndim, float eps, tl_cuda_stream stream);
tl_status tl_fused_skip_norm_f16_dev(const uint16_t* x, const uint16_t* skip, const float* g, uint16_t* sum,
                                     uint16_t* y, const int64_t* shape, int32_t ndim, float eps, tl_cuda_stream stream);
tl_status tl_fused_skip_norm_bf16_dev(const uint16_t* x, const uint16_t* skip, const float* g, uint16_t* sum,
                                      uint16_t* y, const int64_t* shape, int32_t ndim, float eps,
                                      tl_cuda_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_CUDA_NORM_H */
