// The error scale of a gated hidden layer h = act(x Wg^T) * (x Wu^T) and of
// the feed-forward y = h @ Wd^T (ffn.cpp, fused.cpp), to first order.
//
// A float kernel's gate g and up u are each within L u of their dot products'
// scales s_g, s_u (L: Matmul's limit); the activation is evaluated within a
// few u of its own magnitude mag(g); so
//   |h - h*| <= L u (|act(g)| s_u + |u| |act'(g)| s_g) + c u |u| mag(g)
// and the scale of h is the bracket with those three terms. y's error adds
// the down matmul's L u sum_h |h Wd| and carries h's through |Wd|:
//   s_y[m, i] = sum_h |Wd[i, h]| s_h[m, h]   (s_h >= |h| covers the matmul's own).
// The limits of these ops are Matmul's plus the activation's c.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "activation_support.hpp"
#include "konform/reference/linalg.hpp"

namespace konform::ops::ffn_scale {

using reference::ffn::Gate;

// act'(g), in double.
inline double slope(Gate act, double g) {
  const double pi = 3.14159265358979323846;
  switch (act) {
    case Gate::silu: {
      const double s = 1.0 / (1.0 + std::exp(-g));
      return s * (1.0 + g * (1.0 - s));
    }
    case Gate::sigmoid: {
      const double s = 1.0 / (1.0 + std::exp(-g));
      return s * (1.0 - s);
    }
    case Gate::gelu_erf:
      return 0.5 * (1.0 + std::erf(g / std::sqrt(2.0))) + g * std::exp(-0.5 * g * g) / std::sqrt(2.0 * pi);
    case Gate::gelu_tanh: {
      const double c = std::sqrt(2.0 / pi);
      const double t = std::tanh(c * (g + 0.044715 * g * g * g));
      return 0.5 * (1.0 + t) + 0.5 * g * (1.0 - t * t) * c * (1.0 + 3.0 * 0.044715 * g * g);
    }
  }
  return 0;
}

// Matmul's limit (reference/tolerances.tsv): the kernel's gate is within
// kGateLimit u s_g of the exact g.
constexpr double kGateLimit = 256;

// The magnitude a float evaluation of act(g) loses precision against: |act|
// for Silu and Sigmoid; for the Gelus the terms of 0.5 g (1 + erf or tanh),
// which cancel for negative g. Silu and Sigmoid add the sigmoid's flush and
// subnormal terms (activation_support.hpp), judged at the lowest gate the
// kernel may have computed, g - kGateLimit u s_g: the spec's f32 form gives
// 0 where that gate is at or below -88.72283935546875, and nowhere else.
inline double magnitude(Gate act, double g, double s_g) {
  const double pi = 3.14159265358979323846;
  const double lowest = g - kGateLimit * 0x1p-24 * s_g;
  switch (act) {
    case Gate::silu: return std::fabs(reference::ffn::gate(act, g)) + std::fabs(g) * act::factored_sigmoid(lowest);
    case Gate::sigmoid: return std::fabs(reference::ffn::gate(act, g)) + act::factored_sigmoid(lowest);
    case Gate::gelu_erf: return 0.5 * std::fabs(g) * (1.0 + std::fabs(std::erf(g / std::sqrt(2.0))));
    case Gate::gelu_tanh:
      return 0.5 * std::fabs(g) * (1.0 + std::fabs(std::tanh(std::sqrt(2.0 / pi) * (g + 0.044715 * g * g * g))));
  }
  return 0;
}

// The hidden layer and its scale, for x: [M, D], w_gate, w_up: [H, D].
struct Hidden {
  std::vector<double> h, scale;  // [M, H]
};

inline Hidden hidden_with_scale(const float* x, const float* w_gate, const float* w_up, int64_t M, int64_t D, int64_t H,
                                Gate act) {
  Hidden out;
  out.h.resize(static_cast<size_t>(M * H));
  out.scale.resize(static_cast<size_t>(M * H));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t j = 0; j < H; ++j) {
      double g = 0, u = 0, sg = 0, su = 0;
      for (int64_t d = 0; d < D; ++d) {
        const double xv = x[m * D + d], pg = xv * w_gate[j * D + d], pu = xv * w_up[j * D + d];
        g += pg;
        u += pu;
        sg += std::fabs(pg);
        su += std::fabs(pu);
      }
      const double a = reference::ffn::gate(act, g);
      const size_t i = static_cast<size_t>(m * H + j);
      out.h[i] = a * u;
      out.scale[i] =
          std::fabs(a) * su + std::fabs(u) * std::fabs(slope(act, g)) * sg + std::fabs(u) * magnitude(act, g, sg);
    }
  return out;
}

// s_y[m, i] = sum_h |w_down[i, h]| s_h[m, h]; w_down: [D, H]. `floor`: s_h
// raised to it (a half twin's hidden layer rounded to its dtype errs by u of
// at least the smallest normal: half the subnormal spacing).
inline std::vector<double> output_scale(const Hidden& hid, const float* w_down, int64_t M, int64_t D, int64_t H,
                                        double floor = 0) {
  std::vector<double> s(static_cast<size_t>(M * D));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t i = 0; i < D; ++i) {
      double acc = 0;
      for (int64_t j = 0; j < H; ++j) {
        const double sh = hid.scale[static_cast<size_t>(m * H + j)];
        acc += std::fabs(static_cast<double>(w_down[i * H + j])) * (sh < floor ? floor : sh);  // NaN kept
      }
      s[static_cast<size_t>(m * D + i)] = acc;
    }
  return s;
}

}  // namespace konform::ops::ffn_scale
