// The kernels of tinyllm/norm.h, per Highway target. Arguments arrive
// validated (norm_simd.cpp); sizes are the extents of impl/common/norm_args.hpp.
//
// Every normalized range is contiguous (a row, a group of channels, one
// channel of one sample), so every kernel is: statistics of a range with
// norm::BlockedSum (mean, then the mean square about it: two passes, never
// mean(x^2) - mean^2), then one pass that writes the range backwards
// (norm::Backwards). A range is read whole before any of it is written, so
// y == x is safe everywhere. No HWY_RESTRICT: outputs may alias inputs.

#if defined(KONFORM_SIMD_NORM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_NORM_INL_H_
#undef KONFORM_SIMD_NORM_INL_H_
#else
#define KONFORM_SIMD_NORM_INL_H_
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "hwy/aligned_allocator.h"
#include "hwy/highway.h"
#include "impl/simd/cache_size.h"
#include "impl/simd/half-inl.h"
#include "impl/simd/norm_reduce-inl.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace norm {
namespace hn = hwy::HWY_NAMESPACE;

// Below this mean square, float squares may be subnormal and inexact: the
// sum is redone in double (as it is when a float partial sum overflowed).
constexpr double kUnderflow = 0x1p-100;

inline double SumDouble(const float* x, size_t n) {
  double acc = 0.0;
  for (size_t i = 0; i < n; ++i) acc += x[i];
  return acc;
}
inline double SquaresDouble(const float* x, size_t n, double mean) {
  double acc = 0.0;
  for (size_t i = 0; i < n; ++i) acc += (x[i] - mean) * (x[i] - mean);
  return acc;
}

// 1 / sqrt(sum_sq / n + eps), eps inside the root.
inline float InverseRoot(double sum_sq, size_t n, float eps) {
  return static_cast<float>(1.0 / std::sqrt(sum_sq / static_cast<double>(n) + static_cast<double>(eps)));
}

// A sum of squares that overflowed, or whose squares underflowed, in float.
inline bool SquaresLost(double sum_sq, size_t n) {
  return !(sum_sq < HUGE_VAL) || sum_sq < kUnderflow * static_cast<double>(n);
}

// Mean and 1 / sqrt(var + eps) of x[0, n).
//
// One pass first: sum(x) and sum(x^2). The mean from it is as good as a
// two-pass mean (<= ~5 u of mean|x|). The variance sum(x^2)/n - mean^2 is
// kept only where it cannot have cancelled: mean^2 <= var / 4, where its
// error is <= ~10 u of var (no worse than the two-pass bound the tolerance
// assumes); rows further from zero (and any sum that overflowed or
// underflowed) take the second, centred pass: mean((x - mean)^2).
struct Stats {
  float mean, inv;
};
template <class D>
HWY_INLINE Stats Moments(D d, const float* x, size_t n, float eps) {
  const double count = static_cast<double>(n);
  const SumAndSquares one = BlockedSumAndSquares(d, x, n);
  if (std::fabs(one.sum) < HUGE_VAL && !SquaresLost(one.sq, n)) {
    const double mean = one.sum / count, var = one.sq / count - mean * mean;
    if (mean * mean <= 0.25 * var) return {static_cast<float>(mean), InverseRoot(var * count, n, eps)};
  }
  double sum = one.sum;
  if (!(std::fabs(sum) < HUGE_VAL)) sum = SumDouble(x, n);  // a float partial sum overflowed
  const float mean = static_cast<float>(sum / count);
  double sq = BlockedSum(d, n, Array{x, mean}, CentredSquare{mean});
  if (SquaresLost(sq, n)) sq = SquaresDouble(x, n, mean);
  return {mean, InverseRoot(sq, n, eps)};
}

// ---------------------------------------------------------------- writers

// y = x * inv * g[i]
struct ScaleByGain {
  const float *x, *g;
  float* y;
  float inv;
  template <class D>
  HWY_INLINE void Full(D d, size_t i) const {
    hn::StoreU(hn::Mul(hn::Mul(hn::LoadU(d, x + i), hn::Set(d, inv)), hn::LoadU(d, g + i)), d, y + i);
  }
  template <class D>
  HWY_INLINE void Part(D d, size_t i, size_t m) const {
    StoreHead(hn::Mul(hn::Mul(LoadHead(d, x + i, m), hn::Set(d, inv)), LoadHead(d, g + i, m)), d, y + i, m);
  }
};

// The affine maps applied to t = (x - mean) * inv.
struct GainBias {  // t * g[i] + b[i]
  const float *g, *b;
  template <class D>
  HWY_INLINE hn::Vec<D> Full(D d, size_t i, hn::Vec<D> t) const {
    return hn::MulAdd(t, hn::LoadU(d, g + i), hn::LoadU(d, b + i));
  }
  template <class D>
  HWY_INLINE hn::Vec<D> Part(D d, size_t i, size_t m, hn::Vec<D> t) const {
    return hn::MulAdd(t, LoadHead(d, g + i, m), LoadHead(d, b + i, m));
  }
};
struct Modulation {  // t * (1 + scale[i]) + shift[i]
  const float *scale, *shift;
  template <class D>
  HWY_INLINE hn::Vec<D> Full(D d, size_t i, hn::Vec<D> t) const {
    return hn::MulAdd(t, hn::Add(hn::Set(d, 1.0f), hn::LoadU(d, scale + i)), hn::LoadU(d, shift + i));
  }
  template <class D>
  HWY_INLINE hn::Vec<D> Part(D d, size_t i, size_t m, hn::Vec<D> t) const {
    return hn::MulAdd(t, hn::Add(hn::Set(d, 1.0f), LoadHead(d, scale + i, m)), LoadHead(d, shift + i, m));
  }
};
struct ChannelAffine {  // t * g + b, one channel's gain and bias
  float g, b;
  template <class D>
  HWY_INLINE hn::Vec<D> Full(D d, size_t, hn::Vec<D> t) const {
    return hn::MulAdd(t, hn::Set(d, g), hn::Set(d, b));
  }
  template <class D>
  HWY_INLINE hn::Vec<D> Part(D d, size_t, size_t, hn::Vec<D> t) const {
    return Full(d, 0, t);
  }
};

// y = affine((x - mean) * inv)
template <class Affine>
struct Normalize {
  const float* x;
  float* y;
  Stats s;
  Affine affine;
  template <class D>
  HWY_INLINE void Full(D d, size_t i) const {
    const auto t = hn::Mul(hn::Sub(hn::LoadU(d, x + i), hn::Set(d, s.mean)), hn::Set(d, s.inv));
    hn::StoreU(affine.Full(d, i, t), d, y + i);
  }
  template <class D>
  HWY_INLINE void Part(D d, size_t i, size_t m) const {
    const auto t = hn::Mul(hn::Sub(LoadHead(d, x + i, m), hn::Set(d, s.mean)), hn::Set(d, s.inv));
    StoreHead(affine.Part(d, i, m, t), d, y + i, m);
  }
};
template <class D, class Affine>
HWY_INLINE void NormalizeRange(D d, const float* x, float* y, size_t n, Stats s, const Affine& affine) {
  Backwards(d, n, Normalize<Affine>{x, y, s, affine});
}

// Two rows at once, sharing each load of the gain (and bias): the per-element
// operations are those of ScaleByGain and Normalize<GainBias>, so a row's bits
// do not depend on whether it was paired. Halves the gain traffic, which
// otherwise streams from L2 once per row.
struct ScaleByGainPair {
  const float *x0, *x1, *g;
  float *y0, *y1;
  float inv0, inv1;
  template <class D>
  HWY_INLINE void Full(D d, size_t i) const {
    const auto gv = hn::LoadU(d, g + i);
    hn::StoreU(hn::Mul(hn::Mul(hn::LoadU(d, x0 + i), hn::Set(d, inv0)), gv), d, y0 + i);
    hn::StoreU(hn::Mul(hn::Mul(hn::LoadU(d, x1 + i), hn::Set(d, inv1)), gv), d, y1 + i);
  }
  template <class D>
  HWY_INLINE void Part(D d, size_t i, size_t m) const {
    const auto gv = LoadHead(d, g + i, m);
    StoreHead(hn::Mul(hn::Mul(LoadHead(d, x0 + i, m), hn::Set(d, inv0)), gv), d, y0 + i, m);
    StoreHead(hn::Mul(hn::Mul(LoadHead(d, x1 + i, m), hn::Set(d, inv1)), gv), d, y1 + i, m);
  }
};
struct NormalizePair {
  const float *x0, *x1, *g, *b;
  float *y0, *y1;
  Stats s0, s1;
  template <class D>
  HWY_INLINE void Full(D d, size_t i) const {
    const auto gv = hn::LoadU(d, g + i), bv = hn::LoadU(d, b + i);
    const auto t0 = hn::Mul(hn::Sub(hn::LoadU(d, x0 + i), hn::Set(d, s0.mean)), hn::Set(d, s0.inv));
    const auto t1 = hn::Mul(hn::Sub(hn::LoadU(d, x1 + i), hn::Set(d, s1.mean)), hn::Set(d, s1.inv));
    hn::StoreU(hn::MulAdd(t0, gv, bv), d, y0 + i);
    hn::StoreU(hn::MulAdd(t1, gv, bv), d, y1 + i);
  }
  template <class D>
  HWY_INLINE void Part(D d, size_t i, size_t m) const {
    const auto gv = LoadHead(d, g + i, m), bv = LoadHead(d, b + i, m);
    const auto t0 = hn::Mul(hn::Sub(LoadHead(d, x0 + i, m), hn::Set(d, s0.mean)), hn::Set(d, s0.inv));
    const auto t1 = hn::Mul(hn::Sub(LoadHead(d, x1 + i, m), hn::Set(d, s1.mean)), hn::Set(d, s1.inv));
    StoreHead(hn::MulAdd(t0, gv, bv), d, y0 + i, m);
    StoreHead(hn::MulAdd(t1, gv, bv), d, y1 + i, m);
  }
};

// A writing pass that also asks for the next pair of rows (into L2): their
// statistics pass then starts on data already on its way, instead of waiting
// on L3 or DRAM after the stores. One prefetch per 64-byte line of each.
//
// For rows it pays only when the tensor comes from memory (PrefetchNext): from
// L3 the hardware prefetchers keep up alone and the extra requests compete
// with the stores. On a Zen 3 (two builds alternating in one process, ten
// runs a shape), without it: RmsNorm 32 x 11008 0.97-1.23x (faster in 9 of
// 10), LayerNorm 32 x 11008 0.91-1.11x (7 of 10), both at 32 x 4096
// 0.88-1.22x (6 of 10); at 512 x 4096 (8 MiB, still prefetched) it gains
// 12-19 points. On a Sapphire Rapids prefetching the next row at 32 x 4096
// costs 6 points. The channel norms keep it at every size: without it
// InstanceNorm at 6 MiB runs 0.73-0.97x on the Zen 3, GroupNorm at 5 MiB
// within noise (docs/ops-norm.md).
template <class Apply>
struct PrefetchingNext {
  Apply apply;
  const float *next0, *next1;  // the ranges to prefetch, the same length; nullptr: none
  template <class D>
  HWY_INLINE void Full(D d, size_t i) const {
    apply.Full(d, i);
    if (i % 16 == 0) {
      if (next0 != nullptr) __builtin_prefetch(next0 + i, 0, 2);
      if (next1 != nullptr) __builtin_prefetch(next1 + i, 0, 2);
    }
  }
  template <class D>
  HWY_INLINE void Part(D d, size_t i, size_t m) const {
    apply.Part(d, i, m);
  }
};
template <class Apply>
PrefetchingNext<Apply> Prefetching(const Apply& apply, const float* next0, const float* next1) {
  return {apply, next0, next1};
}
inline bool PrefetchNext(size_t x_bytes) { return x_bytes >= (size_t{8} << 20); }

// x + skip, stored to sum as it is summed (FusedSkipNorm's first pass).
struct SkipSum {
  const float *x, *skip;
  float* sum;
  template <class D>
  HWY_INLINE hn::Vec<D> Full(D d, size_t i) const {
    const auto v = hn::Add(hn::LoadU(d, x + i), hn::LoadU(d, skip + i));
    hn::StoreU(v, d, sum + i);
    return v;
  }
  template <class D>
  HWY_INLINE hn::Vec<D> Part(D d, size_t i, size_t m) const {
    const auto v = hn::Add(LoadHead(d, x + i, m), LoadHead(d, skip + i, m));  // 0 + 0 past m
    StoreHead(v, d, sum + i, m);
    return v;
  }
};

// h = x + gate[i] * r: Mul then Add, two roundings, as the unfused ops
// (the library is built with -ffp-contract=off, so they stay two).
struct GatedResidual {
  const float *x, *gate, *r;
  float* h;
  template <class D>
  HWY_INLINE void Full(D d, size_t i) const {
    hn::StoreU(hn::Add(hn::LoadU(d, x + i), hn::Mul(hn::LoadU(d, gate + i), hn::LoadU(d, r + i))), d, h + i);
  }
  template <class D>
  HWY_INLINE void Part(D d, size_t i, size_t m) const {
    StoreHead(hn::Add(LoadHead(d, x + i, m), hn::Mul(LoadHead(d, gate + i, m), LoadHead(d, r + i, m))), d, h + i, m);
  }
};

// BatchNorm of an [N, C] tensor, the channels along the vector:
// y = (x - mean[i]) * inv[i] * g[i] + b[i], inv = 1 / sqrt(var + eps) per
// lane in float (three correctly rounded operations).
struct RunningStats {
  const float *x, *mean, *var, *g, *b;
  float* y;
  float eps;
  template <class D>
  HWY_INLINE hn::Vec<D> Inv(D d, hn::Vec<D> v) const {
    return hn::Div(hn::Set(d, 1.0f), hn::Sqrt(hn::Add(v, hn::Set(d, eps))));
  }
  template <class D>
  HWY_INLINE void Full(D d, size_t i) const {
    const auto t = hn::Mul(hn::Sub(hn::LoadU(d, x + i), hn::LoadU(d, mean + i)), Inv(d, hn::LoadU(d, var + i)));
    hn::StoreU(hn::MulAdd(t, hn::LoadU(d, g + i), hn::LoadU(d, b + i)), d, y + i);
  }
  // Lanes past m compute on zeros (1 / sqrt(eps) may be Inf there): never stored.
  template <class D>
  HWY_INLINE void Part(D d, size_t i, size_t m) const {
    const auto t = hn::Mul(hn::Sub(LoadHead(d, x + i, m), LoadHead(d, mean + i, m)), Inv(d, LoadHead(d, var + i, m)));
    StoreHead(hn::MulAdd(t, LoadHead(d, g + i, m), LoadHead(d, b + i, m)), d, y + i, m);
  }
};

// ---------------------------------------------------------------- rows

// 1 / sqrt(mean(x^2) + eps) of x[0, n).
template <class D>
HWY_INLINE float RmsInverse(D d, const float* x, size_t n, float eps) {
  double sq = BlockedSum(d, n, Array{x, 0.0f}, Square());
  if (SquaresLost(sq, n)) sq = SquaresDouble(x, n, 0.0);
  return InverseRoot(sq, n, eps);
}

template <class D>
HWY_INLINE void SkipRow(D d, const float* x, const float* skip, const float* g, float* sum, float* y, size_t n,
                        float eps) {
  double sq = BlockedSum(d, n, SkipSum{x, skip, sum}, Square());
  if (SquaresLost(sq, n)) sq = SquaresDouble(sum, n, 0.0);
  Backwards(d, n, ScaleByGain{sum, g, y, InverseRoot(sq, n, eps)});
}

}  // namespace norm

// ---------------------------------------------------------------- the ops
// Exported through HWY_EXPORT in norm_simd.cpp.

// Where a row and the gain fit in L1 with a third of it to spare, rows go one
// at a time: the writing pass, forwards right after the statistics, finds the
// row and the gains in L1. Longer rows go in pairs sharing each load of the
// gains (ScaleByGainPair, NormalizePair), which otherwise stream from L2 once
// per row, with the next pair prefetched. The same operations per element
// either way. On a 48 KiB L1, in one process against pairs everywhere: 32 x
// 4096 RmsNorm 71 -> 81-82 % of the reference, LayerNorm 60 -> 60-67 %
// (docs/ops-norm.md).
inline bool RowsOneByOne(size_t n) { return 3 * (2 * n * sizeof(float)) <= 2 * L1DataBytes(); }

inline void NormRms(const float* x, const float* g, float* y, int64_t rows, int64_t d, float eps) {
  const hn::ScalableTag<float> df;
  const size_t n = static_cast<size_t>(d);
  int64_t r = 0;
  if (RowsOneByOne(n)) {
    for (; r < rows; ++r)
      norm::Forwards(df, n, norm::ScaleByGain{x + r * d, g, y + r * d, norm::RmsInverse(df, x + r * d, n, eps)});
    return;
  }
  const bool prefetch = norm::PrefetchNext(static_cast<size_t>(rows) * n * sizeof(float));
  for (; r + 2 <= rows; r += 2) {
    const float *x0 = x + r * d, *x1 = x0 + d;
    const float inv0 = norm::RmsInverse(df, x0, n, eps), inv1 = norm::RmsInverse(df, x1, n, eps);
    const bool more = prefetch && r + 4 <= rows;
    norm::Backwards(df, n,
                    norm::Prefetching(norm::ScaleByGainPair{x0, x1, g, y + r * d, y + (r + 1) * d, inv0, inv1},
                                      more ? x1 + d : nullptr, more ? x1 + 2 * d : nullptr));
  }
  if (r < rows)
    norm::Backwards(df, n, norm::ScaleByGain{x + r * d, g, y + r * d, norm::RmsInverse(df, x + r * d, n, eps)});
}

// f16 and bf16 rows (g, b f32): each row widened into an aligned float row,
// normed there by an f32 kernel `void(const float*, float*)`, rounded back
// (half-inl.h). The row is read whole before its y is written, so y == x
// works.
template <class Format, class F32Row>
void RowsInFloat(const uint16_t* x, uint16_t* y, int64_t rows, int64_t d, const F32Row& f32_row) {
  if (rows <= 0) return;
  const size_t n = static_cast<size_t>(d);
  const auto row = hwy::AllocateAligned<float>(n);
  for (int64_t r = 0; r < rows; ++r) {
    half::Widen<Format>(x + r * d, row.get(), n);
    f32_row(row.get(), row.get());
    half::Narrow<Format>(row.get(), y + r * d, n);
  }
}

inline void NormLayer(const float* x, const float* g, const float* b, float* y, int64_t rows, int64_t d, float eps) {
  const hn::ScalableTag<float> df;
  const size_t n = static_cast<size_t>(d);
  int64_t r = 0;
  if (RowsOneByOne(n)) {
    for (; r < rows; ++r) {
      const float* xr = x + r * d;
      norm::Forwards(df, n, norm::Normalize<norm::GainBias>{xr, y + r * d, norm::Moments(df, xr, n, eps), {g, b}});
    }
    return;
  }
  const bool prefetch = norm::PrefetchNext(static_cast<size_t>(rows) * n * sizeof(float));
  for (; r + 2 <= rows; r += 2) {
    const float *x0 = x + r * d, *x1 = x0 + d;
    const norm::Stats s0 = norm::Moments(df, x0, n, eps), s1 = norm::Moments(df, x1, n, eps);
    const bool more = prefetch && r + 4 <= rows;
    norm::Backwards(df, n,
                    norm::Prefetching(norm::NormalizePair{x0, x1, g, b, y + r * d, y + (r + 1) * d, s0, s1},
                                      more ? x1 + d : nullptr, more ? x1 + 2 * d : nullptr));
  }
  if (r < rows) {
    const norm::Stats s = norm::Moments(df, x + r * d, n, eps);
    norm::NormalizeRange(df, x + r * d, y + r * d, n, s, norm::GainBias{g, b});
  }
}

// Per (sample, channel) range of s elements with the running statistics. When
// s == 1 ([N, C]) the channels run along the vector instead.
// RmsNorm's twins: each row widened into an aligned float row, its inverse
// RMS taken there (norm::RmsInverse, as NormRms), then (x inv) g rounded
// straight from the registers into y (NormRms's ScaleByGain without its
// float store and the Narrow pass that reread it: two passes of stores over
// a row instead of three). The same operations per element, so the same
// bits; the row is read whole before its y is written, so y == x works.
template <class Format>
void NormRmsHalf(const uint16_t* x, const float* g, uint16_t* y, int64_t rows, int64_t d, float eps) {
  if (rows <= 0) return;
  if constexpr (half::kToBf16Cvt<Format>)
    if (HasBf16Cvt()) return NormRmsHalf<half::BF16Cvt>(x, g, y, rows, d, eps);
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(df), n = static_cast<size_t>(d);
  hwy::AlignedFreeUniquePtr<float[]> row;  // a widened row, for the rare sums redone in double
  // bf16 with vcvtne2ps2bf16, several rows: y in 64-byte steps of 32 values
  // as even and odd positions (BF16Cvt's pairs), the gain's whole steps laid
  // out that way once for all rows.
  constexpr size_t kGainFloats = 4096;
  HWY_ALIGN float gain_pairs[Format::kPairs ? kGainFloats : 1];
  const size_t paired = Format::kPairs && rows > 1 && n <= kGainFloats ? n / 32 * 32 : 0;
  if constexpr (Format::kPairs)
    for (size_t i = 0; i < paired; i += 32)
      for (size_t k = 0; k < 16; ++k) {
        gain_pairs[i + k] = g[i + 2 * k];
        gain_pairs[i + 16 + k] = g[i + 2 * k + 1];
      }
  for (int64_t r = 0; r < rows; ++r) {
    const uint16_t* xr = x + r * d;
    // RmsInverse's sum on the row widened in registers (WidenedRow): the
    // same blocks and order, so the same bits, without a float copy.
    double sq = norm::BlockedSum(df, n, half::WidenedRow<Format>{xr}, norm::Square());
    if (norm::SquaresLost(sq, n)) {
      if (!row) row = hwy::AllocateAligned<float>(n);
      half::Widen<Format>(xr, row.get(), n);
      sq = norm::SquaresDouble(row.get(), n, 0.0);
    }
    const float inv = norm::InverseRoot(sq, n, eps);
    uint16_t* yr = y + r * d;
    size_t i = 0;
    if constexpr (Format::kPairs) {
      const auto vinv = hn::Set(df, inv);
      for (; i < paired; i += 32) {
        hn::Vec<decltype(df)> even, odd;
        Format::WidenPair(xr + i, even, odd);
        Format::NarrowPair(hn::Mul(hn::Mul(even, vinv), hn::Load(df, gain_pairs + i)),
                           hn::Mul(hn::Mul(odd, vinv), hn::Load(df, gain_pairs + i + 16)), yr + i);
      }
    }
    if constexpr (Format::kVector) {
      const auto vinv = hn::Set(df, inv);
      for (; i + N <= n; i += N)
        Format::NarrowVec(df, hn::Mul(hn::Mul(Format::WidenVec(df, xr + i), vinv), hn::LoadU(df, g + i)), yr + i);
    }
    for (; i < n; ++i) yr[i] = Format::Narrow(Format::Widen(xr[i]) * inv * g[i]);
  }
}
template <class Format>
void NormLayerHalf(const uint16_t* x, const float* g, const float* b, uint16_t* y, int64_t rows, int64_t d, float eps) {
  RowsInFloat<Format>(x, y, rows, d, [&](const float* in, float* out) { NormLayer(in, g, b, out, 1, d, eps); });
}
inline void NormRmsF16(const uint16_t* x, const float* g, uint16_t* y, int64_t rows, int64_t d, float eps) {
  NormRmsHalf<half::F16>(x, g, y, rows, d, eps);
}
inline void NormRmsBF16(const uint16_t* x, const float* g, uint16_t* y, int64_t rows, int64_t d, float eps) {
  NormRmsHalf<half::BF16>(x, g, y, rows, d, eps);
}
inline void NormLayerF16(const uint16_t* x, const float* g, const float* b, uint16_t* y, int64_t rows, int64_t d,
                         float eps) {
  NormLayerHalf<half::F16>(x, g, b, y, rows, d, eps);
}
inline void NormLayerBF16(const uint16_t* x, const float* g, const float* b, uint16_t* y, int64_t rows, int64_t d,
                          float eps) {
  NormLayerHalf<half::BF16>(x, g, b, y, rows, d, eps);
}

inline void NormBatch(const float* x, const float* mean, const float* var, const float* g, const float* b, float* y,
                      int64_t n, int64_t c, int64_t s, float eps) {
  const hn::ScalableTag<float> df;
  if (s == 1) {
    for (int64_t k = 0; k < n; ++k)
      norm::Backwards(df, static_cast<size_t>(c), norm::RunningStats{x + k * c, mean, var, g, b, y + k * c, eps});
    return;
  }
  for (int64_t k = 0; k < n * c; ++k) {
    const int64_t ch = k % c;
    const norm::Stats st{mean[ch], static_cast<float>(1.0 / std::sqrt(static_cast<double>(var[ch]) + eps))};
    norm::NormalizeRange(df, x + k * s, y + k * s, static_cast<size_t>(s), st, norm::ChannelAffine{g[ch], b[ch]});
  }
}

// Per (sample, group): the group's channels are consecutive, and so are their
// elements. InstanceNorm is groups == c.
inline void NormGroup(const float* x, const float* g, const float* b, float* y, int64_t n, int64_t c, int64_t s,
                      int64_t groups, float eps) {
  const hn::ScalableTag<float> df;
  const int64_t channels = c / groups, size = channels * s;
  for (int64_t k = 0; k < n * groups; ++k) {
    const float* xg = x + k * size;
    float* yg = y + k * size;
    const float* next = k + 1 < n * groups ? xg + size : nullptr;  // prefetched while this group is written
    const int64_t c0 = (k % groups) * channels;
    const norm::Stats st = norm::Moments(df, xg, static_cast<size_t>(size), eps);
    if (s == 1) {  // one element per channel: the gains run along the vector
      const norm::Normalize<norm::GainBias> write{xg, yg, st, {g + c0, b + c0}};
      norm::Backwards(df, static_cast<size_t>(size), norm::Prefetching(write, next, nullptr));
      continue;
    }
    for (int64_t j = 0; j < channels; ++j) {
      const norm::Normalize<norm::ChannelAffine> write{xg + j * s, yg + j * s, st, {g[c0 + j], b[c0 + j]}};
      norm::Backwards(df, static_cast<size_t>(s), norm::Prefetching(write, next ? next + j * s : nullptr, nullptr));
    }
  }
}

inline void NormAdaLn(const float* x, const float* scale, const float* shift, float* y, int64_t batch, int64_t tokens,
                      int64_t d, float eps) {
  const hn::ScalableTag<float> df;
  const size_t n = static_cast<size_t>(d);
  for (int64_t r = 0; r < batch * tokens; ++r) {
    const int64_t sample = r / tokens;
    const norm::Stats st = norm::Moments(df, x + r * d, n, eps);
    norm::NormalizeRange(df, x + r * d, y + r * d, n, st, norm::Modulation{scale + sample * d, shift + sample * d});
  }
}

// Row by row: h first (forwards, so h == x is safe), then AdaLN of h, which
// is still in L1.
inline void NormAdaLnZero(const float* x, const float* r, const float* gate, const float* scale, const float* shift,
                          float* h, float* y, int64_t batch, int64_t tokens, int64_t d, float eps) {
  const hn::ScalableTag<float> df;
  const size_t n = static_cast<size_t>(d), N = hn::Lanes(df);
  for (int64_t row = 0; row < batch * tokens; ++row) {
    const int64_t sample = row / tokens, at = row * d;
    const norm::GatedResidual residual{x + at, gate + sample * d, r + at, h + at};
    size_t i = 0;
    for (; i + N <= n; i += N) residual.Full(df, i);
    if (i < n) residual.Part(df, i, n - i);
    const norm::Stats st = norm::Moments(df, h + at, n, eps);
    norm::NormalizeRange(df, h + at, y + at, n, st, norm::Modulation{scale + sample * d, shift + sample * d});
  }
}

inline void NormFusedSkip(const float* x, const float* skip, const float* g, float* sum, float* y, int64_t rows,
                          int64_t d, float eps) {
  const hn::ScalableTag<float> df;
  const size_t n = static_cast<size_t>(d);
  for (int64_t r = 0; r < rows; ++r) norm::SkipRow(df, x + r * d, skip + r * d, g, sum + r * d, y + r * d, n, eps);
}

// ---------------------------------------------------------------- f16, bf16

// The f16 and bf16 twins of the norms of x[N, C, ...] and the adaptive and
// fused ones: the half input widened whole into an aligned float array (the
// statistics range over whole groups), the f32 kernel there, y rounded back
// once (half-inl.h). The input is read whole before y is written, so y == x
// works.
template <class Format>
hwy::AlignedFreeUniquePtr<float[]> Widened(const uint16_t* x, size_t n) {
  auto w = hwy::AllocateAligned<float>(n == 0 ? 1 : n);
  half::Widen<Format>(x, w.get(), n);
  return w;
}

template <class Format>
void NormBatchHalf(const uint16_t* x, const float* mean, const float* var, const float* g, const float* b, uint16_t* y,
                   int64_t n, int64_t c, int64_t s, float eps) {
  const size_t total = static_cast<size_t>(n * c * s);
  const auto w = Widened<Format>(x, total);
  NormBatch(w.get(), mean, var, g, b, w.get(), n, c, s, eps);
  half::Narrow<Format>(w.get(), y, total);
}

template <class Format>
void NormGroupHalf(const uint16_t* x, const float* g, const float* b, uint16_t* y, int64_t n, int64_t c, int64_t s,
                   int64_t groups, float eps) {
  const size_t total = static_cast<size_t>(n * c * s);
  const auto w = Widened<Format>(x, total);
  NormGroup(w.get(), g, b, w.get(), n, c, s, groups, eps);
  half::Narrow<Format>(w.get(), y, total);
}

template <class Format>
void NormAdaLnHalf(const uint16_t* x, const float* scale, const float* shift, uint16_t* y, int64_t batch,
                   int64_t tokens, int64_t d, float eps) {
  const size_t total = static_cast<size_t>(batch * tokens * d);
  const auto w = Widened<Format>(x, total);
  NormAdaLn(w.get(), scale, shift, w.get(), batch, tokens, d, eps);
  half::Narrow<Format>(w.get(), y, total);
}

// h in float (norm::GatedResidual, as the f32 kernel), stored rounded to the
// dtype, then the half AdaLN of the stored h. x and r are widened first, so
// h == x works.
template <class Format>
void NormAdaLnZeroHalf(const uint16_t* x, const uint16_t* r, const float* gate, const float* scale, const float* shift,
                       uint16_t* h, uint16_t* y, int64_t batch, int64_t tokens, int64_t d, float eps) {
  const hn::ScalableTag<float> df;
  const size_t n = static_cast<size_t>(d), N = hn::Lanes(df), total = static_cast<size_t>(batch * tokens * d);
  const auto wx = Widened<Format>(x, total), wr = Widened<Format>(r, total);
  for (int64_t row = 0; row < batch * tokens; ++row) {
    const int64_t at = row * d;
    const norm::GatedResidual residual{wx.get() + at, gate + row / tokens * d, wr.get() + at, wx.get() + at};
    size_t i = 0;
    for (; i + N <= n; i += N) residual.Full(df, i);
    if (i < n) residual.Part(df, i, n - i);
  }
  half::Narrow<Format>(wx.get(), h, total);
  NormAdaLnHalf<Format>(h, scale, shift, y, batch, tokens, d, eps);
}

// sum = x + skip in float, stored rounded to the dtype, then the half
// RmsNorm of the stored sum. x and skip are widened first, so sum == x or
// sum == skip works.
template <class Format>
void NormFusedSkipHalf(const uint16_t* x, const uint16_t* skip, const float* g, uint16_t* sum, uint16_t* y,
                       int64_t rows, int64_t d, float eps) {
  const hn::ScalableTag<float> df;
  const size_t total = static_cast<size_t>(rows * d), N = hn::Lanes(df);
  const auto wx = Widened<Format>(x, total), ws = Widened<Format>(skip, total);
  size_t i = 0;
  for (; i + N <= total; i += N)
    hn::Store(hn::Add(hn::Load(df, wx.get() + i), hn::Load(df, ws.get() + i)), df, wx.get() + i);
  for (; i < total; ++i) wx[i] = wx[i] + ws[i];
  half::Narrow<Format>(wx.get(), sum, total);
  NormRmsHalf<Format>(sum, g, y, rows, d, eps);
}

#define KONFORM_NORM_HALF_KERNELS(Suffix, Format)                                                                      \
  inline void NormBatch##Suffix(const uint16_t* x, const float* mean, const float* var, const float* g,                \
                                const float* b, uint16_t* y, int64_t n, int64_t c, int64_t s, float eps) {             \
    NormBatchHalf<half::Format>(x, mean, var, g, b, y, n, c, s, eps);                                                  \
  }                                                                                                                    \
  inline void NormGroup##Suffix(const uint16_t* x, const float* g, const float* b, uint16_t* y, int64_t n, int64_t c,  \
                                int64_t s, int64_t groups, float eps) {                                                \
    NormGroupHalf<half::Format>(x, g, b, y, n, c, s, groups, eps);                                                     \
  }                                                                                                                    \
  inline void NormAdaLn##Suffix(const uint16_t* x, const float* scale, const float* shift, uint16_t* y, int64_t batch, \
                                int64_t tokens, int64_t d, float eps) {                                                \
    NormAdaLnHalf<half::Format>(x, scale, shift, y, batch, tokens, d, eps);                                            \
  }                                                                                                                    \
  inline void NormAdaLnZero##Suffix(const uint16_t* x, const uint16_t* r, const float* gate, const float* scale,       \
                                    const float* shift, uint16_t* h, uint16_t* y, int64_t batch, int64_t tokens,       \
                                    int64_t d, float eps) {                                                            \
    NormAdaLnZeroHalf<half::Format>(x, r, gate, scale, shift, h, y, batch, tokens, d, eps);                            \
  }                                                                                                                    \
  inline void NormFusedSkip##Suffix(const uint16_t* x, const uint16_t* skip, const float* g, uint16_t* sum,            \
                                    uint16_t* y, int64_t rows, int64_t d, float eps) {                                 \
    NormFusedSkipHalf<half::Format>(x, skip, g, sum, y, rows, d, eps);                                                 \
  }
KONFORM_NORM_HALF_KERNELS(F16, F16)
KONFORM_NORM_HALF_KERNELS(BF16, BF16)
#undef KONFORM_NORM_HALF_KERNELS

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_NORM_INL_H_
