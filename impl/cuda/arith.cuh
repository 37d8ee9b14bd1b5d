// The four arithmetic operations as functors, for add (elementwise.cu, over
// map.cuh) and Add, Sub, Mul, Div (tensor.cu, broadcast): one correctly
// rounded float operation each (-prec-div=true: IEEE division, x/0 = +-Inf,
// 0/0 = NaN).
#pragma once

namespace konform::cuda {

struct Add {
  __device__ float operator()(float a, float b) const { return a + b; }
};
struct Sub {
  __device__ float operator()(float a, float b) const { return a - b; }
};
struct Mul {
  __device__ float operator()(float a, float b) const { return a * b; }
};
struct Div {
  __device__ float operator()(float a, float b) const { return a / b; }
};

}  // namespace konform::cuda
