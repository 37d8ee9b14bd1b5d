// How Quantize's blocks are judged (docs/ops-linalg.md, "How Quantize is
// judged"): by what a block means, not by the bits one float route gives.
//
// By default a block passes when
//  (a) it decodes, with the format's exact dequantizer, to the values the
//      oracle's block decodes to (zeros of either sign alike); or
//  (b) Q8_0, Q4_0: its f16 scale is one a float route to the scale can round
//      to (kScaleLatitude) and each code is the format's rounding of x / d,
//      either neighbour being allowed where x / d lies within kCodeWindow of
//      a rounding boundary; or
//  (c) Q4_K: each value sits at its nearest level of the block's own 6-bit
//      grid (the same window at midpoints) and the block's squared
//      reconstruction error is at most kQ4KErrorFactor times the oracle's.
// The strict profile asks for the oracle's bytes (ggml's reference quantizer
// evaluated without fused multiply-adds): bit_exact_ggml.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "konform/reference/f16.hpp"
#include "konform/reference/quant.hpp"

namespace konform::ops::qjudge {

using reference::quant::Format;
namespace rq = reference::quant;

constexpr double kU = 0x1p-24;  // float's unit roundoff
// Q8_0's scale max|x| / 127 is one division (or a multiply by 1 / 127, two
// roundings); 4 u covers either route twice over. Q4_0's x_max / -8 is
// exact: no latitude, the f16 scale is determined.
constexpr double kScaleLatitude = 4 * kU;
// A code is computed from x, d and at most one offset in about four float
// operations (d, 1 / d, the product, the offset's sum; fused or not), each
// within u of its result, on either side: two routes differ by at most 8 u
// relative to the magnitudes involved; the window is twice that.
constexpr double kCodeWindow = 16 * kU;
// Q4_K's search picks among grids whose weighted errors are within its float
// sums' rounding of each other (32 terms, about 32 u), so a route that rounds
// otherwise picks a near-tied grid; that grid's scale and min are then
// rounded to 6 bits of the block's largest (a step of 1/63 of it), which
// moves the grid step of the largest sub-block by up to 1/126 and of a
// smaller one by up to half of its 6-bit value's step. A sub-block's error
// grows as the square of its step: ((sc + 1/2) / (sc - 1/2))^2 for the
// 6-bit scale sc, and the block's error is led by its larger sub-blocks
// (sc >= 32 for at least the largest: (32.5 / 31.5)^2 = 1.065 each way).
// Allowing a block twice the oracle's error covers a near-tied choice with a
// wide margin; a quantizer without the search (the min-max grid alone,
// mutant quant_m24) loses more than that on some blocks.
constexpr double kQ4KErrorFactor = 3.0;

// What the default rule found about one block.
struct BlockVerdict {
  bool ok = true;
  std::string why;     // the failing rule, in words
  int64_t value = -1;  // the value it is about, within the block (-1: the block)
  double expected = 0, got = 0;
  double error = 0, limit = 1;  // Q4_K: squared-error ratio against kQ4KErrorFactor
};

inline std::string fmt(const char* format, double a, double b = 0, double c = 0, double d = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, a, b, c, d);
  return buf;
}

// (a): the two blocks decode to the same values; *first gets the first
// value that differs.
inline bool decodes_alike(const float* got, const float* ref, int n, int* first) {
  for (int i = 0; i < n; ++i)
    if (!(got[i] == ref[i])) {  // +0 == -0; a NaN (an invalid scale) never matches
      *first = i;
      return false;
    }
  return true;
}

// The rounding boundary nearest v: boundaries sit at k + frac (0.5 for
// round-to-nearest, 0 for the truncation of v + 8.5).
inline double nearest_boundary(double v, double frac) { return std::floor(v - frac + 0.5) + frac; }

// Whether code c is `rounded` (the format's rounding of v, which is x / d
// plus any offset), or v lies within kCodeWindow (relative to `magnitude`)
// of a rounding boundary and c is one of the two codes either side of it,
// clamped to [lo, hi].
inline bool code_is_a_rounding(int c, double v, double frac, int rounded, int lo, int hi, double magnitude) {
  if (c == rounded) return true;
  const double b = nearest_boundary(v, frac);
  if (std::fabs(v - b) > kCodeWindow * magnitude) return false;
  const double below = frac == 0 ? b - 1 : std::floor(b);
  auto clamp = [&](double k) { return static_cast<int>(std::fmin(std::fmax(k, lo), hi)); };
  return c == clamp(below) || c == clamp(below + 1);
}

// (b) for Q8_0 and Q4_0.
inline BlockVerdict judge_q8_q4_0(Format f, const float* x, const uint8_t* got, const uint8_t* ref) {
  BlockVerdict v;
  double amax = 0, xmax = 0;  // xmax: the first value of largest magnitude
  for (int j = 0; j < 32; ++j)
    if (amax < std::fabs(x[j])) amax = std::fabs(x[j]), xmax = x[j];
  const double d = f == Format::q8_0 ? amax / 127 : xmax / -8;  // the scale before any rounding
  const uint16_t hg = rq::load_u16(got), hr = rq::load_u16(ref);
  const double lat = f == Format::q8_0 ? kScaleLatitude : 0;
  const uint16_t h_lo = reference::f32_to_f16(static_cast<float>(d * (1 - lat)));
  const uint16_t h_hi = reference::f32_to_f16(static_cast<float>(d * (1 + lat)));
  if (hg != hr && hg != h_lo && hg != h_hi) {
    v.ok = false;
    v.expected = reference::f16_to_f32(hr);
    v.got = reference::f16_to_f32(hg);
    v.why = fmt("the f16 scale %.9g is not a rounding of the block's scale %.9g (the oracle stores %.9g)", v.got, d,
                v.expected);
    return v;
  }
  if (reference::f16_to_f32(hg) == 0 || d == 0) return v;  // every code decodes to a zero
  for (int j = 0; j < 32; ++j) {
    int c, r;
    double t = x[j] / d;
    if (f == Format::q8_0) {
      c = static_cast<int8_t>(got[2 + j]);
      r = static_cast<int>(std::round(t));
      if (code_is_a_rounding(c, t, 0.5, r, -127, 127, std::fabs(t))) continue;
    } else {
      c = j < 16 ? got[2 + j] & 15 : got[2 + j - 16] >> 4;
      t += 8.5;
      r = static_cast<int>(std::fmin(15, std::trunc(t)));
      if (code_is_a_rounding(c, t, 0, r, 0, 15, std::fabs(t))) continue;
    }
    v.ok = false;
    v.value = j;
    v.expected = r;
    v.got = c;
    const double frac = f == Format::q8_0 ? 0.5 : 0;
    v.why = fmt(f == Format::q8_0 ? "code %g where x / d = %.9g rounds to %g, %.3g from a rounding boundary"
                                  : "code %g where x / d + 8.5 = %.9g gives %g, %.3g from a rounding boundary",
                c, t, r, std::fabs(t - nearest_boundary(t, frac)));
    return v;
  }
  return v;
}

// (c) for Q4_K: the block's own grid, each value at its nearest level, and
// the block's error against the oracle's.
inline BlockVerdict judge_q4_k(const float* x, const uint8_t* got, const float* y_got, const float* y_ref) {
  BlockVerdict v;
  const float d = reference::f16_to_f32(rq::load_u16(got)), dmin = reference::f16_to_f32(rq::load_u16(got + 2));
  if (!std::isfinite(d) || !std::isfinite(dmin)) {
    v.ok = false;
    v.why = "a block scale (d or dmin) is not finite";
    return v;
  }
  for (int j = 0; j < 8; ++j) {
    float dj, mj;
    rq::q4_k_sub_block(got, j, &dj, &mj);
    if (dj == 0) continue;  // every level decodes to -dmin m
    for (int i = 32 * j; i < 32 * j + 32; ++i) {
      const double t = (static_cast<double>(x[i]) + mj) / dj;
      const double nearest = std::nearbyint(t);  // ties to even, as ggml's nearest_int
      const int r = static_cast<int>(std::fmin(15, std::fmax(0, nearest)));
      const int c = rq::q4_k_quant(got, i);
      const double magnitude = (std::fabs(x[i]) + std::fabs(mj)) / std::fabs(dj);
      if (code_is_a_rounding(c, t, 0.5, r, 0, 15, magnitude)) continue;
      v.ok = false;
      v.value = i;
      v.expected = r;
      v.got = c;
      v.why = fmt("level %g where (x + dmin m) / (d sc) = %.9g is nearest %g on the block's own grid", c, t, r);
      return v;
    }
  }
  double e_got = 0, e_ref = 0, floor = 0;
  for (int i = 0; i < 256; ++i) {
    e_got += (static_cast<double>(y_got[i]) - x[i]) * (static_cast<double>(y_got[i]) - x[i]);
    e_ref += (static_cast<double>(y_ref[i]) - x[i]) * (static_cast<double>(y_ref[i]) - x[i]);
    // What decoding in float alone may add: a rounding of each value.
    floor += (kU * std::fabs(x[i])) * (kU * std::fabs(x[i]));
  }
  v.expected = e_ref;
  v.got = e_got;
  v.limit = kQ4KErrorFactor;
  v.error = e_got <= floor ? 0 : e_ref > 0 ? e_got / e_ref : INFINITY;
  if (e_got > kQ4KErrorFactor * e_ref + floor) {
    v.ok = false;
    v.why = fmt("the block's squared error %.6g is %.4g times the oracle's %.6g (at most %g)", e_got, e_got / e_ref,
                e_ref, kQ4KErrorFactor);
  }
  return v;
}

// The default rule for one block: x its values, `got` the block written,
// `ref` the oracle's.
inline BlockVerdict judge_block(Format f, const float* x, const uint8_t* got, const uint8_t* ref) {
  const int n = static_cast<int>(rq::block_values(f));
  float y_got[256], y_ref[256];
  rq::dequantize_block(f, got, y_got);
  rq::dequantize_block(f, ref, y_ref);
  int first = -1;
  if (decodes_alike(y_got, y_ref, n, &first)) return {};
  BlockVerdict v = f == Format::q4_k ? judge_q4_k(x, got, y_got, y_ref) : judge_q8_q4_0(f, x, got, ref);
  if (!v.ok && v.value < 0 && f != Format::q4_k) {
    v.value = first;
  }
  return v;
}

}  // namespace konform::ops::qjudge
