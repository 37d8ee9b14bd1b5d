// The spatial ops called through a backend the way the sweep calls them
// (guarded buffers, a refused call checked to write nothing), with plain
// vectors in and out, so a property reads like the statement it makes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "konform/call.hpp"
#include "ops/spatial_support.hpp"
#include "tensor_calls.hpp"

namespace konform::calls::spatial {

using tensor::Result;
using Sizes = reference::spatial::Sizes;

// A layout op ("PixelShuffle", "PixelUnshuffle", "Unpatchify") on x of
// x_shape, y of y_shape; s are the sizes the ABI is given.
inline Result layout(const Backend& b, const std::string& name, const std::vector<float>& x,
                     const std::vector<int64_t>& x_shape, const std::vector<int64_t>& y_shape, const Sizes& s) {
  Case c;
  ops::spatial::set_sizes(c, s, false);
  c.args.push_back({"x", Access::in, Tensor::of_f32(x_shape, x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, y_shape), Match::exact});
  c.args.push_back(tensor::status_arg());
  return tensor::run(b, name, c);
}

// x [B, C r^2, H, W] -> [B, C, H r, W r]; s describes x.
inline Result shuffle(const Backend& b, const std::vector<float>& x, const Sizes& s) {
  return layout(b, "PixelShuffle", x, {s.B, s.C, s.H, s.W}, {s.B, s.C / (s.f * s.f), s.H * s.f, s.W * s.f}, s);
}

// x [B, C, H, W] -> [B, C r^2, H / r, W / r]; s describes x.
inline Result unshuffle(const Backend& b, const std::vector<float>& x, const Sizes& s) {
  return layout(b, "PixelUnshuffle", x, {s.B, s.C, s.H, s.W}, {s.B, s.C * s.f * s.f, s.H / s.f, s.W / s.f}, s);
}

// tokens [B, N, p p C] -> y [B, C, H, W]; s describes y.
inline Result unpatchify(const Backend& b, const std::vector<float>& x, const Sizes& s) {
  return layout(b, "Unpatchify", x, {s.B, (s.H / s.f) * (s.W / s.f), s.f * s.f * s.C}, {s.B, s.C, s.H, s.W}, s);
}

// x [B, C, H, W], w [D, C, p, p], bias [D] (empty: NULL) -> y [B, N, D].
inline Result patch_embed(const Backend& b, const std::vector<float>& x, const std::vector<float>& w,
                          const std::vector<float>& bias, const Sizes& s) {
  Case c;
  ops::spatial::set_sizes(c, s, true);
  c.params["has_bias"] = bias.empty() ? 0.0 : 1.0;
  c.args.push_back({"x", Access::in, Tensor::of_f32({s.B, s.C, s.H, s.W}, x)});
  c.args.push_back({"w", Access::in, Tensor::of_f32({s.D, s.C, s.f, s.f}, w)});
  c.args.push_back(
      {"bias", Access::in, Tensor::of_f32({s.D}, bias.empty() ? std::vector<float>(static_cast<size_t>(s.D)) : bias)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {s.B, (s.H / s.f) * (s.W / s.f), s.D})});
  c.args.push_back(tensor::status_arg());
  return tensor::run(b, "PatchEmbed", c);
}

// Interpolate x [B, C, H, W] -> [B, C, Ho, Wo] by r.mode, through the
// catalog entry of that mode.
inline Result interpolate(const Backend& b, const std::vector<float>& x, const reference::spatial::Resize& r) {
  const char* names[] = {"InterpolateNearest", "InterpolateBilinear", "InterpolateArea"};
  Case c;
  c.params = {
      {"B", double(r.B)},   {"C", double(r.C)},   {"H", double(r.H)},       {"W", double(r.W)},
      {"Ho", double(r.Ho)}, {"Wo", double(r.Wo)}, {"mode", double(r.mode)}, {"align_corners", double(r.align_corners)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({r.B, r.C, r.H, r.W}, x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {r.B, r.C, r.Ho, r.Wo}),
                    r.mode == TL_INTERP_NEAREST ? Match::exact : Match::tolerance});
  c.args.push_back(tensor::status_arg());
  return tensor::run(b, names[r.mode], c);
}

}  // namespace konform::calls::spatial
