// The `scalar` backend of tinyllm/sampling.h: the float instantiation of
// reference/konform/reference/sampling.hpp behind the C signature, with the
// same argument validation as libtl_kernels.
#pragma once

#include <cstdint>

#include "tinyllm/sampling.h"

namespace konform::scalar {

tl_status sample_f32(const float* logits, int32_t* tokens, int64_t rows, int64_t vocab, int32_t method,
                     float temperature, int64_t top_k, float top_p, float min_p, uint64_t seed);

}  // namespace konform::scalar
