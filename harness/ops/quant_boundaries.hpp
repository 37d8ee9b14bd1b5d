// Values to quantize that separate one rounding from another: values on a
// rounding boundary under a scale that is not a power of two (x / d exactly
// k + 1/2, and one ulp either side), for each format; and, for Q4_K's scale
// search, blocks of small values with sparse outliers, where the search's
// choice of grid matters most.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "konform/reference/quant.hpp"
#include "konform/rng.hpp"
#include "konform/values.hpp"

namespace konform::ops::qfmt {

namespace rq = reference::quant;
using rq::Format;

// A scale m 2^e with m odd and at most 12 bits, so that 127 d and every
// (k + 1/2) d (|k| <= 127) are floats: a boundary is then a float itself.
inline double boundary_scale(Rng& rng) {
  const double m = static_cast<double>(2 * rng.range(64, 2047) + 1);
  return std::ldexp(m, static_cast<int>(rng.range(-30, 0)));
}

// v, or the float one ulp above or below it (one value in three each).
inline float nudged(Rng& rng, float v) {
  const int64_t side = rng.range(-1, 1);
  return side == 0 ? v : std::nextafter(v, side > 0 ? INFINITY : -INFINITY);
}

// Q8_0 and Q4_0 blocks whose values sit on (or one ulp off) the boundaries
// of x / d: Q8_0 rounds x / d to nearest, so k + 1/2; Q4_0 truncates
// x / d + 8.5, so again x / d = k + 1/2. The block's extreme fixes d.
inline void boundary_block_q8_q4(Rng& rng, Format f, float* x) {
  const double d = boundary_scale(rng);
  const bool q8 = f == Format::q8_0;
  const double sign = rng.chance(0.5) ? 1 : -1;
  // Q8_0: d = max|x| / 127; Q4_0: d = x_max / -8, x_max the first extreme.
  x[0] = static_cast<float>(q8 ? sign * 127 * d : -8 * sign * d);
  for (int j = 1; j < 32; ++j) {
    const int64_t k = q8 ? rng.range(-127, 126) : rng.range(-8, 7);
    x[j] = nudged(rng, static_cast<float>(sign * (static_cast<double>(k) + 0.5) * d));
  }
}

// Q4_K: values moved to the midpoint (l + 1/2) d sc - dmin m nearest them
// on their sub-block's final grid (where that is a float), one at a time,
// each kept only if the block's grid (d, dmin and the 6-bit codes) stays as
// it was, so the midpoint stays one; then some moved one ulp off, the same
// way. A value moves by at most half a step, which rarely moves the grid
// outside the sub-block of the largest scale or min.
inline void boundary_block_q4_k(Rng& rng, float* x) {
  const float scale = static_cast<float>(boundary_scale(rng) * 64);
  for (int i = 0; i < 256; ++i) x[i] = static_cast<float>(rng.uniform(-1, 1)) * scale;
  uint8_t grid[144], trial[144];
  rq::quantize_q4_k_block(x, grid);
  const auto try_value = [&](int i, float v) {
    const float old = x[i];
    x[i] = v;
    rq::quantize_q4_k_block(x, trial);
    if (std::memcmp(trial, grid, 16) != 0) x[i] = old;  // the grid moved: undone
  };
  for (int i = 0; i < 256; ++i) {
    float dj, mj;
    rq::q4_k_sub_block(grid, i / 32, &dj, &mj);
    if (dj == 0) continue;
    const double l = std::fmin(14, std::fmax(0, std::floor((static_cast<double>(x[i]) + mj) / dj)));
    const double v = (l + 0.5) * dj - mj;
    if (static_cast<double>(static_cast<float>(v)) == v) try_value(i, static_cast<float>(v));
  }
  for (int i = 0; i < 256; ++i)
    if (rng.chance(0.2)) try_value(i, nudged(rng, x[i]));
}

// The values of one Quantize case at rounding boundaries, block by block.
inline std::vector<float> boundary_values(Rng& rng, Format f, int64_t n) {
  std::vector<float> x(static_cast<size_t>(n));
  const int64_t qk = rq::block_values(f);
  for (int64_t b = 0; b < n / qk; ++b) {
    if (f == Format::q4_k) boundary_block_q4_k(rng, x.data() + b * qk);
    else boundary_block_q8_q4(rng, f, x.data() + b * qk);
  }
  return x;
}

// Small values (N(0, 0.1)) with one in sixteen eight times larger: a
// min-max grid spends its levels on the outliers, the search trades them.
inline std::vector<float> sparse_outliers(Rng& rng, int64_t n) {
  std::vector<float> x = make_values(rng, ValueClass::normal, n);
  for (float& v : x) v *= rng.range(0, 15) == 0 ? 8.0f : 0.1f;
  return x;
}

// Values of magnitude about 2^-125 (normal and subnormal floats): blocks
// whose reciprocals 15 / range and 63 / max overflow or just do not, where
// ggml converts an infinity to an integer (finite_or_zero in quant.hpp).
inline std::vector<float> tiny_range(Rng& rng, int64_t n) {
  std::vector<float> x(static_cast<size_t>(n));
  for (float& v : x) v = static_cast<float>(std::ldexp(rng.uniform(-1.5, 1.5), -125));
  return x;
}

}  // namespace konform::ops::qfmt
