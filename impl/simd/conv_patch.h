// Gathering a patch for the patch path of conv_simd.cpp: one row per
// (input channel, tap), one column per output position of a tile, the input
// element the spec's tap map reads there or the pad. Plain C++, shared by
// every Highway target.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "konform/reference/conv_shape.hpp"

namespace konform::simd {

// Output positions per patch: a multiple of every target's lane count (16).
constexpr int64_t kTile = 64;

// The sources of one tile, as runs: in tap t's row, columns [j, j + len)
// read input src, src + 1, ... (or the pad, src < 0). Computed once per tile
// and reused for every batch, group and channel, so filling a row is a few
// copies rather than a lookup per element.
class TileRuns {
 public:
  // Outputs out(j), j < n, and taps tap(t), t < taps.
  template <class Out, class Tap>
  void Build(const reference::ConvShape& s, int64_t n, int64_t taps, Out out, Tap tap) {
    runs_.clear();
    first_.assign(1, 0);
    for (int64_t t = 0; t < taps; ++t) {
      for (int64_t j = 0; j < n; ++j) {
        const int64_t src = s.source(out(j), tap(t));
        if (runs_.size() > first_.back()) {
          Run& r = runs_.back();
          if (src < 0 ? r.src < 0 : r.src >= 0 && src == r.src + r.len) {
            ++r.len;
            continue;
          }
        }
        runs_.push_back({j, 1, src});
      }
      first_.push_back(runs_.size());
    }
  }

  // Rows (channel c of xc's channels, tap t) of a patch: x where the tap
  // reads the input, `pad` elsewhere.
  void Fill(const float* xc, int64_t channels, int64_t IS, float pad, float* patch) const {
    const int64_t taps = static_cast<int64_t>(first_.size()) - 1;
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t t = 0; t < taps; ++t) {
        float* row = patch + (c * taps + t) * kTile;
        const float* xr = xc + c * IS;
        for (size_t i = first_[static_cast<size_t>(t)]; i < first_[static_cast<size_t>(t) + 1]; ++i) {
          const Run& r = runs_[i];
          if (r.src < 0) {
            std::fill(row + r.j, row + r.j + r.len, pad);
          } else {
            std::copy(xr + r.src, xr + r.src + r.len, row + r.j);
          }
        }
      }
  }

 private:
  struct Run {
    int64_t j, len, src;
  };
  std::vector<Run> runs_;
  std::vector<size_t> first_;  // tap t's runs: [first_[t], first_[t + 1])
};

}  // namespace konform::simd
