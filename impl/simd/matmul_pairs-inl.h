// The bf16 Matmul on CPUs with AVX512_BF16 (the AVX3 target only): the
// packed path of matmul_gemm-inl.h with each 32-bit lane holding a pair of
// bf16 values along k, so that one vdpbf16ps does two multiply-adds a lane
// (matmul_bf16_dp.cpp), twice the f32 kernel's work per instruction.
//
// Its summation order (within Matmul_bf16's rule, docs/tolerances.md): for
// each output and each block of kKC pairs (2 kKC values of k), a chain from
// zero over the pairs in k order, each pair adding its odd product (k = 2p+1)
// and then its even one (k = 2p) by fused multiply-adds; the blocks' chains
// added to y in order; an odd K's last value paired with a zero. That order
// depends on K alone, so every M (a row alone or in a batch) and every
// thread split gives the same bits.
//
// The instruction computes exactly that, but reads subnormal inputs as zero
// and flushes subnormal sums. A tile runs it only where neither can happen
// (DotPairsExact, from the keys of its two panels); other tiles, and up to
// kStripRows rows of x (the strip path, matmul_strip-inl.h, W read once),
// take the same order in IEEE, which gives the instruction's bits wherever
// the instruction is exact, so the choice never shows in a result.

#if defined(KONFORM_SIMD_MATMUL_PAIRS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_MATMUL_PAIRS_INL_H_
#undef KONFORM_SIMD_MATMUL_PAIRS_INL_H_
#else
#define KONFORM_SIMD_MATMUL_PAIRS_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "impl/simd/matmul_bf16_dp.h"
#include "impl/simd/matmul_gemm-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86_64

// Pairs [p0, p0 + n) of a row of K bf16 values into out, one pair per float's
// bits (element 2p in the low half), the half past an odd K zero.
HWY_INLINE void CopyPairs(const uint16_t* row, int64_t K, int64_t p0, int64_t n, float* out) {
  const int64_t have = std::max<int64_t>(0, std::min(2 * n, K - 2 * p0));
  std::memcpy(out, row + 2 * p0, static_cast<size_t>(have) * 2);
  if (have < 2 * n) std::memset(reinterpret_cast<uint16_t*>(out) + have, 0, static_cast<size_t>(2 * n - have) * 2);
}

// x (M x K bf16) as rows of pairs: PackX's source.
struct PairRows {
  const uint16_t* x;
  int64_t K;
  HWY_INLINE void Pack(int64_t m, int64_t p0, int64_t n, float* out, int64_t stride) const {
    if (stride == 1) return CopyPairs(x + m * K, K, p0, n, out);
    for (int64_t p = 0; p < n; ++p) CopyPairs(x + m * K, K, p0 + p, 1, out + p * stride);
  }
};

// W (N x K bf16) as rows of pairs: PackW's source (matmul_weights-inl.h's
// interface), loaded a vector of pairs at a time.
struct PairWeights {
  static constexpr bool kRowPointers = false;
  static constexpr bool kVectorLoads = true;
  const uint16_t* w;
  int64_t K;

  template <class D>
  HWY_INLINE hn::Vec<D> Load(D d, int64_t n, int64_t p) const {
    return LoadRow(d, w + n * K, p);
  }
  template <class D>
  HWY_INLINE hn::Vec<D> LoadRow(D d, const uint16_t* row, int64_t p) const {
    const int64_t L = static_cast<int64_t>(hn::Lanes(d));
    const hn::Repartition<uint16_t, D> d16;
    if (HWY_LIKELY(2 * (p + L) <= K)) return hn::BitCast(d, hn::LoadU(d16, row + 2 * p));
    return LoadPadded(d, row, p);
  }
  // The row's last vector where K is odd: out of the hot loops.
  template <class D>
  HWY_NOINLINE hn::Vec<D> LoadPadded(D d, const uint16_t* row, int64_t p) const {
    HWY_ALIGN float buf[HWY_MAX_BYTES / sizeof(float)];
    CopyPairs(row, K, p, static_cast<int64_t>(hn::Lanes(d)), buf);
    return hn::Load(d, buf);
  }
  HWY_INLINE const float* Row(int64_t n, int64_t p0, int64_t n_pairs, float* buf) const {
    CopyPairs(w + n * K, K, p0, n_pairs, buf);
    return buf;
  }
  // The strip path's (matmul_strip-inl.h): a pair's bits, and the rows'
  // addresses for its decode streams.
  static constexpr bool kPairs = true;
  static constexpr int64_t kElementBytes = 4;
  HWY_INLINE float At(int64_t n, int64_t p) const {
    float pair;
    CopyPairs(w + n * K, K, p, 1, &pair);
    return pair;
  }
  HWY_INLINE const uint16_t* Address(int64_t n, int64_t p) const { return w + n * K + 2 * p; }
};

// A panel's key: the least, over its nonzero values, of the biased exponent
// (one less for a power of 2: ((bits & 0x7FFF) - 1) >> 7 in 16 bits); 0 for
// a subnormal, 511 for zero, so zeros (the panels' padding too) never lower it.
HWY_INLINE uint16_t PairsPanelKey(const float* panel, int64_t n) {
  const hn::ScalableTag<float> d;
  const hn::Repartition<uint16_t, decltype(d)> d16;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  auto least = hn::Set(d16, 0xFFFF);
  const auto magnitude = hn::Set(d16, 0x7FFF), one = hn::Set(d16, 1);
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    const auto v = hn::BitCast(d16, hn::LoadU(d, panel + i));
    least = hn::Min(least, hn::ShiftRight<7>(hn::Sub(hn::And(v, magnitude), one)));
  }
  HWY_ALIGN uint16_t lanes[HWY_MAX_BYTES / sizeof(uint16_t)];
  hn::Store(least, d16, lanes);
  uint16_t key = *std::min_element(lanes, lanes + hn::Lanes(d16));
  uint16_t tail[2];
  for (; i < n; ++i) {
    std::memcpy(tail, panel + i, 4);
    for (const uint16_t h : tail)
      key = std::min(key, static_cast<uint16_t>(static_cast<uint16_t>((h & 0x7FFF) - 1) >> 7));
  }
  return key;
}

// Whether vdpbf16ps is exact on a tile whose panels have these keys. Normal
// bf16 values of biased exponents ex and ew are multiples of 2^(ex - 134)
// and 2^(ew - 134), so every product, and every partial sum rounded to f32,
// is a multiple of 2^(ex + ew - 268): none is subnormal (below 2^-126) when
// ex + ew >= 142, and no input is when both are at least 1.
HWY_INLINE bool DotPairsExact(uint16_t a_key, uint16_t b_key) {
  return a_key >= 1 && b_key >= 1 && a_key + b_key >= 142;
}

// matmul_gemm-inl.h's tile policy for pairs, where the CPU has the
// instruction (HasBf16DotPairs): it where it is exact, the emulated tile elsewhere.
struct PairTiles {
  static_assert(kMR == 12 && kNV == 2, "matmul_bf16_dp.cpp's tile is 12 rows by 2 vectors");
  static constexpr bool kKeys = true;
  static uint16_t PanelKey(const float* panel, int64_t n) { return PairsPanelKey(panel, n); }
  HWY_INLINE void Run(int64_t rows, int64_t kc, const float* a, const float* b, float* c, int64_t ldc, bool add,
                      uint16_t a_key, uint16_t b_key, const float* next) const {
    if (DotPairsExact(a_key, b_key)) return Bf16PairsTile(rows, kc, a, b, c, ldc, add, next);
    RowsTile<true>(rows, kc, a, b, c, ldc, add, next);
  }
};

#endif  // HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86_64

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_MATMUL_PAIRS_INL_H_
