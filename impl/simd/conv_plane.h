// The direct path of conv_simd.cpp for DepthwiseConv and Pool: one channel
// plane at a time, vectors along the output's W axis (conv_window-inl.h).
// Here, in plain C++ shared by every Highway target: which shapes it takes
// and the padded copy of a plane, so that the vector loop reads every tap,
// pads included, with plain loads and no per-element branch.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "konform/reference/conv_shape.hpp"

namespace konform::simd {

// Where the vector code reads one channel plane: input row ih (0 <= ih < H)
// starts at base + ih * pitch, padded column 0 (input column -pW) first;
// rows outside the input read pad_row. Every row holds at least the span
// PlaneReader computes, so whole vectors past the output's end stay in
// bounds.
struct PlaneWindow {
  const float* base;
  int64_t pitch;
  const float* pad_row;
  int64_t H, OH, OW, kH, kW, sH, sW, dH, dW, pH;
};

// Rows are read in pairs of whole vectors: up to twice the most float lanes
// of any target's vector (64).
constexpr int64_t kPlaneMaxRead = 128;

// 2-d, pads read as a constant (Conv's zero, max Pool's -inf) and a W stride
// the vector loop loads directly (1: plain loads, 2: deinterleaved).
inline bool DirectPlaneFits(const reference::ConvShape& s) {
  return s.nd == 2 && s.edge == reference::ConvEdge::zero && (s.stride[1] == 1 || s.stride[1] == 2);
}

class PlaneReader {
 public:
  PlaneReader(const reference::ConvShape& s, float pad) : s_(s), pad_(pad) {
    const int64_t out_w = (s.out[1] + kPlaneMaxRead - 1) / kPlaneMaxRead * kPlaneMaxRead;
    // The last lane a stride-2 load reads is one past its element.
    span_ = (out_w - 1) * s.stride[1] + (s.kernel[1] - 1) * s.dil[1] + s.stride[1];
    pitch_ = std::max(span_, s.pad[1] + s.in[1]);
    pad_row_.assign(static_cast<size_t>(pitch_), pad);
  }

  // The window of the plane at x (the input array ends at x_end): x itself
  // where no W padding is needed and the overrun stays inside the array,
  // else a padded copy.
  PlaneWindow At(const float* x, const float* x_end) {
    const reference::ConvShape& s = s_;
    PlaneWindow w{x,           s.in[1],     pad_row_.data(), s.in[0],  s.out[0], s.out[1], s.kernel[0],
                  s.kernel[1], s.stride[0], s.stride[1],     s.dil[0], s.dil[1], s.pad[0]};
    if (s.pad[1] == 0 && (s.in[0] - 1) * s.in[1] + span_ <= x_end - x) return w;
    // The pads are written once; each plane overwrites only the input columns.
    if (copy_.empty()) copy_.assign(static_cast<size_t>(s.in[0] * pitch_), pad_);
    for (int64_t r = 0; r < s.in[0]; ++r)
      std::copy(x + r * s.in[1], x + (r + 1) * s.in[1], copy_.begin() + r * pitch_ + s.pad[1]);
    w.base = copy_.data();
    w.pitch = pitch_;
    return w;
  }

 private:
  const reference::ConvShape& s_;
  float pad_;
  int64_t span_, pitch_;
  std::vector<float> pad_row_, copy_;
};

}  // namespace konform::simd
