// Data moves both peer adapters make around a library call: exact copies,
// no arithmetic.
#pragma once

#include <cstdint>
#include <vector>

namespace konform::peer {

// CausalConv1d's replicate padding: each of `rows` signals of length T with
// its first sample repeated `left` times in front (tinyllm/conv.h).
inline std::vector<float> replicate_left(const float* x, int64_t rows, int64_t T, int64_t left) {
  const int64_t Tp = T + left;
  std::vector<float> out(static_cast<size_t>(rows * Tp));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t t = 0; t < Tp; ++t) out[r * Tp + t] = x[r * T + (t < left ? 0 : t - left)];
  return out;
}

}  // namespace konform::peer
