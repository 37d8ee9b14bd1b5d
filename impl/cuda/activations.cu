// libtl_cuda: tinyllm/activations.h on a CUDA device and its device-pointer
// twins, as elementwise.cu. Each function rounds as the oracle's float
// instantiation (reference/konform/reference/activations.hpp) does, with
// CUDA's expf, erff and tanhf (<= 2 ulp each, the accuracy every limit of
// docs/ops-activations.md already assumes; docs/cuda.md per op). Softmax sums
// in double, so any order meets the pairwise bound its limit assumes.
#include <cstdint>

#include "impl/common/activation_args.hpp"
#include "impl/cuda/abi.cuh"
#include "impl/cuda/gates.cuh"
#include "impl/cuda/grid.cuh"
#include "impl/cuda/map.cuh"
#include "impl/cuda/reduce.cuh"
#include "tinyllm/cuda/activations.h"

namespace kc = konform::cuda;

namespace konform::cuda {

struct Silu {
  __device__ float operator()(float x) const { return x * sigmoid(x); }
};
struct GeluErf {
  __device__ float operator()(float x) const { return gelu_erf(x); }
};
struct GeluTanh {
  __device__ float operator()(float x) const { return gelu_tanh(x); }
};
struct Relu {  // NaN passes through; -0 becomes +0
  __device__ float operator()(float x) const { return x > 0.0f || x != x ? x : 0.0f; }
};
struct LeakyRelu {
  float alpha;
  __device__ float operator()(float x) const { return x > 0.0f ? x : alpha * x; }
};
struct Sigmoid {
  __device__ float operator()(float x) const { return sigmoid(x); }
};
struct Tanh {
  __device__ float operator()(float x) const { return tanhf(x); }
};

// x, y: [outer, channels, inner]; element k is in channel (k / inner) % channels.
// f16 and bf16 (Format map.cuh's F16 or BF16): x widened where it is read,
// the product with the f32 slope in float, y rounded once.
template <class Format, class T>
__global__ void prelu(const T* x, const float* slope, T* y, int64_t n, int64_t channels, int64_t inner) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride) {
    const float v = Format::widen(x[k]);
    y[k] = Format::narrow(v > 0.0f ? v : slope[(k / inner) % channels] * v);
  }
}

// x, y: [outer, length, inner], one block per line along the middle axis
// (grid-striding over the outer * inner lines). m = the line's max (+Inf,
// NaN or a line of -Inf make x - m NaN somewhere: an all-NaN line, as the
// oracle's); e = expf(x - m); the sum of e in double; y = e / (float)sum.
// Every element is read before any is written, by the same block, and a
// thread writes only elements it alone reads in the last pass: y == x is safe.
// f16 and bf16 (Format map.cuh's F16 or BF16): each element widened where it
// is read, y rounded once.
template <class Format, class T>
__global__ void softmax_lines(const T* x, T* y, int64_t outer, int64_t length, int64_t inner) {
  __shared__ float shared_max[kLineThreads];
  __shared__ double shared_sum[kLineThreads];
  for (int64_t line = blockIdx.x; line < outer * inner; line += gridDim.x) {
    const T* xl = x + (line / inner) * length * inner + line % inner;
    T* yl = y + (xl - x);
    float m = -INFINITY;
    for (int64_t l = threadIdx.x; l < length; l += kLineThreads) m = MaxOrNan{}(m, Format::widen(xl[l * inner]));
    m = reduce_block<kLineThreads>(m, shared_max, MaxOrNan{});
    double sum = 0.0;
    for (int64_t l = threadIdx.x; l < length; l += kLineThreads)
      sum += static_cast<double>(expf(Format::widen(xl[l * inner]) - m));
    const float total = static_cast<float>(reduce_block<kLineThreads>(sum, shared_sum, Plus{}));
    for (int64_t l = threadIdx.x; l < length; l += kLineThreads)
      yl[l * inner] = Format::narrow(expf(Format::widen(xl[l * inner]) - m) / total);
  }
}

}  // namespace konform::cuda

// The unary maps: y == x is safe (map.cuh).
#define TL_CUDA_MAP1(name, f)                                                                  \
  TL_CUDA_EXPORT void name##_dev(const float* x, float* y, int64_t n, tl_cuda_stream stream) { \
    kc::run_map1(x, y, n, f, #name "_dev", stream);                                            \
  }                                                                                            \
  TL_CUDA_EXPORT void name(const float* x, float* y, int64_t n) { kc::map1_on_device(#name, name##_dev, x, y, n); }
TL_CUDA_MAP1(tl_silu_f32, kc::Silu{})
TL_CUDA_MAP1(tl_gelu_erf_f32, kc::GeluErf{})
TL_CUDA_MAP1(tl_gelu_tanh_f32, kc::GeluTanh{})
TL_CUDA_MAP1(tl_relu_f32, kc::Relu{})
TL_CUDA_MAP1(tl_sigmoid_f32, kc::Sigmoid{})
TL_CUDA_MAP1(tl_tanh_f32, kc::Tanh{})

// f16 and bf16: the same functors in float on each widened element.
#define TL_CUDA_MAP1_HALF(name, Format, f)                                                           \
  TL_CUDA_EXPORT void name##_dev(const uint16_t* x, uint16_t* y, int64_t n, tl_cuda_stream stream) { \
    kc::run_map1_half<kc::Format>(x, y, n, f, #name "_dev", stream);                                 \
  }                                                                                                  \
  TL_CUDA_EXPORT void name(const uint16_t* x, uint16_t* y, int64_t n) {                              \
    kc::map1_half_on_device(#name, name##_dev, x, y, n);                                             \
  }
TL_CUDA_MAP1_HALF(tl_silu_f16, F16, kc::Silu{})
TL_CUDA_MAP1_HALF(tl_silu_bf16, BF16, kc::Silu{})
TL_CUDA_MAP1_HALF(tl_gelu_erf_f16, F16, kc::GeluErf{})
TL_CUDA_MAP1_HALF(tl_gelu_erf_bf16, BF16, kc::GeluErf{})
TL_CUDA_MAP1_HALF(tl_gelu_tanh_f16, F16, kc::GeluTanh{})
TL_CUDA_MAP1_HALF(tl_gelu_tanh_bf16, BF16, kc::GeluTanh{})
TL_CUDA_MAP1_HALF(tl_relu_f16, F16, kc::Relu{})
TL_CUDA_MAP1_HALF(tl_relu_bf16, BF16, kc::Relu{})
TL_CUDA_MAP1_HALF(tl_sigmoid_f16, F16, kc::Sigmoid{})
TL_CUDA_MAP1_HALF(tl_sigmoid_bf16, BF16, kc::Sigmoid{})
TL_CUDA_MAP1_HALF(tl_tanh_f16, F16, kc::Tanh{})
TL_CUDA_MAP1_HALF(tl_tanh_bf16, BF16, kc::Tanh{})

#define TL_CUDA_LEAKY_HALF(name, Format)                                                                          \
  TL_CUDA_EXPORT void name##_dev(const uint16_t* x, uint16_t* y, int64_t n, float alpha, tl_cuda_stream stream) { \
    kc::run_map1_half<kc::Format>(x, y, n, kc::LeakyRelu{alpha}, #name "_dev", stream);                           \
  }                                                                                                               \
  TL_CUDA_EXPORT void name(const uint16_t* x, uint16_t* y, int64_t n, float alpha) {                              \
    if (n > 0) kc::on_device(#name, name##_dev, kc::in(x, n), kc::out(y, n), n, alpha);                           \
  }
TL_CUDA_LEAKY_HALF(tl_leaky_relu_f16, F16)
TL_CUDA_LEAKY_HALF(tl_leaky_relu_bf16, BF16)

TL_CUDA_EXPORT void tl_leaky_relu_f32_dev(const float* x, float* y, int64_t n, float alpha, tl_cuda_stream stream) {
  kc::run_map1(x, y, n, kc::LeakyRelu{alpha}, "tl_leaky_relu_f32_dev", stream);
}

TL_CUDA_EXPORT void tl_leaky_relu_f32(const float* x, float* y, int64_t n, float alpha) {
  if (n > 0) kc::on_device("tl_leaky_relu_f32", tl_leaky_relu_f32_dev, kc::in(x, n), kc::out(y, n), n, alpha);
}

// PRelu of f32 (AsFloat) or f16 and bf16 (F16, BF16) x and y; the slopes f32.
#define TL_CUDA_PRELU(Dtype, Elem, Format)                                                                             \
  TL_CUDA_EXPORT void tl_prelu_##Dtype##_dev(const Elem* x, const float* slope, Elem* y, int64_t outer,                \
                                             int64_t channels, int64_t inner, tl_cuda_stream stream) {                 \
    if (outer <= 0 || channels <= 0 || inner <= 0) return;                                                             \
    const int64_t n = outer * channels * inner;                                                                        \
    kc::launch(kc::prelu<Format, Elem>, kc::grid_for(n, kc::kThreads), kc::kThreads, stream, x, slope, y, n, channels, \
               inner);                                                                                                 \
    kc::check_launch("tl_prelu_" #Dtype "_dev");                                                                       \
  }                                                                                                                    \
  TL_CUDA_EXPORT void tl_prelu_##Dtype(const Elem* x, const float* slope, Elem* y, int64_t outer, int64_t channels,    \
                                       int64_t inner) {                                                                \
    if (outer <= 0 || channels <= 0 || inner <= 0) return;                                                             \
    const int64_t n = outer * channels * inner;                                                                        \
    kc::on_device("tl_prelu_" #Dtype, tl_prelu_##Dtype##_dev, kc::in(x, n), kc::in(slope, channels), kc::out(y, n),    \
                  outer, channels, inner);                                                                             \
  }
TL_CUDA_PRELU(f32, float, kc::AsFloat)
TL_CUDA_PRELU(f16, uint16_t, kc::F16)
TL_CUDA_PRELU(bf16, uint16_t, kc::BF16)
#undef TL_CUDA_PRELU

TL_CUDA_EXPORT tl_status tl_softmax_f32_dev(const float* x, float* y, const int64_t* shape, int rank, int axis,
                                            tl_cuda_stream stream) {
  konform::impl::AxisSplit s;
  if (const tl_status st = konform::impl::split_at_axis(shape, rank, axis, &s); st != TL_OK) return st;
  if (s.outer * s.length * s.inner == 0) return TL_OK;
  kc::launch(kc::softmax_lines<kc::AsFloat, float>, kc::grid_for_lines(s.outer * s.inner), kc::kLineThreads, stream, x,
             y, s.outer, s.length, s.inner);
  kc::check_launch("tl_softmax_f32_dev");
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_softmax_f32(const float* x, float* y, const int64_t* shape, int rank, int axis) {
  konform::impl::AxisSplit s;
  if (const tl_status st = konform::impl::split_at_axis(shape, rank, axis, &s); st != TL_OK) return st;
  const int64_t n = s.outer * s.length * s.inner;
  if (n == 0) return TL_OK;
  return kc::on_device("tl_softmax_f32", tl_softmax_f32_dev, kc::in(x, n), kc::out(y, n), shape, rank, axis);
}

#define TL_CUDA_SOFTMAX_HALF(Dtype, Format)                                                                         \
  TL_CUDA_EXPORT tl_status tl_softmax_##Dtype##_dev(const uint16_t* x, uint16_t* y, const int64_t* shape, int rank, \
                                                    int axis, tl_cuda_stream stream) {                              \
    konform::impl::AxisSplit s;                                                                                     \
    if (const tl_status st = konform::impl::split_at_axis(shape, rank, axis, &s); st != TL_OK) return st;           \
    if (s.outer * s.length * s.inner == 0) return TL_OK;                                                            \
    kc::launch(kc::softmax_lines<kc::Format, uint16_t>, kc::grid_for_lines(s.outer* s.inner), kc::kLineThreads,     \
               stream, x, y, s.outer, s.length, s.inner);                                                           \
    kc::check_launch("tl_softmax_" #Dtype "_dev");                                                                  \
    return TL_OK;                                                                                                   \
  }                                                                                                                 \
  TL_CUDA_EXPORT tl_status tl_softmax_##Dtype(const uint16_t* x, uint16_t* y, const int64_t* shape, int rank,       \
                                              int axis) {                                                           \
    konform::impl::AxisSplit s;                                                                                     \
    if (const tl_status st = konform::impl::split_at_axis(shape, rank, axis, &s); st != TL_OK) return st;           \
    const int64_t n = s.outer * s.length * s.inner;                                                                 \
    if (n == 0) return TL_OK;                                                                                       \
    return kc::on_device("tl_softmax_" #Dtype, tl_softmax_##Dtype##_dev, kc::in(x, n), kc::out(y, n), shape, rank,  \
                         axis);                                                                                     \
  }
TL_CUDA_SOFTMAX_HALF(f16, F16)
TL_CUDA_SOFTMAX_HALF(bf16, BF16)
#undef TL_CUDA_SOFTMAX_HALF

// The gated maps: y == gate or y == up is safe (map.cuh).
TL_CUDA_EXPORT void tl_swiglu_f32_dev(const float* gate, const float* up, float* y, int64_t n, tl_cuda_stream stream) {
  kc::run_map2(gate, up, y, n, kc::SwiGlu{}, "tl_swiglu_f32_dev", stream);
}

TL_CUDA_EXPORT void tl_swiglu_f32(const float* gate, const float* up, float* y, int64_t n) {
  kc::map2_on_device("tl_swiglu_f32", tl_swiglu_f32_dev, gate, up, y, n);
}

TL_CUDA_EXPORT tl_status tl_geglu_f32_dev(const float* gate, const float* up, float* y, int64_t n, int approximation,
                                          tl_cuda_stream stream) {
  if (const tl_status st = konform::impl::check_gelu_approximation(approximation); st != TL_OK) return st;
  kc::run_map2(gate, up, y, n, kc::GeGlu{approximation}, "tl_geglu_f32_dev", stream);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_geglu_f32(const float* gate, const float* up, float* y, int64_t n, int approximation) {
  if (const tl_status st = konform::impl::check_gelu_approximation(approximation); st != TL_OK) return st;
  if (n <= 0) return TL_OK;
  return kc::on_device("tl_geglu_f32", tl_geglu_f32_dev, kc::in(gate, n), kc::in(up, n), kc::out(y, n), n,
                       approximation);
}

TL_CUDA_EXPORT void tl_glu_f32_dev(const float* gate, const float* up, float* y, int64_t n, tl_cuda_stream stream) {
  kc::run_map2(gate, up, y, n, kc::Glu{}, "tl_glu_f32_dev", stream);
}

TL_CUDA_EXPORT void tl_glu_f32(const float* gate, const float* up, float* y, int64_t n) {
  kc::map2_on_device("tl_glu_f32", tl_glu_f32_dev, gate, up, y, n);
}

// f16 and bf16: the same functors in float on each widened pair, y rounded
// once; y == gate or y == up is safe (map.cuh).
#define TL_CUDA_MAP2_HALF(name, Format, f)                                                         \
  TL_CUDA_EXPORT void name##_dev(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, \
                                 tl_cuda_stream stream) {                                          \
    kc::run_map2_half<kc::Format>(gate, up, y, n, f, #name "_dev", stream);                        \
  }                                                                                                \
  TL_CUDA_EXPORT void name(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n) {     \
    kc::map2_on_device(#name, name##_dev, gate, up, y, n);                                         \
  }
TL_CUDA_MAP2_HALF(tl_swiglu_f16, F16, kc::SwiGlu{})
TL_CUDA_MAP2_HALF(tl_swiglu_bf16, BF16, kc::SwiGlu{})
TL_CUDA_MAP2_HALF(tl_glu_f16, F16, kc::Glu{})
TL_CUDA_MAP2_HALF(tl_glu_bf16, BF16, kc::Glu{})
#undef TL_CUDA_MAP2_HALF

#define TL_CUDA_GEGLU_HALF(Dtype, Format)                                                                              \
  TL_CUDA_EXPORT tl_status tl_geglu_##Dtype##_dev(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n,    \
                                                  int approximation, tl_cuda_stream stream) {                          \
    if (const tl_status st = konform::impl::check_gelu_approximation(approximation); st != TL_OK) return st;           \
    kc::run_map2_half<kc::Format>(gate, up, y, n, kc::GeGlu{approximation}, "tl_geglu_" #Dtype "_dev", stream);        \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_geglu_##Dtype(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n,          \
                                            int approximation) {                                                       \
    if (const tl_status st = konform::impl::check_gelu_approximation(approximation); st != TL_OK) return st;           \
    if (n <= 0) return TL_OK;                                                                                          \
    return kc::on_device("tl_geglu_" #Dtype, tl_geglu_##Dtype##_dev, kc::in(gate, n), kc::in(up, n), kc::out(y, n), n, \
                         approximation);                                                                               \
  }
TL_CUDA_GEGLU_HALF(f16, F16)
TL_CUDA_GEGLU_HALF(bf16, BF16)
#undef TL_CUDA_GEGLU_HALF
