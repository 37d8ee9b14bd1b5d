// SinusoidalEmbed and RelativePosEmbedding (tinyllm/pos.h). Arguments are
// validated by the caller (pos_simd.cpp).

#if defined(KONFORM_SIMD_POS_EMBED_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_POS_EMBED_INL_H_
#undef KONFORM_SIMD_POS_EMBED_INL_H_
#else
#define KONFORM_SIMD_POS_EMBED_INL_H_
#endif

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "hwy/aligned_allocator.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "impl/common/pos_buckets.hpp"
#include "impl/simd/pos_sincos-inl.h"
#include "impl/simd/stream-inl.h"
#include "tinyllm/pos.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

inline void SinusoidalEmbed(const float* t, float* y, int64_t n, int64_t dim, float max_period, float freq_shift,
                            int layout) {
  if (n == 0) return;
  const hn::ScalableTag<double> d;
  const size_t half = static_cast<size_t>(dim / 2), padded = hwy::RoundUpTo(half, hn::Lanes(d));
  // f_j = exp(j * step), step = -ln(max_period) / (half - freq_shift), as the oracle forms it.
  auto f = hwy::AllocateAligned<double>(padded);
  const double step = -std::log(double(max_period)) / (double(half) - double(freq_shift));
  for (size_t j = 0; j < padded; ++j) f[j] = j < half ? std::exp(double(j) * step) : 0.0;
  auto s = hwy::AllocateAligned<float>(padded), c = hwy::AllocateAligned<float>(padded);
  for (int64_t i = 0; i < n; ++i) {
    SinCosRow(d, double(t[i]), f.get(), half, s.get(), c.get());
    float* row = y + i * dim;
    if (layout == TL_SINUSOIDAL_INTERLEAVED) {
      for (size_t j = 0; j < half; ++j) row[2 * j] = s[j], row[2 * j + 1] = c[j];
    } else {
      const float* first = layout == TL_SINUSOIDAL_SIN_COS ? s.get() : c.get();
      const float* second = layout == TL_SINUSOIDAL_SIN_COS ? c.get() : s.get();
      std::memcpy(row, first, half * sizeof(float));
      std::memcpy(row + half, second, half * sizeof(float));
    }
  }
}

// Keys at consecutive positions (T5's arange, with any queries): row (h, i)
// of the bias is a window of one row of values per head, V_h[r] =
// table[bucket(r), h] over the offsets r = k - q the call meets, so every
// output row is a copy. False (nothing written) when the keys are not
// consecutive or the offsets span too far for the window to pay.
inline bool ConsecutiveWindows(const float* table, const int32_t* q_pos, const int32_t* k_pos, float* bias, int64_t Lq,
                               int64_t Lk, int64_t H, const impl::T5Buckets& bucket) {
  for (int64_t j = 1; j < Lk; ++j)
    if (int64_t(k_pos[j]) != int64_t(k_pos[j - 1]) + 1) return false;
  const auto [qmin, qmax] = std::minmax_element(q_pos, q_pos + Lq);
  const int64_t k0 = k_pos[0], rmin = k0 - *qmax, rmax = k0 + Lk - 1 - *qmin, span = rmax - rmin + 1;
  if (span > 2 * (Lq + Lk) + 64) return false;
  std::vector<float> window(static_cast<size_t>(H * span));
  for (int64_t r = rmin; r <= rmax; ++r) {
    const int64_t b = bucket(r);
    for (int64_t h = 0; h < H; ++h) window[h * span + (r - rmin)] = table[b * H + h];
  }
  // A bias too big to stay cached is streamed (stream-inl.h): no line of it
  // read before it is written. H 32, 512 x 512 (32 MiB): 8.3 -> 14.7 GB/s.
  const bool stream = H * Lq * Lk * static_cast<int64_t>(sizeof(float)) >= kStreamBytes;
  for (int64_t h = 0; h < H; ++h)
    for (int64_t i = 0; i < Lq; ++i) {
      const float* from = window.data() + h * span + (k0 - q_pos[i] - rmin);
      float* to = bias + (h * Lq + i) * Lk;
      if (stream) StreamCopy(from, to, static_cast<size_t>(Lk));
      else std::memcpy(to, from, static_cast<size_t>(Lk) * sizeof(float));
    }
  if (stream) hwy::FlushStream();
  return true;
}

// bias[h, i, :] for every head h: the row's buckets once (table offsets
// bucket * H), then one gather per head.
inline void RelativePosEmbedding(const float* table, const int32_t* q_pos, const int32_t* k_pos, float* bias,
                                 int64_t Lq, int64_t Lk, int64_t H, int64_t num_buckets, int64_t max_distance,
                                 int bidirectional) {
  if (Lq == 0 || Lk == 0) return;
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const size_t N = hn::Lanes(d);
  const impl::T5Buckets bucket(num_buckets, max_distance, bidirectional != 0);
  if (ConsecutiveWindows(table, q_pos, k_pos, bias, Lq, Lk, H, bucket)) return;
  // Distances below the last threshold through a table, the rest share the
  // last bucket of their side.
  const int64_t near = HWY_MIN(bucket.last_threshold(), int64_t{1} << 16);
  std::vector<int32_t> past(static_cast<size_t>(near) + 1), future(static_cast<size_t>(near) + 1);
  for (int64_t n = 0; n <= near; ++n) past[n] = bucket(-n), future[n] = bucket(n);
  const auto offset_of = [&](int64_t r) {
    const int64_t n = r < 0 ? -r : r;
    const int32_t b = n <= near ? (r < 0 ? past[n] : future[n]) : bucket(r);
    return static_cast<int32_t>(b * H);
  };
  auto index = hwy::AllocateAligned<int32_t>(hwy::RoundUpTo(static_cast<size_t>(Lk), N));
  const bool big = H * Lq * Lk * static_cast<int64_t>(sizeof(float)) >= kStreamBytes;  // streamed, as above
  for (int64_t i = 0; i < Lq; ++i) {
    for (int64_t j = 0; j < Lk; ++j) index[j] = offset_of(int64_t(k_pos[j]) - q_pos[i]);
    for (int64_t h = 0; h < H; ++h) {
      float* out = bias + (h * Lq + i) * Lk;
      const float* column = table + h;
      int64_t j = 0;
      if (big) {  // up to the first vector boundary of the row, then streamed
        for (; j < Lk && reinterpret_cast<uintptr_t>(out + j) % (N * sizeof(float)) != 0; ++j)
          out[j] = column[index[j]];
        for (; j + int64_t(N) <= Lk; j += int64_t(N))
          hn::Stream(hn::GatherIndex(d, column, hn::LoadU(di, index.get() + j)), d, out + j);
      }
      for (; j + int64_t(N) <= Lk; j += int64_t(N))
        hn::StoreU(hn::GatherIndex(d, column, hn::Load(di, index.get() + j)), d, out + j);
      for (; j < Lk; ++j) out[j] = column[index[j]];
    }
  }
  if (big) hwy::FlushStream();
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_POS_EMBED_INL_H_
