// libtl_kernels: the ops of tinyllm/spatial.h. Each layout op is one
// permutation of a 6-D view of its input (PyTorch's own reading of
// PixelShuffle), run by Permute's Move (tensor_move-inl.h: register-
// transposed tiles), compiled once per Highway target and dispatched at run
// time. PatchEmbed gathers its patches the same way into rows [B N, C p p],
// multiplies them by w [D, C p p] with tl_matmul_f32 and adds the bias.
// Arguments are checked (impl/common/spatial_args.hpp) before anything runs.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/simd/spatial_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "impl/simd/spatial-inl.h"
#include "impl/simd/tensor_move-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {

inline void SpatialMove(const tensor::MovePlan& p, const float* x, float* y) { Move(p, x, y); }
inline void SpatialAddBias(float* y, const float* bias, int64_t rows, int64_t D) { spatial::AddBias(y, bias, rows, D); }

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <new>
#include <string>
#include <vector>

#include "impl/common/spatial_args.hpp"
#include "impl/simd/tensor_checks.h"
#include "tinyllm/linalg.h"
#include "tinyllm/spatial.h"

namespace konform::simd {

HWY_EXPORT(SpatialMove);
HWY_EXPORT(SpatialAddBias);

}  // namespace konform::simd

namespace {

namespace ks = konform::simd;
namespace kt = konform::simd::tensor;
namespace args = konform::impl::spatial_args;

// y = x viewed with dimensions `view`, permuted by `perm` (output axis k is
// input axis perm[k]); both have 6 entries.
void permute6(const float* x, float* y, const int64_t (&view)[6], const int64_t (&perm)[6]) {
  kt::Dims d;
  d.rank = 6;
  d.count = 1;
  for (int k = 0; k < 6; ++k) d.count *= (d.d[k] = view[k]);
  if (d.count == 0) return;
  HWY_DYNAMIC_DISPATCH(ks::SpatialMove)(kt::PlanPermute(d, perm), x, y);
}

// The checks, then the two tensors' pointers (equal element counts).
tl_status check_copy(const args::Call& c, const float* x, const float* y) {
  if (tl_status s = args::check(c)) return s;
  const int64_t n = c.B * c.C * c.H * c.W;
  if (tl_status s = args::need(c.fn, x, n, "x")) return s;
  return args::need(c.fn, y, n, "y");
}

}  // namespace

extern "C" {

tl_status tl_pixel_shuffle_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r) {
  if (tl_status s = check_copy({"tl_pixel_shuffle_f32", args::Kind::shuffle, B, C, H, W, r}, x, y)) return s;
  // [B, C', r, r, H, W] -> [B, C', H, r, W, r]
  permute6(x, y, {B, C / (r * r), r, r, H, W}, {0, 1, 4, 2, 5, 3});
  return TL_OK;
}

tl_status tl_pixel_unshuffle_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r) {
  if (tl_status s = check_copy({"tl_pixel_unshuffle_f32", args::Kind::unshuffle, B, C, H, W, r}, x, y)) return s;
  // [B, C, H/r, r, W/r, r] -> [B, C, r, r, H/r, W/r]
  permute6(x, y, {B, C, H / r, r, W / r, r}, {0, 1, 3, 5, 2, 4});
  return TL_OK;
}

tl_status tl_unpatchify_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t p) {
  if (tl_status s = check_copy({"tl_unpatchify_f32", args::Kind::unpatchify, B, C, H, W, p}, x, y)) return s;
  // [B, H/p, W/p, p, p, C] -> [B, C, H/p, p, W/p, p]
  permute6(x, y, {B, H / p, W / p, p, p, C}, {0, 5, 1, 3, 2, 4});
  return TL_OK;
}

tl_status tl_patch_embed_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C,
                             int64_t H, int64_t W, int64_t D, int64_t p) {
  const char* fn = "tl_patch_embed_f32";
  if (tl_status s = args::check({fn, args::Kind::patch_embed, B, C, H, W, p, D})) return s;
  const int64_t M = B * (H / p) * (W / p), K = C * p * p;
  if (tl_status s = args::need(fn, x, B * C * H * W, "x")) return s;
  if (tl_status s = args::need(fn, w, D * K, "w")) return s;
  if (tl_status s = args::need(fn, y, M * D, "y")) return s;
  if (M * D == 0) return TL_OK;
  std::vector<float> rows;
  try {
    rows.resize(static_cast<size_t>(M * K));
  } catch (const std::bad_alloc&) {
    return konform::impl::fail(TL_ERR_INVALID_ARGUMENT, std::string(fn) + ": no memory for the patch rows");
  }
  // [B, C, H/p, p, W/p, p] -> [B, H/p, W/p, C, p, p]: one row of C p p per patch
  permute6(x, rows.data(), {B, C, H / p, p, W / p, p}, {0, 2, 4, 1, 3, 5});
  if (tl_status s = tl_matmul_f32(rows.data(), w, y, M, D, K)) return s;
  if (bias != nullptr) HWY_DYNAMIC_DISPATCH(ks::SpatialAddBias)(y, bias, M, D);
  return TL_OK;
}

}  // extern "C"
#endif  // HWY_ONCE
