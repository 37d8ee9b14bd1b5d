// The unpacked path of y = x @ W^T for a few rows of x (decode: M = 1 is a
// GEMV): W is read once, straight from memory, in strips of L rows (L = 8
// floats on AVX2 and AVX3, 4 on SSE4, 1 on SCALAR). An L x L tile of a strip
// is transposed in registers, so each output again gets one multiply-add per
// k in k order, in chains of kKC columns added to y in order: the same
// operations as the packed path (matmul_gemm-inl.h), hence the same bits,
// which is what makes a row of a batch equal the row computed alone.

#if defined(KONFORM_SIMD_MATMUL_STRIP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_MATMUL_STRIP_INL_H_
#undef KONFORM_SIMD_MATMUL_STRIP_INL_H_
#else
#define KONFORM_SIMD_MATMUL_STRIP_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "impl/simd/matmul_gemm-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The most rows of x one pass over W serves.
constexpr int64_t kStripRows = 8;

// Weights whose values are pairs of bf16 along k (matmul_pairs-inl.h): each
// "column" k of a strip is the pair 2k, 2k + 1, and x holds both widened.
template <class W, class = void>
struct PairColumns : std::false_type {};
template <class W>
struct PairColumns<W, std::void_t<decltype(W::kPairs)>> : std::bool_constant<W::kPairs> {};

// acc + x[k] * col: one multiply-add; for pairs, the odd product (x[2k + 1]
// times col's high halves) and then the even one, each a multiply-add of
// the widened values.
template <bool kPairs, class D>
HWY_INLINE hn::Vec<D> StepAt(D d, const float* x, int64_t k, hn::Vec<D> col, hn::Vec<D> acc) {
  if constexpr (kPairs) {
    const hn::RebindToUnsigned<D> du;
    const auto bits = hn::BitCast(du, col);
    const auto odd = hn::BitCast(d, hn::And(bits, hn::Set(du, 0xFFFF0000u)));
    const auto even = hn::BitCast(d, hn::ShiftLeft<16>(bits));
    return hn::MulAdd(hn::Set(d, x[2 * k]), even, hn::MulAdd(hn::Set(d, x[2 * k + 1]), odd, acc));
  } else {
    return hn::MulAdd(hn::Set(d, x[k]), col, acc);
  }
}

// y[r][n0 .. n0 + L) (+)= the chains over k in [k0, k1) for R rows of x, from
// a strip of `valid` rows of W (the rest read as zeros). yt has row stride ldy.
template <int64_t R, bool kFull, class Weights>
HWY_INLINE void StripBlock(const float* x, int64_t ldx, const Weights& w, int64_t n0, int64_t valid, int64_t k0,
                           int64_t k1, float* yt, int64_t ldy, bool add) {
  constexpr bool kPairs = PairColumns<Weights>::value;
  const StripTag d;
  using V = hn::Vec<StripTag>;
  constexpr int64_t kMaxL = 8;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  V acc[R];
#pragma GCC unroll 8
  for (int64_t r = 0; r < R; ++r) acc[r] = hn::Zero(d);
  int64_t k = k0;
  for (; k + L <= k1; k += L) {
    V rows[kMaxL], cols[kMaxL];
    for (int64_t i = 0; i < L; ++i) rows[i] = (kFull || i < valid) ? w.Load(d, n0 + i, k) : hn::Zero(d);
    Transpose(d, rows, cols);
    for (int64_t j = 0; j < L; ++j) {
#pragma GCC unroll 8
      for (int64_t r = 0; r < R; ++r) acc[r] = StepAt<kPairs>(d, x + r * ldx, k + j, cols[j], acc[r]);
    }
  }
  for (; k < k1; ++k) {  // the K tail (f32 weights and pairs): one column at a time
    HWY_ALIGN float col[kMaxL] = {};
    for (int64_t i = 0; i < L; ++i)
      if (kFull || i < valid) col[i] = w.At(n0 + i, k);
    const V c = hn::Load(d, col);
#pragma GCC unroll 8
    for (int64_t r = 0; r < R; ++r) acc[r] = StepAt<kPairs>(d, x + r * ldx, k, c, acc[r]);
  }
#pragma GCC unroll 8
  for (int64_t r = 0; r < R; ++r) {
    float* p = yt + r * ldy;
    hn::StoreU(add ? hn::Add(hn::LoadU(d, p), acc[r]) : acc[r], d, p);
  }
}

// One row of x (decode), one full strip, kGemvBlocks blocks of kKC columns
// from k0 at once: each block's chain is StripBlock<1>'s, and the chains
// are added to y in block order as StripRows adds them, so the bits are the
// same; but the blocks' chains are independent and hide each other's
// multiply-add latency (one chain alone waits on every FMA: about 8 columns
// per FMA latency). The blocks lie kKC floats apart in the same rows: one
// pointer per row, no more streams than one block's.
constexpr int64_t kGemvBlocks = 4;

// Weights GemvBlocks streams (a row's address, LoadRow at any k of it):
// f32, half and bf16-pair rows, not quantized blocks.
template <class W, class = void>
struct GemvStreams : std::false_type {};
template <class W>
struct GemvStreams<W, std::void_t<decltype(W::kElementBytes)>> : std::true_type {};

template <class Weights>
HWY_INLINE void GemvBlocks(const float* x, const Weights& w, int64_t n0, int64_t k0, float* y, bool add) {
  constexpr bool kPairs = PairColumns<Weights>::value;
  const StripTag d;
  using V = hn::Vec<StripTag>;
  constexpr int64_t kMaxL = 8, kLine = 64 / Weights::kElementBytes;  // elements a cache line
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  constexpr int64_t kStep = kPairs ? 2 : 1;  // stored values per column
  decltype(w.Address(0, 0)) row[kMaxL];
  for (int64_t i = 0; i < L; ++i) row[i] = w.Address(n0 + i, 0);
  V acc[kGemvBlocks];
  for (auto& a : acc) a = hn::Zero(d);
  for (int64_t k = k0; k < k0 + kKC; k += L) {
    // The four blocks' loads jump about each row, which the hardware's
    // stream prefetchers do not follow from memory: the next group's lines
    // in order, kGemvBlocks * L values of each row per step.
    for (int64_t i = 0; i < L; ++i)
      for (int64_t c = 0; c < kGemvBlocks * L; c += kLine)
        hwy::Prefetch(row[i] + kStep * (k0 + kGemvBlocks * kKC + (k - k0) * kGemvBlocks + c));
#pragma GCC unroll 4
    for (int64_t b = 0; b < kGemvBlocks; ++b) {
      V rows[kMaxL], cols[kMaxL];
      for (int64_t i = 0; i < L; ++i) rows[i] = w.LoadRow(d, row[i], k + b * kKC);
      Transpose(d, rows, cols);
      for (int64_t j = 0; j < L; ++j) acc[b] = StepAt<kPairs>(d, x, k + b * kKC + j, cols[j], acc[b]);
    }
  }
  float* p = y + n0;
  V sum = add ? hn::Add(hn::LoadU(d, p), acc[0]) : acc[0];
  for (int64_t b = 1; b < kGemvBlocks; ++b) sum = hn::Add(sum, acc[b]);
  hn::StoreU(sum, d, p);
}

// y[r][n_begin .. n_end) for R rows of x (R <= kStripRows).
template <int64_t R, class Weights>
void StripRows(const float* x, int64_t ldx, const Weights& w, float* y, int64_t ldy, int64_t n_begin, int64_t n_end,
               int64_t K) {
  const StripTag d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t n0 = n_begin; n0 < n_end; n0 += L) {
    const int64_t valid = std::min(L, n_end - n0);
    if constexpr (R == 1 && GemvStreams<Weights>::value) {
      if (valid == L && K > 0) {  // decode: kGemvBlocks blocks at a time, then one by one
        int64_t k0 = 0;
        for (; k0 + kGemvBlocks * kKC <= K; k0 += kGemvBlocks * kKC) GemvBlocks(x, w, n0, k0, y, k0 > 0);
        for (; k0 < K; k0 += kKC) StripBlock<1, true>(x, ldx, w, n0, L, k0, std::min(K, k0 + kKC), y + n0, ldy, k0 > 0);
        continue;
      }
    }
    if (K == 0) {
      for (int64_t r = 0; r < R; ++r) std::fill(y + r * ldy + n0, y + r * ldy + n0 + valid, 0.0f);
      continue;
    }
    if (valid == L) {
      for (int64_t k0 = 0; k0 < K; k0 += kKC)
        StripBlock<R, true>(x, ldx, w, n0, L, k0, std::min(K, k0 + kKC), y + n0, ldy, k0 > 0);
      continue;
    }
    // The last, partial strip: through a buffer of L columns.
    HWY_ALIGN float tile[kStripRows * 8];
    for (int64_t k0 = 0; k0 < K; k0 += kKC)
      StripBlock<R, false>(x, ldx, w, n0, valid, k0, std::min(K, k0 + kKC), tile, L, k0 > 0);
    for (int64_t r = 0; r < R; ++r) std::memcpy(y + r * ldy + n0, tile + r * L, static_cast<size_t>(valid) * 4);
  }
}

// Any M <= kStripRows.
template <class Weights>
void StripPath(const float* x, int64_t ldx, const Weights& w, float* y, int64_t ldy, int64_t M, int64_t n_begin,
               int64_t n_end, int64_t K) {
  switch (M) {
    case 1: StripRows<1>(x, ldx, w, y, ldy, n_begin, n_end, K); break;
    case 2: StripRows<2>(x, ldx, w, y, ldy, n_begin, n_end, K); break;
    case 3: StripRows<3>(x, ldx, w, y, ldy, n_begin, n_end, K); break;
    case 4: StripRows<4>(x, ldx, w, y, ldy, n_begin, n_end, K); break;
    case 5: StripRows<5>(x, ldx, w, y, ldy, n_begin, n_end, K); break;
    case 6: StripRows<6>(x, ldx, w, y, ldy, n_begin, n_end, K); break;
    case 7: StripRows<7>(x, ldx, w, y, ldy, n_begin, n_end, K); break;
    case 8: StripRows<8>(x, ldx, w, y, ldy, n_begin, n_end, K); break;
    default: break;
  }
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_MATMUL_STRIP_INL_H_
