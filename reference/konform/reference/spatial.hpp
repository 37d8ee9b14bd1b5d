// The spatial ops of tinyllm/spatial.h (spec/operations.txt §7), written
// from the header's index formulas: which calls are valid, and the results.
//
// One source on the scalar type T: double is the oracle, float the `scalar`
// backend. The layout ops copy (any T holds a float exactly); PatchEmbed is
// the patches gathered into rows, then Matmul (pairwise sums) plus the bias.
// The validity rules are the oracle's own reading of the header, apart from
// the kernels' (impl/common/spatial_args.hpp).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "konform/reference/linalg.hpp"
#include "konform/reference/tensor_shape.hpp"

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
    case Op::patch_embed: {
      const int64_t n = (s.H / s.f) * (s.W / s.f);  // <= H W: fits
      if (!bytes_fit({s.D, s.C, ff}) || !bytes_fit({s.B, n, s.D}))
        return refuse(TL_ERR_INVALID_ARGUMENT, "w's or y's bytes overflow");
      break;
    }
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
    for (int64_t hp = 0; hp < gh; ++hp)
      for (int64_t wp = 0; wp < gw; ++wp)
        for (int64_t i = 0; i < p; ++i)
          for (int64_t j = 0; j < p; ++j)
            for (int64_t c = 0; c < s.C; ++c)
              y[((b * s.C + c) * s.H + hp * p + i) * s.W + wp * p + j] =
                  T(x[((b * gh + hp) * gw + wp) * F + (i * p + j) * s.C + c]);
}

}  // namespace konform::reference::spatial
