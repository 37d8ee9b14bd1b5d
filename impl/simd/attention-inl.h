// Sdpa, SdpaCross, SdpaWindow and FlashAttention (the caller has validated
// the sizes): one query row at a time, vectors along head_dim.
//
// Sdpa keeps one row of Sk scores: the dot products (FMA chains along D),
// times 1/sqrt(D), plus -1e4 where causally masked, plus the mask; their max;
// e = exp(s - max) in place with their sum; then y = sum_j e_j v_j / sum.
// FlashAttention never holds more than a tile of kTile scores: per tile its
// max, the running max m and the rescale c = exp(m_old - m_new), then the
// running sum l and accumulator acc (both double) become l c + sum e and
// acc c + sum e_j v_j (the tile's sum of products in float). Both sum the
// products of a row's probabilities and values in float over at most kTile
// keys, then in double, so the error does not grow with Sk.

#if defined(KONFORM_SIMD_ATTENTION_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_ATTENTION_INL_H_
#undef KONFORM_SIMD_ATTENTION_INL_H_
#else
#define KONFORM_SIMD_ATTENTION_INL_H_
#endif

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "hwy/highway.h"
#include "impl/simd/activation_math-inl.h"
#include "impl/simd/attention_geometry.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
// In `attn`, away from other families' helpers of the same names.
namespace konform::simd::HWY_NAMESPACE::attn {
namespace hn = hwy::HWY_NAMESPACE;

// Keys per tile (FlashAttention) and per float block of products (both).
constexpr int64_t kTile = 32;

using Geometry = konform::simd::AttnGeometry;

// Where one query row reads: its q, its KV head's k and v, its mask row.
struct RowPtrs {
  const float* q;
  const float* k;
  const float* v;
  const float* mask;
  int64_t i;
};

inline RowPtrs RowOf(const float* q, const float* k, const float* v, const Geometry& g, int64_t b, int64_t h,
                     int64_t i) {
  const int64_t kvh = h / (g.heads / g.kv_heads);  // repeat_interleave
  RowPtrs r;
  r.q = q + ((b * g.heads + h) * g.sq + i) * g.d;
  r.k = k + (b * g.kv_heads + kvh) * g.sk * g.d;
  r.v = v + (b * g.kv_heads + kvh) * g.sk * g.d;
  r.mask = g.mask == nullptr ? nullptr : g.mask + b * g.mask_b + h * g.mask_h + i * g.mask_i;
  r.i = i;
  return r;
}

// a . b over n floats: four FMA chains, then the tail.
inline float Dot(const float* a, const float* b, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
  size_t t = 0;
  for (; t + 4 * N <= n; t += 4 * N) {
    s0 = hn::MulAdd(hn::LoadU(d, a + t), hn::LoadU(d, b + t), s0);
    s1 = hn::MulAdd(hn::LoadU(d, a + t + N), hn::LoadU(d, b + t + N), s1);
    s2 = hn::MulAdd(hn::LoadU(d, a + t + 2 * N), hn::LoadU(d, b + t + 2 * N), s2);
    s3 = hn::MulAdd(hn::LoadU(d, a + t + 3 * N), hn::LoadU(d, b + t + 3 * N), s3);
  }
  for (; t + N <= n; t += N) s0 = hn::MulAdd(hn::LoadU(d, a + t), hn::LoadU(d, b + t), s0);
  if (t < n) s1 = hn::MulAdd(LoadHead(d, a + t, n - t), LoadHead(d, b + t, n - t), s1);
  return hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
}

// s[0, j1 - j0) = the scores of keys [j0, j1) of row r, in Sdpa's order of
// operations: dot, times scale, + causal -1e4, + mask.
inline void Scores(const RowPtrs& r, const Geometry& g, float scale, int64_t j0, int64_t j1, float* s) {
  const size_t D = static_cast<size_t>(g.d);
  for (int64_t j = j0; j < j1; ++j) {
    float x = Dot(r.q, r.k + j * g.d, D) * scale;
    if (g.causal && j > r.i + g.sk - g.sq) x += -1e4f;
    if (r.mask != nullptr) x += r.mask[j];
    s[j - j0] = x;
  }
}

// max of s[0, n), n >= 1.
inline float MaxOf(const float* s, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  auto m = hn::Set(d, -std::numeric_limits<float>::infinity());
  size_t j = 0;
  for (; j + N <= n; j += N) m = hn::Max(m, hn::LoadU(d, s + j));
  if (j < n)
    m = hn::Max(m, hn::IfThenElse(hn::FirstN(d, n - j), LoadHead(d, s + j, n - j),
                                  hn::Set(d, -std::numeric_limits<float>::infinity())));
  return hn::GetLane(hn::MaxOfLanes(d, m));
}

// s[j] = exp(s[j] - m) for j < n; returns their sum (float lanes, into double).
inline double ExpInPlace(float* s, size_t n, float m) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const auto vm = hn::Set(d, m);
  auto sum = hn::Zero(d);
  double total = 0.0;
  size_t j = 0, in_chunk = 0;
  for (; j + N <= n; j += N) {
    const auto e = act::ExpF(d, hn::Sub(hn::LoadU(d, s + j), vm));
    hn::StoreU(e, d, s + j);
    sum = hn::Add(sum, e);
    if (++in_chunk == 8) {
      total += static_cast<double>(hn::GetLane(hn::SumOfLanes(d, sum)));
      sum = hn::Zero(d);
      in_chunk = 0;
    }
  }
  if (j < n) {
    const auto e = hn::IfThenElseZero(hn::FirstN(d, n - j), act::ExpF(d, hn::Sub(LoadHead(d, s + j, n - j), vm)));
    StoreHead(e, d, s + j, n - j);
    sum = hn::Add(sum, e);
  }
  return total + static_cast<double>(hn::GetLane(hn::SumOfLanes(d, sum)));
}

// part[0, D) = sum_{j < n} e[j] v[j, :], in float (n <= kTile).
inline void WeightedSum(const float* e, const float* v, size_t n, size_t D, float* part) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  size_t t = 0;
  for (; t + N <= D; t += N) {
    auto acc = hn::Zero(d);
    for (size_t j = 0; j < n; ++j) acc = hn::MulAdd(hn::Set(d, e[j]), hn::LoadU(d, v + j * D + t), acc);
    hn::StoreU(acc, d, part + t);
  }
  if (t < D) {
    auto acc = hn::Zero(d);
    for (size_t j = 0; j < n; ++j) acc = hn::MulAdd(hn::Set(d, e[j]), LoadHead(d, v + j * D + t, D - t), acc);
    StoreHead(acc, d, part + t, D - t);
  }
}

// Sdpa over keys [j0, j1) of row r into out[D]. `s` holds j1 - j0 floats,
// `part` D floats and `acc` D doubles.
inline void SdpaRow(const RowPtrs& r, const Geometry& g, float scale, int64_t j0, int64_t j1, float* out, float* s,
                    float* part, double* acc) {
  const size_t n = static_cast<size_t>(j1 - j0), D = static_cast<size_t>(g.d);
  Scores(r, g, scale, j0, j1, s);
  const double total = ExpInPlace(s, n, MaxOf(s, n));
  std::fill(acc, acc + D, 0.0);
  for (size_t b0 = 0; b0 < n; b0 += kTile) {
    const size_t b1 = std::min(n, b0 + static_cast<size_t>(kTile));
    WeightedSum(s + b0, r.v + (static_cast<size_t>(j0) + b0) * D, b1 - b0, D, part);
    for (size_t t = 0; t < D; ++t) acc[t] += static_cast<double>(part[t]);
  }
  const double inv = 1.0 / total;
  for (size_t t = 0; t < D; ++t) out[t] = static_cast<float>(acc[t] * inv);
}

inline float ScaleOf(int64_t d) { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(d))); }

inline void SdpaF32(const float* q, const float* k, const float* v, float* y, const Geometry& g) {
  if (g.batch <= 0 || g.sq <= 0) return;
  std::vector<float> s(static_cast<size_t>(g.sk)), part(static_cast<size_t>(g.d));
  std::vector<double> acc(static_cast<size_t>(g.d));
  const float scale = ScaleOf(g.d);
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t h = 0; h < g.heads; ++h)
      for (int64_t i = 0; i < g.sq; ++i)
        SdpaRow(RowOf(q, k, v, g, b, h, i), g, scale, 0, g.sk, y + ((b * g.heads + h) * g.sq + i) * g.d, s.data(),
                part.data(), acc.data());
}

// SdpaWindow: q, k, v, y [B, H, S, D], windows of `window` keys.
inline void SdpaWindowF32(const float* q, const float* k, const float* v, float* y, int64_t batch, int64_t heads,
                          int64_t seq, int64_t dim, int64_t window) {
  if (batch <= 0 || seq <= 0) return;
  const Geometry g{batch, heads, heads, seq, seq, dim, false, nullptr, 0, 0, 0};
  std::vector<float> s(static_cast<size_t>(window)), part(static_cast<size_t>(dim));
  std::vector<double> acc(static_cast<size_t>(dim));
  const float scale = ScaleOf(dim);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < seq; ++i) {
        const int64_t j0 = i / window * window;
        SdpaRow(RowOf(q, k, v, g, b, h, i), g, scale, j0, j0 + window, y + ((b * heads + h) * seq + i) * dim,
                s.data(), part.data(), acc.data());
      }
}

// FlashAttention: tiles of kTile keys, online softmax; no score row.
inline void FlashF32(const float* q, const float* k, const float* v, float* y, const Geometry& g) {
  if (g.batch <= 0 || g.sq <= 0) return;
  const size_t D = static_cast<size_t>(g.d);
  std::vector<float> part(D);
  std::vector<double> acc(D);
  HWY_ALIGN float s[kTile];
  const float scale = ScaleOf(g.d);
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t h = 0; h < g.heads; ++h)
      for (int64_t i = 0; i < g.sq; ++i) {
        const RowPtrs r = RowOf(q, k, v, g, b, h, i);
        std::fill(acc.begin(), acc.end(), 0.0);
        float m = 0.0f;
        double l = 0.0;
        for (int64_t j0 = 0; j0 < g.sk; j0 += kTile) {
          const int64_t j1 = std::min(g.sk, j0 + kTile);
          const size_t n = static_cast<size_t>(j1 - j0);
          Scores(r, g, scale, j0, j1, s);
          const float tm = MaxOf(s, n);
          const float m_new = j0 == 0 ? tm : std::max(m, tm);
          if (j0 > 0 && m_new > m) {  // the max grew: rescale what was summed under the old one
            const double c = std::exp(static_cast<double>(m) - static_cast<double>(m_new));
            l *= c;
            for (double& a : acc) a *= c;
          }
          m = m_new;
          l += ExpInPlace(s, n, m);
          WeightedSum(s, r.v + static_cast<size_t>(j0) * D, n, D, part.data());
          for (size_t t = 0; t < D; ++t) acc[t] += static_cast<double>(part[t]);
        }
        float* out = y + ((b * g.heads + h) * g.sq + i) * g.d;
        const double inv = 1.0 / l;
        for (size_t t = 0; t < D; ++t) out[t] = static_cast<float>(acc[t] * inv);
      }
}

}  // namespace konform::simd::HWY_NAMESPACE::attn
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_ATTENTION_INL_H_
