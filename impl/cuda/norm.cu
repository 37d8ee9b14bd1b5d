// libtl_cuda: tinyllm/norm.h on a CUDA device and its device-pointer twins,
// as elementwise.cu. The checks are libtl_kernels' (impl/common/norm_args.hpp),
// run before any CUDA call. Every statistic is summed in double and
// tree-reduced (reduce.cuh): any order then meets the pairwise bound the
// limits assume (docs/ops-norm.md); the mean is rounded to float once and
// 1 / sqrt(var + eps) formed in double, as libtl_kernels does; the output
// expressions round as the oracle's float ones (reference/.../norm.hpp).
#include <cstdint>

#include "impl/common/norm_args.hpp"
#include "impl/cuda/abi.cuh"
#include "impl/cuda/arith.cuh"
#include "impl/cuda/grid.cuh"
#include "impl/cuda/map.cuh"
#include "impl/cuda/reduce.cuh"
#include "impl/cuda/rms.cuh"
#include "tinyllm/cuda/norm.h"

namespace kc = konform::cuda;
namespace ki = konform::impl;

namespace konform::cuda {

struct Stats {
  float mean, inv;
};

// Two passes over x[0, n) by one block, every thread gets the result: the
// mean, then the mean square about it (never mean(x^2) - mean^2). x f32
// (AsFloat), or f16 or bf16 (F16, BF16: map.cuh) widened as it is read.
template <class Format = AsFloat, class T>
__device__ inline Stats line_stats(const T* x, int64_t n, float eps, double* shared) {
  double sum = 0.0;
  for (int64_t i = threadIdx.x; i < n; i += kLineThreads) sum += Format::widen(x[i]);
  const double mean = reduce_block<kLineThreads>(sum, shared, Plus{}) / static_cast<double>(n);
  double sq = 0.0;
  for (int64_t i = threadIdx.x; i < n; i += kLineThreads) {
    const double c = Format::widen(x[i]) - mean;
    sq += c * c;
  }
  const double var = reduce_block<kLineThreads>(sq, shared, Plus{}) / static_cast<double>(n);
  return {static_cast<float>(mean), static_cast<float>(1.0 / sqrt(var + static_cast<double>(eps)))};
}

// The affine maps of t = (x - mean) * inv, element i of line `line`.
struct GainBias {  // LayerNorm: t * g[i] + b[i]
  const float *g, *b;
  __device__ float operator()(int64_t, int64_t i, float t) const { return t * g[i] + b[i]; }
};
struct GroupGainBias {  // GroupNorm, InstanceNorm: a line is a (sample, group), s positions per channel
  const float *g, *b;
  int64_t groups, channels_per_group, s;
  __device__ float operator()(int64_t line, int64_t i, float t) const {
    const int64_t c = (line % groups) * channels_per_group + i / s;
    return t * g[c] + b[c];
  }
};
struct Modulation {  // AdaLN: t * (1 + scale[s, i]) + shift[s, i], sample s = line / tokens
  const float *scale, *shift;
  int64_t tokens, d;
  __device__ float operator()(int64_t line, int64_t i, float t) const {
    const int64_t k = (line / tokens) * d + i;
    return t * (1.0f + scale[k]) + shift[k];
  }
};

// y = affine((x - mean) * inv) over `lines` contiguous lines of n, one block
// of kLineThreads per line (grid-striding): a line's bits depend on n only.
// y == x is safe: line_stats' reductions end every read but the thread's own
// x[i] before it writes y[i].
template <class Affine, class Format, class T>
__global__ void normalize_lines(const T* x, T* y, int64_t lines, int64_t n, float eps, Affine affine) {
  __shared__ double shared[kLineThreads];
  for (int64_t line = blockIdx.x; line < lines; line += gridDim.x) {
    const T* xl = x + line * n;
    const Stats s = line_stats<Format>(xl, n, eps, shared);
    for (int64_t i = threadIdx.x; i < n; i += kLineThreads)
      y[line * n + i] = Format::narrow(affine(line, i, (Format::widen(xl[i]) - s.mean) * s.inv));
  }
}

// f32 lines by default; f16 or bf16 lines with Format F16 or BF16, the
// statistics and the affine map in float, y rounded once.
template <class Format = AsFloat, class Affine, class T>
void run_normalize(const T* x, T* y, int64_t lines, int64_t n, float eps, Affine affine, const char* where,
                   tl_cuda_stream stream) {
  launch(normalize_lines<Affine, Format, T>, grid_for_lines(lines), kLineThreads, stream, x, y, lines, n, eps, affine);
  check_launch(where);
}

// BatchNorm, one thread per element (y == x safe) of x[n, c, s]: the running statistics of
// its channel, y = (x - mean) * (1 / sqrtf(var + eps)) * g + b in float.
// x and y f32 (AsFloat), or f16 or bf16 widened as read and rounded once.
template <class Format, class T>
__global__ void batch_norm(const T* x, const float* mean, const float* var, const float* g, const float* b, T* y,
                           int64_t total, int64_t c, int64_t s, float eps) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += stride) {
    const int64_t ch = (k / s) % c;
    const float inv = 1.0f / sqrtf(var[ch] + eps);
    y[k] = Format::narrow((Format::widen(x[k]) - mean[ch]) * inv * g[ch] + b[ch]);
  }
}

// AdaLN-Zero's h = x + gate[sample, i] * r: the product and the sum each
// rounded to float (--fmad=false keeps them apart), as the unfused Mul, Add.
// Per element, so h == x is safe.
// In f16 or bf16 (Format F16, BF16) x and r widened, h the float h rounded
// once to the dtype.
template <class Format, class T>
__global__ void gated_residual(const T* x, const T* r, const float* gate, T* h, int64_t total, int64_t tokens,
                               int64_t d) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += stride)
    h[k] = Format::narrow(Format::widen(x[k]) + gate[k / (tokens * d) * d + k % d] * Format::widen(r[k]));
}

// FusedSkipNorm's sum in f16 or bf16: added in float, rounded once (per
// element, so sum == x or sum == skip is safe).
template <class Format>
__global__ void skip_sum_half(const uint16_t* x, const uint16_t* skip, uint16_t* sum, int64_t total) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += stride)
    sum[k] = Format::narrow(Format::widen(x[k]) + Format::widen(skip[k]));
}

}  // namespace konform::cuda

TL_CUDA_EXPORT tl_status tl_rms_norm_f32_dev(const float* x, const float* g, float* y, const int64_t* shape,
                                             int32_t ndim, float eps, tl_cuda_stream stream) {
  ki::RowsShape s;
  if (tl_status st = ki::check_rows("tl_rms_norm_f32", shape, ndim, eps, &s)) return st;
  if (s.rows == 0) return TL_OK;
  kc::launch_rmsnorm(x, g, y, s.rows, s.d, eps, stream);
  kc::check_launch("tl_rms_norm_f32_dev");
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_rms_norm_f32(const float* x, const float* g, float* y, const int64_t* shape, int32_t ndim,
                                         float eps) {
  ki::RowsShape s;
  if (tl_status st = ki::check_rows("tl_rms_norm_f32", shape, ndim, eps, &s)) return st;
  if (s.rows == 0) return TL_OK;
  return kc::on_device("tl_rms_norm_f32", tl_rms_norm_f32_dev, kc::in(x, s.rows * s.d), kc::in(g, s.d),
                       kc::out(y, s.rows * s.d), shape, ndim, eps);
}

// f16 and bf16 rows with an f32 gain: rms.cuh's kernel on widened elements.
#define TL_CUDA_RMS_NORM_HALF(Dtype, Format)                                                                         \
  TL_CUDA_EXPORT tl_status tl_rms_norm_##Dtype##_dev(const uint16_t* x, const float* g, uint16_t* y,                 \
                                                     const int64_t* shape, int32_t ndim, float eps,                  \
                                                     tl_cuda_stream stream) {                                        \
    ki::RowsShape s;                                                                                                 \
    if (tl_status st = ki::check_rows("tl_rms_norm_" #Dtype, shape, ndim, eps, &s)) return st;                       \
    if (s.rows == 0) return TL_OK;                                                                                   \
    kc::launch_rmsnorm<kc::Format>(x, g, y, s.rows, s.d, eps, stream);                                               \
    kc::check_launch("tl_rms_norm_" #Dtype "_dev");                                                                  \
    return TL_OK;                                                                                                    \
  }                                                                                                                  \
  TL_CUDA_EXPORT tl_status tl_rms_norm_##Dtype(const uint16_t* x, const float* g, uint16_t* y, const int64_t* shape, \
                                               int32_t ndim, float eps) {                                            \
    ki::RowsShape s;                                                                                                 \
    if (tl_status st = ki::check_rows("tl_rms_norm_" #Dtype, shape, ndim, eps, &s)) return st;                       \
    if (s.rows == 0) return TL_OK;                                                                                   \
    return kc::on_device("tl_rms_norm_" #Dtype, tl_rms_norm_##Dtype##_dev, kc::in(x, s.rows * s.d), kc::in(g, s.d),  \
                         kc::out(y, s.rows * s.d), shape, ndim, eps);                                                \
  }
TL_CUDA_RMS_NORM_HALF(f16, F16)
TL_CUDA_RMS_NORM_HALF(bf16, BF16)
#undef TL_CUDA_RMS_NORM_HALF

TL_CUDA_EXPORT tl_status tl_layer_norm_f32_dev(const float* x, const float* g, const float* b, float* y,
                                               const int64_t* shape, int32_t ndim, float eps, tl_cuda_stream stream) {
  ki::RowsShape s;
  if (tl_status st = ki::check_rows("tl_layer_norm_f32", shape, ndim, eps, &s)) return st;
  if (s.rows == 0) return TL_OK;
  kc::run_normalize(x, y, s.rows, s.d, eps, kc::GainBias{g, b}, "tl_layer_norm_f32_dev", stream);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_layer_norm_f32(const float* x, const float* g, const float* b, float* y,
                                           const int64_t* shape, int32_t ndim, float eps) {
  ki::RowsShape s;
  if (tl_status st = ki::check_rows("tl_layer_norm_f32", shape, ndim, eps, &s)) return st;
  if (s.rows == 0) return TL_OK;
  return kc::on_device("tl_layer_norm_f32", tl_layer_norm_f32_dev, kc::in(x, s.rows * s.d), kc::in(g, s.d),
                       kc::in(b, s.d), kc::out(y, s.rows * s.d), shape, ndim, eps);
}

// f16 and bf16 rows with f32 gain and bias: normalize_lines on widened elements.
#define TL_CUDA_LAYER_NORM_HALF(Dtype, Format)                                                                         \
  TL_CUDA_EXPORT tl_status tl_layer_norm_##Dtype##_dev(const uint16_t* x, const float* g, const float* b, uint16_t* y, \
                                                       const int64_t* shape, int32_t ndim, float eps,                  \
                                                       tl_cuda_stream stream) {                                        \
    ki::RowsShape s;                                                                                                   \
    if (tl_status st = ki::check_rows("tl_layer_norm_" #Dtype, shape, ndim, eps, &s)) return st;                       \
    if (s.rows == 0) return TL_OK;                                                                                     \
    kc::run_normalize<kc::Format>(x, y, s.rows, s.d, eps, kc::GainBias{g, b}, "tl_layer_norm_" #Dtype "_dev", stream); \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_layer_norm_##Dtype(const uint16_t* x, const float* g, const float* b, uint16_t* y,       \
                                                 const int64_t* shape, int32_t ndim, float eps) {                      \
    ki::RowsShape s;                                                                                                   \
    if (tl_status st = ki::check_rows("tl_layer_norm_" #Dtype, shape, ndim, eps, &s)) return st;                       \
    if (s.rows == 0) return TL_OK;                                                                                     \
    return kc::on_device("tl_layer_norm_" #Dtype, tl_layer_norm_##Dtype##_dev, kc::in(x, s.rows * s.d),                \
                         kc::in(g, s.d), kc::in(b, s.d), kc::out(y, s.rows * s.d), shape, ndim, eps);                  \
  }
TL_CUDA_LAYER_NORM_HALF(f16, F16)
TL_CUDA_LAYER_NORM_HALF(bf16, BF16)
#undef TL_CUDA_LAYER_NORM_HALF

TL_CUDA_EXPORT tl_status tl_batch_norm_f32_dev(const float* x, const float* mean, const float* var, const float* g,
                                               const float* b, float* y, const int64_t* shape, int32_t ndim, float eps,
                                               tl_cuda_stream stream) {
  ki::ChannelShape s;
  if (tl_status st = ki::check_channels("tl_batch_norm_f32", shape, ndim, eps, false, &s)) return st;
  const int64_t total = s.n * s.c * s.s;
  if (total == 0) return TL_OK;
  kc::launch(kc::batch_norm<kc::AsFloat, float>, kc::grid_for(total, kc::kThreads), kc::kThreads, stream, x, mean, var,
             g, b, y, total, s.c, s.s, eps);
  kc::check_launch("tl_batch_norm_f32_dev");
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_batch_norm_f32(const float* x, const float* mean, const float* var, const float* g,
                                           const float* b, float* y, const int64_t* shape, int32_t ndim, float eps) {
  ki::ChannelShape s;
  if (tl_status st = ki::check_channels("tl_batch_norm_f32", shape, ndim, eps, false, &s)) return st;
  const int64_t total = s.n * s.c * s.s;
  if (total == 0) return TL_OK;
  return kc::on_device("tl_batch_norm_f32", tl_batch_norm_f32_dev, kc::in(x, total), kc::in(mean, s.c),
                       kc::in(var, s.c), kc::in(g, s.c), kc::in(b, s.c), kc::out(y, total), shape, ndim, eps);
}

namespace {

// GroupNorm and InstanceNorm: lines of c / groups * s contiguous elements.
// x and y f32, or f16 or bf16 with Format F16 or BF16.
template <class Format = kc::AsFloat, class T>
void group_norm(const T* x, const float* g, const float* b, T* y, const ki::ChannelShape& s, int64_t groups, float eps,
                const char* where, tl_cuda_stream stream) {
  if (s.n == 0) return;
  const int64_t per_group = s.c / groups;
  kc::run_normalize<Format>(x, y, s.n * groups, per_group * s.s, eps, kc::GroupGainBias{g, b, groups, per_group, s.s},
                            where, stream);
}

// Their host functions: x, g, b in, y out.
template <class Dev, class T, class... Params>
tl_status group_norm_host(const char* where, Dev dev, const ki::ChannelShape& s, const T* x, const float* g,
                          const float* b, T* y, Params... params) {
  const int64_t total = s.n * s.c * s.s;
  if (total == 0) return TL_OK;
  return kc::on_device(where, dev, kc::in(x, total), kc::in(g, s.c), kc::in(b, s.c), kc::out(y, total), params...);
}

}  // namespace

TL_CUDA_EXPORT tl_status tl_group_norm_f32_dev(const float* x, const float* g, const float* b, float* y,
                                               const int64_t* shape, int32_t ndim, int64_t num_groups, float eps,
                                               tl_cuda_stream stream) {
  ki::ChannelShape s;
  if (tl_status st = ki::check_groups("tl_group_norm_f32", shape, ndim, num_groups, eps, &s)) return st;
  group_norm(x, g, b, y, s, num_groups, eps, "tl_group_norm_f32_dev", stream);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_group_norm_f32(const float* x, const float* g, const float* b, float* y,
                                           const int64_t* shape, int32_t ndim, int64_t num_groups, float eps) {
  ki::ChannelShape s;
  if (tl_status st = ki::check_groups("tl_group_norm_f32", shape, ndim, num_groups, eps, &s)) return st;
  return group_norm_host("tl_group_norm_f32", tl_group_norm_f32_dev, s, x, g, b, y, shape, ndim, num_groups, eps);
}

TL_CUDA_EXPORT tl_status tl_instance_norm_f32_dev(const float* x, const float* g, const float* b, float* y,
                                                  const int64_t* shape, int32_t ndim, float eps,
                                                  tl_cuda_stream stream) {
  ki::ChannelShape s;
  if (tl_status st = ki::check_channels("tl_instance_norm_f32", shape, ndim, eps, true, &s)) return st;
  if (s.c == 0) return TL_OK;  // no channel: no line (and no group count to divide by)
  group_norm(x, g, b, y, s, s.c, eps, "tl_instance_norm_f32_dev", stream);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_instance_norm_f32(const float* x, const float* g, const float* b, float* y,
                                              const int64_t* shape, int32_t ndim, float eps) {
  ki::ChannelShape s;
  if (tl_status st = ki::check_channels("tl_instance_norm_f32", shape, ndim, eps, true, &s)) return st;
  return group_norm_host("tl_instance_norm_f32", tl_instance_norm_f32_dev, s, x, g, b, y, shape, ndim, eps);
}

TL_CUDA_EXPORT tl_status tl_ada_ln_f32_dev(const float* x, const float* scale, const float* shift, float* y,
                                           const int64_t* shape, int32_t ndim, float eps, tl_cuda_stream stream) {
  ki::SampleShape s;
  if (tl_status st = ki::check_samples("tl_ada_ln_f32", shape, ndim, eps, &s)) return st;
  if (s.batch * s.tokens == 0) return TL_OK;
  kc::run_normalize(x, y, s.batch * s.tokens, s.d, eps, kc::Modulation{scale, shift, s.tokens, s.d},
                    "tl_ada_ln_f32_dev", stream);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_ada_ln_f32(const float* x, const float* scale, const float* shift, float* y,
                                       const int64_t* shape, int32_t ndim, float eps) {
  ki::SampleShape s;
  if (tl_status st = ki::check_samples("tl_ada_ln_f32", shape, ndim, eps, &s)) return st;
  const int64_t total = s.batch * s.tokens * s.d;
  if (s.batch * s.tokens == 0) return TL_OK;
  return kc::on_device("tl_ada_ln_f32", tl_ada_ln_f32_dev, kc::in(x, total), kc::in(scale, s.batch * s.d),
                       kc::in(shift, s.batch * s.d), kc::out(y, total), shape, ndim, eps);
}

// h, then y from h: h == x is safe (gated_residual is per element).
TL_CUDA_EXPORT tl_status tl_ada_ln_zero_f32_dev(const float* x, const float* r, const float* gate, const float* scale,
                                                const float* shift, float* h, float* y, const int64_t* shape,
                                                int32_t ndim, float eps, tl_cuda_stream stream) {
  ki::SampleShape s;
  if (tl_status st = ki::check_samples("tl_ada_ln_zero_f32", shape, ndim, eps, &s)) return st;
  const int64_t lines = s.batch * s.tokens, total = lines * s.d;
  if (lines == 0) return TL_OK;
  const char* where = "tl_ada_ln_zero_f32_dev";
  kc::launch(kc::gated_residual<kc::AsFloat, float>, kc::grid_for(total, kc::kThreads), kc::kThreads, stream, x, r,
             gate, h, total, s.tokens, s.d);
  kc::check_launch(where);
  kc::run_normalize(h, y, lines, s.d, eps, kc::Modulation{scale, shift, s.tokens, s.d}, where, stream);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_ada_ln_zero_f32(const float* x, const float* r, const float* gate, const float* scale,
                                            const float* shift, float* h, float* y, const int64_t* shape, int32_t ndim,
                                            float eps) {
  ki::SampleShape s;
  if (tl_status st = ki::check_samples("tl_ada_ln_zero_f32", shape, ndim, eps, &s)) return st;
  const int64_t lines = s.batch * s.tokens, total = lines * s.d, bd = s.batch * s.d;
  if (lines == 0) return TL_OK;
  return kc::on_device("tl_ada_ln_zero_f32", tl_ada_ln_zero_f32_dev, kc::in(x, total), kc::in(r, total),
                       kc::in(gate, bd), kc::in(scale, bd), kc::in(shift, bd), kc::out(h, total), kc::out(y, total),
                       shape, ndim, eps);
}

// sum = x + skip (sum == x or sum == skip is safe: per element), then y = RmsNorm(sum).
TL_CUDA_EXPORT tl_status tl_fused_skip_norm_f32_dev(const float* x, const float* skip, const float* g, float* sum,
                                                    float* y, const int64_t* shape, int32_t ndim, float eps,
                                                    tl_cuda_stream stream) {
  ki::RowsShape s;
  if (tl_status st = ki::check_rows("tl_fused_skip_norm_f32", shape, ndim, eps, &s)) return st;
  const int64_t total = s.rows * s.d;
  if (total == 0) return TL_OK;
  const char* where = "tl_fused_skip_norm_f32_dev";
  kc::run_map2(x, skip, sum, total, kc::Add{}, where, stream);
  kc::launch_rmsnorm(sum, g, y, s.rows, s.d, eps, stream);
  kc::check_launch(where);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_fused_skip_norm_f32(const float* x, const float* skip, const float* g, float* sum, float* y,
                                                const int64_t* shape, int32_t ndim, float eps) {
  ki::RowsShape s;
  if (tl_status st = ki::check_rows("tl_fused_skip_norm_f32", shape, ndim, eps, &s)) return st;
  const int64_t total = s.rows * s.d;
  if (total == 0) return TL_OK;
  return kc::on_device("tl_fused_skip_norm_f32", tl_fused_skip_norm_f32_dev, kc::in(x, total), kc::in(skip, total),
                       kc::in(g, s.d), kc::out(sum, total), kc::out(y, total), shape, ndim, eps);
}

// ---------------------------------------------------------------- f16, bf16

// The f16 and bf16 twins of BatchNorm, GroupNorm, InstanceNorm, AdaLN,
// AdaLN-Zero and FusedSkipNorm: the f32 kernels on elements widened as they
// are read, each output rounded once; AdaLN-Zero's h and FusedSkipNorm's sum
// stored in the dtype first and the norm taken of the stored values.
#define TL_CUDA_NORM_HALF(Dtype, Format)                                                                               \
  TL_CUDA_EXPORT tl_status tl_batch_norm_##Dtype##_dev(                                                                \
      const uint16_t* x, const float* mean, const float* var, const float* g, const float* b, uint16_t* y,             \
      const int64_t* shape, int32_t ndim, float eps, tl_cuda_stream stream) {                                          \
    ki::ChannelShape s;                                                                                                \
    if (tl_status st = ki::check_channels("tl_batch_norm_" #Dtype, shape, ndim, eps, false, &s)) return st;            \
    const int64_t total = s.n * s.c * s.s;                                                                             \
    if (total == 0) return TL_OK;                                                                                      \
    kc::launch(kc::batch_norm<kc::Format, uint16_t>, kc::grid_for(total, kc::kThreads), kc::kThreads, stream, x, mean, \
               var, g, b, y, total, s.c, s.s, eps);                                                                    \
    kc::check_launch("tl_batch_norm_" #Dtype "_dev");                                                                  \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_batch_norm_##Dtype(const uint16_t* x, const float* mean, const float* var,               \
                                                 const float* g, const float* b, uint16_t* y, const int64_t* shape,    \
                                                 int32_t ndim, float eps) {                                            \
    ki::ChannelShape s;                                                                                                \
    if (tl_status st = ki::check_channels("tl_batch_norm_" #Dtype, shape, ndim, eps, false, &s)) return st;            \
    const int64_t total = s.n * s.c * s.s;                                                                             \
    if (total == 0) return TL_OK;                                                                                      \
    return kc::on_device("tl_batch_norm_" #Dtype, tl_batch_norm_##Dtype##_dev, kc::in(x, total), kc::in(mean, s.c),    \
                         kc::in(var, s.c), kc::in(g, s.c), kc::in(b, s.c), kc::out(y, total), shape, ndim, eps);       \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_group_norm_##Dtype##_dev(const uint16_t* x, const float* g, const float* b, uint16_t* y, \
                                                       const int64_t* shape, int32_t ndim, int64_t num_groups,         \
                                                       float eps, tl_cuda_stream stream) {                             \
    ki::ChannelShape s;                                                                                                \
    if (tl_status st = ki::check_groups("tl_group_norm_" #Dtype, shape, ndim, num_groups, eps, &s)) return st;         \
    group_norm<kc::Format>(x, g, b, y, s, num_groups, eps, "tl_group_norm_" #Dtype "_dev", stream);                    \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_group_norm_##Dtype(const uint16_t* x, const float* g, const float* b, uint16_t* y,       \
                                                 const int64_t* shape, int32_t ndim, int64_t num_groups, float eps) {  \
    ki::ChannelShape s;                                                                                                \
    if (tl_status st = ki::check_groups("tl_group_norm_" #Dtype, shape, ndim, num_groups, eps, &s)) return st;         \
    return group_norm_host("tl_group_norm_" #Dtype, tl_group_norm_##Dtype##_dev, s, x, g, b, y, shape, ndim,           \
                           num_groups, eps);                                                                           \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_instance_norm_##Dtype##_dev(const uint16_t* x, const float* g, const float* b,           \
                                                          uint16_t* y, const int64_t* shape, int32_t ndim, float eps,  \
                                                          tl_cuda_stream stream) {                                     \
    ki::ChannelShape s;                                                                                                \
    if (tl_status st = ki::check_channels("tl_instance_norm_" #Dtype, shape, ndim, eps, true, &s)) return st;          \
    if (s.c == 0) return TL_OK;                                                                                        \
    group_norm<kc::Format>(x, g, b, y, s, s.c, eps, "tl_instance_norm_" #Dtype "_dev", stream);                        \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_instance_norm_##Dtype(const uint16_t* x, const float* g, const float* b, uint16_t* y,    \
                                                    const int64_t* shape, int32_t ndim, float eps) {                   \
    ki::ChannelShape s;                                                                                                \
    if (tl_status st = ki::check_channels("tl_instance_norm_" #Dtype, shape, ndim, eps, true, &s)) return st;          \
    return group_norm_host("tl_instance_norm_" #Dtype, tl_instance_norm_##Dtype##_dev, s, x, g, b, y, shape, ndim,     \
                           eps);                                                                                       \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_ada_ln_##Dtype##_dev(const uint16_t* x, const float* scale, const float* shift,          \
                                                   uint16_t* y, const int64_t* shape, int32_t ndim, float eps,         \
                                                   tl_cuda_stream stream) {                                            \
    ki::SampleShape s;                                                                                                 \
    if (tl_status st = ki::check_samples("tl_ada_ln_" #Dtype, shape, ndim, eps, &s)) return st;                        \
    if (s.batch * s.tokens == 0) return TL_OK;                                                                         \
    kc::run_normalize<kc::Format>(x, y, s.batch * s.tokens, s.d, eps, kc::Modulation{scale, shift, s.tokens, s.d},     \
                                  "tl_ada_ln_" #Dtype "_dev", stream);                                                 \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_ada_ln_##Dtype(const uint16_t* x, const float* scale, const float* shift, uint16_t* y,   \
                                             const int64_t* shape, int32_t ndim, float eps) {                          \
    ki::SampleShape s;                                                                                                 \
    if (tl_status st = ki::check_samples("tl_ada_ln_" #Dtype, shape, ndim, eps, &s)) return st;                        \
    const int64_t total = s.batch * s.tokens * s.d;                                                                    \
    if (s.batch * s.tokens == 0) return TL_OK;                                                                         \
    return kc::on_device("tl_ada_ln_" #Dtype, tl_ada_ln_##Dtype##_dev, kc::in(x, total), kc::in(scale, s.batch * s.d), \
                         kc::in(shift, s.batch * s.d), kc::out(y, total), shape, ndim, eps);                           \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_ada_ln_zero_##Dtype##_dev(                                                               \
      const uint16_t* x, const uint16_t* r, const float* gate, const float* scale, const float* shift, uint16_t* h,    \
      uint16_t* y, const int64_t* shape, int32_t ndim, float eps, tl_cuda_stream stream) {                             \
    ki::SampleShape s;                                                                                                 \
    if (tl_status st = ki::check_samples("tl_ada_ln_zero_" #Dtype, shape, ndim, eps, &s)) return st;                   \
    const int64_t lines = s.batch * s.tokens, total = lines * s.d;                                                     \
    if (lines == 0) return TL_OK;                                                                                      \
    const char* where = "tl_ada_ln_zero_" #Dtype "_dev";                                                               \
    kc::launch(kc::gated_residual<kc::Format, uint16_t>, kc::grid_for(total, kc::kThreads), kc::kThreads, stream, x,   \
               r, gate, h, total, s.tokens, s.d);                                                                      \
    kc::check_launch(where);                                                                                           \
    kc::run_normalize<kc::Format>(h, y, lines, s.d, eps, kc::Modulation{scale, shift, s.tokens, s.d}, where, stream);  \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_ada_ln_zero_##Dtype(const uint16_t* x, const uint16_t* r, const float* gate,             \
                                                  const float* scale, const float* shift, uint16_t* h, uint16_t* y,    \
                                                  const int64_t* shape, int32_t ndim, float eps) {                     \
    ki::SampleShape s;                                                                                                 \
    if (tl_status st = ki::check_samples("tl_ada_ln_zero_" #Dtype, shape, ndim, eps, &s)) return st;                   \
    const int64_t lines = s.batch * s.tokens, total = lines * s.d, bd = s.batch * s.d;                                 \
    if (lines == 0) return TL_OK;                                                                                      \
    return kc::on_device("tl_ada_ln_zero_" #Dtype, tl_ada_ln_zero_##Dtype##_dev, kc::in(x, total), kc::in(r, total),   \
                         kc::in(gate, bd), kc::in(scale, bd), kc::in(shift, bd), kc::out(h, total), kc::out(y, total), \
                         shape, ndim, eps);                                                                            \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_fused_skip_norm_##Dtype##_dev(const uint16_t* x, const uint16_t* skip, const float* g,   \
                                                            uint16_t* sum, uint16_t* y, const int64_t* shape,          \
                                                            int32_t ndim, float eps, tl_cuda_stream stream) {          \
    ki::RowsShape s;                                                                                                   \
    if (tl_status st = ki::check_rows("tl_fused_skip_norm_" #Dtype, shape, ndim, eps, &s)) return st;                  \
    const int64_t total = s.rows * s.d;                                                                                \
    if (total == 0) return TL_OK;                                                                                      \
    const char* where = "tl_fused_skip_norm_" #Dtype "_dev";                                                           \
    kc::launch(kc::skip_sum_half<kc::Format>, kc::grid_for(total, kc::kThreads), kc::kThreads, stream, x, skip, sum,   \
               total);                                                                                                 \
    kc::check_launch(where);                                                                                           \
    kc::launch_rmsnorm<kc::Format>(sum, g, y, s.rows, s.d, eps, stream);                                               \
    kc::check_launch(where);                                                                                           \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_fused_skip_norm_##Dtype(const uint16_t* x, const uint16_t* skip, const float* g,         \
                                                      uint16_t* sum, uint16_t* y, const int64_t* shape, int32_t ndim,  \
                                                      float eps) {                                                     \
    ki::RowsShape s;                                                                                                   \
    if (tl_status st = ki::check_rows("tl_fused_skip_norm_" #Dtype, shape, ndim, eps, &s)) return st;                  \
    const int64_t total = s.rows * s.d;                                                                                \
    if (total == 0) return TL_OK;                                                                                      \
    return kc::on_device("tl_fused_skip_norm_" #Dtype, tl_fused_skip_norm_##Dtype##_dev, kc::in(x, total),             \
                         kc::in(skip, total), kc::in(g, s.d), kc::out(sum, total), kc::out(y, total), shape, ndim,     \
                         eps);                                                                                         \
  }
TL_CUDA_NORM_HALF(f16, F16)
TL_CUDA_NORM_HALF(bf16, BF16)
#undef TL_CUDA_NORM_HALF
