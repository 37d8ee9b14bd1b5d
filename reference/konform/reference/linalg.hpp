// Matmul, the gated feed-forwards and the fused ops of tinyllm/linalg.h,
// written from spec/operations.txt (sections 1, 4 and 10).
//
// One source on the scalar type T, like elementwise.hpp: double is the
// oracle, float the `scalar` backend. Inputs may be float (the ABI's tensors)
// or T (an intermediate the oracle keeps unrounded, like the FFN's hidden
// activations); every step is carried out in T. Dot products are pairwise
// sums in a fixed order (pairwise_sum.hpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "konform/reference/elementwise.hpp"
#include "konform/reference/pairwise_sum.hpp"

namespace konform::reference {

// y[m, n] = sum_k x[m, k] * w[n, k]; x: [M, K], w: [N, K], y: [M, N] (§1).
template <typename T, typename X, typename W>
void matmul(const X* x, const W* w, T* y, int64_t M, int64_t N, int64_t K) {
  for (int64_t m = 0; m < M; ++m) {
    const X* xm = x + m * K;
    for (int64_t n = 0; n < N; ++n) {
      const W* wn = w + n * K;
      y[m * N + n] = pairwise_sum<T>(0, K, [&](int64_t k) { return T(xm[k]) * T(wn[k]); });
    }
  }
}

// The gate activations of the feed-forwards, in their own namespace so they
// never meet another header's activations.
namespace ffn {

enum class Gate { silu, gelu_erf, gelu_tanh, sigmoid };

// Silu(g) = g / (1 + e^-g) (§4): saturates to -0 for very negative g.
template <typename T>
T silu(T g) {
  using std::exp;
  return g / (T(1) + exp(-g));
}

template <typename T>
T sigmoid(T g) {
  using std::exp;
  return T(1) / (T(1) + exp(-g));
}

// Gelu_erf(g) = g * 0.5 * (1 + erf(g / sqrt(2))).
template <typename T>
T gelu_erf(T g) {
  using std::erf;
  using std::sqrt;
  return g * T(0.5) * (T(1) + erf(g / sqrt(T(2))));
}

// Gelu_tanh(g) = 0.5 * g * (1 + tanh(sqrt(2 / pi) * (g + 0.044715 g^3))); the
// spec's "sqrt(2/phi*)" is sqrt(2/pi).
template <typename T>
T gelu_tanh(T g) {
  using std::sqrt;
  using std::tanh;
  const T pi = T(3.14159265358979323846264338327950288);
  const T c = sqrt(T(2) / pi);
  return T(0.5) * g * (T(1) + tanh(c * (g + T(0.044715) * g * g * g)));
}

template <typename T>
T gate(Gate kind, T g) {
  switch (kind) {
    case Gate::silu: return silu(g);
    case Gate::gelu_erf: return gelu_erf(g);
    case Gate::gelu_tanh: return gelu_tanh(g);
    case Gate::sigmoid: return sigmoid(g);
  }
  return g;
}

}  // namespace ffn

// h = act(x @ w_gate^T) * (x @ w_up^T); x: [M, D], w_gate, w_up: [H, D],
// h: [M, H]. FusedSwiGlu is this with act = Silu (§10).
template <typename T>
void gated_hidden(const float* x, const float* w_gate, const float* w_up, T* h, int64_t M, int64_t D, int64_t H,
                  ffn::Gate act) {
  std::vector<T> gate(static_cast<size_t>(M * H)), up(static_cast<size_t>(M * H));
  matmul<T>(x, w_gate, gate.data(), M, H, D);
  matmul<T>(x, w_up, up.data(), M, H, D);
  for (int64_t i = 0; i < M * H; ++i) h[i] = ffn::gate(act, gate[i]) * up[i];
}

// The gated feed-forward (§4): y = (act(x Wg^T) * (x Wu^T)) @ w_down^T;
// w_down: [D, H], y: [M, D]. The hidden activations stay in T.
template <typename T>
void gated_ffn(const float* x, const float* w_gate, const float* w_up, const float* w_down, T* y, int64_t M, int64_t D,
               int64_t H, ffn::Gate act) {
  std::vector<T> h(static_cast<size_t>(M * H));
  gated_hidden<T>(x, w_gate, w_up, h.data(), M, D, H, act);
  matmul<T>(h.data(), w_down, y, M, D, H);
}

// FusedNormMatmul (§10): y = Matmul(RmsNorm(x, norm_w, eps), w); x: [M, K],
// norm_w: [K], w: [N, K], y: [M, N]. The normalized rows stay in T.
template <typename T>
void fused_norm_matmul(const float* x, const float* norm_w, const float* w, T* y, int64_t M, int64_t N, int64_t K,
                       float eps) {
  std::vector<T> z(static_cast<size_t>(M * K));
  rmsnorm<T>(x, norm_w, z.data(), M, K, eps);
  matmul<T>(z.data(), w, y, M, N, K);
}

}  // namespace konform::reference
