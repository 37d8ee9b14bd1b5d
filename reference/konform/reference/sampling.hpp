// The Sample op of tinyllm/sampling.h, written from spec/operations.txt
// section 8 (Greedy, Temperature, TopK, TopP, MinP).
//
// One source on the scalar type T, as elementwise.hpp: double is the oracle's
// arithmetic, float is the `scalar` backend, a 50-digit float checks the
// double one. Arguments are assumed valid here (the ABI's validation lives in
// the backends and in the harness's declarations).
//
// Per row: weights w_i = exp((l_i - m) / t), the kept positions and their
// order (TopK and TopP: logit descending, ties by lower index; Temperature and
// MinP: index order), then the first kept position whose cumulative weight
// exceeds u * Z, Z the kept weights' sum. u = (next32() >> 8) * 2^-24 of
// PCG32 XSH-RR seeded (seed, stream = row): see tinyllm/sampling.h.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "konform/reference/elementwise.hpp"

namespace konform::reference::sampling {

// tl_sample_method, by value.
enum Method : int { kGreedy = 0, kTemperature = 1, kTopK = 2, kTopP = 3, kMinP = 4 };

// PCG32 XSH-RR, pcg32_srandom_r(seed, stream) (O'Neill), the header's draw.
struct Pcg32 {
  uint64_t state = 0, inc = 1;
  Pcg32(uint64_t seed, uint64_t stream) : inc((stream << 1u) | 1u) {
    step();
    state += seed;
    step();
  }
  void step() { state = state * 6364136223846793005ULL + inc; }
  uint32_t next32() {
    const uint64_t old = state;
    step();
    const auto x = static_cast<uint32_t>(((old >> 18u) ^ old) >> 27u);
    const auto rot = static_cast<uint32_t>(old >> 59u);
    return (x >> rot) | (x << ((32u - rot) & 31u));
  }
};

// u of row `row` under `seed`: 24 bits, exact in float and double.
inline double draw_u(uint64_t seed, int64_t row) {
  Pcg32 g(seed, static_cast<uint64_t>(row));
  return static_cast<double>(g.next32() >> 8) * 0x1p-24;
}

// The row's weights in T: exp((l_i - m) / t); 0 for NaN and -Inf; with m =
// +Inf, 1 for the +Inf logits and 0 elsewhere; all 0 when there is no number.
template <typename T>
std::vector<T> weights(const float* l, int64_t n, float t) {
  std::vector<T> w(static_cast<size_t>(n), T(0));
  bool any = false;
  float m = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < n; ++i)
    if (!std::isnan(l[i]) && (!any || l[i] > m)) m = l[i], any = true;
  if (!any || m == -std::numeric_limits<float>::infinity()) return w;
  for (int64_t i = 0; i < n; ++i) {
    const float x = l[i];
    if (std::isnan(x) || x == -std::numeric_limits<float>::infinity()) continue;
    if (std::isinf(m)) {
      w[static_cast<size_t>(i)] = x == m ? T(1) : T(0);
      continue;
    }
    using std::exp;
    w[static_cast<size_t>(i)] = exp((T(x) - T(m)) / T(t));
  }
  return w;
}

// Positions in TopK's and TopP's order: logit descending, ties by lower index
// first, NaN last.
inline std::vector<int64_t> sorted_order(const float* l, int64_t n) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [l](int64_t a, int64_t b) { return !std::isnan(l[a]) && (std::isnan(l[b]) || l[a] > l[b]); });
  return order;
}

// The number of TopP's sorted positions kept: positions j with
// C_j = (w_0 + ... + w_j) / Z <= p, at least 1 (cumsum in T, in order).
template <typename T>
int64_t top_p_length(const std::vector<int64_t>& order, const std::vector<T>& w, float p) {
  T z = T(0);
  for (int64_t i : order) z += w[static_cast<size_t>(i)];
  T c = T(0);
  int64_t kept = 0;
  for (int64_t i : order) {
    c += w[static_cast<size_t>(i)];
    if (c / z <= T(p)) ++kept;
    else break;
  }
  return std::max<int64_t>(kept, 1);
}

// The draw over kept positions (in their order): the first whose cumulative
// weight exceeds u * Z; the last positive one if rounding leaves none; -1
// when Z is 0.
template <typename T>
int32_t draw(const std::vector<int64_t>& kept, const std::vector<T>& w, T u) {
  T z = T(0);
  for (int64_t i : kept) z += w[static_cast<size_t>(i)];
  if (!(z > T(0))) return -1;
  const T target = u * z;
  T c = T(0);
  int64_t last = -1;
  for (int64_t i : kept) {
    const T wi = w[static_cast<size_t>(i)];
    c += wi;
    if (wi > T(0)) last = i;
    if (target < c) return static_cast<int32_t>(i);
  }
  return static_cast<int32_t>(last);
}

// The kept positions of a row, in their order (not Greedy).
template <typename T>
std::vector<int64_t> kept_positions(const float* l, int64_t n, const std::vector<T>& w, int method, int64_t top_k,
                                    float top_p, float min_p) {
  std::vector<int64_t> kept;
  switch (method) {
    case kTopK: {
      kept = sorted_order(l, n);
      kept.resize(static_cast<size_t>(top_k));
      break;
    }
    case kTopP: {
      kept = sorted_order(l, n);
      kept.resize(static_cast<size_t>(top_p_length(kept, w, top_p)));
      break;
    }
    case kMinP: {
      T wmax = T(0);
      for (const T& x : w) wmax = std::max(wmax, x);
      const T threshold = T(min_p) * wmax;
      for (int64_t i = 0; i < n; ++i)
        if (w[static_cast<size_t>(i)] >= threshold) kept.push_back(i);
      break;
    }
    default: kept.resize(static_cast<size_t>(n)); std::iota(kept.begin(), kept.end(), int64_t{0});
  }
  return kept;
}

// One row's token, computed in T, for a given u.
template <typename T>
int32_t sample_row(const float* l, int64_t n, int method, float temperature, int64_t top_k, float top_p, float min_p,
                   T u) {
  if (method == kGreedy) return argmax(l, n);
  const std::vector<T> w = weights<T>(l, n, temperature);
  return draw<T>(kept_positions<T>(l, n, w, method, top_k, top_p, min_p), w, u);
}

// Every row, row r drawing from stream r under `seed` (nonzero here: the
// backends resolve seed 0 before calling).
template <typename T>
void sample(const float* logits, int32_t* tokens, int64_t rows, int64_t vocab, int method, float temperature,
            int64_t top_k, float top_p, float min_p, uint64_t seed) {
  for (int64_t r = 0; r < rows; ++r) {
    const T u = method == kGreedy ? T(0) : T(draw_u(seed, r));
    tokens[r] = sample_row<T>(logits + r * vocab, vocab, method, temperature, top_k, top_p, min_p, u);
  }
}

}  // namespace konform::reference::sampling
