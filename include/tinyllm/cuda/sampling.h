/* tinyllm/cuda/sampling.h: the device-pointer twins of tinyllm/sampling.h
 * (generated from it by ci/op_tables.py).
 *
 * Each tl_X_dev takes tl_X's parameters, whose semantics tinyllm/sampling.h
 * gives, plus the stream its work is enqueued on; the contract (device
 * pointers for tensor data, host pointers for parameters, asynchrony) is
 * tinyllm/cuda/stream.h's. */
#ifndef TINYLLM_CUDA_SAMPLING_H
#define TINYLLM_CUDA_SAMPLING_H

#include <stdint.h>

#include "tinyllm/sampling.h"
#include "tinyllm/cuda/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

tl_status tl_sample_f32_dev(const float* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                            float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed,
                            tl_cuda_stream stream);
tl_status tl_sample_f16_dev(const uint16_t* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                            float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed,
                            tl_cuda_stream stream);
tl_status tl_sample_bf16_dev(const uint16_t* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                             float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed,
                             tl_cuda_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* TINYLLM_CUDA_SAMPLING_H */
