/* tinyllm/cuda/quant.h: the device-pointer twins of tinyllm/quant.h
 * (generated from it by ci/op_tables.py).
 *
 * Each tl_X_dev takes tl_X's parameters, whose semantics tinyllm/quant.h
 * gives, plus the stream its work is enqueued on; the contract (device
 * pointers for tensor data, host pointers for parameters, asynchrony) is
 * tinyllm/cuda/stream.h's. */
#ifndef TINYLLM_CUDA_QUANT_H
#define TINYLLM_CUDA_QUANT_H

#include <stdint.h>

#include "tinyllm/quant.h"
#include "tinyllm/cuda/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

tl_status tl_quantize_q8_0_f32_dev(const float* x, void* blocks, int64_t rows, int64_t k, tl_cuda_stream stream);
tl_status tl_quantize_q4_0_f32_dev(const float* x, void* blocks, int64_t rows, int64_t k, tl_cuda_stream stream);
tl_status tl_quantize_q4_k_f32_dev(const float* x, void* blocks, int64_t rows, int64_t k, tl_cuda_stream stream);
tl_status tl_quantize_q8_0_f16_dev(const uint16_t* x, void* blocks, int64_t rows, int64_t k, tl_cuda_stream stream);
tl_status tl_quantize_q4_0_f16_dev(const uint16_t* x, void* blocks, int64_t rows, int64_t k, tl_cuda_stream stream);
tl_status tl_quantize_q4_k_f16_dev(const uint16_t* x, void* blocks, int64_t rows, int64_t k, tl_cuda_stream stream);
tl_status tl_quantize_q8_0_bf16_dev(const uint16_t* x, void* blocks, int64_t rows, int64_t k, tl_cuda_stream stream);
tl_status tl_quantize_q4_0_bf16_dev(const uint16_t* x, void* blocks, int64_t rows, int64_t k, tl_cuda_stream stream);
tl_status tl_quantize_q4_k_bf16_dev(const uint16_t* x, void* blocks, int64_t rows, int64_t k, tl_cuda_stream stream);
tl_status tl_dequantize_q8_0_f32_dev(const void* blocks, float* y, int64_t rows, int64_t k, tl_cuda_stream stream);
tl_status tl_dequantize_q4_0_f32_dev(const void* blocks, float* y, int64_t rows, int64_t k, tl_cuda_stream stream);
tl_status tl_dequantize_q4_k_f32_dev(const void* blocks, float* y, int64_t rows, int64_t k, tl_cuda_stream stream);
tl_status tl_dequantize_q8_0_f16_dev(const void* blocks, uint16_t* y, int64_t rows, int64_t k, tl_cuda_stream stream);
tl_status tl_dequantize_q4_0_f16_dev(const void* blocks, uint16_t* y, int64_t rows, int64_t k, tl_cuda_stream stream);
tl_status tl_dequantize_q4_k_f16_dev(const void* blocks, uint16_t* y, int64_t rows, int64_t k, tl_cuda_stream stream);
tl_status tl_dequantize_q8_0_bf16_dev(const void* blocks, uint16_t* y, int64_t rows, int64_t k, tl_cuda_stream stream);
tl_status tl_dequantize_q4_0_bf16_dev(const void* blocks, uint16_t* y, int64_t rows, int64_t k, tl_cuda_stream stream);
tl_status tl_dequantize_q4_k_bf16_dev(const void* blocks, uint16_t* y, int64_t rows, int64_t k, tl_cuda_stream stream);
tl_status tl_qmatmul_q8_0_f32_dev(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K,
                                  tl_cuda_stream stream);
tl_status tl_qmatmul_q4_0_f32_dev(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K,
                                  tl_cuda_stream stream);
tl_status tl_qmatmul_q4_k_f32_dev(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K,
                                  tl_cuda_stream stream);
tl_status tl_qmatmul_q8_0_q8x_f32_dev(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K,
                                      tl_cuda_stream stream);
tl_status tl_qmatmul_q4_0_q8x_f32_dev(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K,
                                      tl_cuda_stream stream);
tl_status tl_qmatmul_q4_k_q8x_f32_dev(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K,
                                      tl_cuda_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_CUDA_QUANT_H */
