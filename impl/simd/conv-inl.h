// The vector parts of tinyllm/conv.h: dot products of weight rows with a
// patch of input columns (one column per output position, one row per
// (input channel, tap), zeros at pads), and Pool's reduction of a patch.
// Vectors run along output positions, so every output of the tile is one
// chain of multiply-adds in the spec's tap order. Arguments are validated
// and patches built by the caller (conv_simd.cpp).

#if defined(KONFORM_SIMD_CONV_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_CONV_INL_H_
#undef KONFORM_SIMD_CONV_INL_H_
#else
#define KONFORM_SIMD_CONV_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "impl/simd/conv_reduce-inl.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Adds the bias (if any) and stores lanes [p, min(p + N, n)) of one output row.
template <class D>
HWY_INLINE void FinishConv(D d, hn::Vec<D> acc, const float* bias, float* row, size_t p, size_t n) {
  if (bias != nullptr) acc = hn::Add(acc, hn::Set(d, *bias));
  if (p + hn::Lanes(d) <= n) {
    hn::StoreU(acc, d, row + p);
  } else {
    StoreHead(acc, d, row + p, n - p);
  }
}

// For co < n_co and p < n: y[co y_stride + p] = bias[co] + sum_k w[co K + k] patch[k P + p],
// k ascending. P is a multiple of every target's lane count; bias may be null.
// Four output channels share each patch load.
inline void PatchDot(const float* HWY_RESTRICT patch, size_t P, size_t n, const float* HWY_RESTRICT w, size_t K,
                     const float* bias, size_t n_co, float* HWY_RESTRICT y, size_t y_stride) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  auto b_of = [&](size_t co) { return bias == nullptr ? nullptr : bias + co; };
  size_t co = 0;
  for (; co + 4 <= n_co; co += 4) {
    const float *w0 = w + co * K, *w1 = w0 + K, *w2 = w1 + K, *w3 = w2 + K;
    for (size_t p = 0; p < n; p += N) {
      auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
      for (size_t k = 0; k < K; ++k) {
        const auto v = hn::LoadU(d, patch + k * P + p);
        a0 = hn::MulAdd(hn::Set(d, w0[k]), v, a0);
        a1 = hn::MulAdd(hn::Set(d, w1[k]), v, a1);
        a2 = hn::MulAdd(hn::Set(d, w2[k]), v, a2);
        a3 = hn::MulAdd(hn::Set(d, w3[k]), v, a3);
      }
      FinishConv(d, a0, b_of(co), y + co * y_stride, p, n);
      FinishConv(d, a1, b_of(co + 1), y + (co + 1) * y_stride, p, n);
      FinishConv(d, a2, b_of(co + 2), y + (co + 2) * y_stride, p, n);
      FinishConv(d, a3, b_of(co + 3), y + (co + 3) * y_stride, p, n);
    }
  }
  for (; co < n_co; ++co) {
    const float* wc = w + co * K;
    for (size_t p = 0; p < n; p += N) {
      auto a = hn::Zero(d);
      for (size_t k = 0; k < K; ++k) a = hn::MulAdd(hn::Set(d, wc[k]), hn::LoadU(d, patch + k * P + p), a);
      FinishConv(d, a, b_of(co), y + co * y_stride, p, n);
    }
  }
}

// Pool over a patch of K taps (pads already -inf for max, 0 for avg):
// y[p] for p < n. max: the first NaN of a column (quieted) if it has one,
// else the largest value; avg: the sum, k ascending, divided by K.
inline void PatchReduce(const float* HWY_RESTRICT patch, size_t P, size_t n, size_t K, bool max,
                        float* HWY_RESTRICT y) {
  using D = hn::ScalableTag<float>;
  const D d;
  const size_t N = hn::Lanes(d);
  MaxWindow<D> max_op;
  AvgWindow<D> avg_op{static_cast<float>(K), {}};
  auto reduce = [&](auto& op, size_t p) {
    op.Start(d);
    for (size_t k = 0; k < K; ++k) op.Tap(d, hn::LoadU(d, patch + k * P + p), k);
    return op.Result(d);
  };
  for (size_t p = 0; p < n; p += N) {
    const auto acc = max ? reduce(max_op, p) : reduce(avg_op, p);
    if (p + N <= n) {
      hn::StoreU(acc, d, y + p);
    } else {
      StoreHead(acc, d, y + p, n - p);
    }
  }
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_CONV_INL_H_
