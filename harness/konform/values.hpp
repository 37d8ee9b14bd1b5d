// Value classes: the kinds of numbers that break kernels, each filled from
// the seeded generator.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "konform/rng.hpp"
#include "konform/tensor.hpp"

namespace konform {

enum class ValueClass {
  normal,     // about N(0, 1)
  wide,       // log-uniform magnitudes 2^-40 .. 2^40, random signs
  tiny,       // the smallest normal floats
  huge,       // up to max_abs (FLT_MAX unless the op's domain says less)
  zeros,      // +0 and -0
  subnormal,  // random subnormal bit patterns
  specials,   // normal values with +-Inf, NaN, +-FLT_MAX, +-0 and subnormals mixed in
  ties,       // small integers, so equal values repeat
};

constexpr ValueClass kAllValueClasses[] = {ValueClass::normal,   ValueClass::wide,  ValueClass::tiny,
                                           ValueClass::huge,     ValueClass::zeros, ValueClass::subnormal,
                                           ValueClass::specials, ValueClass::ties};

std::string_view value_class_name(ValueClass c);

// Fills out[0, n) with values of class c, magnitudes at most max_abs.
void fill_values(Rng& rng, ValueClass c, float* out, int64_t n, double max_abs = 3.4028234663852886e38);
std::vector<float> make_values(Rng& rng, ValueClass c, int64_t n, double max_abs = 3.4028234663852886e38);

// Sizes around every vector width (4, 8, 16 floats and unrolls of them), odd
// primes, and the large sizes of real models.
const std::vector<int64_t>& edge_sizes();

// Every bit pattern of a 16-bit dtype (f16, bf16), in order: the
// exhaustive case of the half ops, infinities and NaNs included.
inline constexpr int64_t kHalfPatterns = 65536;
Tensor every_half(DType t);
// n uniformly random bit patterns of a 16-bit dtype: every class of its
// values at the frequency it has among the patterns.
Tensor random_half_bits(Rng& rng, DType t, int64_t n);

// `konform check --exhaustive`: the binary half ops' case 0 is a denser grid
// (every pattern of a against 512 values of b, not 32). A process-wide
// setting, read by the case makers; the check's children inherit it.
void set_exhaustive_grids(bool on);
bool exhaustive_grids();

}  // namespace konform
