#include "scalar/kernels.hpp"

#include "impl/common/spatial_args.hpp"
#include "konform/reference/spatial.hpp"

namespace konform::scalar {

namespace args = konform::impl::spatial_args;
namespace ref = konform::reference::spatial;

tl_status pixel_shuffle_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r) {
  if (tl_status s = args::check_copy({"tl_pixel_shuffle_f32", args::Kind::shuffle, B, C, H, W, r}, x, y)) return s;
  ref::pixel_shuffle<float>(x, y, {B, C, H, W, r});
  return TL_OK;
}

tl_status pixel_unshuffle_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r) {
  if (tl_status s = args::check_copy({"tl_pixel_unshuffle_f32", args::Kind::unshuffle, B, C, H, W, r}, x, y)) return s;
  ref::pixel_unshuffle<float>(x, y, {B, C, H, W, r});
  return TL_OK;
}

tl_status patch_embed_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C, int64_t H,
                          int64_t W, int64_t D, int64_t p) {
  const char* fn = "tl_patch_embed_f32";
  if (tl_status s = args::check({fn, args::Kind::patch_embed, B, C, H, W, p, D})) return s;
  if (tl_status s = args::need(fn, x, B * C * H * W, "x")) return s;
  if (tl_status s = args::need(fn, w, D * C * p * p, "w")) return s;
  if (tl_status s = args::need(fn, y, B * (H / p) * (W / p) * D, "y")) return s;
  ref::patch_embed<float>(x, w, bias, y, {B, C, H, W, p, D});
  return TL_OK;
}

tl_status unpatchify_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t p) {
  if (tl_status s = args::check_copy({"tl_unpatchify_f32", args::Kind::unpatchify, B, C, H, W, p}, x, y)) return s;
  ref::unpatchify<float>(x, y, {B, C, H, W, p});
  return TL_OK;
}

tl_status interpolate_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t H_out,
                          int64_t W_out, int32_t mode, int32_t align_corners) {
  const char* fn = "tl_interpolate_f32";
  if (tl_status s = args::check_interpolate(B, C, H, W, H_out, W_out, mode, align_corners)) return s;
  if (tl_status s = args::need(fn, x, B * C * H * W, "x")) return s;
  if (tl_status s = args::need(fn, y, B * C * H_out * W_out, "y")) return s;
  ref::interpolate<float>(x, y, {B, C, H, W, H_out, W_out, mode, align_corners});
  return TL_OK;
}

}  // namespace konform::scalar
