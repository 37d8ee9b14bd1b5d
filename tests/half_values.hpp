// Half (f16, bf16) test values for the kernels' unit tests: random values
// rounded by the library's cast, and their exact widening back to f32.
#pragma once

#include <cstdint>
#include <vector>

#include "konform/rng.hpp"

namespace konform::test {

using NarrowFn = void (*)(const float*, uint16_t*, int64_t);
using WidenFn = void (*)(const uint16_t*, float*, int64_t);

// n values uniform in [-range, range), 2 % of them exact zeros, rounded by narrow.
inline std::vector<uint16_t> half_values(Rng& rng, NarrowFn narrow, size_t n, double range) {
  std::vector<float> f(n);
  for (auto& x : f) x = rng.chance(0.02) ? 0.0f : static_cast<float>(rng.uniform(-range, range));
  std::vector<uint16_t> out(n);
  narrow(f.data(), out.data(), static_cast<int64_t>(n));
  return out;
}

inline std::vector<float> widened(WidenFn widen, const std::vector<uint16_t>& x) {
  std::vector<float> out(x.size());
  widen(x.data(), out.data(), static_cast<int64_t>(x.size()));
  return out;
}

}  // namespace konform::test
