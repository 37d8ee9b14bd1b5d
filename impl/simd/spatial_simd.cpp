// libtl_kernels: the ops of tinyllm/spatial.h. Interpolate runs a row at
// a time from per-axis tap tables (interpolate_taps below). The layout ops
// have row kernels for the small factors (spatial_layout-inl.h: r = 2..4,
// Unpatchify's p = 2..4 with C of a whole tile); otherwise each is one
// permutation of a 6-D view of its input (PyTorch's own reading of
// PixelShuffle), run by Permute's Move (tensor_move-inl.h: register-
// transposed tiles). Both are compiled once per Highway target and
// dispatched at run time. PatchEmbed gathers its patches the same way into rows [B N, C p p],
// multiplies them by w [D, C p p] with tl_matmul_f32 and adds the bias.
// Arguments are checked (impl/common/spatial_args.hpp) before anything runs.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/simd/spatial_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "impl/simd/spatial-inl.h"
#include "impl/simd/spatial_layout-inl.h"
#include "impl/simd/tensor_move-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {

inline void SpatialMove(const impl::tensor::MovePlan& p, const float* x, float* y) { Move(p, x, y); }
inline bool SpatialShuffle(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r,
                           bool unshuffle) {
  return spatial::ShuffleSmall(x, y, B, C, H, W, r, unshuffle);
}
inline bool SpatialUnpatchify(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t p) {
  return spatial::UnpatchifySmall(x, y, B, C, H, W, p);
}
inline void SpatialAddBias(float* y, const float* bias, int64_t rows, int64_t D) { spatial::AddBias(y, bias, rows, D); }
inline void InterpNearestRow(const float* row, const int32_t* ix, float* y, size_t n) {
  spatial::NearestRow(row, ix, y, n);
}
inline void InterpBilinearRow(const float* r0, const float* r1, const int32_t* i0, const int32_t* i1, const float* l0x,
                              const float* l1x, float l0y, float l1y, float* y, size_t n) {
  spatial::BilinearRow(r0, r1, i0, i1, l0x, l1x, l0y, l1y, y, n);
}
inline void InterpAddRow(float* acc, const float* row, size_t n) { spatial::AddRow(acc, row, n); }

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <algorithm>
#include <new>
#include <string>
#include <vector>

#include "impl/common/spatial_args.hpp"
#include "impl/common/tensor_checks.hpp"
#include "tinyllm/linalg.h"
#include "tinyllm/spatial.h"

namespace konform::simd {

HWY_EXPORT(SpatialMove);
HWY_EXPORT(SpatialShuffle);
HWY_EXPORT(SpatialUnpatchify);
HWY_EXPORT(SpatialAddBias);
HWY_EXPORT(InterpNearestRow);
HWY_EXPORT(InterpBilinearRow);
HWY_EXPORT(InterpAddRow);

}  // namespace konform::simd

namespace {

namespace ks = konform::simd;
namespace kt = konform::impl::tensor;
namespace args = konform::impl::spatial_args;

// y = x viewed with dimensions `view`, permuted by `perm` (output axis k is
// input axis perm[k]); both have 6 entries.
void permute6(const float* x, float* y, const int64_t (&view)[6], const int64_t (&perm)[6]) {
  for (int64_t v : view)
    if (v == 0) return;  // first: with a 0 among them the others' product may overflow
  kt::Dims d;
  d.rank = 6;
  d.count = 1;
  for (int k = 0; k < 6; ++k) d.count *= (d.d[k] = view[k]);
  HWY_DYNAMIC_DISPATCH(ks::SpatialMove)(kt::PlanPermute(d, perm), x, y);
}

// Per output index along one axis: the source taps and weights, padded to
// whole vectors (padding: column 0, weight 0). PyTorch's float arithmetic
// for bilinear; exact integers for nearest and area.
struct AxisTaps {
  std::vector<int32_t> i0, i1;
  std::vector<float> l0, l1;
};

AxisTaps bilinear_axis(int64_t in, int64_t out, bool align_corners, size_t padded) {
  AxisTaps t{std::vector<int32_t>(padded, 0), std::vector<int32_t>(padded, 0), std::vector<float>(padded, 0.0f),
             std::vector<float>(padded, 0.0f)};
  const float scale = align_corners ? (out > 1 ? float(in - 1) / float(out - 1) : 0.0f) : float(in) / float(out);
  for (int64_t d = 0; d < out; ++d) {
    float src = align_corners ? float(d) * scale : (float(d) + 0.5f) * scale - 0.5f;
    if (src < 0.0f) src = 0.0f;
    const auto i0 = static_cast<int32_t>(std::min<int64_t>(static_cast<int64_t>(src), in - 1));
    t.i0[d] = i0;
    t.i1[d] = static_cast<int32_t>(std::min<int64_t>(i0 + 1, in - 1));
    t.l1[d] = src - float(i0);
    t.l0[d] = 1.0f - t.l1[d];
  }
  return t;
}

// Floats in the widest vector of any target (256 bytes: SVE, RVV). Not
// HWY_MAX_BYTES: out here it is the static target's (16 on SSE4), not the
// dispatched one's.
constexpr size_t kPad = 256 / sizeof(float);

void interpolate(const float* x, float* y, int64_t planes, int64_t H, int64_t W, int64_t Ho, int64_t Wo, int32_t mode,
                 bool align_corners) {
  const size_t padded = static_cast<size_t>((Wo + kPad - 1) / kPad * kPad);
  if (mode == TL_INTERP_NEAREST) {
    std::vector<int32_t> ix(padded, 0);
    for (int64_t d = 0; d < Wo; ++d) ix[d] = static_cast<int32_t>(d * W / Wo);
    // A dispatched call over several lines: clang-format 14 would break it after the macro.
    // clang-format off
    for (int64_t p = 0; p < planes; ++p)
      for (int64_t oy = 0; oy < Ho; ++oy)
        HWY_DYNAMIC_DISPATCH(ks::InterpNearestRow)(x + (p * H + oy * H / Ho) * W, ix.data(),
                                                   y + (p * Ho + oy) * Wo, static_cast<size_t>(Wo));
    // clang-format on
  } else if (mode == TL_INTERP_BILINEAR) {
    const AxisTaps tx = bilinear_axis(W, Wo, align_corners, padded);
    const AxisTaps ty = bilinear_axis(H, Ho, align_corners, static_cast<size_t>(Ho));
    // A dispatched call over several lines: clang-format 14 would break it after the macro.
    // clang-format off
    for (int64_t p = 0; p < planes; ++p)
      for (int64_t oy = 0; oy < Ho; ++oy)
        HWY_DYNAMIC_DISPATCH(ks::InterpBilinearRow)(x + (p * H + ty.i0[oy]) * W, x + (p * H + ty.i1[oy]) * W,
                                                    tx.i0.data(), tx.i1.data(), tx.l0.data(), tx.l1.data(), ty.l0[oy],
                                                    ty.l1[oy], y + (p * Ho + oy) * Wo, static_cast<size_t>(Wo));
    // clang-format on
  } else {
    std::vector<float> acc(static_cast<size_t>(W));
    for (int64_t p = 0; p < planes; ++p)
      for (int64_t oy = 0; oy < Ho; ++oy) {
        const int64_t r0 = oy * H / Ho, r1 = ((oy + 1) * H + Ho - 1) / Ho;
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (int64_t r = r0; r < r1; ++r)
          HWY_DYNAMIC_DISPATCH(ks::InterpAddRow)(acc.data(), x + (p * H + r) * W, static_cast<size_t>(W));
        float* yrow = y + (p * Ho + oy) * Wo;
        for (int64_t ox = 0; ox < Wo; ++ox) {
          const int64_t c0 = ox * W / Wo, c1 = ((ox + 1) * W + Wo - 1) / Wo;
          float sum = 0.0f;
          for (int64_t c = c0; c < c1; ++c) sum += acc[c];
          yrow[ox] = sum / float((r1 - r0) * (c1 - c0));
        }
      }
  }
}

}  // namespace

extern "C" {

tl_status tl_interpolate_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t H_out,
                             int64_t W_out, int32_t mode, int32_t align_corners) {
  if (tl_status s = args::check_interpolate(B, C, H, W, H_out, W_out, mode, align_corners)) return s;
  if (tl_status s = args::need("tl_interpolate_f32", x, B * C * H * W, "x")) return s;
  if (tl_status s = args::need("tl_interpolate_f32", y, B * C * H_out * W_out, "y")) return s;
  if (B * C == 0) return TL_OK;
  try {
    interpolate(x, y, B * C, H, W, H_out, W_out, mode, align_corners != 0);
  } catch (const std::bad_alloc&) {
    return konform::impl::fail(TL_ERR_INVALID_ARGUMENT, "tl_interpolate_f32: no memory for the tap tables");
  }
  return TL_OK;
}

tl_status tl_pixel_shuffle_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r) {
  if (tl_status s = args::check_copy({"tl_pixel_shuffle_f32", args::Kind::shuffle, B, C, H, W, r}, x, y)) return s;
  if (B * C * H * W == 0 || HWY_DYNAMIC_DISPATCH(ks::SpatialShuffle)(x, y, B, C, H, W, r, false)) return TL_OK;
  // [B, C', r, r, H, W] -> [B, C', H, r, W, r]
  permute6(x, y, {B, C / (r * r), r, r, H, W}, {0, 1, 4, 2, 5, 3});
  return TL_OK;
}

tl_status tl_pixel_unshuffle_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t r) {
  if (tl_status s = args::check_copy({"tl_pixel_unshuffle_f32", args::Kind::unshuffle, B, C, H, W, r}, x, y)) return s;
  if (B * C * H * W == 0 || HWY_DYNAMIC_DISPATCH(ks::SpatialShuffle)(x, y, B, C, H, W, r, true)) return TL_OK;
  // [B, C, H/r, r, W/r, r] -> [B, C, r, r, H/r, W/r]
  permute6(x, y, {B, C, H / r, r, W / r, r}, {0, 1, 3, 5, 2, 4});
  return TL_OK;
}

tl_status tl_unpatchify_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t p) {
  if (tl_status s = args::check_copy({"tl_unpatchify_f32", args::Kind::unpatchify, B, C, H, W, p}, x, y)) return s;
  if (B * C * H * W == 0 || HWY_DYNAMIC_DISPATCH(ks::SpatialUnpatchify)(x, y, B, C, H, W, p)) return TL_OK;
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
