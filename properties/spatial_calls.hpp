// The spatial ops called through a backend the way the sweep calls them
// (guarded buffers, a refused call checked to write nothing), with plain
// vectors in and out, so a property reads like the statement it makes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ops/spatial_support.hpp"
#include "tensor_calls.hpp"

namespace konform::calls::spatial {

using tensor::Result;
using Sizes = reference::spatial::Sizes;

// The sizes as the op's parameters.
inline std::map<std::string, double> size_params(const Sizes& s, bool patch) {
  Case c;
  ops::spatial::set_sizes(c, s, patch);
  return c.params;
}

// A layout op ("PixelShuffle", "PixelUnshuffle", "Unpatchify") on x; y
// takes its declared shape; s are the sizes the ABI is given.
inline Result layout(const Backend& b, const std::string& name, const std::vector<float>& x, const Sizes& s) {
  return tensor::result(call(b, name, {size_params(s, false), {{"x", flat(x)}}}));
}

// x [B, C r^2, H, W] -> [B, C, H r, W r]; s describes x.
inline Result shuffle(const Backend& b, const std::vector<float>& x, const Sizes& s) {
  return layout(b, "PixelShuffle", x, s);
}

// x [B, C, H, W] -> [B, C r^2, H / r, W / r]; s describes x.
inline Result unshuffle(const Backend& b, const std::vector<float>& x, const Sizes& s) {
  return layout(b, "PixelUnshuffle", x, s);
}

// tokens [B, N, p p C] -> y [B, C, H, W]; s describes y.
inline Result unpatchify(const Backend& b, const std::vector<float>& x, const Sizes& s) {
  return layout(b, "Unpatchify", x, s);
}

// x [B, C, H, W], w [D, C, p, p], bias [D] (empty: NULL) -> y [B, N, D].
inline Result patch_embed(const Backend& b, const std::vector<float>& x, const std::vector<float>& w,
                          const std::vector<float>& bias, const Sizes& s) {
  CaseInputs in{size_params(s, true),
                {{"x", flat(x)},
                 {"w", flat(w)},
                 {"bias", flat(bias.empty() ? std::vector<float>(static_cast<size_t>(s.D)) : bias)}}};
  in.params["has_bias"] = bias.empty() ? 0.0 : 1.0;
  return tensor::result(call(b, "PatchEmbed", in));
}

// Interpolate x [B, C, H, W] -> [B, C, Ho, Wo] by r.mode, through the
// catalog entry of that mode.
inline Result interpolate(const Backend& b, const std::vector<float>& x, const reference::spatial::Resize& r) {
  const char* names[] = {"InterpolateNearest", "InterpolateBilinear", "InterpolateArea"};
  return tensor::result(call(b, names[r.mode],
                             {{{"B", double(r.B)},
                               {"C", double(r.C)},
                               {"H", double(r.H)},
                               {"W", double(r.W)},
                               {"Ho", double(r.Ho)},
                               {"Wo", double(r.Wo)},
                               {"mode", double(r.mode)},
                               {"align_corners", double(r.align_corners)}},
                              {{"x", flat(x)}}}));
}

}  // namespace konform::calls::spatial
