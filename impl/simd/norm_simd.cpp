// libtl_kernels: the ops of tinyllm/norm.h, compiled once per Highway target
// (foreach_target) and chosen at run time (HWY_DYNAMIC_DISPATCH). The kernels
// live in norm-inl.h; this file validates the arguments and dispatches.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/simd/norm_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "impl/simd/norm-inl.h"

#if HWY_ONCE
#include "impl/common/norm_args.hpp"
#include "tinyllm/norm.h"

namespace konform::simd {

HWY_EXPORT(NormRms);
HWY_EXPORT(NormRmsF16);
HWY_EXPORT(NormRmsBF16);
HWY_EXPORT(NormLayer);
HWY_EXPORT(NormLayerF16);
HWY_EXPORT(NormLayerBF16);
HWY_EXPORT(NormBatch);
HWY_EXPORT(NormGroup);
HWY_EXPORT(NormAdaLn);
HWY_EXPORT(NormAdaLnZero);
HWY_EXPORT(NormFusedSkip);
HWY_EXPORT(NormBatchF16);
HWY_EXPORT(NormBatchBF16);
HWY_EXPORT(NormGroupF16);
HWY_EXPORT(NormGroupBF16);
HWY_EXPORT(NormAdaLnF16);
HWY_EXPORT(NormAdaLnBF16);
HWY_EXPORT(NormAdaLnZeroF16);
HWY_EXPORT(NormAdaLnZeroBF16);
HWY_EXPORT(NormFusedSkipF16);
HWY_EXPORT(NormFusedSkipBF16);

}  // namespace konform::simd

namespace ks = konform::simd;
namespace ki = konform::impl;

extern "C" {

tl_status tl_rms_norm_f32(const float* x, const float* g, float* y, const int64_t* shape, int32_t ndim, float eps) {
  ki::RowsShape s;
  if (tl_status st = ki::check_rows("tl_rms_norm_f32", shape, ndim, eps, &s)) return st;
  HWY_DYNAMIC_DISPATCH(ks::NormRms)(x, g, y, s.rows, s.d, eps);
  return TL_OK;
}

// f16 and bf16 rows with an f32 gain (norm-inl.h's NormRmsHalf).
#define KONFORM_RMS_NORM_HALF(Dtype, Kernel)                                                                        \
  tl_status tl_rms_norm_##Dtype(const uint16_t* x, const float* g, uint16_t* y, const int64_t* shape, int32_t ndim, \
                                float eps) {                                                                        \
    ki::RowsShape s;                                                                                                \
    if (tl_status st = ki::check_rows("tl_rms_norm_" #Dtype, shape, ndim, eps, &s)) return st;                      \
    HWY_DYNAMIC_DISPATCH(ks::Kernel)(x, g, y, s.rows, s.d, eps);                                                    \
    return TL_OK;                                                                                                   \
  }
KONFORM_RMS_NORM_HALF(f16, NormRmsF16)
KONFORM_RMS_NORM_HALF(bf16, NormRmsBF16)
#undef KONFORM_RMS_NORM_HALF

tl_status tl_layer_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, float eps) {
  ki::RowsShape s;
  if (tl_status st = ki::check_rows("tl_layer_norm_f32", shape, ndim, eps, &s)) return st;
  HWY_DYNAMIC_DISPATCH(ks::NormLayer)(x, g, b, y, s.rows, s.d, eps);
  return TL_OK;
}

// f16 and bf16 rows with f32 gain and bias.
#define KONFORM_LAYER_NORM_HALF(Dtype, Kernel)                                                    \
  tl_status tl_layer_norm_##Dtype(const uint16_t* x, const float* g, const float* b, uint16_t* y, \
                                  const int64_t* shape, int32_t ndim, float eps) {                \
    ki::RowsShape s;                                                                              \
    if (tl_status st = ki::check_rows("tl_layer_norm_" #Dtype, shape, ndim, eps, &s)) return st;  \
    HWY_DYNAMIC_DISPATCH(ks::Kernel)(x, g, b, y, s.rows, s.d, eps);                               \
    return TL_OK;                                                                                 \
  }
KONFORM_LAYER_NORM_HALF(f16, NormLayerF16)
KONFORM_LAYER_NORM_HALF(bf16, NormLayerBF16)
#undef KONFORM_LAYER_NORM_HALF

tl_status tl_batch_norm_f32(const float* x, const float* mean, const float* var, const float* g, const float* b,
                            float* y, const int64_t* shape, int32_t ndim, float eps) {
  ki::ChannelShape s;
  if (tl_status st = ki::check_channels("tl_batch_norm_f32", shape, ndim, eps, false, &s)) return st;
  HWY_DYNAMIC_DISPATCH(ks::NormBatch)(x, mean, var, g, b, y, s.n, s.c, s.s, eps);
  return TL_OK;
}

tl_status tl_group_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, int64_t num_groups, float eps) {
  ki::ChannelShape s;
  if (tl_status st = ki::check_groups("tl_group_norm_f32", shape, ndim, num_groups, eps, &s)) return st;
  HWY_DYNAMIC_DISPATCH(ks::NormGroup)(x, g, b, y, s.n, s.c, s.s, num_groups, eps);
  return TL_OK;
}

tl_status tl_instance_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                               int32_t ndim, float eps) {
  ki::ChannelShape s;
  if (tl_status st = ki::check_channels("tl_instance_norm_f32", shape, ndim, eps, true, &s)) return st;
  HWY_DYNAMIC_DISPATCH(ks::NormGroup)(x, g, b, y, s.n, s.c, s.s, s.c, eps);
  return TL_OK;
}

tl_status tl_ada_ln_f32(const float* x, const float* scale, const float* shift, float* y, const int64_t* shape,
                        int32_t ndim, float eps) {
  ki::SampleShape s;
  if (tl_status st = ki::check_samples("tl_ada_ln_f32", shape, ndim, eps, &s)) return st;
  HWY_DYNAMIC_DISPATCH(ks::NormAdaLn)(x, scale, shift, y, s.batch, s.tokens, s.d, eps);
  return TL_OK;
}

tl_status tl_ada_ln_zero_f32(const float* x, const float* r, const float* gate, const float* scale, const float* shift,
                             float* h, float* y, const int64_t* shape, int32_t ndim, float eps) {
  ki::SampleShape s;
  if (tl_status st = ki::check_samples("tl_ada_ln_zero_f32", shape, ndim, eps, &s)) return st;
  HWY_DYNAMIC_DISPATCH(ks::NormAdaLnZero)(x, r, gate, scale, shift, h, y, s.batch, s.tokens, s.d, eps);
  return TL_OK;
}

tl_status tl_fused_skip_norm_f32(const float* x, const float* skip, const float* g, float* sum, float* y,
                                 const int64_t* shape, int32_t ndim, float eps) {
  ki::RowsShape s;
  if (tl_status st = ki::check_rows("tl_fused_skip_norm_f32", shape, ndim, eps, &s)) return st;
  HWY_DYNAMIC_DISPATCH(ks::NormFusedSkip)(x, skip, g, sum, y, s.rows, s.d, eps);
  return TL_OK;
}

// The f16 and bf16 twins (norm-inl.h's *Half kernels): the f32 functions'
// checks, then the kernel of the dtype.
#define KONFORM_NORM_HALF(Dtype, Suffix)                                                                             \
  tl_status tl_batch_norm_##Dtype(const uint16_t* x, const float* mean, const float* var, const float* g,            \
                                  const float* b, uint16_t* y, const int64_t* shape, int32_t ndim, float eps) {      \
    ki::ChannelShape s;                                                                                              \
    if (tl_status st = ki::check_channels("tl_batch_norm_" #Dtype, shape, ndim, eps, false, &s)) return st;          \
    HWY_DYNAMIC_DISPATCH(ks::NormBatch##Suffix)(x, mean, var, g, b, y, s.n, s.c, s.s, eps);                          \
    return TL_OK;                                                                                                    \
  }                                                                                                                  \
  tl_status tl_group_norm_##Dtype(const uint16_t* x, const float* g, const float* b, uint16_t* y,                    \
                                  const int64_t* shape, int32_t ndim, int64_t num_groups, float eps) {               \
    ki::ChannelShape s;                                                                                              \
    if (tl_status st = ki::check_groups("tl_group_norm_" #Dtype, shape, ndim, num_groups, eps, &s)) return st;       \
    HWY_DYNAMIC_DISPATCH(ks::NormGroup##Suffix)(x, g, b, y, s.n, s.c, s.s, num_groups, eps);                         \
    return TL_OK;                                                                                                    \
  }                                                                                                                  \
  tl_status tl_instance_norm_##Dtype(const uint16_t* x, const float* g, const float* b, uint16_t* y,                 \
                                     const int64_t* shape, int32_t ndim, float eps) {                                \
    ki::ChannelShape s;                                                                                              \
    if (tl_status st = ki::check_channels("tl_instance_norm_" #Dtype, shape, ndim, eps, true, &s)) return st;        \
    if (s.c > 0) HWY_DYNAMIC_DISPATCH(ks::NormGroup##Suffix)(x, g, b, y, s.n, s.c, s.s, s.c, eps);                   \
    return TL_OK;                                                                                                    \
  }                                                                                                                  \
  tl_status tl_ada_ln_##Dtype(const uint16_t* x, const float* scale, const float* shift, uint16_t* y,                \
                              const int64_t* shape, int32_t ndim, float eps) {                                       \
    ki::SampleShape s;                                                                                               \
    if (tl_status st = ki::check_samples("tl_ada_ln_" #Dtype, shape, ndim, eps, &s)) return st;                      \
    HWY_DYNAMIC_DISPATCH(ks::NormAdaLn##Suffix)(x, scale, shift, y, s.batch, s.tokens, s.d, eps);                    \
    return TL_OK;                                                                                                    \
  }                                                                                                                  \
  tl_status tl_ada_ln_zero_##Dtype(const uint16_t* x, const uint16_t* r, const float* gate, const float* scale,      \
                                   const float* shift, uint16_t* h, uint16_t* y, const int64_t* shape, int32_t ndim, \
                                   float eps) {                                                                      \
    ki::SampleShape s;                                                                                               \
    if (tl_status st = ki::check_samples("tl_ada_ln_zero_" #Dtype, shape, ndim, eps, &s)) return st;                 \
    HWY_DYNAMIC_DISPATCH(ks::NormAdaLnZero##Suffix)(x, r, gate, scale, shift, h, y, s.batch, s.tokens, s.d, eps);    \
    return TL_OK;                                                                                                    \
  }                                                                                                                  \
  tl_status tl_fused_skip_norm_##Dtype(const uint16_t* x, const uint16_t* skip, const float* g, uint16_t* sum,       \
                                       uint16_t* y, const int64_t* shape, int32_t ndim, float eps) {                 \
    ki::RowsShape s;                                                                                                 \
    if (tl_status st = ki::check_rows("tl_fused_skip_norm_" #Dtype, shape, ndim, eps, &s)) return st;                \
    HWY_DYNAMIC_DISPATCH(ks::NormFusedSkip##Suffix)(x, skip, g, sum, y, s.rows, s.d, eps);                           \
    return TL_OK;                                                                                                    \
  }
KONFORM_NORM_HALF(f16, F16)
KONFORM_NORM_HALF(bf16, BF16)
#undef KONFORM_NORM_HALF

}  // extern "C"
#endif  // HWY_ONCE
