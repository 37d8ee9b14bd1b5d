// A seeded generator whose stream is the same on every machine and compiler:
// SplitMix64, and floats built from bits (no <random> distributions, which
// differ between standard libraries).
#pragma once

#include <cstdint>
#include <iterator>
#include <string_view>

namespace konform {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi], inclusive.
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }
  // Uniform in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
  bool chance(double p) { return unit() < p; }
  template <typename C>
  const auto& pick(const C& options) {
    return options[static_cast<size_t>(range(0, static_cast<int64_t>(std::size(options)) - 1))];
  }

 private:
  uint64_t state_;
};

// The seed of one case: a function of the run's seed, the op and the index
// only, so `--case N` replays case N alone.
uint64_t case_seed(uint64_t run_seed, std::string_view op, int64_t index);

}  // namespace konform
