#include "scalar/kernels.hpp"

#include "impl/common/activation_args.hpp"
#include "konform/reference/activations.hpp"

namespace konform::scalar {
namespace act = konform::reference::act;

// Every elementwise template reads x[i] before it writes y[i], so y == x
// (and y == gate or up) works as the ABI allows.
void silu_f32(const float* x, float* y, int64_t n) { act::silu<float>(x, y, n); }
void gelu_erf_f32(const float* x, float* y, int64_t n) { act::gelu_erf<float>(x, y, n); }
void gelu_tanh_f32(const float* x, float* y, int64_t n) { act::gelu_tanh<float>(x, y, n); }
void relu_f32(const float* x, float* y, int64_t n) { act::relu<float>(x, y, n); }
void leaky_relu_f32(const float* x, float* y, int64_t n, float alpha) { act::leaky_relu<float>(x, y, n, alpha); }
void prelu_f32(const float* x, const float* slope, float* y, int64_t outer, int64_t channels, int64_t inner) {
  act::prelu<float>(x, slope, y, outer, channels, inner);
}
void sigmoid_f32(const float* x, float* y, int64_t n) { act::sigmoid<float>(x, y, n); }
void tanh_f32(const float* x, float* y, int64_t n) { act::tanh<float>(x, y, n); }

// The template reads a whole line before writing it: y == x works.
tl_status softmax_f32(const float* x, float* y, const int64_t* shape, int rank, int axis) {
  impl::AxisSplit s;
  if (const tl_status st = impl::split_at_axis(shape, rank, axis, &s); st != TL_OK) return st;
  act::softmax<float>(x, y, s.outer, s.length, s.inner);
  return TL_OK;
}

void swiglu_f32(const float* gate, const float* up, float* y, int64_t n) { act::swiglu<float>(gate, up, y, n); }

tl_status geglu_f32(const float* gate, const float* up, float* y, int64_t n, int approximation) {
  if (const tl_status st = impl::check_gelu_approximation(approximation); st != TL_OK) return st;
  act::geglu<float>(gate, up, y, n, approximation);
  return TL_OK;
}

void glu_f32(const float* gate, const float* up, float* y, int64_t n) { act::glu<float>(gate, up, y, n); }

}  // namespace konform::scalar
