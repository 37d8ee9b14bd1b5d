// The convolutions and Pool of tinyllm/conv.h, written from
// spec/operations.txt section 6. One source on the scalar type T: double is
// the oracle, float the `scalar` backend, a 50-digit float checks the double
// (tests/conv_oracle_test.cpp). Every variant (Conv1d/2d/3d, DepthwiseConv,
// CausalConv1d, ConvTranspose2d) is the spec's loop over a ConvShape; they
// differ only in the tap map (conv_shape.hpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "konform/reference/conv_shape.hpp"
#include "konform/reference/pairwise_sum.hpp"

namespace konform::reference {

// y[b, co, o] = sum over ci < C_in/groups and taps kk of
//   x[b, g C_in/groups + ci, source(o, kk)] * W[co, ci, kk]   (0 at a pad)
// then + bias[co] (bias may be null), g = co / (C_out/groups). The terms are
// summed pairwise in the spec's loop order (ci, then the taps). `scale`, when
// given, receives sum |x W| + |bias| per output: the magnitude a float dot
// product loses precision against. `skip_pads`: a zero pad's tap contributes
// nothing instead of 0 * W (the two differ only where W is Inf or NaN there:
// 0 * Inf is NaN); the spec's loop multiplies, a convolution that skips
// padded taps (oneDNN, im2col without the pad) is as correct.
template <typename T>
void conv(const float* x, const float* w, const float* bias, T* y, const ConvShape& s, T* scale = nullptr,
          bool skip_pads = false) {
  const int64_t KS = s.taps(), OS = s.out_elems(), IS = s.in_elems(), Cg = s.cin_g();
  std::vector<int64_t> src(static_cast<size_t>(OS * KS));
  for (int64_t o = 0; o < OS; ++o)
    for (int64_t kk = 0; kk < KS; ++kk) src[static_cast<size_t>(o * KS + kk)] = s.source(o, kk);
  for (int64_t b = 0; b < s.B; ++b)
    for (int64_t co = 0; co < s.C_out; ++co) {
      const int64_t g = co / s.cout_g();
      const float* xg = x + (b * s.C_in + g * Cg) * IS;
      for (int64_t o = 0; o < OS; ++o) {
        const int64_t* so = src.data() + o * KS;
        auto term = [&](int64_t t) {
          const int64_t ci = t / KS, kk = t % KS, i = so[kk];
          if (i >= 0) return T(xg[ci * IS + i]) * T(w[s.weight_index(co, ci, kk)]);
          // A zero pad is read as 0 and multiplied like any input (0 * Inf is
          // NaN, as in the spec's loop and PyTorch); a transposed tap that
          // lands on no input contributes nothing.
          return s.edge == ConvEdge::transpose || skip_pads ? T(0) : T(0) * T(w[s.weight_index(co, ci, kk)]);
        };
        const T sum = pairwise_sum<T>(0, Cg * KS, term);
        const int64_t at = (b * s.C_out + co) * OS + o;
        y[at] = bias == nullptr ? sum : sum + T(bias[co]);
        if (scale != nullptr) {
          using std::abs;
          T m = pairwise_sum<T>(0, Cg * KS, [&](int64_t t) { return abs(term(t)); });
          scale[at] = bias == nullptr ? m : m + abs(T(bias[co]));
        }
      }
    }
}

enum class PoolMode { max = 0, avg = 1 };

// Pool over x [B, C, spatial] with the taps of `s` (C_in = C_out = groups =
// C, zero edge). max: the largest element of the window, -inf at a pad; a
// NaN in the window gives the first NaN in window order (row-major taps),
// quieted (its payload kept). avg: the sum of the window (0 at a pad) / prod(kernel), the
// spec's formula, pads counted. `scale` (avg): sum |x| / prod(kernel).
// `other_zero` (max, optional): where the maximum is a zero and the window
// holds zeros of both signs, the other zero (either is the maximum); else the
// same value.
template <typename T>
void pool(const float* x, T* y, const ConvShape& s, PoolMode mode, T* scale = nullptr, T* other_zero = nullptr) {
  const int64_t KS = s.taps(), OS = s.out_elems(), IS = s.in_elems();
  std::vector<int64_t> src(static_cast<size_t>(OS * KS));
  for (int64_t o = 0; o < OS; ++o)
    for (int64_t kk = 0; kk < KS; ++kk) src[static_cast<size_t>(o * KS + kk)] = s.source(o, kk);
  for (int64_t bc = 0; bc < s.B * s.C_in; ++bc) {
    const float* xc = x + bc * IS;
    for (int64_t o = 0; o < OS; ++o) {
      const int64_t* so = src.data() + o * KS;
      const int64_t at = bc * OS + o;
      if (mode == PoolMode::max) {
        T acc = -std::numeric_limits<T>::infinity();
        bool pos_zero = false, neg_zero = false, nan = false;
        for (int64_t kk = 0; kk < KS && !nan; ++kk) {
          if (so[kk] < 0) continue;
          const float v = xc[so[kk]];
          if (std::isnan(v)) {
            acc = T(v) + T(0), nan = true;  // + 0 quiets a signaling NaN, as any arithmetic does
          } else {
            if (v > acc) acc = T(v);
            if (v == 0.0f) (std::signbit(v) ? neg_zero : pos_zero) = true;
          }
        }
        y[at] = acc;
        if (other_zero != nullptr) other_zero[at] = (!nan && acc == T(0) && pos_zero && neg_zero) ? -acc : acc;
      } else {
        auto term = [&](int64_t kk) { return so[kk] < 0 ? T(0) : T(xc[so[kk]]); };
        y[at] = pairwise_sum<T>(0, KS, term) / T(KS);
        if (scale != nullptr) {
          using std::abs;
          scale[at] = pairwise_sum<T>(0, KS, [&](int64_t kk) { return abs(term(kk)); }) / T(KS);
        }
      }
    }
  }
}

}  // namespace konform::reference
