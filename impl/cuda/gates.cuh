// The gate functions of libtl_cuda, as the oracle's float instantiation
// rounds them: activations.cu's maps and linalg.cu's feed-forwards share
// them, so a gated middle has the same bits in both. Included after abi.cuh.
#pragma once

#include "tinyllm/activations.h"

namespace konform::cuda {

// 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below: neither overflows, and
// the subnormal tail is kept rather than flushed (the oracle's form).
__device__ inline float sigmoid(float x) {
  if (x >= 0.0f) return 1.0f / (1.0f + expf(-x));
  const float e = expf(x);  // NaN lands here and stays NaN
  return e / (1.0f + e);
}

__device__ inline float gelu_erf(float x) {
  constexpr float kSqrt2 = 1.41421356237309505f;  // sqrtf(2), correctly rounded
  return x * 0.5f * (1.0f + erff(x / kSqrt2));
}

__device__ inline float gelu_tanh(float x) {
  constexpr float kSqrt2OverPi = 0.797884560802865356f;  // sqrt(2 / pi) to float
  constexpr float kCubic = 0.044715f;
  return 0.5f * x * (1.0f + tanhf(kSqrt2OverPi * (x + kCubic * x * x * x)));
}

struct SwiGlu {
  __device__ float operator()(float g, float u) const { return g * sigmoid(g) * u; }
};
struct GeGlu {
  int approximation;  // validated: TL_GELU_ERF or TL_GELU_TANH
  __device__ float operator()(float g, float u) const {
    return (approximation == TL_GELU_TANH ? gelu_tanh(g) : gelu_erf(g)) * u;
  }
};
struct Glu {
  __device__ float operator()(float g, float u) const { return sigmoid(g) * u; }
};

}  // namespace konform::cuda
