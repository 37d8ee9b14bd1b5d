// The direct path of DepthwiseConv and Pool: one channel plane (conv_plane.h)
// at a time, two vectors along the output's W axis per step, each tap a
// plain load (W stride 1) or a lane set of a deinterleaving load (stride 2).
// Each output sees its taps in the order PatchDot and PatchReduce
// (conv-inl.h) see them, row-major over the kernel, through the same per-lane
// arithmetic, so the bits are those of the patch path.

#if defined(KONFORM_SIMD_CONV_WINDOW_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_CONV_WINDOW_INL_H_
#undef KONFORM_SIMD_CONV_WINDOW_INL_H_
#else
#define KONFORM_SIMD_CONV_WINDOW_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hwy/highway.h"
#include "impl/simd/conv_plane.h"
#include "impl/simd/conv_reduce-inl.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Elements p[0], p[S], p[2S], ... of one vector.
template <int64_t S, class D>
HWY_INLINE hn::Vec<D> LoadStrided(D d, const float* HWY_RESTRICT p) {
  if constexpr (S == 1) {
    return hn::LoadU(d, p);
  } else {
    hn::Vec<D> even, odd;
    hn::LoadInterleaved2(d, p, even, odd);
    return even;
  }
}

// v into y[ow, min(ow + N, n)).
template <class D>
HWY_INLINE void StoreOutputs(D d, hn::Vec<D> v, float* HWY_RESTRICT y, int64_t ow, int64_t n) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  if (ow + N <= n) {
    hn::StoreU(v, d, y + ow);
  } else {
    StoreHead(v, d, y + ow, static_cast<size_t>(n - ow));
  }
}

// Taps kw < kW of one kernel row into a and b, the outputs starting at r and
// at r2 (N outputs further), tap numbers from t. Two independent chains keep
// the FMA pipes busy; at stride 2 with dilation 1 one deinterleaving load
// gives two neighbouring taps (its even and odd lanes).
template <int64_t S, class D, class Op>
HWY_INLINE void KernelRow(D d, const float* r, const float* r2, int64_t kW, int64_t dW, Op& a, Op& b, size_t& t) {
  int64_t kw = 0;
  if constexpr (S == 2) {
    if (dW == 1)
      for (; kw + 1 < kW; kw += 2, t += 2) {
        hn::Vec<D> e, o, e2, o2;
        hn::LoadInterleaved2(d, r + kw, e, o);
        hn::LoadInterleaved2(d, r2 + kw, e2, o2);
        a.Tap(d, e, t), b.Tap(d, e2, t);
        a.Tap(d, o, t + 1), b.Tap(d, o2, t + 1);
      }
  }
  for (; kw < kW; ++kw, ++t) {
    a.Tap(d, LoadStrided<S>(d, r + kw * dW), t);
    b.Tap(d, LoadStrided<S>(d, r2 + kw * dW), t);
  }
}

// y[oh OW + ow] = op over the window of output (oh, ow), every output of the
// plane, two vectors of outputs at a time. rows: scratch for kH row pointers.
template <int64_t S, class Op>
HWY_INLINE void WindowPlane(const PlaneWindow& p, Op op, const float** rows, float* HWY_RESTRICT y) {
  using D = hn::ScalableTag<float>;
  const D d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t oh = 0; oh < p.OH; ++oh) {
    for (int64_t kh = 0; kh < p.kH; ++kh) {
      const int64_t ih = oh * p.sH + kh * p.dH - p.pH;
      rows[kh] = ih >= 0 && ih < p.H ? p.base + ih * p.pitch : p.pad_row;
    }
    float* yr = y + oh * p.OW;
    for (int64_t ow = 0; ow < p.OW; ow += 2 * N) {
      Op a = op, b = op;
      a.Start(d), b.Start(d);
      size_t t = 0;
      for (int64_t kh = 0; kh < p.kH; ++kh) {
        const float* r = rows[kh] + ow * S;
        KernelRow<S>(d, r, r + N * S, p.kW, p.dW, a, b, t);
      }
      StoreOutputs(d, a.Result(d), yr, ow, p.OW);
      if (ow + N < p.OW) StoreOutputs(d, b.Result(d), yr, ow + N, p.OW);
    }
  }
}

template <class Op>
HWY_INLINE void WindowPlaneAnyStride(const PlaneWindow& p, Op op, float* y) {
  std::vector<const float*> rows(static_cast<size_t>(p.kH));
  if (p.sW == 1) {
    WindowPlane<1>(p, op, rows.data(), y);
  } else {
    WindowPlane<2>(p, op, rows.data(), y);
  }
}

// DepthwiseConv of one plane: w the channel's kH x kW filter, bias its bias or null.
inline void DepthwisePlane(const PlaneWindow& p, const float* w, const float* bias, float* y) {
  WindowPlaneAnyStride(p, DotWindow<hn::ScalableTag<float>>{w, bias, {}}, y);
}

// Pool of one plane (max: pads read -inf, avg: 0, as PlaneWindow holds them).
inline void PoolPlane(const PlaneWindow& p, bool max, float* y) {
  using D = hn::ScalableTag<float>;
  if (max) {
    WindowPlaneAnyStride(p, MaxWindow<D>{}, y);
  } else {
    WindowPlaneAnyStride(p, AvgWindow<D>{static_cast<float>(p.kH * p.kW), {}}, y);
  }
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_CONV_WINDOW_INL_H_
