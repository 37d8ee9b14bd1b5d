/* tinyllm/cuda/elementwise.h: the device-pointer twins of tinyllm/elementwise.h
 * (generated from it by ci/op_tables.py).
 *
 * Each tl_X_dev takes tl_X's parameters, whose semantics tinyllm/elementwise.h
 * gives, plus the stream its work is enqueued on; the contract (device
 * pointers for tensor data, host pointers for parameters, asynchrony) is
 * tinyllm/cuda/stream.h's. */
#ifndef TINYLLM_CUDA_ELEMENTWISE_H
#define TINYLLM_CUDA_ELEMENTWISE_H

#include <stdint.h>

#include "tinyllm/elementwise.h"
#include "tinyllm/cuda/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

void tl_rmsnorm_f32_dev(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps,
                        tl_cuda_stream stream);
void tl_rope_f32_dev(float* x, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t d_rot,
                     const float* inv_freq, float attn_scaling, int layout, tl_cuda_stream stream);
void tl_silu_mul_f32_dev(const float* gate, const float* up, float* y, int64_t n, tl_cuda_stream stream);
void tl_embedding_f32_dev(const float* table, const int32_t* ids, float* out, int64_t n, int64_t d,
                          tl_cuda_stream stream);
void tl_add_f32_dev(const float* a, const float* b, float* y, int64_t n, tl_cuda_stream stream);
int32_t tl_argmax_f32_dev(const float* x, int64_t n, tl_cuda_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_CUDA_ELEMENTWISE_H */
