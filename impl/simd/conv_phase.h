// ConvTranspose2d split by output phase (oh mod stride, ow mod stride): tap
// kh can land on output row oh only if stride divides oh + p - kh d, which
// depends on oh mod stride alone. So each phase gathers only its own taps
// (about 1/stride^2 of them) and never multiplies the zeros of the taps that
// cannot land. Plain C++, shared by every Highway target.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "konform/reference/conv_shape.hpp"

namespace konform::simd {

struct TransposePhase {
  std::vector<int64_t> outputs;  // flat output positions, ascending
  std::vector<int64_t> taps;     // flat taps that can land on them, ascending (the spec's order)
};

// The taps k < kernel of one axis that can land on outputs o = phase (mod s).
inline std::vector<int64_t> PhaseTaps(int64_t phase, int64_t kernel, int64_t s, int64_t p, int64_t d) {
  std::vector<int64_t> k_of;
  for (int64_t k = 0; k < kernel; ++k)
    if (((phase + p - k * d) % s + s) % s == 0) k_of.push_back(k);
  return k_of;
}

// Every phase with at least one output (a 2-d transposed shape); a stride
// past the output leaves phases without one.
inline std::vector<TransposePhase> TransposePhases(const reference::ConvShape& s) {
  std::vector<TransposePhase> phases;
  for (int64_t ph = 0; ph < std::min(s.stride[0], s.out[0]); ++ph)
    for (int64_t pw = 0; pw < std::min(s.stride[1], s.out[1]); ++pw) {
      TransposePhase t;
      for (int64_t oh = ph; oh < s.out[0]; oh += s.stride[0])
        for (int64_t ow = pw; ow < s.out[1]; ow += s.stride[1]) t.outputs.push_back(oh * s.out[1] + ow);
      for (int64_t kh : PhaseTaps(ph, s.kernel[0], s.stride[0], s.pad[0], s.dil[0]))
        for (int64_t kw : PhaseTaps(pw, s.kernel[1], s.stride[1], s.pad[1], s.dil[1]))
          t.taps.push_back(kh * s.kernel[1] + kw);
      phases.push_back(std::move(t));
    }
  return phases;
}

}  // namespace konform::simd
