#include "scalar/kernels.hpp"

#include <vector>

#include "impl/common/activation_args.hpp"
#include "konform/reference/activations.hpp"
#include "konform/reference/bf16.hpp"
#include "konform/reference/f16.hpp"

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

// ---- f16 and bf16: each element widened to float exactly, the float
// template on it, the result rounded to nearest even (the oracle's
// conversions, reference/konform/reference/f16.hpp and bf16.hpp). One
// element at a time: y == x works.
namespace {

struct F16 {
  static float widen(uint16_t h) { return reference::f16_to_f32(h); }
  static uint16_t narrow(float f) { return reference::f32_to_f16(f); }
};
struct BF16 {
  static float widen(uint16_t h) { return reference::bf16_to_f32(h); }
  static uint16_t narrow(float f) { return reference::f32_to_bf16(f); }
};

template <class Format, class F>
void in_float(const uint16_t* x, uint16_t* y, int64_t n, const F& f32_kernel) {
  for (int64_t i = 0; i < n; ++i) {
    float v = Format::widen(x[i]);
    f32_kernel(&v, &v, 1);
    y[i] = Format::narrow(v);
  }
}

}  // namespace

void silu_f16(const uint16_t* x, uint16_t* y, int64_t n) {
  in_float<F16>(x, y, n, [](const float* a, float* b, int64_t m) { act::silu<float>(a, b, m); });
}
void silu_bf16(const uint16_t* x, uint16_t* y, int64_t n) {
  in_float<BF16>(x, y, n, [](const float* a, float* b, int64_t m) { act::silu<float>(a, b, m); });
}
void gelu_erf_f16(const uint16_t* x, uint16_t* y, int64_t n) {
  in_float<F16>(x, y, n, [](const float* a, float* b, int64_t m) { act::gelu_erf<float>(a, b, m); });
}
void gelu_erf_bf16(const uint16_t* x, uint16_t* y, int64_t n) {
  in_float<BF16>(x, y, n, [](const float* a, float* b, int64_t m) { act::gelu_erf<float>(a, b, m); });
}
void gelu_tanh_f16(const uint16_t* x, uint16_t* y, int64_t n) {
  in_float<F16>(x, y, n, [](const float* a, float* b, int64_t m) { act::gelu_tanh<float>(a, b, m); });
}
void gelu_tanh_bf16(const uint16_t* x, uint16_t* y, int64_t n) {
  in_float<BF16>(x, y, n, [](const float* a, float* b, int64_t m) { act::gelu_tanh<float>(a, b, m); });
}
void relu_f16(const uint16_t* x, uint16_t* y, int64_t n) {
  in_float<F16>(x, y, n, [](const float* a, float* b, int64_t m) { act::relu<float>(a, b, m); });
}
void relu_bf16(const uint16_t* x, uint16_t* y, int64_t n) {
  in_float<BF16>(x, y, n, [](const float* a, float* b, int64_t m) { act::relu<float>(a, b, m); });
}
void leaky_relu_f16(const uint16_t* x, uint16_t* y, int64_t n, float alpha) {
  in_float<F16>(x, y, n, [alpha](const float* a, float* b, int64_t m) { act::leaky_relu<float>(a, b, m, alpha); });
}
void leaky_relu_bf16(const uint16_t* x, uint16_t* y, int64_t n, float alpha) {
  in_float<BF16>(x, y, n, [alpha](const float* a, float* b, int64_t m) { act::leaky_relu<float>(a, b, m, alpha); });
}
// PRelu: each channel's run of inner elements through LeakyRelu's float
// template at its f32 slope.
namespace {
template <class Format>
void prelu_half(const uint16_t* x, const float* slope, uint16_t* y, int64_t outer, int64_t channels, int64_t inner) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t base = (o * channels + c) * inner;
      const float s = slope[c];
      in_float<Format>(x + base, y + base, inner,
                       [s](const float* a, float* b, int64_t m) { act::leaky_relu<float>(a, b, m, s); });
    }
}
}  // namespace
void prelu_f16(const uint16_t* x, const float* slope, uint16_t* y, int64_t outer, int64_t channels, int64_t inner) {
  prelu_half<F16>(x, slope, y, outer, channels, inner);
}
void prelu_bf16(const uint16_t* x, const float* slope, uint16_t* y, int64_t outer, int64_t channels, int64_t inner) {
  prelu_half<BF16>(x, slope, y, outer, channels, inner);
}
void sigmoid_f16(const uint16_t* x, uint16_t* y, int64_t n) {
  in_float<F16>(x, y, n, [](const float* a, float* b, int64_t m) { act::sigmoid<float>(a, b, m); });
}
void sigmoid_bf16(const uint16_t* x, uint16_t* y, int64_t n) {
  in_float<BF16>(x, y, n, [](const float* a, float* b, int64_t m) { act::sigmoid<float>(a, b, m); });
}
void tanh_f16(const uint16_t* x, uint16_t* y, int64_t n) {
  in_float<F16>(x, y, n, [](const float* a, float* b, int64_t m) { act::tanh<float>(a, b, m); });
}
void tanh_bf16(const uint16_t* x, uint16_t* y, int64_t n) {
  in_float<BF16>(x, y, n, [](const float* a, float* b, int64_t m) { act::tanh<float>(a, b, m); });
}

// The template reads a whole line before writing it: y == x works.
tl_status softmax_f32(const float* x, float* y, const int64_t* shape, int rank, int axis) {
  impl::AxisSplit s;
  if (const tl_status st = impl::split_at_axis(shape, rank, axis, &s); st != TL_OK) return st;
  act::softmax<float>(x, y, s.outer, s.length, s.inner);
  return TL_OK;
}

// f16 and bf16: the whole tensor widened, the f32 template, y rounded.
template <class Format>
tl_status softmax_half(const uint16_t* x, uint16_t* y, const int64_t* shape, int rank, int axis) {
  impl::AxisSplit s;
  if (const tl_status st = impl::split_at_axis(shape, rank, axis, &s); st != TL_OK) return st;
  std::vector<float> wide(static_cast<size_t>(s.outer * s.length * s.inner));
  for (size_t k = 0; k < wide.size(); ++k) wide[k] = Format::widen(x[k]);
  act::softmax<float>(wide.data(), wide.data(), s.outer, s.length, s.inner);
  for (size_t k = 0; k < wide.size(); ++k) y[k] = Format::narrow(wide[k]);
  return TL_OK;
}
tl_status softmax_f16(const uint16_t* x, uint16_t* y, const int64_t* shape, int rank, int axis) {
  return softmax_half<F16>(x, y, shape, rank, axis);
}
tl_status softmax_bf16(const uint16_t* x, uint16_t* y, const int64_t* shape, int rank, int axis) {
  return softmax_half<BF16>(x, y, shape, rank, axis);
}

void swiglu_f32(const float* gate, const float* up, float* y, int64_t n) { act::swiglu<float>(gate, up, y, n); }

tl_status geglu_f32(const float* gate, const float* up, float* y, int64_t n, int approximation) {
  if (const tl_status st = impl::check_gelu_approximation(approximation); st != TL_OK) return st;
  act::geglu<float>(gate, up, y, n, approximation);
  return TL_OK;
}

void glu_f32(const float* gate, const float* up, float* y, int64_t n) { act::glu<float>(gate, up, y, n); }

// f16 and bf16: gate and up widened exactly, the float template on the pair,
// y rounded once. One element at a time: y == gate or up works.
namespace {
template <class Format, class F>
void gated_in_float(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, const F& f32_kernel) {
  for (int64_t i = 0; i < n; ++i) {
    const float g = Format::widen(gate[i]), u = Format::widen(up[i]);
    float v;
    f32_kernel(&g, &u, &v, 1);
    y[i] = Format::narrow(v);
  }
}
const auto kSwiGlu = [](const float* g, const float* u, float* y, int64_t m) { act::swiglu<float>(g, u, y, m); };
const auto kGlu = [](const float* g, const float* u, float* y, int64_t m) { act::glu<float>(g, u, y, m); };
template <class Format>
tl_status geglu_half(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, int approximation) {
  if (const tl_status st = impl::check_gelu_approximation(approximation); st != TL_OK) return st;
  gated_in_float<Format>(gate, up, y, n, [approximation](const float* g, const float* u, float* v, int64_t m) {
    act::geglu<float>(g, u, v, m, approximation);
  });
  return TL_OK;
}
}  // namespace

void swiglu_f16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n) {
  gated_in_float<F16>(gate, up, y, n, kSwiGlu);
}
void swiglu_bf16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n) {
  gated_in_float<BF16>(gate, up, y, n, kSwiGlu);
}
tl_status geglu_f16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, int approximation) {
  return geglu_half<F16>(gate, up, y, n, approximation);
}
tl_status geglu_bf16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n, int approximation) {
  return geglu_half<BF16>(gate, up, y, n, approximation);
}
void glu_f16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n) {
  gated_in_float<F16>(gate, up, y, n, kGlu);
}
void glu_bf16(const uint16_t* gate, const uint16_t* up, uint16_t* y, int64_t n) {
  gated_in_float<BF16>(gate, up, y, n, kGlu);
}

}  // namespace konform::scalar
