// The spatial ops of tinyllm/spatial.h (spec/operations.txt §7), written
// from the header's index formulas: which calls are valid, and the results.
// Interpolate follows PyTorch's F.interpolate (nearest, bilinear, area).
//
// One source on the scalar type T: double is the oracle, float the `scalar`
// backend. The layout ops copy (any T holds a float exactly); PatchEmbed is
// the patches gathered into rows, then Matmul (pairwise sums) plus the bias.
// The validity rules are the oracle's own reading of the header, apart from
// the kernels' (impl/common/spatial_args.hpp).
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "konform/reference/linalg.hpp"
#include "konform/reference/tensor_shape.hpp"
#include "tinyllm/spatial.h"

namespace konform::reference::spatial {

// The sizes of one call: the image x (or y, for Unpatchify) [B, C, H, W],
// the factor (r or p), and PatchEmbed's D (0 elsewhere).
struct Sizes {
  int64_t B = 0, C = 0, H = 0, W = 0, f = 1, D = 0;
};

enum class Op { pixel_shuffle, pixel_unshuffle, patch_embed, unpatchify };

namespace detail {

// a * b into *out; false when it does not fit an int64_t.
inline bool mul(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }

// The product of `dims` times 4 bytes fits an int64_t.
inline bool bytes_fit(std::initializer_list<int64_t> dims) {
  int64_t n = 4;
  for (int64_t d : dims)
    if (!mul(n, d, &n)) return false;
  return true;
}

}  // namespace detail

// The header's rules in its order: negative sizes or a factor below 1;
// products that overflow (the factor's square, H f and W f, byte counts);
// a size the factor does not divide.
inline Verdict check(Op op, const Sizes& s) {
  using detail::bytes_fit;
  using detail::mul;
  const std::string f = op == Op::pixel_shuffle || op == Op::pixel_unshuffle ? "r" : "p";
  for (int64_t v : {s.B, s.C, s.H, s.W, s.D})
    if (v < 0) return refuse(TL_ERR_INVALID_ARGUMENT, "a size is negative");
  if (s.f < 1) return refuse(TL_ERR_INVALID_ARGUMENT, f + " = " + std::to_string(s.f) + " is below 1");
  int64_t ff = 0, hf = 0, wf = 0;
  if (!mul(s.f, s.f, &ff)) return refuse(TL_ERR_INVALID_ARGUMENT, f + "^2 overflows");
  if (!bytes_fit({s.B, s.C, s.H, s.W})) return refuse(TL_ERR_INVALID_ARGUMENT, "the image's bytes overflow");
  switch (op) {
    case Op::pixel_shuffle:
      if (!mul(s.H, s.f, &hf) || !mul(s.W, s.f, &wf)) return refuse(TL_ERR_INVALID_ARGUMENT, "H r or W r overflows");
      if (s.C % ff != 0) return refuse(TL_ERR_SHAPE, "C is not a multiple of r^2");
      return {};
    case Op::pixel_unshuffle:
      if (!bytes_fit({s.C, ff})) return refuse(TL_ERR_INVALID_ARGUMENT, "C r^2 overflows");
      break;
    case Op::patch_embed:  // y's bytes as 4 B (H/p) (W/p) D, left to right: N alone may overflow when B C = 0
      if (!bytes_fit({s.C, ff, s.D}) || !bytes_fit({s.B, s.H / s.f, s.W / s.f, s.D}))
        return refuse(TL_ERR_INVALID_ARGUMENT, "w's or y's bytes overflow");
      break;
    case Op::unpatchify:
      if (!bytes_fit({ff, s.C})) return refuse(TL_ERR_INVALID_ARGUMENT, "p^2 C overflows");
      break;
  }
  if (s.H % s.f != 0 || s.W % s.f != 0) return refuse(TL_ERR_SHAPE, "H or W is not a multiple of " + f);
  return {};
}

// y[b, c, h r + i, w r + j] = x[b, c r^2 + i r + j, h, w]; s describes x.
template <typename T>
void pixel_shuffle(const float* x, T* y, const Sizes& s) {
  const int64_t r = s.f, Co = s.C / (r * r), Ho = s.H * r, Wo = s.W * r;
  for (int64_t b = 0; b < s.B; ++b)
    for (int64_t c = 0; c < Co; ++c)
      for (int64_t i = 0; i < r; ++i)
        for (int64_t j = 0; j < r; ++j)
          for (int64_t h = 0; h < s.H; ++h)
            for (int64_t w = 0; w < s.W; ++w)
              y[((b * Co + c) * Ho + h * r + i) * Wo + w * r + j] =
                  T(x[((b * s.C + c * r * r + i * r + j) * s.H + h) * s.W + w]);
}

// y[b, c r^2 + i r + j, h, w] = x[b, c, h r + i, w r + j]; s describes x.
template <typename T>
void pixel_unshuffle(const float* x, T* y, const Sizes& s) {
  const int64_t r = s.f, Co = s.C * r * r, Ho = s.H / r, Wo = s.W / r;
  for (int64_t b = 0; b < s.B; ++b)
    for (int64_t c = 0; c < s.C; ++c)
      for (int64_t i = 0; i < r; ++i)
        for (int64_t j = 0; j < r; ++j)
          for (int64_t h = 0; h < Ho; ++h)
            for (int64_t w = 0; w < Wo; ++w)
              y[((b * Co + c * r * r + i * r + j) * Ho + h) * Wo + w] =
                  T(x[((b * s.C + c) * s.H + h * r + i) * s.W + w * r + j]);
}

// The patches of x as rows: row b N + n (n = hp (W/p) + wp, raster order)
// holds x[b, c, hp p + i, wp p + j] at column (c p + i) p + j, the order of
// Conv2d's weight [D, C, p, p] flattened.
inline std::vector<float> patch_rows(const float* x, const Sizes& s) {
  const int64_t p = s.f, gh = s.H / p, gw = s.W / p, K = s.C * p * p;
  std::vector<float> rows(static_cast<size_t>(s.B * gh * gw * K));
  for (int64_t b = 0; b < s.B; ++b)
    for (int64_t hp = 0; hp < gh; ++hp)
      for (int64_t wp = 0; wp < gw; ++wp)
        for (int64_t c = 0; c < s.C; ++c)
          for (int64_t i = 0; i < p; ++i)
            for (int64_t j = 0; j < p; ++j)
              rows[static_cast<size_t>(((b * gh + hp) * gw + wp) * K + (c * p + i) * p + j)] =
                  x[((b * s.C + c) * s.H + hp * p + i) * s.W + wp * p + j];
  return rows;
}

// y[b, n, d] = bias[d] + sum_k rows[b N + n, k] w[d, k] (bias may be NULL).
template <typename T>
void patch_embed(const float* x, const float* w, const float* bias, T* y, const Sizes& s) {
  const int64_t p = s.f, M = s.B * (s.H / p) * (s.W / p), K = s.C * p * p;
  const std::vector<float> rows = patch_rows(x, s);
  matmul<T>(rows.data(), w, y, M, s.D, K);
  if (bias != nullptr)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t d = 0; d < s.D; ++d) y[m * s.D + d] += T(bias[d]);
}

// y[b, c, hp p + i, wp p + j] = x[b, hp (W/p) + wp, (i p + j) C + c]; s
// describes y.
template <typename T>
void unpatchify(const float* x, T* y, const Sizes& s) {
  const int64_t p = s.f, gh = s.H / p, gw = s.W / p, F = p * p * s.C;
  for (int64_t b = 0; b < s.B; ++b)
    for (int64_t c = 0; c < s.C; ++c)  // outermost after b: C = 0 with a huge H W walks nothing
      for (int64_t hp = 0; hp < gh; ++hp)
        for (int64_t wp = 0; wp < gw; ++wp)
          for (int64_t i = 0; i < p; ++i)
            for (int64_t j = 0; j < p; ++j)
              y[((b * s.C + c) * s.H + hp * p + i) * s.W + wp * p + j] =
                  T(x[((b * gh + hp) * gw + wp) * F + (i * p + j) * s.C + c]);
}

// ---------------------------------------------------------------- Interpolate

// The sizes of one Interpolate call: x [B, C, H, W] -> y [B, C, Ho, Wo].
struct Resize {
  int64_t B = 0, C = 0, H = 1, W = 1, Ho = 1, Wo = 1;
  int32_t mode = TL_INTERP_NEAREST, align_corners = 0;
};

// The header's rules in its order.
inline Verdict check_interpolate(const Resize& r) {
  if (r.B < 0 || r.C < 0) return refuse(TL_ERR_INVALID_ARGUMENT, "B or C is negative");
  for (int64_t v : {r.H, r.W, r.Ho, r.Wo})
    if (v < 1 || v > INT32_MAX) return refuse(TL_ERR_INVALID_ARGUMENT, "a spatial size is outside 1 .. 2^31 - 1");
  if (r.mode < TL_INTERP_NEAREST || r.mode > TL_INTERP_AREA)
    return refuse(TL_ERR_INVALID_ARGUMENT, "mode " + std::to_string(r.mode) + " is not a tl_interp_mode");
  if (r.align_corners != 0 && (r.align_corners != 1 || r.mode != TL_INTERP_BILINEAR))
    return refuse(TL_ERR_INVALID_ARGUMENT, "align_corners must be 0, or 1 with bilinear");
  if (!detail::bytes_fit({r.B, r.C, r.H, r.W}) || !detail::bytes_fit({r.B, r.C, r.Ho, r.Wo}))
    return refuse(TL_ERR_INVALID_ARGUMENT, "x's or y's bytes overflow");
  return {};
}

// Nearest: the source of output index d is floor(d in / out), exactly.
inline int64_t nearest_source(int64_t d, int64_t in, int64_t out) { return d * in / out; }

// One axis of bilinear: the two taps and their weights for output index d,
// PyTorch's arithmetic in T: half-pixel centres src = (d + 0.5) in/out - 0.5
// clamped at 0, or with align_corners src = d (in - 1)/(out - 1) (0 when
// out = 1); i0 = floor(src), i1 = min(i0 + 1, in - 1), l1 = src - i0,
// l0 = 1 - l1. `src` is kept for the error scale.
template <typename T>
struct Taps {
  int64_t i0 = 0, i1 = 0;
  T l0 = T(1), l1 = T(0), src = T(0);
};

template <typename T>
Taps<T> bilinear_taps(int64_t d, int64_t in, int64_t out, bool align_corners) {
  using std::floor;
  Taps<T> t;
  if (align_corners) {
    const T scale = out > 1 ? T(in - 1) / T(out - 1) : T(0);
    t.src = T(d) * scale;
  } else {
    const T scale = T(in) / T(out);
    t.src = (T(d) + T(0.5)) * scale - T(0.5);
    if (t.src < T(0)) t.src = T(0);
  }
  t.i0 = std::min<int64_t>(static_cast<int64_t>(floor(t.src)), in - 1);
  t.i1 = std::min<int64_t>(t.i0 + 1, in - 1);
  t.l1 = t.src - T(t.i0);
  t.l0 = T(1) - t.l1;
  return t;
}

// Area (adaptive average pooling): output index d averages the inputs
// [floor(d in / out), ceil((d + 1) in / out)).
inline int64_t area_begin(int64_t d, int64_t in, int64_t out) { return d * in / out; }
inline int64_t area_end(int64_t d, int64_t in, int64_t out) { return ((d + 1) * in + out - 1) / out; }

// y = Interpolate(x) by r.mode; every product of the bilinear form is
// evaluated (PyTorch's: a 0 weight times NaN or Inf is NaN).
template <typename T>
void interpolate(const float* x, T* y, const Resize& r) {
  const int64_t planes = r.B * r.C;
  for (int64_t pl = 0; pl < planes; ++pl) {
    const float* xp = x + pl * r.H * r.W;
    T* yp = y + pl * r.Ho * r.Wo;
    for (int64_t oy = 0; oy < r.Ho; ++oy)
      for (int64_t ox = 0; ox < r.Wo; ++ox) {
        T v = T(0);
        if (r.mode == TL_INTERP_NEAREST) {
          v = T(xp[nearest_source(oy, r.H, r.Ho) * r.W + nearest_source(ox, r.W, r.Wo)]);
        } else if (r.mode == TL_INTERP_BILINEAR) {
          const Taps<T> ty = bilinear_taps<T>(oy, r.H, r.Ho, r.align_corners != 0);
          const Taps<T> tx = bilinear_taps<T>(ox, r.W, r.Wo, r.align_corners != 0);
          const float* r0 = xp + ty.i0 * r.W;
          const float* r1 = xp + ty.i1 * r.W;
          const T top = tx.l0 * T(r0[tx.i0]) + tx.l1 * T(r0[tx.i1]);
          const T bottom = tx.l0 * T(r1[tx.i0]) + tx.l1 * T(r1[tx.i1]);
          v = ty.l0 * top + ty.l1 * bottom;
        } else {
          const int64_t y0 = area_begin(oy, r.H, r.Ho), y1 = area_end(oy, r.H, r.Ho);
          const int64_t x0 = area_begin(ox, r.W, r.Wo), x1 = area_end(ox, r.W, r.Wo);
          for (int64_t i = y0; i < y1; ++i)
            for (int64_t j = x0; j < x1; ++j) v += T(xp[i * r.W + j]);
          v = v / T((y1 - y0) * (x1 - x0));
        }
        yp[oy * r.Wo + ox] = v;
      }
  }
}

}  // namespace konform::reference::spatial
