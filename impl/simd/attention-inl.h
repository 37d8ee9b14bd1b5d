// Sdpa, SdpaCross, SdpaWindow and FlashAttention (the caller has validated
// the sizes): one query row at a time, vectors along head_dim.
//
// Sdpa keeps one row of Sk scores: the dot products (FMA chains along D),
// times 1/sqrt(D), plus -1e4 where causally masked, plus the mask; their max;
// e = exp(s - max) in place with their sum; then y = sum_j e_j v_j / sum.
// FlashAttention never holds more than a tile of kFlashTile scores: per tile
// its max, the running max m and the rescale c = exp(m_old - m_new), then the
// running sum l and accumulator acc (both double) become l c + sum e and
// acc c + sum e_j v_j. sum e_j v_j is a float FMA chain per block of kTile
// keys (a tile is two), the two blocks' sums added in float, then folded
// into acc; sum e is taken per float lane (kFlashTile / lanes exps each)
// and l is kept lane by lane in double. Float sums never span more than one
// tile, so the error does not grow with Sk.

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
#include <exception>
#include <limits>
#include <mutex>
#include <new>
#include <type_traits>
#include <vector>

#include "hwy/aligned_allocator.h"
#include "hwy/cache_control.h"
#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "impl/simd/activation_math-inl.h"
#include "impl/simd/attention_geometry.h"
#include "impl/simd/half-inl.h"
#include "impl/simd/parallel.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
// In `attn`, away from other families' helpers of the same names.
namespace konform::simd::HWY_NAMESPACE::attn {
namespace hn = hwy::HWY_NAMESPACE;

// Keys per float block of products (both) and per transposed K block.
constexpr int64_t kTile = 32;
// Keys per FlashAttention tile (one online-softmax step): two float blocks.
constexpr int64_t kFlashTile = 2 * kTile;

using Geometry = konform::simd::AttnGeometry;

// How K and V are stored: f32, or a half cache (f16 or bf16 bits, `Format`
// one of half-inl.h's) that the kernels widen exactly to f32 a key row or a
// tile of rows at a time, in L1, right before the f32 code reads it. q, y
// and every sum stay f32 (the callers widen q and round y), so a half call
// computes exactly what the f32 kernel computes on the widened values.
struct KvF32 {
  using T = float;
};
template <class F>
struct KvHalf {
  using T = uint16_t;
  using Format = F;
};

// n stored values from p as floats: p itself for f32, else widened into
// buf (64-byte aligned, n floats).
template <class Kv>
HWY_INLINE const float* Widened(const typename Kv::T* p, size_t n, float* buf) {
  if constexpr (std::is_same_v<typename Kv::T, float>) {
    return p;
  } else {
    half::Widen<typename Kv::Format>(p, buf, n);
    return buf;
  }
}

// Whether Kv is a half cache whose format widens whole vectors on this
// target (bf16 everywhere; f16 where F16C is).
template <class Kv>
constexpr bool VectorHalf() {
  if constexpr (std::is_same_v<typename Kv::T, float>) {
    return false;
  } else {
    return Kv::Format::kVector;
  }
}

// Where one query row reads: its q, its KV head's k and v, its mask row.
template <class T = float>
struct RowPtrs {
  const float* q;
  const T* k;
  const T* v;
  const float* mask;
  int64_t i;
};

template <class T>
inline RowPtrs<T> RowOf(const float* q, const T* k, const T* v, const Geometry& g, int64_t b, int64_t h, int64_t i) {
  const int64_t kvh = h / (g.heads / g.kv_heads);  // repeat_interleave
  RowPtrs<T> r;
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

// w <= N values of V at p as a float vector, zeros past w: f32 loaded, a
// half cache widened in the register (VectorHalf formats only).
template <class Kv, class D>
HWY_INLINE hn::Vec<D> LoadValues(D d, const typename Kv::T* p, size_t w) {
  constexpr size_t N = hn::MaxLanes(D());
  if constexpr (std::is_same_v<typename Kv::T, float>) {
    return w == N ? hn::LoadU(d, p) : LoadHead(d, p, w);
  } else {
    if (w == N) return Kv::Format::WidenVec(d, p);
    HWY_ALIGN uint16_t buf[N] = {};
    std::copy(p, p + w, buf);
    return Kv::Format::WidenVec(d, buf);
  }
}

// Decode's software prefetches (the jumps between K and V defeat the
// hardware prefetchers), always inlined into the loops: GCC takes a function
// made only of prefetches for one without effects and drops the calls it
// does not inline (a lambda here lost every prefetch of the decode). While
// the scores read key j's K row they ask for its V row, which the products
// read next. The next tile's K row j + kFlashTile is asked for by the
// products while they read V row j for a half cache read as stored, and by
// the scores otherwise: with a half cache's shorter rows, spreading the
// asks over both phases measured faster; for f32 rows, asking in the scores
// (docs/ops-attention.md).
template <class T>
struct KeyPrefetch {
  const T* k;
  const T* v;
  int64_t sk, dim;
};
template <class T>
HWY_INLINE void PrefetchRow(const T* row, int64_t dim) {
  const char* p = reinterpret_cast<const char*>(row);
  for (int64_t b = 0; b < dim * static_cast<int64_t>(sizeof(T)); b += 64) hwy::Prefetch(p + b);
}
template <class Kv>
constexpr bool NextKeysInProducts() {
  return VectorHalf<Kv>();
}
template <class Kv>
HWY_INLINE void PrefetchForScores(const KeyPrefetch<typename Kv::T>& p, int64_t j) {
  PrefetchRow(p.v + j * p.dim, p.dim);
  if (!NextKeysInProducts<Kv>() && j + kFlashTile < p.sk) PrefetchRow(p.k + (j + kFlashTile) * p.dim, p.dim);
}
template <class Kv>
HWY_INLINE void PrefetchForProducts(const KeyPrefetch<typename Kv::T>& p, int64_t j) {
  if (NextKeysInProducts<Kv>() && j + kFlashTile < p.sk) PrefetchRow(p.k + (j + kFlashTile) * p.dim, p.dim);
}

// out[r] = Dot(q[r], k)'s four chains, added as Dot adds them (its sum
// before the one across lanes), for rows [0, G) of q: each vector of the key
// row k (n values, f32 or a half row widened in the register) loaded once for
// all G rows. G rows x 4 chains plus 4 key vectors must fit the registers
// (G 4 on AVX-512, 2 on AVX2).
template <size_t G, class Kv, class D>
HWY_INLINE void DotRowsVec(D d, const float* const* q, const typename Kv::T* k, size_t n, hn::Vec<D>* out) {
  constexpr size_t N = hn::MaxLanes(D());
  hn::Vec<D> s[G][4];
  for (size_t r = 0; r < G; ++r)
    for (size_t c = 0; c < 4; ++c) s[r][c] = hn::Zero(d);
  size_t t = 0;
  for (; t + 4 * N <= n; t += 4 * N) {
    const auto k0 = LoadValues<Kv>(d, k + t, N), k1 = LoadValues<Kv>(d, k + t + N, N),
               k2 = LoadValues<Kv>(d, k + t + 2 * N, N), k3 = LoadValues<Kv>(d, k + t + 3 * N, N);
    for (size_t r = 0; r < G; ++r) {
      s[r][0] = hn::MulAdd(hn::LoadU(d, q[r] + t), k0, s[r][0]);
      s[r][1] = hn::MulAdd(hn::LoadU(d, q[r] + t + N), k1, s[r][1]);
      s[r][2] = hn::MulAdd(hn::LoadU(d, q[r] + t + 2 * N), k2, s[r][2]);
      s[r][3] = hn::MulAdd(hn::LoadU(d, q[r] + t + 3 * N), k3, s[r][3]);
    }
  }
  for (; t + N <= n; t += N) {
    const auto kv = LoadValues<Kv>(d, k + t, N);
    for (size_t r = 0; r < G; ++r) s[r][0] = hn::MulAdd(hn::LoadU(d, q[r] + t), kv, s[r][0]);
  }
  if (N > 1 && t < n) {  // zeros past n, as Dot's partial loads
    const auto kv = LoadValues<Kv>(d, k + t, n - t);
    for (size_t r = 0; r < G; ++r) s[r][1] = hn::MulAdd(LoadHead(d, q[r] + t, n - t), kv, s[r][1]);
  }
  for (size_t r = 0; r < G; ++r) out[r] = hn::Add(hn::Add(s[r][0], s[r][1]), hn::Add(s[r][2], s[r][3]));
}

#if HWY_TARGET <= HWY_AVX3
// dots[r][i] = DotRowsVec's out[r] for key i of 16 (rows of Vecs = D / 16
// vectors, 4 or 8; key i at k + i * D): the same chains, two rows' q held
// in registers while the 16 keys stream past (from L1 after the first two
// rows), where DotRowsVec loads every q vector again per key: in L2, a
// third less time per key for a half cache.
template <size_t R, size_t Vecs, class Kv, class D>
HWY_INLINE void Dots16(D d, const float* const* q, const typename Kv::T* k, const KeyPrefetch<typename Kv::T>& pf,
                       int64_t j, float (*dots)[16][16]) {
  constexpr size_t N = hn::MaxLanes(D());
  constexpr size_t G = R < 2 ? R : 2;
  static_assert(R % G == 0 && (Vecs == 4 || Vecs == 8), "two rows at a time, D of 4 or 8 vectors");
  for (size_t r0 = 0; r0 < R; r0 += G) {
    hn::Vec<D> qv[G][Vecs];
    for (size_t r = 0; r < G; ++r)
      for (size_t c = 0; c < Vecs; ++c) qv[r][c] = hn::LoadU(d, q[r0 + r] + c * N);
    for (size_t i = 0; i < 16; ++i) {
      if (r0 == 0) PrefetchForScores<Kv>(pf, j + static_cast<int64_t>(i));
      const typename Kv::T* ki = k + i * Vecs * N;
      hn::Vec<D> s[G][4];
      for (size_t c = 0; c < 4; ++c) {
        const auto kc = LoadValues<Kv>(d, ki + c * N, N);
        for (size_t r = 0; r < G; ++r) s[r][c] = hn::MulAdd(qv[r][c], kc, hn::Zero(d));
      }
      if constexpr (Vecs == 8)
        for (size_t c = 0; c < 4; ++c) {
          const auto kc = LoadValues<Kv>(d, ki + (4 + c) * N, N);
          for (size_t r = 0; r < G; ++r) s[r][c] = hn::MulAdd(qv[r][4 + c], kc, s[r][c]);
        }
      for (size_t r = 0; r < G; ++r)
        hn::Store(hn::Add(hn::Add(s[r][0], s[r][1]), hn::Add(s[r][2], s[r][3])), d, dots[r0 + r][i]);
    }
  }
}

// Lane k of the result = GetLane(SumOfLanes(v[k])) for 16 vectors of 16
// floats, bit for bit: the same tree (Highway's SumOfLanes is GCC's
// _mm512_reduce_add_ps: lanes i + i+8, then i + i+4, then i + i+2, then
// i + i+1), each level run on two vectors' halves at once. 48 operations
// for 16 sums, where one sum at a time takes 10 and a scalar store each,
// which the next vector load of the scores cannot forward from.
HWY_INLINE __m512 SumsOfLanes16(const float (*v)[16]) {
  __m512 l1[8], l2[4], l3[2];
  for (int p = 0; p < 8; ++p) {  // [key 2p's 8 sums, key 2p+1's]
    const __m512 a = _mm512_load_ps(v[2 * p]), b = _mm512_load_ps(v[2 * p + 1]);
    l1[p] = _mm512_add_ps(_mm512_shuffle_f32x4(a, b, 0xEE), _mm512_shuffle_f32x4(a, b, 0x44));
  }
  for (int p = 0; p < 4; ++p)  // one key's 4 sums per 128-bit block: keys 4p .. 4p+3
    l2[p] = _mm512_add_ps(_mm512_shuffle_f32x4(l1[2 * p], l1[2 * p + 1], 0xDD),
                          _mm512_shuffle_f32x4(l1[2 * p], l1[2 * p + 1], 0x88));
  for (int p = 0; p < 2; ++p)  // block j: [key 8p+j's 2 sums, key 8p+4+j's]
    l3[p] = _mm512_add_ps(_mm512_shuffle_ps(l2[2 * p], l2[2 * p + 1], 0x44),
                          _mm512_shuffle_ps(l2[2 * p], l2[2 * p + 1], 0xEE));
  // block j: keys j, j+4, j+8, j+12; then lane k from lane 4 (k % 4) + k / 4.
  const __m512 l4 = _mm512_add_ps(_mm512_shuffle_ps(l3[0], l3[1], 0x88), _mm512_shuffle_ps(l3[0], l3[1], 0xDD));
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return _mm512_permutexvar_ps(order, l4);
}
#endif

// s[0, j1 - j0) = the scores of keys [j0, j1) of row r, in Sdpa's order of
// operations: dot, times scale, + causal -1e4, + mask. krow: D floats (a
// half key row widened).
template <class Kv>
inline void Scores(const RowPtrs<typename Kv::T>& r, const Geometry& g, float scale, int64_t j0, int64_t j1, float* s,
                   float* krow) {
  const size_t D = static_cast<size_t>(g.d);
  for (int64_t j = j0; j < j1; ++j) {
    float x = Dot(r.q, Widened<Kv>(r.k + j * g.d, D, krow), D) * scale;
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
  return MaxLane(d, m);
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

// Scratch of SdpaRow: `s` holds the row's scores, `part` D floats, `acc` D
// doubles; krow (D) and vblk (kTile x D) the widened rows of a half cache.
struct SdpaScratch {
  std::vector<float> s, part;
  std::vector<double> acc;
  hwy::AlignedFreeUniquePtr<float[]> krow, vblk;
  SdpaScratch(int64_t keys, int64_t d)
      : s(static_cast<size_t>(keys)),
        part(static_cast<size_t>(d)),
        acc(static_cast<size_t>(d)),
        krow(hwy::AllocateAligned<float>(static_cast<size_t>(d))),
        vblk(hwy::AllocateAligned<float>(static_cast<size_t>(kTile * d))) {
    if (krow == nullptr || vblk == nullptr) throw std::bad_alloc();
  }
};

// Sdpa over keys [j0, j1) of row r into out[D].
template <class Kv>
inline void SdpaRow(const RowPtrs<typename Kv::T>& r, const Geometry& g, float scale, int64_t j0, int64_t j1,
                    float* out, SdpaScratch& sc) {
  const size_t n = static_cast<size_t>(j1 - j0), D = static_cast<size_t>(g.d);
  float* s = sc.s.data();
  float* part = sc.part.data();
  double* acc = sc.acc.data();
  Scores<Kv>(r, g, scale, j0, j1, s, sc.krow.get());
  const double total = ExpInPlace(s, n, MaxOf(s, n));
  std::fill(acc, acc + D, 0.0);
  for (size_t b0 = 0; b0 < n; b0 += kTile) {
    const size_t b1 = std::min(n, b0 + static_cast<size_t>(kTile));
    WeightedSum(s + b0, Widened<Kv>(r.v + (static_cast<size_t>(j0) + b0) * D, (b1 - b0) * D, sc.vblk.get()), b1 - b0, D,
                part);
    for (size_t t = 0; t < D; ++t) acc[t] += static_cast<double>(part[t]);
  }
  const double inv = 1.0 / total;
  for (size_t t = 0; t < D; ++t) out[t] = static_cast<float>(acc[t] * inv);
}

inline float ScaleOf(int64_t d) { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(d))); }

template <class Kv = KvF32>
inline void Sdpa(const float* q, const typename Kv::T* k, const typename Kv::T* v, float* y, const Geometry& g) {
  if (g.batch <= 0 || g.sq <= 0) return;
  SdpaScratch sc(g.sk, g.d);
  const float scale = ScaleOf(g.d);
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t h = 0; h < g.heads; ++h)
      for (int64_t i = 0; i < g.sq; ++i)
        SdpaRow<Kv>(RowOf(q, k, v, g, b, h, i), g, scale, 0, g.sk, y + ((b * g.heads + h) * g.sq + i) * g.d, sc);
}

// SdpaWindow: q, k, v, y [B, H, S, D], windows of `window` keys.
template <class Kv = KvF32>
inline void SdpaWindow(const float* q, const typename Kv::T* k, const typename Kv::T* v, float* y, int64_t batch,
                       int64_t heads, int64_t seq, int64_t dim, int64_t window) {
  if (batch <= 0 || seq <= 0) return;
  const Geometry g{batch, heads, heads, seq, seq, dim, false, nullptr, 0, 0, 0};
  SdpaScratch sc(window, dim);
  const float scale = ScaleOf(dim);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < seq; ++i) {
        const int64_t j0 = i / window * window;
        SdpaRow<Kv>(RowOf(q, k, v, g, b, h, i), g, scale, j0, j0 + window, y + ((b * heads + h) * seq + i) * dim, sc);
      }
}

// ---------------------------------------------------------------- FlashAttention
//
// The rows of one KV head -- query i of its rep = heads / kv_heads query
// heads, ordered r = i * rep + (h % rep) -- go in blocks of kRows, so every
// tile of kFlashTile keys and values is loaded once for the whole block
// (GQA's saving). Per tile: the block's scores, the online softmax per row,
// the tile's products of probabilities and values, a float chain per block
// of kTile keys, the two added and folded from the registers into the row's
// double accumulator after the rescale (the error model of the header).
// Tiles of 64 keys halve the per-tile costs (the max, the horizontal sums,
// the trips through the accumulators) against 32.
//
// Scores come from one of two routes. With many rows per KV head (prefill),
// K is transposed once per head into [D, Sk] and each tile's scores are a
// small matrix product per block of kTile keys: per step along D, one
// broadcast of each row's q and kTile / lanes vector FMAs, no horizontal
// sums. With few (decode), K is read as it is, each row's dot with each key
// (Dot): transposing would cost a pass over K for a handful of rows.
//
// Causal tiles past every row's last visible key are skipped once nothing
// they hold can show: by Cauchy-Schwarz a masked score is at most
// |q| |k_max| / sqrt(D) - 1e4, and when that is below the row's running max
// minus 104, its exp rounds to 0 in float (ExpF clamps at -104), as it would
// have had the tile been computed. Otherwise (a fully masked row, huge
// scores, an additive mask) every tile is computed.

// Rows per block for a vector of N floats: enough accumulators to hide the
// FMA latency and the broadcasts' share of the instructions, few enough to
// stay in registers (AVX-512: 12 rows x 2 vectors = 24 accumulators of 32).
template <size_t N>
constexpr size_t FlashRows() {
  return N >= 16 ? 12 : N >= 8 ? 6 : N >= 4 ? 2 : 1;
}

constexpr size_t kMaxFlashRows = 12;

// The products e . v: RG rows x VC vectors of D per register block. AVX-512:
// 6 x 4, 24 accumulators, each vector of V used by 6 rows and each
// broadcast by 4 FMAs, a chunk of V (32 keys x 64 columns, 8 KiB) and the
// block's accumulators over those columns (6 KiB) in L1 together; measured
// against 12 x 2 (the scores' shape), 3 x 8, 4 x 4 and 2 x 8, it was the
// fastest. Elsewhere the block's rows x 2 vectors.
template <size_t N>
constexpr size_t FlashValueRows() {
  return N >= 16 ? 6 : N >= 8 ? 3 : FlashRows<N>();
}
template <size_t N>
constexpr size_t FlashValueVectors() {
  return N >= 16 ? 4 : 2;
}

struct FlashBlock {
  const float* q[kMaxFlashRows];
  const float* mask[kMaxFlashRows];
  float* y[kMaxFlashRows];
  int64_t last[kMaxFlashRows];  // the last causally visible key (INT64_MAX without causal; < 0: fully masked)
  double qnorm[kMaxFlashRows];
  // Prefill: the next block's q and y rows, other heads' strided streams
  // that the prefetchers miss, brought into L2 a share per tile (null: none).
  const float* next_q[kMaxFlashRows] = {};
  const float* next_y[kMaxFlashRows] = {};
};

// Tile `tile` of `tiles` prefetches the next block's rows tile, tile +
// tiles, ... (spread out: all at once filled the miss queues and stalled).
template <size_t R>
HWY_INLINE void FlashPrefetchNext(const FlashBlock& blk, int64_t dim, int64_t tile, int64_t tiles) {
  if (blk.next_q[0] == nullptr) return;
  constexpr int64_t kLine = 64 / sizeof(float);
  for (size_t r = static_cast<size_t>(tile); r < R; r += static_cast<size_t>(tiles))
    for (int64_t t = 0; t < dim; t += kLine) {
      __builtin_prefetch(blk.next_q[r] + t, 0, 2);
      __builtin_prefetch(blk.next_y[r] + t, 1, 2);
    }
}

// Scratch of one call, reused by every block. What the inner loops load as
// vectors is 64-byte aligned (kt, vt, acc): a vector load that straddles two
// cache lines costs two, and a malloc'd buffer this size (an mmap) sits 16
// bytes past a line.
struct FlashScratch {
  hwy::AlignedFreeUniquePtr<float[]> kt;     // K of one head, block by block transposed: [sk_pad / kTile][D][kTile]
  hwy::AlignedFreeUniquePtr<float[]> vt;     // prefill: V of one head, rows of ldv floats (D up to a line)
  std::vector<float> tile_kmax;              // max |k_j| over keys >= the tile's first (suffix max per tile)
  std::vector<float> qt;                     // the block's q rows interleaved: [D][kRows]
  hwy::AlignedFreeUniquePtr<double[]> acc;   // kRows x d_pad: the running accumulators
  hwy::AlignedFreeUniquePtr<float[]> krow;   // a half cache: one key row widened (D)
  hwy::AlignedFreeUniquePtr<float[]> vtile;  // a half cache, decode: one tile's V rows widened ([kFlashTile][D])
  int64_t sk_pad = 0, d_pad = 0, ldv = 0;    // ldv: the row stride of the V that the products read
};

// Vectors of the tile's columns per walk along D: all kTile / N, unless the
// R x that accumulators, the K vectors and a broadcast would overflow the
// vector registers (16 below AVX-512: AVX2's 4 rows x 4 vectors spilled),
// then halves, each its own walk. Every score is the same chain either way.
template <size_t R, size_t N>
constexpr size_t FlashScoreVectors() {
  if (HWY_TARGET == HWY_SCALAR) return kTile / N;  // one lane: no vector registers to count
  constexpr size_t regs = HWY_TARGET <= HWY_AVX3 ? 32 : 16;
  size_t c = kTile / N;
  while (c > 1 && R * c + c + 1 > regs) c /= 2;
  return c;
}

// s[r][s0, s0 + kTile) = the raw dots of keys [j0, j0 + kTile) (j0 a
// multiple of kTile; keys past Sk are K's zero padding). qt: the block's q
// rows interleaved, [D][R] (one pointer for every broadcast: eight row
// pointers did not fit in the registers).
template <size_t R, class D>
HWY_INLINE void FlashScoresTransposed(D d, const float* qt, const float* kt, int64_t dim, int64_t j0, float scale,
                                      float (*s)[kFlashTile], size_t s0) {
  constexpr size_t N = hn::MaxLanes(D());
  constexpr size_t KV = FlashScoreVectors<R, N>();
  // The tile's [D][kTile] block is contiguous: one sequential walk (a [D][Sk]
  // layout put the 128 rows of a tile 2 KiB apart, into a few L1 sets).
  // (V is not prefetched here: bringing a tile's V into L1 during its
  // scores, as an earlier version did, measured slower.)
  for (size_t c0 = 0; c0 < static_cast<size_t>(kTile); c0 += KV * N) {
    hn::Vec<D> acc[R][KV];
    for (size_t r = 0; r < R; ++r)
      for (size_t c = 0; c < KV; ++c) acc[r][c] = hn::Zero(d);
    const float* col = kt + j0 * dim + c0;
    const float* q = qt;
    for (int64_t t = 0; t < dim; ++t, col += kTile, q += R) {
      hn::Vec<D> kv[KV];
      for (size_t c = 0; c < KV; ++c) kv[c] = hn::LoadU(d, col + c * N);
      for (size_t r = 0; r < R; ++r) {
        const auto qb = hn::Set(d, q[r]);
        for (size_t c = 0; c < KV; ++c) acc[r][c] = hn::MulAdd(qb, kv[c], acc[r][c]);
      }
    }
    for (size_t r = 0; r < R; ++r)
      for (size_t c = 0; c < KV; ++c) hn::Store(hn::Mul(acc[r][c], hn::Set(d, scale)), d, s[r] + s0 + c0 + c * N);
  }
}

// Columns [t0, t0 + VC N) of D for RG rows: acc[r][...] = acc * c[r] +
// (p0 + p1), p_b = sum_{j < n_b} e[r][b kTile + j] v[b kTile + j][...]: each
// float block's sum a chain of FMAs in float, the first parked in L1 while
// the second's chains run, their sum in float folded into the double
// accumulator once per tile (the conversions to double, a fifth of the
// products' cost per block, are paid once per 64 keys). Full: every vector
// lies inside D (no partial loads). vt: f32, or a half cache's rows as
// stored (Kv), widened as they are loaded.
template <size_t RG, size_t VC, bool Full, class Kv, class D>
HWY_INLINE void FlashValues(D d, const float (*e)[kFlashTile], const typename Kv::T* vt, int64_t dim, int64_t ldv,
                            int64_t n0, int64_t n1, int64_t t0, double* acc, int64_t d_pad, const double* c,
                            const KeyPrefetch<typename Kv::T>* pf = nullptr, int64_t j0 = 0) {
  constexpr size_t N = hn::MaxLanes(D());
  size_t w[VC];
  HWY_UNROLL(8)
  for (size_t h = 0; h < VC; ++h)
    w[h] = static_cast<size_t>(std::clamp<int64_t>(dim - t0 - static_cast<int64_t>(h * N), 0, N));
  hn::Vec<D> pa[RG][VC];
  HWY_ALIGN float first[RG][VC][N];
  for (size_t b = 0; b < 2; ++b) {
    const int64_t n = b == 0 ? n0 : n1;
    if (n == 0) break;
    if (b == 1) {
      HWY_UNROLL(16)
      for (size_t r = 0; r < RG; ++r) {
        HWY_UNROLL(8)
        for (size_t h = 0; h < VC; ++h) hn::Store(pa[r][h], d, first[r][h]);
      }
    }
    HWY_UNROLL(16)
    for (size_t r = 0; r < RG; ++r) {
      HWY_UNROLL(8)
      for (size_t h = 0; h < VC; ++h) pa[r][h] = hn::Zero(d);
    }
    const typename Kv::T* vj = vt + (static_cast<int64_t>(b) * kTile) * ldv + t0;
    const size_t e0 = b * kTile;
    for (int64_t j = 0; j < n; ++j, vj += ldv) {
      if (pf != nullptr) PrefetchForProducts<Kv>(*pf, j0 + static_cast<int64_t>(e0) + j);
      hn::Vec<D> ej[RG];
      HWY_UNROLL(16)
      for (size_t r = 0; r < RG; ++r) ej[r] = hn::Set(d, e[r][e0 + static_cast<size_t>(j)]);
      HWY_UNROLL(8)
      for (size_t h = 0; h < VC; ++h) {
        const auto vh = Full        ? LoadValues<Kv>(d, vj + h * N, N)
                        : w[h] == 0 ? hn::Zero(d)
                                    : LoadValues<Kv>(d, vj + h * N, w[h]);
        HWY_UNROLL(16)
        for (size_t r = 0; r < RG; ++r) pa[r][h] = hn::MulAdd(ej[r], vh, pa[r][h]);
      }
    }
  }
  if (n1 > 0) {
    HWY_UNROLL(16)
    for (size_t r = 0; r < RG; ++r) {
      HWY_UNROLL(8)
      for (size_t h = 0; h < VC; ++h) pa[r][h] = hn::Add(hn::Load(d, first[r][h]), pa[r][h]);
    }
  }
  // Lanes past D hold 0 (partial loads), and so do the accumulators there.
#if HWY_TARGET == HWY_SCALAR
  HWY_UNROLL(16)
  for (size_t r = 0; r < RG; ++r) {
    double* a = acc + r * static_cast<size_t>(d_pad) + t0;
    HWY_UNROLL(8)
    for (size_t h = 0; h < VC; ++h) a[h] = a[h] * c[r] + static_cast<double>(hn::GetLane(pa[r][h]));
  }
#else
  const hn::Repartition<double, D> dd;  // N / 2 doubles
  const hn::Half<D> dh;                 // N / 2 floats
  constexpr size_t M = N / 2;
  HWY_UNROLL(16)
  for (size_t r = 0; r < RG; ++r) {
    double* a = acc + r * static_cast<size_t>(d_pad) + t0;
    const auto vc = hn::Set(dd, c[r]);
    HWY_UNROLL(8)
    for (size_t h = 0; h < VC; ++h) {
      const auto lo = hn::PromoteTo(dd, hn::LowerHalf(dh, pa[r][h]));
      const auto hi = hn::PromoteTo(dd, hn::UpperHalf(dh, pa[r][h]));
      hn::StoreU(hn::MulAdd(hn::LoadU(dd, a + h * N), vc, lo), dd, a + h * N);
      hn::StoreU(hn::MulAdd(hn::LoadU(dd, a + h * N + M), vc, hi), dd, a + h * N + M);
    }
  }
#endif
}

// The products of one tile (its float blocks of n0 and n1 keys, V rows from
// vt) for all R rows: VC vectors of D for RG rows at a time, each chunk of V
// (n0 + n1 keys x VC vectors) used by every group of rows while in L1.
template <size_t R, size_t RG, size_t VC, class Kv, class D>
HWY_INLINE void FlashValuesTile(D d, const float (*e)[kFlashTile], const typename Kv::T* vt, int64_t dim, int64_t ldv,
                                int64_t n0, int64_t n1, double* acc, int64_t d_pad, const double* c,
                                const KeyPrefetch<typename Kv::T>* pf = nullptr, int64_t j0 = 0) {
  constexpr size_t N = hn::MaxLanes(D());
  constexpr int64_t W = static_cast<int64_t>(VC * N);
  constexpr size_t RT = R % RG;  // the last, narrower group
  const int64_t full = dim / W * W;
  // The first pass over the tile's keys asks for the rows ahead (pf).
  const auto run = [&](auto full_tag, size_t rg, size_t r0, int64_t t0) {
    constexpr bool kFull = decltype(full_tag)::value;
    const auto* ahead = pf;
    pf = nullptr;
    if (rg == RG)
      FlashValues<RG, VC, kFull, Kv>(d, e + r0, vt, dim, ldv, n0, n1, t0, acc + r0 * d_pad, d_pad, c + r0, ahead, j0);
    else if constexpr (RT > 0)
      FlashValues<RT, VC, kFull, Kv>(d, e + r0, vt, dim, ldv, n0, n1, t0, acc + r0 * d_pad, d_pad, c + r0, ahead, j0);
  };
  for (int64_t t0 = 0; t0 < full; t0 += W) {
    for (size_t r0 = 0; r0 + RG <= R; r0 += RG) run(std::true_type(), RG, r0, t0);
    if constexpr (RT > 0) run(std::true_type(), RT, R - RT, t0);
  }
  if (full < dim) {
    for (size_t r0 = 0; r0 + RG <= R; r0 += RG) run(std::false_type(), RG, r0, full);
    if constexpr (RT > 0) run(std::false_type(), RT, R - RT, full);
  }
}

// Decode streams K and V from memory once: while a tile's scores are
// computed, the tile's V rows and the next tile's K rows are prefetched
// (the strided walks over V that follow defeat the hardware prefetchers).
// A half cache's key row is widened into krow first (D floats, in L1).
template <size_t R, class Kv>
HWY_INLINE void FlashScoresRows(const FlashBlock& blk, const typename Kv::T* k, const typename Kv::T* v, int64_t sk,
                                int64_t dim, int64_t j0, int64_t n, float scale, float (*s)[kFlashTile], float* krow) {
  using T = typename Kv::T;
  const hn::ScalableTag<float> d;
  const size_t D = static_cast<size_t>(dim);
  const KeyPrefetch<T> pf{k, v, sk, dim};
  int64_t j = 0;
#if HWY_TARGET <= HWY_AVX3
  if constexpr (VectorHalf<Kv>()) {
    if (D == 64 || D == 128) {
      for (; j + 16 <= n; j += 16) {
        HWY_ALIGN float dots[R][16][16];
        if (D == 64) Dots16<R, 4, Kv>(d, blk.q, k + (j0 + j) * dim, pf, j0 + j, dots);
        else Dots16<R, 8, Kv>(d, blk.q, k + (j0 + j) * dim, pf, j0 + j, dots);
        for (size_t r = 0; r < R; ++r)
          _mm512_store_ps(s[r] + j, _mm512_mul_ps(SumsOfLanes16(dots[r]), _mm512_set1_ps(scale)));
      }
    }
  }
#endif
  for (; j < n; ++j) {
    PrefetchForScores<Kv>(pf, j0 + j);
    const T* kj = k + (j0 + j) * dim;
    if constexpr (std::is_same_v<T, float> || VectorHalf<Kv>()) {  // each key vector loaded once for G rows
      constexpr size_t G = R < 4 ? R : HWY_TARGET <= HWY_AVX3 ? 4 : 2;
      static_assert(R % G == 0, "row groups of G");
      for (size_t r0 = 0; r0 < R; r0 += G) {
        hn::Vec<decltype(d)> dots[G];
        DotRowsVec<G, Kv>(d, blk.q + r0, kj, D, dots);
        for (size_t r = 0; r < G; ++r) s[r0 + r][j] = hn::GetLane(hn::SumOfLanes(d, dots[r])) * scale;
      }
    } else {
      const float* kf = Widened<Kv>(kj, D, krow);
      for (size_t r = 0; r < R; ++r) s[r][j] = Dot(blk.q[r], kf, D) * scale;
    }
  }
}

// Scale, causal -1e4 and mask on the raw dots of s[r][0, n); lanes from n on
// become -inf (they hold no key).
template <size_t R, class D>
HWY_INLINE void FlashFinishScores(D d, const FlashBlock& blk, int64_t j0, int64_t n, bool causal,
                                  float (*s)[kFlashTile]) {
  constexpr size_t N = hn::MaxLanes(D());
  const auto ninf = hn::Set(d, -std::numeric_limits<float>::infinity());
  const auto iota = hn::Iota(hn::RebindToSigned<D>(), 0);
  for (size_t r = 0; r < R; ++r)
    for (size_t v = 0; v < static_cast<size_t>(kFlashTile) / N; ++v) {
      const size_t c = v * N;
      auto x = hn::Load(d, s[r] + c);
      const hn::RebindToSigned<D> di;
      const auto j = hn::Add(iota, hn::Set(di, static_cast<int32_t>(c)));  // key j0 + j
      if (causal) {
        const int64_t rel = blk.last[r] - j0;  // visible while j <= rel
        const int32_t limit = static_cast<int32_t>(std::clamp<int64_t>(rel, -1, kFlashTile));
        const auto masked = hn::RebindMask(d, hn::Gt(j, hn::Set(di, limit)));
        x = hn::IfThenElse(masked, hn::Add(x, hn::Set(d, -1e4f)), x);
      }
      if (blk.mask[r] != nullptr) {
        const int64_t left = n - static_cast<int64_t>(c);
        if (left > 0)
          x = hn::Add(x, LoadHead(d, blk.mask[r] + j0 + c, static_cast<size_t>(std::min<int64_t>(left, N))));
      }
      const auto valid = hn::RebindMask(d, hn::Lt(j, hn::Set(di, static_cast<int32_t>(n))));
      hn::Store(hn::IfThenElse(valid, x, ninf), d, s[r] + c);
    }
}

// k and v: the KV head's rows as stored (decode reads them; prefill reads
// the f32 copies in sc).
template <size_t R, class Kv, class D>
void FlashBlockRows(D d, const FlashBlock& blk, size_t rows, const Geometry& g, const typename Kv::T* k,
                    const typename Kv::T* v, FlashScratch& sc, bool transposed, bool may_skip) {
  constexpr size_t N = hn::MaxLanes(D());
  const int64_t dim = g.d, d_pad = sc.d_pad;
  const float scale = ScaleOf(dim);
  HWY_ALIGN float s[R][kFlashTile];
  float m[R];
  HWY_ALIGN double l[R][N < 2 ? 2 : N] = {};  // the running sums, lane by lane
  int64_t last_visible = std::numeric_limits<int64_t>::min();
  int64_t first_last = std::numeric_limits<int64_t>::max();  // the least last visible key of the block's rows
  for (size_t r = 0; r < rows; ++r) last_visible = std::max(last_visible, blk.last[r]);
  for (size_t r = 0; r < R; ++r) first_last = std::min(first_last, blk.last[r]);
  bool has_mask = false;
  for (size_t r = 0; r < R; ++r) has_mask = has_mask || blk.mask[r] != nullptr;
  std::fill(sc.acc.get(), sc.acc.get() + static_cast<int64_t>(R) * d_pad, 0.0);
  if (transposed)
    for (int64_t t = 0; t < dim; ++t)
      for (size_t r = 0; r < R; ++r) sc.qt[static_cast<size_t>(t) * R + r] = blk.q[r][t];
  const KeyPrefetch<typename Kv::T> ahead{k, v, g.sk, dim};
  for (int64_t j0 = 0; j0 < g.sk; j0 += kFlashTile) {
    FlashPrefetchNext<R>(blk, dim, j0 / kFlashTile, sc.sk_pad / kFlashTile);
    int64_t n = std::min<int64_t>(kFlashTile, g.sk - j0);
    // Whether every key from the tile's first on, causally masked for every
    // row, provably shows nothing (the bound above; m only grows).
    const auto invisible = [&] {
      bool out = true;
      for (size_t r = 0; r < rows && out; ++r)
        out = blk.qnorm[r] * sc.tile_kmax[static_cast<size_t>(j0 / kFlashTile)] * scale * (1 + 1e-5) - 1e4 <
              static_cast<double>(m[r]) - 104.0;
      return out;
    };
    if (may_skip && j0 > 0 && j0 > last_visible && invisible()) break;
    // The same for the tile's second float block alone: the tile ends at the
    // first (its exps would all be 0, and the max is unchanged by them).
    if (may_skip && j0 > 0 && n > kTile && j0 + kTile > last_visible && invisible()) n = kTile;
    if (transposed) {  // two blocks of kTile keys
      FlashScoresTransposed<R>(d, sc.qt.data(), sc.kt.get(), dim, j0, scale, s, 0);
      if (n > kTile) FlashScoresTransposed<R>(d, sc.qt.data(), sc.kt.get(), dim, j0 + kTile, scale, s, kTile);
    } else {
      FlashScoresRows<R, Kv>(blk, k, v, g.sk, dim, j0, n, scale, s, sc.krow.get());
    }
    if (n < kFlashTile || has_mask || (g.causal && j0 + kFlashTile - 1 > first_last))
      FlashFinishScores<R>(d, blk, j0, n, g.causal, s);
    // The online softmax, with no branch on the data: the rows' new maxima,
    // their rescales c = exp(m_old - m_new) in double (1 unless the max grew)
    // a vector of rows at a time, then each row's e = exp(s - m) in s.
    const hn::Repartition<double, D> dd;
    constexpr size_t ND = hn::MaxLanes(decltype(dd)()), RC = (R + ND - 1) / ND * ND;
    HWY_ALIGN double m_old[RC] = {}, m_now[RC] = {}, c[RC];
    for (size_t r = 0; r < R; ++r) {
      auto mx = hn::Load(d, s[r]);
      for (size_t t = N; t < kFlashTile; t += N) mx = hn::Max(mx, hn::Load(d, s[r] + t));
      const float tm = MaxLane(d, mx);  // -inf when the whole tile is
      const float m_new = j0 == 0 ? tm : std::max(m[r], tm);
      m_old[r] = j0 == 0 ? m_new : m[r];
      m_now[r] = m_new;
      m[r] = m_new;
    }
    for (size_t r = 0; r < RC; r += ND) {
      const auto mo = hn::Load(dd, m_old + r), mn = hn::Load(dd, m_now + r);
      hn::Store(hn::IfThenElse(hn::Gt(mn, mo), hn::Exp(dd, hn::Sub(mo, mn)), hn::Set(dd, 1.0)), dd, c + r);
    }
    for (size_t r = 0; r < R; ++r) {
      const auto vm = hn::Set(d, m[r]);
      auto sum = hn::Zero(d);  // the tile's exps in float lanes (kFlashTile / N terms each)
      for (size_t t = 0; t < kFlashTile; t += N) {
        const auto e = act::ExpF(d, hn::Sub(hn::Load(d, s[r] + t), vm));  // -inf lanes give 0
        hn::Store(e, d, s[r] + t);
        sum = hn::Add(sum, e);
      }
      // l = l c + sum, lane by lane in double: no sum across lanes per tile.
#if HWY_TARGET == HWY_SCALAR
      l[r][0] = l[r][0] * c[r] + static_cast<double>(hn::GetLane(sum));
#else
      const hn::Half<D> dh;
      const auto vc = hn::Set(dd, c[r]);
      hn::Store(hn::MulAdd(hn::Load(dd, l[r]), vc, hn::PromoteTo(dd, hn::LowerHalf(dh, sum))), dd, l[r]);
      hn::Store(hn::MulAdd(hn::Load(dd, l[r] + ND), vc, hn::PromoteTo(dd, hn::UpperHalf(dh, sum))), dd, l[r] + ND);
#endif
    }
    // The tile's products e . v, a register block of rows x vectors of D at
    // a time: per float block of kTile keys a chain in float, the two
    // blocks' sums added and folded into the double accumulators after the
    // rescale by c. Prefill reads the aligned copy of V (rows of ldv);
    // decode V as stored (rows of D), a half cache widened as it is loaded
    // or, where its format has no vector widening here, a tile at a time.
    const int64_t n0 = std::min(n, kTile), n1 = n - n0;
    constexpr size_t RG = R < FlashValueRows<N>() ? R : FlashValueRows<N>(), VC = FlashValueVectors<N>();
    if (transposed)
      FlashValuesTile<R, RG, VC, KvF32>(d, s, sc.vt.get() + j0 * sc.ldv, dim, sc.ldv, n0, n1, sc.acc.get(), d_pad, c);
    else if constexpr (std::is_same_v<typename Kv::T, float> || VectorHalf<Kv>())
      FlashValuesTile<R, RG, VC, Kv>(d, s, v + j0 * dim, dim, dim, n0, n1, sc.acc.get(), d_pad, c, &ahead, j0);
    else
      FlashValuesTile<R, RG, VC, KvF32>(d, s, Widened<Kv>(v + j0 * dim, static_cast<size_t>(n * dim), sc.vtile.get()),
                                        dim, dim, n0, n1, sc.acc.get(), d_pad, c);
  }
  for (size_t r = 0; r < rows; ++r) {
    double sum = 0.0;
    for (size_t t = 0; t < N; ++t) sum += l[r][t];
    const double inv = 1.0 / sum;
    const double* a = sc.acc.get() + r * d_pad;
    for (int64_t t = 0; t < dim; ++t) blk.y[r][t] = static_cast<float>(a[t] * inv);
  }
}

// One KV head's rows (FlashF32), with its own scratch: threads take whole
// heads, so no result depends on the thread count.
template <class Kv, class D>
HWY_NOINLINE void FlashHeadImpl(D d, const float* q, const typename Kv::T* k, const typename Kv::T* v, float* y,
                                const Geometry& g, int64_t b, int64_t kvh, bool transposed, bool may_skip,
                                FlashScratch& sc) {
  using T = typename Kv::T;
  constexpr size_t N = hn::MaxLanes(D());
  constexpr size_t R = FlashRows<N>();
  const int64_t rep = g.heads / g.kv_heads, rows_per_head = rep * g.sq;
  const T* kh = k + (b * g.kv_heads + kvh) * g.sk * g.d;
  const T* vh = v + (b * g.kv_heads + kvh) * g.sk * g.d;
  if (transposed) {                                 // f32 copies (a half cache widened on the way)
    for (int64_t j0 = 0; j0 < g.sk; j0 += kTile) {  // block by block: [D][kTile], written in order
      float* block = sc.kt.get() + j0 * g.d;
      const int64_t keys = std::min<int64_t>(kTile, g.sk - j0);
      for (int64_t j = 0; j < keys; ++j) {
        const float* kj = Widened<Kv>(kh + (j0 + j) * g.d, static_cast<size_t>(g.d), sc.krow.get());
        for (int64_t t = 0; t < g.d; ++t) block[t * kTile + j] = kj[t];
      }
    }
    for (int64_t j = 0; j < g.sk; ++j) {
      const float* vj = Widened<Kv>(vh + j * g.d, static_cast<size_t>(g.d), sc.krow.get());
      std::copy(vj, vj + g.d, sc.vt.get() + j * sc.ldv);
    }
  }
  if (may_skip) {  // per tile, the largest |k_j| of it and of every later tile
    std::fill(sc.tile_kmax.begin(), sc.tile_kmax.end(), 0.0f);
    for (int64_t j = 0; j < g.sk; ++j) {
      const float* kj = Widened<Kv>(kh + j * g.d, static_cast<size_t>(g.d), sc.krow.get());
      const double norm = std::sqrt(static_cast<double>(Dot(kj, kj, static_cast<size_t>(g.d))));
      float& tile = sc.tile_kmax[static_cast<size_t>(j / kFlashTile)];
      tile = std::max(tile, static_cast<float>(norm * (1 + 1e-5)));
    }
    for (size_t t = sc.tile_kmax.size() - 1; t-- > 0;) sc.tile_kmax[t] = std::max(sc.tile_kmax[t], sc.tile_kmax[t + 1]);
  }
  const auto block_at = [&](int64_t r0, size_t rows) {
    FlashBlock blk;
    for (size_t r = 0; r < R; ++r) {
      const int64_t row = r0 + static_cast<int64_t>(std::min(r, rows - 1));  // pad with the last row
      const int64_t i = row / rep, h = kvh * rep + row % rep;
      const RowPtrs<T> p = RowOf(q, k, v, g, b, h, i);
      blk.q[r] = p.q;
      blk.mask[r] = p.mask;
      blk.y[r] = y + ((b * g.heads + h) * g.sq + i) * g.d;
      blk.last[r] = g.causal ? i + g.sk - g.sq : std::numeric_limits<int64_t>::max();
      blk.qnorm[r] = 0.0;
    }
    return blk;
  };
  for (int64_t r0 = 0; r0 < rows_per_head; r0 += static_cast<int64_t>(R)) {
    const size_t rows = static_cast<size_t>(std::min<int64_t>(R, rows_per_head - r0));
    FlashBlock blk = block_at(r0, rows);
    if (may_skip)
      for (size_t r = 0; r < R; ++r)
        blk.qnorm[r] = std::sqrt(static_cast<double>(Dot(blk.q[r], blk.q[r], static_cast<size_t>(g.d)))) * (1 + 1e-5);
    const int64_t r1 = r0 + static_cast<int64_t>(R);
    if (transposed && r1 < rows_per_head) {  // FlashPrefetchNext
      const FlashBlock next = block_at(r1, static_cast<size_t>(std::min<int64_t>(R, rows_per_head - r1)));
      std::copy(next.q, next.q + R, blk.next_q);
      std::copy(next.y, next.y + R, blk.next_y);
    }
    // Few rows (decode: rep rows of one query) take a narrower block, so
    // no padded row repeats the work.
    if (rows <= 1 || R == 1) FlashBlockRows<1, Kv>(d, blk, rows, g, kh, vh, sc, transposed, may_skip);
    else if (rows <= 2 || R == 2)
      FlashBlockRows<(R < 2 ? R : 2), Kv>(d, blk, rows, g, kh, vh, sc, transposed, may_skip);
    else if (rows <= 4 || R == 4)
      FlashBlockRows<(R < 4 ? R : 4), Kv>(d, blk, rows, g, kh, vh, sc, transposed, may_skip);
    else FlashBlockRows<R, Kv>(d, blk, rows, g, kh, vh, sc, transposed, may_skip);
  }
}

template <class Kv = KvF32>
inline void Flash(const float* q, const typename Kv::T* k, const typename Kv::T* v, float* y, const Geometry& g) {
  if (g.batch <= 0 || g.sq <= 0) return;
  const hn::ScalableTag<float> d;
  constexpr size_t N = hn::MaxLanes(decltype(d)());
  constexpr size_t R = FlashRows<N>();
  const int64_t rep = g.heads / g.kv_heads, rows_per_head = rep * g.sq;
  // Transposing K pays off once a head has several blocks of rows.
  const bool transposed = rows_per_head >= 2 * static_cast<int64_t>(R) && g.d >= 8;
  const bool may_skip = g.causal && g.mask == nullptr && g.sq > 1;
  // Scratch per thread; threads take whole KV heads (batch x kv_heads of
  // them), each head's rows computed as on one thread: no result depends on
  // the thread count.
  const auto make_scratch = [&] {
    FlashScratch sc;
    sc.sk_pad = (g.sk + kFlashTile - 1) / kFlashTile * kFlashTile;
    const int64_t chunk = static_cast<int64_t>(FlashValueVectors<N>() * N);  // columns per products' register block
    sc.d_pad = (g.d + chunk - 1) / chunk * chunk;
    sc.acc = hwy::AllocateAligned<double>(static_cast<size_t>(R * sc.d_pad));
    constexpr int64_t kLine = 64 / sizeof(float);
    sc.ldv = transposed ? (g.d + kLine - 1) / kLine * kLine : g.d;
    if (transposed) {
      sc.kt = hwy::AllocateAligned<float>(static_cast<size_t>(g.d * sc.sk_pad));
      std::fill(sc.kt.get(), sc.kt.get() + g.d * sc.sk_pad, 0.0f);  // keys past Sk stay 0
      sc.vt = hwy::AllocateAligned<float>(static_cast<size_t>(sc.ldv * g.sk));
      sc.qt.assign(static_cast<size_t>(g.d) * R, 0.0f);
    }
    if (!std::is_same_v<typename Kv::T, float>) {
      sc.krow = hwy::AllocateAligned<float>(static_cast<size_t>(g.d));
      sc.vtile = hwy::AllocateAligned<float>(static_cast<size_t>(kFlashTile * g.d));
      if (sc.krow == nullptr || sc.vtile == nullptr) throw std::bad_alloc();
    }
    if (sc.acc == nullptr || (transposed && (sc.kt == nullptr || sc.vt == nullptr))) throw std::bad_alloc();
    if (may_skip) sc.tile_kmax.assign(static_cast<size_t>(sc.sk_pad / kFlashTile), 0.0f);
    return sc;
  };
  const int64_t kv_total = g.batch * g.kv_heads;
  // A thread costs tens of microseconds to start: only past 1 MiB of K.
  const int64_t threads =
      g.batch * g.kv_heads * g.sk * g.d >= (int64_t{1} << 18) ? std::min<int64_t>(ThreadCount(), kv_total) : 1;
  std::exception_ptr failure;
  std::mutex failure_lock;
  ParallelFor(threads, [&](int64_t t) {
    try {
      FlashScratch sc = make_scratch();
      for (int64_t bk = t; bk < kv_total; bk += threads)
        FlashHeadImpl<Kv>(d, q, k, v, y, g, bk / g.kv_heads, bk % g.kv_heads, transposed, may_skip, sc);
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_lock);
      if (!failure) failure = std::current_exception();
    }
  });
  if (failure) std::rethrow_exception(failure);
}

}  // namespace konform::simd::HWY_NAMESPACE::attn
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_ATTENTION_INL_H_
