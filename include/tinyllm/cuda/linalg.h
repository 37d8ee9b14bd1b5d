/* tinyllm/cuda/linalg.h: the device-pointer twins of tinyllm/linalg.h
 * (generated from it by ci/op_tables.py).
 *
 * Each tl_X_dev takes tl_X's parameters, whose semantics tinyllm/linalg.h
 * gives, plus the stream its work is enqueued on; the contract (device
 * pointers for tensor data, host pointers for parameters, asynchrony) is
 * tinyllm/cuda/stream.h's. */
#ifndef TINYLLM_CUDA_LINALG_H
#define TINYLLM_CUDA_LINALG_H

#include <stdint.h>

#include "tinyllm/linalg.h"
#include "tinyllm/cuda/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

tl_status tl_matmul_f32_dev(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K,
                            tl_cuda_stream stream);
tl_status tl_matmul_f16_dev(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N, int64_t K,
                            tl_cuda_stream stream);
tl_status tl_matmul_bf16_dev(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N, int64_t K,
                             tl_cuda_stream stream);
tl_status tl_swiglu_ffn_f32_dev(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                                int64_t M, int64_t D, int64_t H, tl_cuda_stream stream);
tl_status tl_geglu_ffn_f32_dev(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                               int64_t M, int64_t D, int64_t H, tl_ffn_gelu gelu, tl_cuda_stream stream);
tl_status tl_glu_ffn_f32_dev(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                             int64_t M, int64_t D, int64_t H, tl_cuda_stream stream);
tl_status tl_fused_swiglu_f32_dev(const float* x, const float* w_gate, const float* w_up, float* h, int64_t M,
                                  int64_t D, int64_t H, tl_cuda_stream stream);
tl_status tl_fused_norm_matmul_f32_dev(const float* x, const float* norm_w, const float* w, float* y, int64_t M,
                                       int64_t N, int64_t K, float eps, tl_cuda_stream stream);
tl_status tl_swiglu_ffn_f16_dev(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, const uint16_t* w_down,
                                uint16_t* y, int64_t M, int64_t D, int64_t H, tl_cuda_stream stream);
tl_status tl_swiglu_ffn_bf16_dev(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up,
                                 const uint16_t* w_down, uint16_t* y, int64_t M, int64_t D, int64_t H,
                                 tl_cuda_stream stream);
tl_status tl_geglu_ffn_f16_dev(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, const uint16_t* w_down,
                               uint16_t* y, int64_t M, int64_t D, int64_t H, tl_ffn_gelu gelu, tl_cuda_stream stream);
tl_status tl_geglu_ffn_bf16_dev(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, const uint16_t* w_down,
                                uint16_t* y, int64_t M, int64_t D, int64_t H, tl_ffn_gelu gelu, tl_cuda_stream stream);
tl_status tl_glu_ffn_f16_dev(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, const uint16_t* w_down,
                             uint16_t* y, int64_t M, int64_t D, int64_t H, tl_cuda_stream stream);
tl_status tl_glu_ffn_bf16_dev(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, const uint16_t* w_down,
                              uint16_t* y, int64_t M, int64_t D, int64_t H, tl_cuda_stream stream);
tl_status tl_fused_swiglu_f16_dev(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, uint16_t* h,
                                  int64_t M, int64_t D, int64_t H, tl_cuda_stream stream);
tl_status tl_fused_swiglu_bf16_dev(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, uint16_t* h,
                                   int64_t M, int64_t D, int64_t H, tl_cuda_stream stream);
tl_status tl_fused_norm_matmul_f16_dev(const uint16_t* x, const float* norm_w, const uint16_t* w, uint16_t* y,
                                       int64_t M, int64_t N, int64_t K, float eps, tl_cuda_stream stream);
tl_status tl_fused_norm_matmul_bf16_dev(const uint16_t* x, const float* norm_w, const uint16_t* w, uint16_t* y,
                                        int64_t M, int64_t N, int64_t K, float eps, tl_cuda_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_CUDA_LINALG_H */
