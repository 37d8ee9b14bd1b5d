// The `scalar` backend of tinyllm/norm.h: the float instantiation of
// reference/konform/reference/norm.hpp behind the C signatures, with the
// same argument validation as libtl_kernels.
#pragma once

#include <cstdint>

#include "tinyllm/status.h"

namespace konform::scalar {

tl_status rms_norm_f32(const float* x, const float* g, float* y, const int64_t* shape, int32_t ndim, float eps);
tl_status layer_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape, int32_t ndim,
                         float eps);
tl_status batch_norm_f32(const float* x, const float* mean, const float* var, const float* g, const float* b, float* y,
                         const int64_t* shape, int32_t ndim, float eps);
tl_status group_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape, int32_t ndim,
                         int64_t num_groups, float eps);
tl_status instance_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, float eps);
tl_status ada_ln_f32(const float* x, const float* scale, const float* shift, float* y, const int64_t* shape,
                     int32_t ndim, float eps);
tl_status ada_ln_zero_f32(const float* x, const float* r, const float* gate, const float* scale, const float* shift,
                          float* h, float* y, const int64_t* shape, int32_t ndim, float eps);
tl_status fused_skip_norm_f32(const float* x, const float* skip, const float* g, float* sum, float* y,
                              const int64_t* shape, int32_t ndim, float eps);

}  // namespace konform::scalar
