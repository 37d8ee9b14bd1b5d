// Rope's cos/sin cache, Rope from the cache, and MultiAxisRope (tinyllm/pos.h).
//
// The rotations are the oracle's float expressions, a*c - b*s and a*s + b*c,
// without FMA (the library builds with -ffp-contract=off): given the same
// cos and sin they give the scalar backend's bits. Arguments are validated
// by the caller (pos_simd.cpp).

#if defined(KONFORM_SIMD_POS_ROPE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_POS_ROPE_INL_H_
#undef KONFORM_SIMD_POS_ROPE_INL_H_
#else
#define KONFORM_SIMD_POS_ROPE_INL_H_
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/aligned_allocator.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "impl/simd/half-inl.h"
#include "impl/simd/pos_sincos-inl.h"
#include "impl/simd/tail-inl.h"
#include "tinyllm/pos.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// f_j = base^(-2j/width) for j < width/2, in double as the oracle forms it,
// zero-padded to `padded` entries.
inline hwy::AlignedFreeUniquePtr<double[]> PosFrequencies(float base, int64_t width, size_t padded) {
  auto f = hwy::AllocateAligned<double>(padded);
  const int64_t half = width / 2;
  for (size_t j = 0; j < padded; ++j)
    f[j] = int64_t(j) < half ? std::pow(double(base), -double(2 * int64_t(j)) / double(width)) : 0.0;
  return f;
}

// Each row's cos and sin in float (aligned, `half` of each) handed to
// store(p, c, s, rot_dim / 2).
template <class Store>
inline void RopeCacheRows(int64_t max_seq, int64_t rot_dim, float base, const Store& store) {
  const hn::ScalableTag<double> d;
  const size_t half = static_cast<size_t>(rot_dim / 2), padded = hwy::RoundUpTo(half, hn::Lanes(d));
  const auto f = PosFrequencies(base, rot_dim, padded);
  auto c = hwy::AllocateAligned<float>(padded), s = hwy::AllocateAligned<float>(padded);
  for (int64_t p = 0; p < max_seq; ++p) {
    SinCosRow(d, double(p), f.get(), half, s.get(), c.get());
    store(p, c.get(), s.get(), half);
  }
}

inline void RopeCache(float* cache, int64_t max_seq, int64_t rot_dim, float base) {
  RopeCacheRows(max_seq, rot_dim, base, [cache, rot_dim](int64_t p, const float* c, const float* s, size_t m) {
    std::memcpy(cache + p * rot_dim, c, m * sizeof(float));
    std::memcpy(cache + p * rot_dim + m, s, m * sizeof(float));
  });
}

// The f16 and bf16 caches: the float rows rounded once more (half-inl.h).
template <class Format>
inline void RopeCacheHalf(uint16_t* cache, int64_t max_seq, int64_t rot_dim, float base) {
  RopeCacheRows(max_seq, rot_dim, base, [cache, rot_dim](int64_t p, const float* c, const float* s, size_t m) {
    half::Narrow<Format>(c, cache + p * rot_dim, m);
    half::Narrow<Format>(s, cache + p * rot_dim + m, m);
  });
}
inline void RopeCacheF16(uint16_t* cache, int64_t max_seq, int64_t rot_dim, float base) {
  RopeCacheHalf<half::F16>(cache, max_seq, rot_dim, base);
}
inline void RopeCacheBF16(uint16_t* cache, int64_t max_seq, int64_t rot_dim, float base) {
  RopeCacheHalf<half::BF16>(cache, max_seq, rot_dim, base);
}

// One vector of NeoX pairs at j: a = x[j..], b = x[half + j..].
template <class DT>
HWY_INLINE void NeoxStep(DT dt, const float* x, float* y, size_t half, const float* c, const float* s, size_t j) {
  const auto a = hn::LoadU(dt, x + j), b = hn::LoadU(dt, x + half + j);
  const auto cv = hn::LoadU(dt, c + j), sv = hn::LoadU(dt, s + j);
  hn::StoreU(hn::Sub(hn::Mul(a, cv), hn::Mul(b, sv)), dt, y + j);
  hn::StoreU(hn::Add(hn::Mul(a, sv), hn::Mul(b, cv)), dt, y + half + j);
}

// NeoX pairs (x[j], x[j + half]) of one head, c and s per pair. The rest of
// a range that whole vectors do not cover goes in 8- then 4-lane vectors
// before any partial one: partial (masked or buffered) loads and stores cost
// more than the narrower vectors (halves of 24 ran at 60% of the speed of
// halves of 32 on AVX3 when they took a masked tail).
template <class D>
HWY_INLINE void RotateNeox(D d, const float* x, float* y, size_t half, const float* c, const float* s) {
  const size_t N = hn::Lanes(d);
  size_t j = 0;
  for (; j + N <= half; j += N) NeoxStep(d, x, y, half, c, s, j);
#if HWY_TARGET != HWY_SCALAR
  const hn::CappedTag<float, 8> d8;
  const hn::CappedTag<float, 4> d4;
  if (N > 8 && j + 8 <= half) NeoxStep(d8, x, y, half, c, s, j), j += 8;
  if (N > 4 && j + 4 <= half) NeoxStep(d4, x, y, half, c, s, j), j += 4;
#endif
  if (j < half) {
    const size_t m = half - j;
    const auto a = LoadHead(d, x + j, m), b = LoadHead(d, x + half + j, m);
    const auto cv = LoadHead(d, c + j, m), sv = LoadHead(d, s + j, m);
    StoreHead(hn::Sub(hn::Mul(a, cv), hn::Mul(b, sv)), d, y + j, m);
    StoreHead(hn::Add(hn::Mul(a, sv), hn::Mul(b, cv)), d, y + half + j, m);
  }
}

// cc = (c0, c0, c1, c1, ...), ss = (-s0, s0, -s1, s1, ...): an interleaved
// rotation is then x*cc + swap(x)*ss, lane by lane the oracle's a*c - b*s
// (as a*c + b*(-s), the same bits) and b*c + a*s.
inline void ExpandPairs(const float* c, const float* s, size_t half, float* cc, float* ss) {
  for (size_t j = 0; j < half; ++j) {
    cc[2 * j] = cc[2 * j + 1] = c[j];
    ss[2 * j] = -s[j];
    ss[2 * j + 1] = s[j];
  }
}

#if HWY_TARGET != HWY_SCALAR
// One vector of interleaved pairs at i (i even): x*cc + swap(x)*ss.
template <class DT>
HWY_INLINE void InterleavedStep(DT dt, const float* x, float* y, const float* cc, const float* ss, size_t i) {
  const auto v = hn::LoadU(dt, x + i);
  hn::StoreU(hn::Add(hn::Mul(v, hn::LoadU(dt, cc + i)), hn::Mul(hn::Reverse2(dt, v), hn::LoadU(dt, ss + i))), dt,
             y + i);
}
#endif

// Interleaved pairs (x[2j], x[2j+1]) of one head over `width` entries; the
// rest as in RotateNeox.
template <class D>
HWY_INLINE void RotateInterleaved(D d, const float* x, float* y, size_t width, const float* cc, const float* ss) {
#if HWY_TARGET == HWY_SCALAR
  (void)d;
  for (size_t i = 0; i < width; i += 2) {
    const float a = x[i], b = x[i + 1];
    y[i] = a * cc[i] - b * ss[i + 1];
    y[i + 1] = a * ss[i + 1] + b * cc[i];
  }
#else
  const size_t N = hn::Lanes(d);
  const hn::CappedTag<float, 8> d8;
  const hn::CappedTag<float, 4> d4;
  size_t i = 0;
  for (; i + N <= width; i += N) InterleavedStep(d, x, y, cc, ss, i);
  if (N > 8 && i + 8 <= width) InterleavedStep(d8, x, y, cc, ss, i), i += 8;
  if (N > 4 && i + 4 <= width) InterleavedStep(d4, x, y, cc, ss, i), i += 4;
  if (i < width) {  // width and i are even: the lanes hold whole pairs
    const size_t m = width - i;
    const auto v = LoadHead(d, x + i, m);
    const auto r = hn::Add(hn::Mul(v, LoadHead(d, cc + i, m)), hn::Mul(hn::Reverse2(d, v), LoadHead(d, ss + i, m)));
    StoreHead(r, d, y + i, m);
  }
#endif
}

// The hardware prefetcher alone leaves an in-place stream short of the copy
// reference: ask for the head 8 rows ahead, a cache line at a time.
inline void PrefetchRowsAhead(const float* x, int64_t row, int64_t rows, int64_t D) {
  constexpr int64_t kAhead = 8;
  if (row + kAhead < rows)
    for (int64_t k = 0; k < D; k += 16) hwy::Prefetch(x + (row + kAhead) * D + k);
}

inline void RopeApply(const float* x, float* y, const int32_t* pos, int64_t tokens, int64_t heads, int64_t D,
                      int64_t rot_dim, const float* cache, int layout) {
  if (tokens == 0 || heads == 0) return;
  const size_t half = static_cast<size_t>(rot_dim / 2), width = static_cast<size_t>(rot_dim);
  const size_t tail = static_cast<size_t>(D - rot_dim) * sizeof(float);
  auto expanded = hwy::AllocateAligned<float>(layout == TL_ROPE_INTERLEAVED ? 2 * width : 1);
  float* cc = expanded.get();
  float* ss = cc + width;
  const int64_t rows = tokens * heads;
  const hn::ScalableTag<float> d;
  for (int64_t t = 0; t < tokens; ++t) {
    const float* c = cache + int64_t(pos[t]) * rot_dim;
    const float* s = c + half;
    if (layout == TL_ROPE_INTERLEAVED) ExpandPairs(c, s, half, cc, ss);
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t row = t * heads + h;
      PrefetchRowsAhead(x, row, rows, D);
      const float* xr = x + row * D;
      float* yr = y + row * D;
      if (layout == TL_ROPE_NEOX) RotateNeox(d, xr, yr, half, c, s);
      else RotateInterleaved(d, xr, yr, width, cc, ss);
      if (tail != 0 && yr != xr) std::memcpy(yr + rot_dim, xr + rot_dim, tail);
    }
  }
}

// MultiAxisRope: per token, each axis's cos and sin are recomputed only when
// that axis's position changed (a [t, h, w] raster changes w every token, h
// every row, t every frame). Interleaved pairs never straddle sub-ranges, so
// a head rotates in one pass from head-wide tables; NeoX pairs rotate sub-range
// by sub-range.
inline void MultiAxisRope(const float* x, float* y, const int32_t* pos, int64_t tokens, int64_t heads, int64_t D,
                          int64_t n_axes, const int64_t* dims, const float* bases, int layout) {
  if (tokens == 0 || heads == 0) return;
  const hn::ScalableTag<double> d64;
  const size_t N64 = hn::Lanes(d64);
  size_t at[TL_ROPE_MAX_AXES + 1] = {0};       // start of axis a in the per-pair tables
  int64_t offset[TL_ROPE_MAX_AXES + 1] = {0};  // and in the head
  for (int64_t a = 0; a < n_axes; ++a) {
    at[a + 1] = at[a] + hwy::RoundUpTo(size_t(dims[a] / 2), N64);
    offset[a + 1] = offset[a] + dims[a];
  }
  const size_t total = at[n_axes];
  auto f = hwy::AllocateAligned<double>(total);
  for (int64_t a = 0; a < n_axes; ++a) {
    const auto fa = PosFrequencies(bases[a], dims[a], at[a + 1] - at[a]);
    std::memcpy(f.get() + at[a], fa.get(), (at[a + 1] - at[a]) * sizeof(double));
  }
  auto tables = hwy::AllocateAligned<float>(2 * total + 2 * size_t(D));
  float* c = tables.get();
  float* s = c + total;
  float* cc = s + total;  // head-wide interleaved expansion (D each)
  float* ss = cc + D;
  int64_t last[TL_ROPE_MAX_AXES];
  for (auto& l : last) l = INT64_MIN;  // no position seen yet
  const int64_t rows = tokens * heads;
  const hn::ScalableTag<float> d;
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t a = 0; a < n_axes; ++a) {
      const int64_t p = pos[t * n_axes + a];
      if (p == last[a]) continue;
      last[a] = p;
      const size_t half = size_t(dims[a] / 2);
      SinCosRow(d64, double(p), f.get() + at[a], half, s + at[a], c + at[a]);
      if (layout == TL_ROPE_INTERLEAVED) ExpandPairs(c + at[a], s + at[a], half, cc + offset[a], ss + offset[a]);
    }
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t row = t * heads + h;
      PrefetchRowsAhead(x, row, rows, D);
      if (layout == TL_ROPE_INTERLEAVED) {
        RotateInterleaved(d, x + row * D, y + row * D, size_t(D), cc, ss);
        continue;
      }
      for (int64_t a = 0; a < n_axes; ++a)
        RotateNeox(d, x + row * D + offset[a], y + row * D + offset[a], size_t(dims[a] / 2), c + at[a], s + at[a]);
    }
  }
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_POS_ROPE_INL_H_
