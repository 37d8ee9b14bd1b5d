// What the declarations of the linalg and quant ops share (matmul.cpp,
// ffn.cpp, fused.cpp, quant.cpp): the status the headers promise, operands
// by value class, the error scale of a dot product, and the check of large
// products by random projection (OpSpec::verify).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "konform/compare.hpp"
#include "konform/op.hpp"
#include "konform/values.hpp"
#include "tinyllm/status.h"

namespace konform::ops::linalg {

// ---------------------------------------------------------------- status

inline Arg status_arg() { return {"status", Access::out, Tensor::zeros(DType::i32, {1}), Match::exact}; }
inline Expected status_expected(tl_status s) { return {{static_cast<double>(s)}, {0.0}}; }

// The sizes rule of tinyllm/linalg.h and quant.h, read from the headers: each
// size >= 0 and the product of any two times 4 bytes within an int64_t.
inline tl_status sizes_status(const std::vector<int64_t>& sizes) {
  for (int64_t s : sizes)
    if (s < 0) return TL_ERR_INVALID_ARGUMENT;
  for (size_t a = 0; a < sizes.size(); ++a)
    for (size_t b = a + 1; b < sizes.size(); ++b)
      if (static_cast<double>(sizes[a]) * static_cast<double>(sizes[b]) > static_cast<double>(INT64_MAX / 4))
        return TL_ERR_INVALID_ARGUMENT;
  return TL_OK;
}

// One size parameter of a valid case made bad: negative, or so large that a
// product overflows. The data stays as it was: a kernel must refuse before
// touching it. Returns the label suffix.
inline std::string make_size_invalid(Rng& rng, Case& c, const std::vector<std::string>& names) {
  const size_t a = static_cast<size_t>(rng.range(0, static_cast<int64_t>(names.size()) - 1));
  if (rng.chance(0.5) || names.size() < 2) {
    c.params[names[a]] = -static_cast<double>(rng.range(1, 3));
    return "bad: " + names[a] + " = " + std::to_string(c.iparam(names[a]));
  }
  const size_t b = (a + 1 + static_cast<size_t>(rng.range(0, static_cast<int64_t>(names.size()) - 2))) % names.size();
  c.params[names[a]] = c.params[names[b]] = static_cast<double>(int64_t{1} << 40);
  return "bad: " + names[a] + " = " + names[b] + " = 2^40";
}

// ---------------------------------------------------------------- operands

// Magnitudes up to 1e15 keep every float product below 1e30 and every sum of
// fewer than 1e8 of them finite: no intermediate overflow the double oracle
// would not also have. The value classes of values.hpp within that domain.
constexpr double kMaxAbs = 1e15;

inline ValueClass pick_class(Rng& rng) {
  if (rng.chance(0.6)) return ValueClass::normal;
  const ValueClass others[] = {ValueClass::wide,     ValueClass::tiny, ValueClass::zeros, ValueClass::subnormal,
                               ValueClass::specials, ValueClass::ties, ValueClass::huge};
  return rng.pick(others);
}

inline std::vector<float> operand(Rng& rng, ValueClass vc, int64_t n) { return make_values(rng, vc, n, kMaxAbs); }

// Large operands fast: 16 random bits per value, uniform in [-8, 8) at a
// step of 2^-12 (one generator call gives four values).
inline std::vector<float> fast_operand(Rng& rng, int64_t n) {
  std::vector<float> v;
  v.reserve(static_cast<size_t>(n));  // not zeroed first: up to 45 M values
  for (int64_t i = 0; i < n; i += 4) {
    const uint64_t bits = rng.next();
    for (int64_t j = 0; j < 4 && i + j < n; ++j)
      v.push_back(static_cast<float>(static_cast<int16_t>(bits >> (16 * j))) * 0x1p-12f);
  }
  return v;
}

// Rows whose dot products cancel: the second half of each row of w is the
// negation of its first half and x's halves are equal, so y* = 0 exactly while
// sum |x w| is not (a relative error would be infinite; r is not).
inline void make_cancelling(std::vector<float>& x, std::vector<float>& w, int64_t M, int64_t N, int64_t K) {
  const int64_t h = K / 2;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < h; ++k) x[static_cast<size_t>(m * K + h + k)] = x[static_cast<size_t>(m * K + k)];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < h; ++k) w[static_cast<size_t>(n * K + h + k)] = -w[static_cast<size_t>(n * K + k)];
}

// ---------------------------------------------------------------- scales

// s[m, n] = sum_k |x[m, k] w[n, k]|: the magnitude a float dot product loses
// precision against (X and W are float, or double for intermediates).
template <typename X, typename W>
std::vector<double> dot_scale(const X* x, const W* w, int64_t M, int64_t N, int64_t K) {
  std::vector<double> s(static_cast<size_t>(M * N));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k)
        acc += std::fabs(static_cast<double>(x[m * K + k]) * static_cast<double>(w[n * K + k]));
      s[static_cast<size_t>(m * N + n)] = acc;
    }
  return s;
}

// ---------------------------------------------------------------- large products

// The check of y = x @ w^T (x: [M, K], w: [N, K], y: [M, N]) for products too
// large for the full oracle, in O(MK + NK + MN) instead of O(MNK):
//  - freivalds_projection: for two random vectors r (random signs, magnitudes
//    in [0.5, 1.5]), y @ r against x @ (w^T r), in double. A correct y is
//    within limit u s[m, n] of each y*[m, n], so y @ r is within
//    limit u sum_n |r_n| s[m, n] = limit u (|x| @ (|w|^T |r|))[m]: that sum is
//    the scale, and the projection's own rounding (in double) is far below it.
//    It catches any error of that size wherever it sits (one bad tile).
//  - sampled_elements: 64 random columns of every row against their dot
//    products, element by element: errors spread thinly over all of y.
// `w_mag`, when given, is the magnitude of each weight's terms for the scale
// (a quantized weight's parts), in place of |w|. y may be f32, f16 or bf16;
// both checks judge in units of its dtype's roundoff, as the limit is.
inline std::vector<Verification> verify_product(const float* x, const float* w, const Tensor& y, int64_t M, int64_t N,
                                                int64_t K, double limit, uint64_t seed, const std::string& output,
                                                const float* w_mag = nullptr) {
  if (w_mag == nullptr) w_mag = w;
  Rng rng(seed);
  std::vector<Verification> out;
  Verification proj{"freivalds_projection", output, "rows of y @ r", {2, M}, {}};
  std::vector<double> got, value, scale;
  for (int t = 0; t < 2; ++t) {
    std::vector<double> r(static_cast<size_t>(N)), v(static_cast<size_t>(K), 0.0), va(static_cast<size_t>(K), 0.0);
    for (double& e : r) e = (rng.chance(0.5) ? -1.0 : 1.0) * rng.uniform(0.5, 1.5);
    for (int64_t n = 0; n < N; ++n) {
      const float* wn = w + n * K;
      const double rn = r[static_cast<size_t>(n)];
      for (int64_t k = 0; k < K; ++k) {
        v[static_cast<size_t>(k)] += static_cast<double>(wn[k]) * rn;
        va[static_cast<size_t>(k)] += std::fabs(static_cast<double>(w_mag[n * K + k]) * rn);
      }
    }
    for (int64_t m = 0; m < M; ++m) {
      double g = 0, e = 0, s = 0;
      for (int64_t n = 0; n < N; ++n) g += y.at(m * N + n) * r[static_cast<size_t>(n)];
      for (int64_t k = 0; k < K; ++k) {
        e += static_cast<double>(x[m * K + k]) * v[static_cast<size_t>(k)];
        s += std::fabs(static_cast<double>(x[m * K + k])) * va[static_cast<size_t>(k)];
      }
      got.push_back(g);
      value.push_back(e);
      scale.push_back(s);
    }
  }
  proj.comparison = compare_values(got, Expected{value, scale}, limit, y.dtype);
  out.push_back(proj);

  const int64_t samples = std::min<int64_t>(N, 64);
  Verification sampled{"sampled_elements", output, "sampled elements of y", {M, samples}, {}};
  got.clear();
  value.clear();
  scale.clear();
  for (int64_t m = 0; m < M; ++m)
    for (int64_t j = 0; j < samples; ++j) {
      const int64_t n = samples == N ? j : rng.range(0, N - 1);
      double e = 0, s = 0;
      for (int64_t k = 0; k < K; ++k) {
        e += static_cast<double>(x[m * K + k]) * static_cast<double>(w[n * K + k]);
        s += std::fabs(static_cast<double>(x[m * K + k]) * static_cast<double>(w_mag[n * K + k]));
      }
      got.push_back(y.at(m * N + n));
      value.push_back(e);
      scale.push_back(s);
    }
  sampled.comparison = compare_values(got, Expected{value, scale}, limit, y.dtype);
  out.push_back(sampled);
  return out;
}

// The seed of a case's projections: from its data, so a replay draws the same.
inline uint64_t verify_seed(const Case& c) {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (const auto& [name, v] : c.params) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    h = (h ^ b) * 0x100000001b3ull;
  }
  return h;
}

}  // namespace konform::ops::linalg
