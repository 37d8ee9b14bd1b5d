// libtl_kernels: the convolutions and Pool of tinyllm/conv.h, compiled once
// per Highway target (foreach_target) and chosen at run time. Each exported
// function validates its arguments (impl/common/conv_args.hpp) before it
// touches an output. DepthwiseConv and Pool with a W stride of 1 or 2 read
// each channel plane directly (conv_window-inl.h, conv_plane.h). Every other
// variant gathers a tile of output positions into a patch (the spec's tap
// map, conv_patch.h) and hands it to the vector code of conv-inl.h;
// ConvTranspose2d does so phase by phase with only the taps that can land
// (conv_phase.h). Padding, dilation, replication and the transposed map are
// plain index arithmetic here and never in the vector loops.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/simd/conv_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "impl/simd/conv-inl.h"
#include "impl/simd/conv_window-inl.h"

#if HWY_ONCE
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "hwy/aligned_allocator.h"
#include "impl/common/conv_args.hpp"
#include "impl/common/status.hpp"
#include "impl/simd/conv_phase.h"
#include "impl/simd/conv_patch.h"
#include "impl/simd/conv_plane.h"
#include "impl/simd/parallel.h"
#include "tinyllm/conv.h"

namespace konform::simd {

HWY_EXPORT(PatchDot);
HWY_EXPORT(PatchReduce);
HWY_EXPORT(DepthwisePlane);
HWY_EXPORT(PoolPlane);

namespace {

using reference::ConvShape;

// Below this many multiply-adds one thread does it all (as Matmul).
constexpr int64_t kParallelWork = int64_t{1} << 22;

// range(begin, end) over [0, items): one contiguous range per thread once
// `work` multiply-adds pass kParallelWork, else one. Each item is computed the
// same way on any thread, so the bits never depend on the thread count.
template <class Range>
void SplitItems(int64_t items, int64_t work, const Range& range) {
  if (items == 0) return;
  const int64_t threads = work >= kParallelWork ? std::min<int64_t>(ThreadCount(), items) : 1;
  const int64_t per = (items + threads - 1) / threads;
  ParallelFor((items + per - 1) / per, [&](int64_t t) { range(t * per, std::min(items, (t + 1) * per)); });
}

// ConvTranspose2d with an Inf or NaN weight: a tap that lands on no input
// contributes nothing (not 0 * Inf), which a patch with zeros cannot say.
// One output at a time, the same order (channel, then taps), plain float.
void ConvTransposeNonFinite(const float* x, const float* w, const float* bias, float* y, const ConvShape& s) {
  const int64_t KS = s.taps(), OS = s.out_elems(), IS = s.in_elems(), Cg = s.cin_g();
  for (int64_t b = 0; b < s.B; ++b)
    for (int64_t co = 0; co < s.C_out; ++co) {
      const float* xg = x + (b * s.C_in + co / s.cout_g() * Cg) * IS;
      for (int64_t o = 0; o < OS; ++o) {
        float acc = 0.0f;
        for (int64_t ci = 0; ci < Cg; ++ci)
          for (int64_t kk = 0; kk < KS; ++kk)
            if (const int64_t i = s.source(o, kk); i >= 0) acc += xg[ci * IS + i] * w[s.weight_index(co, ci, kk)];
        y[(b * s.C_out + co) * OS + o] = bias == nullptr ? acc : acc + bias[co];
      }
    }
}

// One channel per group (DepthwiseConv, or tl_conv_f32 with groups = C_in =
// C_out), plane by plane; planes split between threads past kParallelWork.
void DepthwiseDirect(const float* x, const float* w, const float* bias, float* y, const ConvShape& s) {
  const int64_t KS = s.taps(), OS = s.out_elems(), IS = s.in_elems(), planes = s.B * s.C_in;
  SplitItems(planes, planes * OS * KS, [&](int64_t begin, int64_t end) {
    PlaneReader reader(s, 0.0f);
    for (int64_t bc = begin; bc < end; ++bc) {
      const int64_t c = bc % s.C_in;
      // A dispatched call over several lines: clang-format 14 would break it after the macro.
      // clang-format off
      HWY_DYNAMIC_DISPATCH(DepthwisePlane)(reader.At(x + bc * IS, x + planes * IS), w + c * KS,
                                           bias == nullptr ? nullptr : bias + c, y + bc * OS);
      // clang-format on
    }
  });
}

// ConvTranspose2d with finite weights, phase by phase (conv_phase.h): each
// phase's outputs in tiles, a patch of only the taps that can land (a tap
// past the input's edge still reads 0), PatchDot into a tile buffer, then
// the tile scattered to its strided outputs. Terms in the spec's order
// (channel, then taps) less the ones that cannot land, which add exact zeros.
void ConvTransposeByPhase(const float* x, const float* w, const float* bias, float* y, const ConvShape& s) {
  const std::vector<TransposePhase> phases = TransposePhases(s);
  const int64_t OS = s.out_elems(), IS = s.in_elems(), Cg = s.cin_g(), Cgo = s.cout_g();
  // Per phase, W [C_in, C_out/groups, k] into rows [C_out][Cg * its taps].
  std::vector<std::vector<float>> rows(phases.size());
  std::vector<std::pair<size_t, int64_t>> jobs;  // (phase, tile)
  int64_t work = 0, K_max = 1;
  for (size_t ph = 0; ph < phases.size(); ++ph) {
    const std::vector<int64_t>& taps = phases[ph].taps;
    const int64_t T = static_cast<int64_t>(taps.size()), n_out = static_cast<int64_t>(phases[ph].outputs.size());
    rows[ph].resize(static_cast<size_t>(s.C_out * Cg * T));
    for (int64_t co = 0; co < s.C_out; ++co)
      for (int64_t ci = 0; ci < Cg; ++ci)
        for (int64_t t = 0; t < T; ++t)
          rows[ph][static_cast<size_t>((co * Cg + ci) * T + t)] = w[s.weight_index(co, ci, taps[t])];
    for (int64_t tile = 0; tile * kTile < n_out; ++tile) jobs.emplace_back(ph, tile);
    work += s.B * s.C_out * n_out * Cg * T;
    K_max = std::max(K_max, Cg * T);
  }
  SplitItems(static_cast<int64_t>(jobs.size()), work, [&](int64_t begin, int64_t end) {
    auto patch = hwy::AllocateAligned<float>(static_cast<size_t>(K_max * kTile));
    auto tile_y = hwy::AllocateAligned<float>(static_cast<size_t>(Cgo * kTile));
    TileRuns runs;
    for (int64_t job = begin; job < end; ++job) {
      const TransposePhase& phase = phases[jobs[static_cast<size_t>(job)].first];
      const float* w_rows = rows[jobs[static_cast<size_t>(job)].first].data();
      const int64_t T = static_cast<int64_t>(phase.taps.size()), K = Cg * T;
      const int64_t o0 = jobs[static_cast<size_t>(job)].second * kTile;
      const int64_t n = std::min(kTile, static_cast<int64_t>(phase.outputs.size()) - o0);
      const int64_t* outs = phase.outputs.data() + o0;
      runs.Build(
          s, n, T, [&](int64_t j) { return outs[j]; }, [&](int64_t k) { return phase.taps[k]; });
      for (int64_t b = 0; b < s.B; ++b)
        for (int64_t g = 0; g < s.groups; ++g) {
          runs.Fill(x + (b * s.C_in + g * Cg) * IS, Cg, IS, 0.0f, patch.get());
          // A dispatched call over several lines: clang-format 14 would break it after the macro.
          // clang-format off
          HWY_DYNAMIC_DISPATCH(PatchDot)(patch.get(), kTile, static_cast<size_t>(n), w_rows + g * Cgo * K,
                                         static_cast<size_t>(K), bias == nullptr ? nullptr : bias + g * Cgo,
                                         static_cast<size_t>(Cgo), tile_y.get(), kTile);
          // clang-format on
          float* yg = y + (b * s.C_out + g * Cgo) * OS;
          for (int64_t co = 0; co < Cgo; ++co)
            for (int64_t j = 0; j < n; ++j) yg[co * OS + outs[j]] = tile_y[static_cast<size_t>(co * kTile + j)];
        }
    }
  });
}

void Conv(const float* x, const float* w, const float* bias, float* y, const ConvShape& s) {
  if (s.cin_g() == 1 && s.cout_g() == 1 && DirectPlaneFits(s)) return DepthwiseDirect(x, w, bias, y, s);
  if (s.edge == reference::ConvEdge::transpose) {
    const int64_t n = s.C_out * s.cin_g() * s.taps();
    for (int64_t i = 0; i < n; ++i)
      if (!std::isfinite(w[i])) return ConvTransposeNonFinite(x, w, bias, y, s);
    return ConvTransposeByPhase(x, w, bias, y, s);
  }
  const int64_t KS = s.taps(), OS = s.out_elems(), IS = s.in_elems(), Cg = s.cin_g(), Cgo = s.cout_g();
  const int64_t K = Cg * KS;
  const int64_t tiles = (OS + kTile - 1) / kTile;
  SplitItems(tiles, s.B * s.C_out * OS * std::max<int64_t>(K, 1), [&](int64_t begin, int64_t end) {
    auto patch = hwy::AllocateAligned<float>(static_cast<size_t>(std::max<int64_t>(K, 1) * kTile));
    TileRuns runs;
    for (int64_t tile = begin; tile < end; ++tile) {
      const int64_t o0 = tile * kTile, n = std::min(kTile, OS - o0);
      runs.Build(
          s, n, KS, [&](int64_t j) { return o0 + j; }, [](int64_t k) { return k; });
      for (int64_t b = 0; b < s.B; ++b)
        for (int64_t g = 0; g < s.groups; ++g) {
          runs.Fill(x + (b * s.C_in + g * Cg) * IS, Cg, IS, 0.0f, patch.get());
          // A dispatched call over several lines: clang-format 14 would break it after the macro.
          // clang-format off
          HWY_DYNAMIC_DISPATCH(PatchDot)(patch.get(), kTile, static_cast<size_t>(n), w + g * Cgo * K,
                                         static_cast<size_t>(K), bias == nullptr ? nullptr : bias + g * Cgo,
                                         static_cast<size_t>(Cgo), y + (b * s.C_out + g * Cgo) * OS + o0,
                                         static_cast<size_t>(OS));
          // clang-format on
        }
    }
  });
}

void Pool(const float* x, float* y, const ConvShape& s, bool max) {
  const int64_t KS = s.taps(), OS = s.out_elems(), IS = s.in_elems();
  const float pad = max ? -std::numeric_limits<float>::infinity() : 0.0f;
  if (DirectPlaneFits(s)) {
    PlaneReader reader(s, pad);
    const int64_t planes = s.B * s.C_in;
    for (int64_t bc = 0; bc < planes; ++bc)
      HWY_DYNAMIC_DISPATCH(PoolPlane)(reader.At(x + bc * IS, x + planes * IS), max, y + bc * OS);
    return;
  }
  auto patch = hwy::AllocateAligned<float>(static_cast<size_t>(KS * kTile));
  TileRuns runs;
  for (int64_t o0 = 0; o0 < OS; o0 += kTile) {
    const int64_t n = std::min(kTile, OS - o0);
    runs.Build(
        s, n, KS, [&](int64_t j) { return o0 + j; }, [](int64_t k) { return k; });
    for (int64_t bc = 0; bc < s.B * s.C_in; ++bc) {
      runs.Fill(x + bc * IS, 1, IS, pad, patch.get());
      // A dispatched call over several lines: clang-format 14 would break it after the macro.
      // clang-format off
      HWY_DYNAMIC_DISPATCH(PatchReduce)(patch.get(), kTile, static_cast<size_t>(n), static_cast<size_t>(KS), max,
                                        y + bc * OS + o0);
      // clang-format on
    }
  }
}

tl_status RunConv(const impl::conv_args::Checked& c, const float* x, const float* w, const float* bias, float* y) {
  if (c.status != TL_OK) return impl::fail(c.status, c.message);
  Conv(x, w, bias, y, c.shape);
  return TL_OK;
}

}  // namespace
}  // namespace konform::simd

namespace ks = konform::simd;
namespace check = konform::impl::conv_args;

extern "C" {

tl_status tl_conv_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                      int64_t C_out, int64_t groups, int64_t n_dims, const int64_t* in_size, const int64_t* kernel,
                      const int64_t* stride, const int64_t* padding, const int64_t* dilation) {
  return ks::RunConv(check::conv(B, C_in, C_out, groups, n_dims, in_size, kernel, stride, padding, dilation), x, w,
                     bias, y);
}

tl_status tl_depthwise_conv2d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C,
                                  const int64_t in_size[2], const int64_t kernel[2], const int64_t stride[2],
                                  const int64_t padding[2], const int64_t dilation[2]) {
  return ks::RunConv(check::depthwise(B, C, in_size, kernel, stride, padding, dilation), x, w, bias, y);
}

tl_status tl_conv_transpose2d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                                  int64_t C_out, int64_t groups, const int64_t in_size[2], const int64_t kernel[2],
                                  const int64_t stride[2], const int64_t padding[2], const int64_t output_padding[2],
                                  const int64_t dilation[2]) {
  return ks::RunConv(
      check::conv_transpose2d(B, C_in, C_out, groups, in_size, kernel, stride, padding, output_padding, dilation), x, w,
      bias, y);
}

tl_status tl_causal_conv1d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                               int64_t C_out, int64_t groups, int64_t T, int64_t kernel, int64_t stride,
                               int64_t dilation) {
  return ks::RunConv(check::causal_conv1d(B, C_in, C_out, groups, T, kernel, stride, dilation), x, w, bias, y);
}

tl_status tl_pool_f32(const float* x, float* y, int64_t B, int64_t C, const int64_t in_size[2], const int64_t kernel[2],
                      const int64_t* stride, const int64_t* padding, int mode) {
  const check::Checked c = check::pool(B, C, in_size, kernel, stride, padding, mode);
  if (c.status != TL_OK) return konform::impl::fail(c.status, c.message);
  ks::Pool(x, y, c.shape, mode == TL_POOL_MAX);
  return TL_OK;
}

}  // extern "C"

#endif  // HWY_ONCE
