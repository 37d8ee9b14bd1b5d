// Softmax along any axis, with the tensor seen as [outer, length, inner]
// around it (the caller has validated and split the shape).
//
// Each line is read whole before it is written (y == x works) in three
// passes: its max; e = exp(x - max) stored into y while summing; y *= 1/sum.
// The exp is computed once per element, which is what bounds the speed; its
// argument x - max is never above 0 (kNonPositive), except in the lanes a
// tail's partial load fills with 0, which keep the full clamp.
// Sums are kept accurate independently of the line's length: float lane
// partial sums of at most 8 terms each are added into a double, so a sum's
// relative error stays below about 14 roundings whatever the length.

#if defined(KONFORM_SIMD_SOFTMAX_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_SOFTMAX_INL_H_
#undef KONFORM_SIMD_SOFTMAX_INL_H_
#else
#define KONFORM_SIMD_SOFTMAX_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "hwy/aligned_allocator.h"
#include "impl/simd/activation_math-inl.h"
#include "impl/simd/half-inl.h"
#include "impl/simd/stream-inl.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
// In `act`, like activation_math-inl.h, away from other families' helpers.
namespace konform::simd::HWY_NAMESPACE::act {
namespace hn = hwy::HWY_NAMESPACE;

// Where a line's passes read x: floats as they are (FloatLine), or f16 and
// bf16 values widened in the registers (HalfLine, the half twins'), which
// gives the f32 kernel's values, so its bits. Full: the N values from i;
// Part: the m < N values from i, zeros past them, nothing past the line
// read; Prefetch: the next line's (null: none) values [i, i + n).
template <class T>
HWY_INLINE void PrefetchLine(const T* next, size_t i, size_t n) {
  if (next != nullptr)
    for (size_t k = 0; k < n; k += 64 / sizeof(T)) hwy::Prefetch(next + i + k);
}

struct FloatLine {
  const float* x;
  const float* next;
  template <class D>
  HWY_INLINE hn::Vec<D> Full(D d, size_t i) const {
    return hn::LoadU(d, x + i);
  }
  template <class D>
  HWY_INLINE hn::Vec<D> Part(D d, size_t i, size_t m) const {
    return LoadHead(d, x + i, m);
  }
  HWY_INLINE void Prefetch(size_t i, size_t n) const { PrefetchLine(next, i, n); }
};

template <class Format>
struct HalfLine : half::WidenedRow<Format> {
  const uint16_t* next;
  HalfLine(const uint16_t* line, const uint16_t* next_line) : half::WidenedRow<Format>{line}, next(next_line) {}
  HWY_INLINE void Prefetch(size_t i, size_t n) const { PrefetchLine(next, i, n); }
};

// The first two passes over one contiguous line of `length` values (the last
// axis, or inner == 1): its max, then e = exp(x - max) into e[0, length)
// while summing; returns the sum. The next line is prefetched during the
// first pass, so its reads from memory overlap this line's exps.
template <class Line>
inline double SoftmaxExps(const Line& x, size_t length, float* e_out) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const auto neg_inf = hn::Set(d, -std::numeric_limits<float>::infinity());

  // Pass 1: the max. A NaN may or may not win here (x86 max returns its second
  // operand on NaN); it does not matter, as exp(NaN - m) makes the sum NaN.
  auto m0 = neg_inf, m1 = neg_inf, m2 = neg_inf, m3 = neg_inf;
  size_t i = 0;
  for (; i + 4 * N <= length; i += 4 * N) {
    x.Prefetch(i, 4 * N);
    m0 = hn::Max(m0, x.Full(d, i));
    m1 = hn::Max(m1, x.Full(d, i + N));
    m2 = hn::Max(m2, x.Full(d, i + 2 * N));
    m3 = hn::Max(m3, x.Full(d, i + 3 * N));
  }
  for (; i + N <= length; i += N) m0 = hn::Max(m0, x.Full(d, i));
  if (i < length) {
    const size_t r = length - i;
    m1 = hn::Max(m1, hn::IfThenElse(hn::FirstN(d, r), x.Part(d, i, r), neg_inf));
  }
  const auto vmax = hn::Set(d, MaxLane(d, hn::Max(hn::Max(m0, m1), hn::Max(m2, m3))));

  // Pass 2: e, summed in chunks of 8 steps of 4 vectors.
  double total = 0.0;
  i = 0;
  while (i + 4 * N <= length) {
    auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
    for (int step = 0; step < 8 && i + 4 * N <= length; ++step, i += 4 * N) {
      Vecs<decltype(d), 4> e;
      for (size_t j = 0; j < 4; ++j) e[j] = hn::Sub(x.Full(d, i + j * N), vmax);
      e = ExpF<ExpArgs::kNonPositive>(d, e);
      for (size_t j = 0; j < 4; ++j) hn::StoreU(e[j], d, e_out + i + j * N);
      s0 = hn::Add(s0, e[0]);
      s1 = hn::Add(s1, e[1]);
      s2 = hn::Add(s2, e[2]);
      s3 = hn::Add(s3, e[3]);
    }
    total += static_cast<double>(hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3)))));
  }
  auto s = hn::Zero(d);
  for (; i + N <= length; i += N) {
    const auto e = ExpF<ExpArgs::kNonPositive>(d, hn::Sub(x.Full(d, i), vmax));
    hn::StoreU(e, d, e_out + i);
    s = hn::Add(s, e);
  }
  if (i < length) {
    const size_t r = length - i;
    const auto e = hn::IfThenElseZero(hn::FirstN(d, r), ExpF(d, hn::Sub(x.Part(d, i, r), vmax)));
    StoreHead(e, d, e_out + i, r);
    s = hn::Add(s, e);
  }
  return total + static_cast<double>(hn::GetLane(hn::SumOfLanes(d, s)));
}

// One contiguous line of `length` floats: SoftmaxExps, then one rounding for
// 1/sum and one for each product. `next`: the next line, or null. With
// `scratch` (length floats), the e go there and the last pass streams y
// (stream-inl.h): a y too big to stay cached is then written once, no line
// of it read first.
inline void SoftmaxLine(const float* x, float* y, size_t length, const float* next, float* scratch = nullptr) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  float* const e = scratch != nullptr ? scratch : y;
  const double total = SoftmaxExps(FloatLine{x, next}, length, e);
  const auto inv = hn::Set(d, static_cast<float>(1.0 / total));
  size_t i = 0;
  if (scratch != nullptr) {  // up to y's first vector boundary, then streamed
    for (; i < length && reinterpret_cast<uintptr_t>(y + i) % (N * sizeof(float)) != 0; ++i)
      y[i] = scratch[i] * static_cast<float>(1.0 / total);
    for (; i + N <= length; i += N) hn::Stream(hn::Mul(hn::LoadU(d, e + i), inv), d, y + i);
  }
  for (; i + N <= length; i += N) hn::StoreU(hn::Mul(hn::LoadU(d, e + i), inv), d, y + i);
  if (i < length) {
    const size_t r = length - i;
    StoreHead(hn::Mul(LoadHead(d, e + i, r), inv), d, y + i, r);
  }
}

// sum[0, w) += out[0, w), in double: a vector of floats promoted in two
// halves where the target has double vectors, one by one on the scalar one.
HWY_INLINE void AddToDoubles(const float* out, double* sum, size_t w) {
  size_t k = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<float> d;
  const hn::Half<decltype(d)> dh;
  const hn::Rebind<double, decltype(dh)> dd;
  const size_t N = hn::Lanes(d), H = hn::Lanes(dd);
  for (; k + N <= w; k += N) {
    const auto v = hn::LoadU(d, out + k);
    hn::StoreU(hn::Add(hn::LoadU(dd, sum + k), hn::PromoteTo(dd, hn::LowerHalf(dh, v))), dd, sum + k);
    hn::StoreU(hn::Add(hn::LoadU(dd, sum + k + H), hn::PromoteTo(dd, hn::UpperHalf(dh, v))), dd, sum + k + H);
  }
#endif
  for (; k < w; ++k) sum[k] += static_cast<double>(out[k]);
}

// One [length, inner] block with inner > 1: the lines are the columns. Up to
// kColumns of them at a time run the three passes together, a vector of
// columns per step, with their max, float partial sums and double sums on
// the stack. Each column's e are summed in float over blocks of 8 rows and
// the block sums added in double (the bound of SoftmaxLine), in an order that
// depends on the length alone, so no column depends on its neighbours.
inline void SoftmaxColumns(const float* x, float* y, int64_t length, int64_t inner) {
  constexpr size_t kColumns = 1024;  // a 4 KiB page of each row per pass
  constexpr int64_t kRows = 8;
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  HWY_ALIGN float m[kColumns];
  HWY_ALIGN float part[kColumns];
  double sum[kColumns];
  for (int64_t j0 = 0; j0 < inner; j0 += static_cast<int64_t>(kColumns)) {
    const size_t w = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(kColumns), inner - j0));
    std::fill(m, m + w, -std::numeric_limits<float>::infinity());
    std::fill(sum, sum + w, 0.0);
    for (int64_t l = 0; l < length; ++l) {  // pass 1: the max, row by row
      const float* row = x + l * inner + j0;
      size_t j = 0;
      for (; j + N <= w; j += N) hn::Store(hn::Max(hn::Load(d, m + j), hn::LoadU(d, row + j)), d, m + j);
      if (j < w) StoreHead(hn::Max(LoadHead(d, m + j, w - j), LoadHead(d, row + j, w - j)), d, m + j, w - j);
    }
    for (int64_t l0 = 0; l0 < length; l0 += kRows) {  // pass 2: e into y, by blocks of rows
      const int64_t l1 = std::min(length, l0 + kRows);
      size_t j = 0;
      for (; j + 4 * N <= w; j += 4 * N) {  // four column vectors, their exps interleaved
        Vecs<decltype(d), 4> e, ps;
        for (size_t c = 0; c < 4; ++c) ps[c] = hn::Zero(d);
        for (int64_t l = l0; l < l1; ++l) {
          float* out = y + l * inner + j0 + j;
          for (size_t c = 0; c < 4; ++c)
            e[c] = hn::Sub(hn::LoadU(d, x + l * inner + j0 + j + c * N), hn::Load(d, m + j + c * N));
          e = ExpF<ExpArgs::kNonPositive>(d, e);
          for (size_t c = 0; c < 4; ++c) hn::StoreU(e[c], d, out + c * N);
          for (size_t c = 0; c < 4; ++c) ps[c] = hn::Add(ps[c], e[c]);
        }
        for (size_t c = 0; c < 4; ++c) hn::Store(ps[c], d, part + j + c * N);
      }
      for (; j + N <= w; j += N) {
        const auto mj = hn::Load(d, m + j);
        auto ps = hn::Zero(d);
        for (int64_t l = l0; l < l1; ++l) {
          const auto e = ExpF<ExpArgs::kNonPositive>(d, hn::Sub(hn::LoadU(d, x + l * inner + j0 + j), mj));
          hn::StoreU(e, d, y + l * inner + j0 + j);
          ps = hn::Add(ps, e);
        }
        hn::Store(ps, d, part + j);
      }
      if (j < w) {
        const size_t r = w - j;
        const auto mj = LoadHead(d, m + j, r);
        auto ps = hn::Zero(d);
        for (int64_t l = l0; l < l1; ++l) {
          const auto e = ExpF(d, hn::Sub(LoadHead(d, x + l * inner + j0 + j, r), mj));
          StoreHead(e, d, y + l * inner + j0 + j, r);
          ps = hn::Add(ps, e);
        }
        StoreHead(ps, d, part + j, r);
      }
      AddToDoubles(part, sum, w);
    }
    for (size_t k = 0; k < w; ++k) m[k] = static_cast<float>(1.0 / sum[k]);  // m now holds 1/sum
    for (int64_t l = 0; l < length; ++l) {                                   // pass 3
      float* out = y + l * inner + j0;
      size_t j = 0;
      for (; j + N <= w; j += N) hn::StoreU(hn::Mul(hn::LoadU(d, out + j), hn::Load(d, m + j)), d, out + j);
      if (j < w) StoreHead(hn::Mul(LoadHead(d, out + j, w - j), LoadHead(d, m + j, w - j)), d, out + j, w - j);
    }
  }
}

inline void SoftmaxF32(const float* x, float* y, int64_t outer, int64_t length, int64_t inner) {
  if (outer <= 0 || length <= 0 || inner <= 0) return;
  const int64_t block = length * inner;
  // Rows into an output of kStreamBytes or more: e through a scratch row, y streamed.
  const bool stream = inner == 1 && outer * block * static_cast<int64_t>(sizeof(float)) >= kStreamBytes;
  const auto scratch = hwy::AllocateAligned<float>(stream ? static_cast<size_t>(length) : 1);
  for (int64_t o = 0; o < outer; ++o) {
    if (inner == 1)
      SoftmaxLine(x + o * block, y + o * block, static_cast<size_t>(length),
                  o + 1 < outer ? x + (o + 1) * block : nullptr, stream ? scratch.get() : nullptr);
    else SoftmaxColumns(x + o * block, y + o * block, length, inner);
  }
  if (stream) hwy::FlushStream();
}

}  // namespace konform::simd::HWY_NAMESPACE::act
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_SOFTMAX_INL_H_
