// Argmax along one axis of a tensor seen as [outer, length, inner], with the
// rule of tl_argmax_f32 on every slice: strict > scanning forward (ties go to
// the lowest index), NaN skipped, -1 for a slice without a number.
//
// inner == 1: the slices are contiguous rows, and each goes through the
// six-kernel Argmax (argmax-inl.h). inner > 1: the slices interleave, so a
// vector holds neighbouring slices. Up to 512 apart, up to four vectors walk
// the axis together (ArgmaxLanes), so that each row of the axis is read once
// per 4N slices; further apart, the rows are read in memory order with the
// running maxima in L1 (ArgmaxRowsSpan); at most N / 2 apart, each vector
// holds several steps of every slice (ArgmaxPacked).

#if defined(KONFORM_SIMD_TENSOR_ARGMAX_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_TENSOR_ARGMAX_INL_H_
#undef KONFORM_SIMD_TENSOR_ARGMAX_INL_H_
#else
#define KONFORM_SIMD_TENSOR_ARGMAX_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "hwy/aligned_allocator.h"
#include "hwy/highway.h"
#include "impl/simd/argmax-inl.h"
#include "impl/simd/tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Steps per block, the chains that share a block's steps (step k goes to
// chain k % 4), and blocks per chunk of the axis (the scratch of the chains'
// block maxima: at most kChunkBlocks x 4 vectors x kChains).
constexpr int64_t kArgmaxBlock = 64, kChains = 4, kChunkBlocks = 512;

// The stride of chain c's walk in a block of steps [k0, k1): kChains, or 1
// for chain 0 when the block ends off the chains' stride, as chain 0 then
// also holds the steps past the last full group (a superset of its own).
inline int64_t ChainStride(int64_t c, int64_t k0, int64_t k1) {
  return c == 0 && (k1 - k0) % kChains != 0 ? 1 : kChains;
}

// The first step k in [k0, k1) of one slice (`column`, stepping `inner`)
// with column[k * inner] == target, where chain_max(c) is the max of the
// block's chain c (steps k0 + c, k0 + c + kChains, ...; see ChainStride)
// and some chain reaches target. Only the chains that do are walked, each
// up to its first match.
template <class ChainMax>
HWY_INLINE int64_t FirstInBlock(const float* column, int64_t inner, int64_t k0, int64_t k1, float target,
                                const ChainMax& chain_max) {
  int64_t at = k1;
  for (int64_t c = 0; c < kChains; ++c) {
    if (chain_max(c) != target) continue;
    const int64_t step = ChainStride(c, k0, k1);
    for (int64_t k = k0 + c; k < at; k += step)
      if (column[k * inner] == target) {
        at = k;
        break;
      }
  }
  return at;
}

// The argmax of `lanes` (<= V * N) neighbouring slices, which start at x[0],
// x[1], ... and step `inner` along the axis, chunk by chunk of the axis.
// In a chunk: per block of kArgmaxBlock steps and lane, the max skipping NaN
// of each of four chains (the latency of max bounds one), kept in
// `block_max`, and the chunk's max over its blocks. The first step holding
// that max lies in the first block whose max equals it, in the chains of
// that block whose max equals it: each distinct such block is visited once
// for the lanes it wins, and in it only those chains are walked, a quarter
// of its steps each (Eq matches -0 and +0 alike, as strict > ties them); the
// earliest step any of them holds wins. A block that wins a single lane (on
// long axes, most of them) is walked for it alone with scalar loads
// (FirstInBlock): 4096 x 32 1.04-1.06x (docs/ops-tensor.md, "Argmax's lone
// lanes walked with scalar loads").
// Lanes with no number above -inf (only -inf and NaN) walk the chunk for its
// first -inf. A chunk wins a lane if it found a step
// and (the lane has none yet, or its max is larger), so equal maxima keep
// the earlier chunk and a slice of NaN only keeps -1. Per vector and step:
// one max, then a compare and a blend over at most N of a chunk's blocks,
// where tracking the index in one pass needs six or more operations per step.
// kFull: lanes == V * N, every load a whole vector (no test per load).
template <int V, bool kFull, class D>
HWY_INLINE void ArgmaxLanes(D d, const float* x, int64_t length, int64_t inner, size_t lanes, int32_t* out,
                            float* block_max) {
  const hn::RebindToSigned<D> di;
  const size_t N = hn::Lanes(d);
  const auto neg_inf = hn::Set(d, -std::numeric_limits<float>::infinity());
  auto load = [&](int64_t k, int v) HWY_ATTR {
    const float* row = x + k * inner;
    const size_t first = static_cast<size_t>(v) * N;
    // (the bound only tells the compiler what it cannot see: lanes - first < N here)
    return kFull || first + N <= lanes ? hn::LoadU(d, row + first)
                                       : LoadHead(d, row + first, HWY_MIN(lanes - first, hn::MaxLanes(d)));
  };
  // The first step of k0, k0 + step, ... below k1 where x == target, per
  // lane (-1 if none).
  auto first_equal = [&](int v, hn::Vec<D> target, int64_t k0, int64_t k1, int64_t step) HWY_ATTR {
    auto first = hn::Set(di, -1);
    if (k0 >= k1) return first;  // (a chain with no step in a short block)
    for (int64_t k = k0 + (k1 - 1 - k0) / step * step; k >= k0; k -= step)
      first =
          hn::IfThenElse(hn::RebindMask(di, hn::Eq(load(k, v), target)), hn::Set(di, static_cast<int32_t>(k)), first);
    return first;
  };
  auto block_max_at = [&](int64_t b, int v, int64_t c) HWY_ATTR {
    return block_max + ((static_cast<size_t>(b) * V + static_cast<size_t>(v)) * kChains + static_cast<size_t>(c)) * N;
  };
  hn::Vec<D> best[V];
  hn::Vec<decltype(di)> index[V];
  for (int v = 0; v < V; ++v) best[v] = neg_inf, index[v] = hn::Set(di, -1);
  HWY_ALIGN int32_t won[HWY_MAX_BYTES / sizeof(int32_t)], alone[HWY_MAX_BYTES / sizeof(int32_t)];
  HWY_ALIGN float top_lane[HWY_MAX_BYTES / sizeof(float)];
  for (int64_t c0 = 0; c0 < length; c0 += kArgmaxBlock * kChunkBlocks) {
    const int64_t c1 = HWY_MIN(length, c0 + kArgmaxBlock * kChunkBlocks);
    const int64_t blocks = (c1 - c0 + kArgmaxBlock - 1) / kArgmaxBlock;
    hn::Vec<D> top[V];  // the chunk's max per lane
    for (int v = 0; v < V; ++v) top[v] = neg_inf;
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t k0 = c0 + b * kArgmaxBlock, k1 = HWY_MIN(c1, k0 + kArgmaxBlock);
      hn::Vec<D> m[V][4];
      for (int v = 0; v < V; ++v) m[v][0] = m[v][1] = m[v][2] = m[v][3] = neg_inf;
      int64_t k = k0;
      for (; k + 4 <= k1; k += 4)
        for (int v = 0; v < V; ++v) {
          m[v][0] = MaxSkipNaN<D>(load(k, v), m[v][0]);
          m[v][1] = MaxSkipNaN<D>(load(k + 1, v), m[v][1]);
          m[v][2] = MaxSkipNaN<D>(load(k + 2, v), m[v][2]);
          m[v][3] = MaxSkipNaN<D>(load(k + 3, v), m[v][3]);
        }
      for (; k < k1; ++k)  // (a chunk's last block may end off the chains' stride: chain 0 takes the rest)
        for (int v = 0; v < V; ++v) m[v][0] = MaxSkipNaN<D>(load(k, v), m[v][0]);
      for (int v = 0; v < V; ++v) {
        for (int64_t c = 0; c < kChains; ++c) hn::Store(m[v][c], d, block_max_at(b, v, c));
        top[v] = hn::Max(top[v], hn::Max(hn::Max(m[v][0], m[v][1]), hn::Max(m[v][2], m[v][3])));  // no NaN in them
      }
    }
    for (int v = 0; v < V; ++v) {
      auto first = hn::Set(di, -1);
      const auto number = hn::Gt(top[v], neg_inf);           // the lanes with a number above -inf
      auto win = hn::Set(di, static_cast<int32_t>(blocks));  // the chunk's first block holding its max
      for (int64_t b = blocks - 1; b >= 0; --b) {
        const auto mb = hn::Max(hn::Max(hn::Load(d, block_max_at(b, v, 0)), hn::Load(d, block_max_at(b, v, 1))),
                                hn::Max(hn::Load(d, block_max_at(b, v, 2)), hn::Load(d, block_max_at(b, v, 3))));
        win = hn::IfThenElse(hn::RebindMask(di, hn::Eq(mb, top[v])), hn::Set(di, static_cast<int32_t>(b)), win);
      }
      hn::Store(hn::IfThenElse(hn::RebindMask(di, number), win, hn::Set(di, -1)), di, won);
      hn::Store(top[v], d, top_lane);
      const size_t owned = HWY_MIN(lanes - static_cast<size_t>(v) * N, N);  // lanes past `lanes` are never read
      for (size_t l = 0; l < N; ++l) alone[l] = -1;
      for (size_t l = 0; l < N; ++l) {
        const int32_t b = won[l];
        if (b < 0) continue;
        const int64_t k0 = c0 + int64_t{b} * kArgmaxBlock, k1 = HWY_MIN(c1, k0 + kArgmaxBlock);
        const auto in_block = hn::And(hn::Eq(win, hn::Set(di, b)), hn::RebindMask(di, number));
        if (l < owned && hn::CountTrue(di, in_block) == 1) {  // the block's only lane: its own walk, scalar
          alone[l] = static_cast<int32_t>(FirstInBlock(x + static_cast<size_t>(v) * N + l, inner, k0, k1, top_lane[l],
                                                       [&](int64_t c) HWY_ATTR { return block_max_at(b, v, c)[l]; }));
          continue;
        }
        for (int64_t c = 0; c < kChains; ++c) {  // the chains of block b holding a lane's max, each walked
          const auto holds = hn::And(in_block, hn::RebindMask(di, hn::Eq(hn::Load(d, block_max_at(b, v, c)), top[v])));
          if (hn::AllFalse(di, holds)) continue;
          const auto at = first_equal(v, top[v], k0 + c, k1, ChainStride(c, k0, k1));
          const auto earlier = hn::Or(hn::Lt(first, hn::Zero(di)), hn::Lt(at, first));
          first = hn::IfThenElse(hn::And(holds, earlier), at, first);
        }
        for (size_t j = l; j < N; ++j)
          if (won[j] == b) won[j] = -1;
      }
      const auto walked = hn::Load(di, alone);
      first = hn::IfThenElse(hn::Gt(walked, hn::Set(di, -1)), walked, first);
      if (!hn::AllTrue(d, number))  // only -inf and NaN: the chunk's first -inf
        first = hn::IfThenElse(hn::RebindMask(di, hn::Not(number)), first_equal(v, neg_inf, c0, c1, 1), first);
      const auto found = hn::RebindMask(d, hn::Gt(first, hn::Set(di, -1)));
      const auto unset = hn::RebindMask(d, hn::Lt(index[v], hn::Zero(di)));
      const auto take = hn::And(found, hn::Or(unset, hn::Gt(top[v], best[v])));
      best[v] = hn::IfThenElse(take, top[v], best[v]);
      index[v] = hn::IfThenElse(hn::RebindMask(di, take), first, index[v]);
    }
  }
  HWY_ALIGN int32_t buf[4 * HWY_MAX_BYTES / sizeof(int32_t)];
  for (int v = 0; v < V; ++v) hn::Store(index[v], di, buf + static_cast<size_t>(v) * N);
  std::memcpy(out, buf, lanes * sizeof(int32_t));
}

// Lanes per span of ArgmaxRowsSpan: its running maxima and indices, 8 KiB, stay
// in L1 while the span's part of every row streams past.
constexpr int64_t kRowSpan = 1024;
// Slices this many floats apart or more take ArgmaxRowsSpan. Against
// ArgmaxLanes alone, in one process on a Zen 3: 4096 x 256 0.82x, 4096 x 512
// 1.21-1.41x, 1024 x 1024 2.4x, 64 x 4096 4.3-6.2x (docs/ops-tensor.md).
constexpr int64_t kRowsFrom = 512;

// The argmax of `lanes` (<= kRowSpan) neighbouring slices starting at x[0],
// x[1], ..., stepping `inner` along the axis, read in memory order: each step
// of the axis is part of one row of x, read once, while per lane a running
// max (strict >: the first of equal maxima stays; NaN never passes) and its
// step live in `best` and `at`. Four steps share each load and store of
// them. Lanes that never passed -inf (only -inf and NaN) are then looked up
// one by one for their first -inf, else keep -1.
template <class D>
HWY_INLINE void ArgmaxRowsSpan(D d, const float* x, int64_t length, int64_t inner, size_t lanes, int32_t* out,
                               float* best, int32_t* at) {
  const hn::RebindToSigned<D> di;
  const size_t N = hn::Lanes(d);
  const float neg_inf = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < lanes; i += N) {
    hn::Store(hn::Set(d, neg_inf), d, best + i);
    hn::Store(hn::Set(di, -1), di, at + i);
  }
  auto step = [&](const float* row, size_t i, int32_t k, hn::Vec<D>& b, hn::Vec<decltype(di)>& a) HWY_ATTR {
    const auto v = i + N <= lanes ? hn::LoadU(d, row + i) : LoadHead(d, row + i, lanes - i);
    const auto more = hn::Gt(v, b);
    b = hn::IfThenElse(more, v, b);
    a = hn::IfThenElse(hn::RebindMask(di, more), hn::Set(di, k), a);
  };
  int64_t k = 0;
  for (; k + 4 <= length; k += 4) {
    const float* row = x + k * inner;
    const int32_t k32 = static_cast<int32_t>(k);
    for (size_t i = 0; i < lanes; i += N) {
      auto b = hn::Load(d, best + i);
      auto a = hn::Load(di, at + i);
      step(row, i, k32, b, a);
      step(row + inner, i, k32 + 1, b, a);
      step(row + 2 * inner, i, k32 + 2, b, a);
      step(row + 3 * inner, i, k32 + 3, b, a);
      hn::Store(b, d, best + i);
      hn::Store(a, di, at + i);
    }
  }
  for (; k < length; ++k)
    for (size_t i = 0; i < lanes; i += N) {
      auto b = hn::Load(d, best + i);
      auto a = hn::Load(di, at + i);
      step(x + k * inner, i, static_cast<int32_t>(k), b, a);
      hn::Store(b, d, best + i);
      hn::Store(a, di, at + i);
    }
  for (size_t i = 0; i < lanes; i += N) {
    if (hn::AllFalse(di, hn::Lt(hn::Load(di, at + i), hn::Zero(di)))) continue;
    for (size_t l = i; l < HWY_MIN(lanes, i + N); ++l)
      for (int64_t j = 0; at[l] < 0 && j < length; ++j)
        if (x[j * inner + static_cast<int64_t>(l)] == neg_inf) at[l] = static_cast<int32_t>(j);
  }
  std::memcpy(out, at, lanes * sizeof(int32_t));
}

// Slices at most half a vector apart (inner <= N / 2): a vector of x holds
// g = N / inner (rounded down) neighbouring steps of every slice, so x is read
// as rows of M = g * inner lanes (lane j: slice j % inner, step g q + j /
// inner of row q) and ArgmaxLanes walks them with whole vectors, where one
// vector per step would leave all but `inner` lanes idle. Each slice then
// takes, from its g lanes, the largest value, ties to the earliest step (the
// lanes' own rule); the steps past the last whole row are scanned after.
template <class D>
HWY_INLINE void ArgmaxPacked(D d, const float* x, int64_t length, int64_t inner, int32_t* out, float* block_max) {
  const size_t N = hn::Lanes(d);
  const int64_t g = static_cast<int64_t>(N) / inner, M = g * inner, rows = length / g;
  HWY_ALIGN int32_t lane_step[HWY_MAX_BYTES / sizeof(int32_t)];
  if (rows > 0) {
    if (M == static_cast<int64_t>(N)) ArgmaxLanes<1, true>(d, x, rows, M, N, lane_step, block_max);
    else ArgmaxLanes<1, false>(d, x, rows, M, static_cast<size_t>(M), lane_step, block_max);
  }
  for (int64_t l = 0; l < inner; ++l) {
    int64_t best = -1;
    float top = 0.0f;
    for (int64_t j = l; rows > 0 && j < M; j += inner) {
      if (lane_step[j] < 0) continue;  // only NaN in this lane
      const int64_t k = int64_t{lane_step[j]} * g + j / inner;
      const float v = x[k * inner + l];
      if (best < 0 || v > top || (v == top && k < best)) best = k, top = v;
    }
    for (int64_t k = rows * g; k < length; ++k) {
      const float v = x[k * inner + l];
      if (v == v && (best < 0 || v > top)) best = k, top = v;
    }
    out[l] = static_cast<int32_t>(best);
  }
}

inline void ArgmaxAxis(const float* x, int64_t outer, int64_t length, int64_t inner, int32_t* out) {
  if (inner == 1) {
    for (int64_t o = 0; o < outer; ++o) out[o] = Argmax(x + o * length, length);
    return;
  }
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  if (inner >= kRowsFrom) {
    auto best = hwy::AllocateAligned<float>(static_cast<size_t>(kRowSpan));
    auto at = hwy::AllocateAligned<int32_t>(static_cast<size_t>(kRowSpan));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < inner; j += kRowSpan)
        ArgmaxRowsSpan(d, x + o * length * inner + j, length, inner, static_cast<size_t>(HWY_MIN(kRowSpan, inner - j)),
                       out + o * inner + j, best.get(), at.get());
    return;
  }
  const size_t count = static_cast<size_t>(inner);
  // Per block of a chunk, up to four vectors of maxima per chain.
  const int64_t blocks = HWY_MIN(kChunkBlocks, (length + kArgmaxBlock - 1) / kArgmaxBlock);
  const auto block_max =
      hwy::AllocateAligned<float>(static_cast<size_t>(HWY_MAX(blocks, 1)) * 4 * kChains * N);  // length 0: -1s
  if (2 * count <= N) {
    for (int64_t o = 0; o < outer; ++o)
      ArgmaxPacked(d, x + o * length * inner, length, inner, out + o * inner, block_max.get());
    return;
  }
  for (int64_t o = 0; o < outer; ++o) {
    const float* xo = x + o * length * inner;
    int32_t* oo = out + o * inner;
    for (size_t j = 0; j < count;) {  // up to four vectors of slices share one walk down the axis
      const size_t lanes = HWY_MIN(4 * N, count - j), vectors = (lanes + N - 1) / N;
      float* bm = block_max.get();
      if (lanes % N == 0) {
        if (vectors == 4) ArgmaxLanes<4, true>(d, xo + j, length, inner, lanes, oo + j, bm);
        else if (vectors == 3) ArgmaxLanes<3, true>(d, xo + j, length, inner, lanes, oo + j, bm);
        else if (vectors == 2) ArgmaxLanes<2, true>(d, xo + j, length, inner, lanes, oo + j, bm);
        else ArgmaxLanes<1, true>(d, xo + j, length, inner, lanes, oo + j, bm);
      } else if (vectors == 4) ArgmaxLanes<4, false>(d, xo + j, length, inner, lanes, oo + j, bm);
      else if (vectors == 3) ArgmaxLanes<3, false>(d, xo + j, length, inner, lanes, oo + j, bm);
      else if (vectors == 2) ArgmaxLanes<2, false>(d, xo + j, length, inner, lanes, oo + j, bm);
      else ArgmaxLanes<1, false>(d, xo + j, length, inner, lanes, oo + j, bm);
      j += lanes;
    }
  }
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_TENSOR_ARGMAX_INL_H_
