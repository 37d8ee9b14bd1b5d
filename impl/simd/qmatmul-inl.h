// The quantized matmuls y = x @ Dequantize(W)^T (tinyllm/quant.h), fused:
// no float copy of W exists. With few rows of x (the decode GEMV) W's blocks
// are decoded in registers a vector at a time, next to the multiply-adds
// that use them; with more, each group of 256 columns of a few rows of W is
// decoded once into a small buffer and used by a chunk of rows of x (the
// panel GEMM below). Both take the same operations in the same order.
//
// The summation order (libtl_kernels' definition of QMatmul, the same on the
// decode path and for any number of rows, thread count or position of an
// output, so a row of a batch has the bits it has alone): k runs along the
// vector lanes (L = Lanes(QTag): 16 on AVX3, 8 on AVX2, 4 on SSE4, 1 on
// SCALAR).
//   - Each weight is the exact float d q (Q8_0), d (q - 8) (Q4_0), or the
//     scale part (d sc) q of Q4_K: products of at most 11 x 8 significant
//     bits, exact in float, so every product x w is the true product once
//     rounded in a fused multiply-add.
//   - Every group of kQGroup = 256 columns (8 blocks, or one Q4_K super-block)
//     is a chain starting from zero: one multiply-add per vector of L
//     columns, in k order, into one vector; the group chains are added to a
//     running vector in order; its lanes are summed by SumOfLanes.
//   - Q4_K's mins: minus sum_j (dmin m_j) (sum of x over sub-block j), the sub-
//     block sums of x taken once per call (32 terms in order), the products
//     chained over the super-blocks in 8-lane vectors (one lane per sub-block),
//     lanes summed at the end; the result is the weights' sum minus this.
// Bound: a chain of 16 multiply-adds (AVX3), <= K / 256 + 1 group sums, 4
// lane sums (Q4_K: the mins' 32 + K / 256 + 3, and the final subtraction):
// under 90 u of sum |x| |w| at K = 11008, inside QMatmul's 258 u.

#if defined(KONFORM_SIMD_QMATMUL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_QMATMUL_INL_H_
#undef KONFORM_SIMD_QMATMUL_INL_H_
#else
#define KONFORM_SIMD_QMATMUL_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "hwy/aligned_allocator.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "impl/simd/cache_size.h"
#include "impl/simd/matmul_weights-inl.h"
#include "impl/simd/parallel.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr int64_t kQGroup = 256;  // columns per chain: part of the order
using QTag = hn::ScalableTag<float>;
using MinTag = hn::CappedTag<float, 8>;  // Q4_K's mins: one lane per sub-block
constexpr int64_t kMinPieces = 8 / static_cast<int64_t>(hn::MaxLanes(MinTag()));

// The f16 at p as a float: F16C's conversion where the target has it (AVX2
// and up: one instruction where F16ToF32 takes a dozen and a branch). Both
// are exact for every finite f16 and keep Inf; a NaN scale makes every
// product NaN either way (the hardware only sets a signalling NaN's quiet
// bit, which the first multiply sets too).
HWY_INLINE float ScaleF16(const uint8_t* p) {
#if HWY_TARGET <= HWY_AVX2 && HWY_TARGET != HWY_SCALAR && HWY_ARCH_X86
  return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(static_cast<int>(LoadF16(p)))));
#else
  return F16ToF32(LoadF16(p));
#endif
}

// The eight f16 scales of a whole group of Q4_0 blocks from b (18 bytes
// apart, all in the group's first 128 bytes) into sc: with 16 lanes two
// loads, one word permute and one conversion, where each block took a
// scalar load, a move to a vector, a conversion and a broadcast.
HWY_INLINE void Q4_0GroupScales(const uint8_t* b, float* sc) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  if constexpr (hn::MaxLanes(QTag()) == 16) {
    const __m512i lo = _mm512_loadu_si512(b), hi = _mm512_loadu_si512(b + 64);
    const __m512i idx =
        _mm512_setr_epi32(0x00090000, 0x001b0012, 0x002d0024, 0x003f0036, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m512i words = _mm512_permutex2var_epi16(lo, idx, hi);
    _mm256_store_ps(sc, _mm512_castps512_ps256(_mm512_cvtph_ps(_mm512_castsi512_si256(words))));
    return;
  }
#endif
  for (int64_t i = 0; i < 8; ++i) sc[i] = ScaleF16(b + 18 * i);
}

// The same for a whole group of Q8_0 blocks (34 bytes apart, in the group's
// first 256 bytes): four loads, two word permutes, a blend, one conversion.
HWY_INLINE void Q8_0GroupScales(const uint8_t* b, float* sc) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  if constexpr (hn::MaxLanes(QTag()) == 16) {
    const __m512i idx0 = _mm512_setr_epi32(0x00110000, 0x00330022, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m512i idx1 = _mm512_setr_epi32(0, 0, 0x00150004, 0x00370026, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m512i w0 = _mm512_permutex2var_epi16(_mm512_loadu_si512(b), idx0, _mm512_loadu_si512(b + 64));
    const __m512i w1 = _mm512_permutex2var_epi16(_mm512_loadu_si512(b + 128), idx1, _mm512_loadu_si512(b + 192));
    const __m512i words = _mm512_mask_blend_epi16(0xF0, w0, w1);
    _mm256_store_ps(sc, _mm512_castps512_ps256(_mm512_cvtph_ps(_mm512_castsi512_si256(words))));
    return;
  }
#endif
  for (int64_t i = 0; i < 8; ++i) sc[i] = ScaleF16(b + 34 * i);
}

// The scales of the Q8_0 or Q4_0 blocks of [k0, k1) of one row of W: a
// whole group's at once, a shorter last group's block by block.
template <QFormat F>
HWY_INLINE void BlockScales(const uint8_t* row, int64_t k0, int64_t k1, float* sc) {
  constexpr int64_t kBlockBytes = F == QFormat::q8_0 ? 34 : 18;
  const uint8_t* g = row + k0 / 32 * kBlockBytes;
  if (k1 - k0 != kQGroup) {
    for (int64_t i = 0; i < (k1 - k0) / 32; ++i) sc[i] = ScaleF16(g + kBlockBytes * i);
  } else if constexpr (F == QFormat::q8_0) {
    Q8_0GroupScales(g, sc);
  } else {
    Q4_0GroupScales(g, sc);
  }
}

// Q4_K: the eight sub-block scales d * sc and mins dmin * m of a super-block
// (exact: 11 x 6 significant bits). The 6-bit fields are unpacked four at a
// time from 32-bit words of scales[12] (tinyllm/quant.h's layout: byte j of
// each word is sub-block j's, or j + 4's), then converted and scaled as
// vectors: per super-block and row this runs as often as 16 vectors of
// multiply-adds, so it must cost far less than they do.
HWY_INLINE void Q4KScales(const uint8_t* b, float* dsc, float* dm) {
  uint32_t u[3];
  std::memcpy(u, b + 4, 12);
  HWY_ALIGN uint32_t sc[2], m[2];
  sc[0] = u[0] & 0x3f3f3f3fu;                                         // j < 4: scales[j] & 63
  m[0] = u[1] & 0x3f3f3f3fu;                                          // scales[j + 4] & 63
  sc[1] = (u[2] & 0x0f0f0f0fu) | (((u[0] >> 6) & 0x03030303u) << 4);  // j >= 4
  m[1] = ((u[2] >> 4) & 0x0f0f0f0fu) | (((u[1] >> 6) & 0x03030303u) << 4);
  const MinTag d8;
  const hn::Rebind<int32_t, MinTag> di8;
  const hn::Rebind<uint8_t, MinTag> du8;
  const auto d = hn::Set(d8, ScaleF16(b)), dmin = hn::Set(d8, ScaleF16(b + 2));
  const auto* scb = reinterpret_cast<const uint8_t*>(sc);
  const auto* mb = reinterpret_cast<const uint8_t*>(m);
  const int64_t L8 = static_cast<int64_t>(hn::Lanes(d8));
  for (int64_t p = 0; p < 8; p += L8) {
    hn::Store(hn::Mul(d, hn::ConvertTo(d8, hn::PromoteTo(di8, hn::LoadU(du8, scb + p)))), d8, dsc + p);
    hn::Store(hn::Mul(dmin, hn::ConvertTo(d8, hn::PromoteTo(di8, hn::LoadU(du8, mb + p)))), d8, dm + p);
  }
}

// Q4KScales of the super-blocks at b[0..3] (four rows of W) into
// sd[n][0..8) (d * sc) and sd[n][8..16) (dmin * m): with 16 lanes the four
// 16-byte heads share one vector (a 128-bit lane each), so the 6-bit fields
// of all four are unpacked by byte shuffles, shifts and masks at once, where
// Q4KScales takes a score of scalar operations a row. The same exact
// products d * sc and dmin * m; elsewhere Q4KScales a row at a time.
HWY_INLINE void Q4KScales4(const uint8_t* const* b, float (*sd)[16]) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  if constexpr (hn::MaxLanes(QTag()) == 16) {
    __m512i v = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b[0])));
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(b[1])), 1);
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(b[2])), 2);
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(b[3])), 3);
    // A head: d, dmin (bytes 0-3), scales[12] (bytes 4-15). Out, per lane:
    // bytes 0-7 sc_j, 8-15 m_j. Low bits: scales[j] & 63 (sc, j < 4),
    // scales[j + 4] & 15 (sc, j >= 4), scales[j + 4] & 63 (m, j < 4),
    // scales[j + 4] >> 4 (m, j >= 4); high bits (j >= 4): scales[j - 4] >> 6
    // (sc) and scales[j] >> 6 (m), as bits 4-5.
    const __m512i lo_idx =
        _mm512_broadcast_i32x4(_mm_setr_epi8(4, 5, 6, 7, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15));
    const __m512i hi_idx =
        _mm512_broadcast_i32x4(_mm_setr_epi8(-1, -1, -1, -1, 4, 5, 6, 7, -1, -1, -1, -1, 8, 9, 10, 11));
    const __m512i lo_mask =
        _mm512_broadcast_i32x4(_mm_setr_epi8(63, 63, 63, 63, 15, 15, 15, 15, 63, 63, 63, 63, 15, 15, 15, 15));
    const __m512i lo = _mm512_shuffle_epi8(v, lo_idx);
    const __m512i low =
        _mm512_and_si512(_mm512_mask_blend_epi8(0xF000F000F000F000ull, lo, _mm512_srli_epi16(lo, 4)), lo_mask);
    const __m512i high = _mm512_and_si512(_mm512_srli_epi16(_mm512_shuffle_epi8(v, hi_idx), 2), _mm512_set1_epi8(0x30));
    const __m512i q = _mm512_or_si512(low, high);
    // d, dmin of row n: words 8n and 8n + 1 of v, gathered and converted.
    const __m512i w_idx =
        _mm512_setr_epi32(0x00010000, 0x00090008, 0x00110010, 0x00190018, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m512 dd = _mm512_cvtph_ps(_mm512_castsi512_si256(_mm512_permutexvar_epi16(w_idx, v)));
    const __m512i half = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
    const __m512 f0 = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm512_castsi512_si128(q)));
    const __m512 f1 = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(q, 1)));
    const __m512 f2 = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(q, 2)));
    const __m512 f3 = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(q, 3)));
    const __m512i two = _mm512_set1_epi32(2);
    _mm512_store_ps(sd[0], _mm512_mul_ps(_mm512_permutexvar_ps(half, dd), f0));
    _mm512_store_ps(sd[1], _mm512_mul_ps(_mm512_permutexvar_ps(_mm512_add_epi32(half, two), dd), f1));
    _mm512_store_ps(sd[2], _mm512_mul_ps(_mm512_permutexvar_ps(_mm512_add_epi32(half, _mm512_set1_epi32(4)), dd), f2));
    _mm512_store_ps(sd[3], _mm512_mul_ps(_mm512_permutexvar_ps(_mm512_add_epi32(half, _mm512_set1_epi32(6)), dd), f3));
    return;
  }
#endif
  for (int64_t n = 0; n < 4; ++n) Q4KScales(b[n], sd[n], sd[n] + 8);
}

// Lanes(d) bytes from p as int32 lanes.
template <class D>
HWY_INLINE hn::Vec<hn::Rebind<int32_t, D>> Bytes32(D d, const uint8_t* p) {
  const hn::Rebind<int32_t, D> di;
  const hn::Rebind<uint8_t, D> du8;
  (void)d;
  return hn::PromoteTo(di, hn::LoadU(du8, p));
}

// The weights (q - offset) * scale of 4-bit quants q: the low (high = false)
// or high nibble of the int32 lanes `bytes`. With 16 lanes (AVX-512) the 16
// possible weights are a table looked up by q (vpermps reads an index's low
// four bits, so the low nibble needs no mask): one operation a vector where
// a mask, a conversion and a multiply were three. The table's entries are
// the same exact products, so both ways give the same bits.
template <class D>
HWY_INLINE hn::Vec<D> Nibbles(D d, hn::Vec<hn::Rebind<int32_t, D>> bytes, bool high, hn::Vec<D> table, hn::Vec<D> scale,
                              int32_t offset) {
#if HWY_TARGET <= HWY_AVX3 && HWY_TARGET != HWY_SCALAR
  if constexpr (hn::MaxLanes(D()) == 16) {
    (void)scale;
    (void)offset;
    const __m512i idx = high ? _mm512_srli_epi32(bytes.raw, 4) : bytes.raw;
    return hn::Vec<D>{_mm512_permutexvar_ps(idx, table.raw)};
  }
#endif
  (void)table;
  const hn::Rebind<int32_t, D> di;
  const auto q = high ? hn::ShiftRight<4>(bytes) : hn::And(bytes, hn::Set(di, 15));
  return hn::Mul(hn::ConvertTo(d, hn::Sub(q, hn::Set(di, offset))), scale);
}

// The table of Nibbles: (i - offset) * scale in lane i (exact: 5 x 17 bits).
template <class D>
HWY_INLINE hn::Vec<D> NibbleTable(D d, float scale, int32_t offset) {
  return hn::Mul(hn::Sub(hn::Iota(d, 0.0f), hn::Set(d, static_cast<float>(offset))), hn::Set(d, scale));
}

// Tiles of rows of W between the one read and the one prefetched (2 ran
// no faster than 1).
constexpr int64_t kQAhead = 1;

// y[m][n0 .. n0 + NR) for MR rows of x (row stride ldx) and NR rows of W
// from n0; sx: Q4_K's sub-block sums of x (row stride K / 32).
template <QFormat F, int64_t MR, int64_t NR>
HWY_NOINLINE void QTile(const float* HWY_RESTRICT x, int64_t ldx, const QuantWeights<F>& w, int64_t n0, int64_t K,
                        const float* HWY_RESTRICT sx, float* HWY_RESTRICT y, int64_t ldy) {
  const QTag d;
  using V = hn::Vec<QTag>;
  const hn::Rebind<int32_t, QTag> di;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  constexpr bool kQ4K = F == QFormat::q4_k;
  // 16 lanes (AVX-512): Nibbles is one table lookup, and the bytes of both
  // nibbles are widened once.
  constexpr bool kWide = hn::MaxLanes(QTag()) == 16 && HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3;
  const MinTag d8;
  const int64_t L8 = static_cast<int64_t>(hn::Lanes(d8));
  V total[MR][NR];
  hn::Vec<MinTag> mins[MR][NR][kQ4K ? kMinPieces : 1];
  for (int64_t m = 0; m < MR; ++m)
    for (int64_t n = 0; n < NR; ++n) {
      total[m][n] = hn::Zero(d);
      for (auto& v : mins[m][n]) v = hn::Zero(d8);
    }
  const uint8_t* row[NR];
  for (int64_t n = 0; n < NR; ++n) row[n] = w.Block(n0 + n, 0);
  // The NR rows are contiguous in W, and so are the next tile's: each group
  // prefetches its share of the tile kQAhead tiles on, a line at a time (the
  // hardware's prefetcher, given four interleaved streams, fell behind).
  constexpr int64_t kGroupBytes = kQGroup / QuantWeights<F>::kValues * QuantWeights<F>::kBytes;
  const int64_t row_bytes = K / QuantWeights<F>::kValues * QuantWeights<F>::kBytes;
  const uint8_t* ahead = row[0] + kQAhead * NR * row_bytes;
  for (int64_t k0 = 0; k0 < K; k0 += kQGroup, ahead += NR * kGroupBytes) {
    for (int64_t i = 0; i < NR * kGroupBytes; i += 64) hwy::Prefetch(ahead + i);
    const int64_t k1 = std::min(K, k0 + kQGroup);
    V acc[MR][NR];
    for (int64_t m = 0; m < MR; ++m)
      for (int64_t n = 0; n < NR; ++n) acc[m][n] = hn::Zero(d);
    // One block (32 columns from kb) of every row: w_at(n, j) is the vector
    // of columns kb + j .. kb + j + L of row n.
    auto block = [&](int64_t kb, const auto& w_at) {
      for (int64_t j = 0; j < 32; j += L) {
        V wv[NR];
        for (int64_t n = 0; n < NR; ++n) wv[n] = w_at(n, j);
        for (int64_t m = 0; m < MR; ++m) {
          const V xv = hn::LoadU(d, x + m * ldx + kb + j);
          for (int64_t n = 0; n < NR; ++n) acc[m][n] = hn::MulAdd(xv, wv[n], acc[m][n]);
        }
      }
    };
    if constexpr (F == QFormat::q8_0) {
      HWY_ALIGN float sc[NR][8];
      for (int64_t n = 0; n < NR; ++n) BlockScales<F>(row[n], k0, k1, sc[n]);
      for (int64_t kb = k0; kb < k1; kb += 32) {
        const int64_t off = kb / 32 * 34;
        V dq[NR];
        for (int64_t n = 0; n < NR; ++n) dq[n] = hn::Set(d, sc[n][(kb - k0) / 32]);
        const hn::Rebind<int8_t, QTag> d8s;
        block(kb, [&](int64_t n, int64_t j) {
          const auto q = hn::PromoteTo(di, hn::LoadU(d8s, reinterpret_cast<const int8_t*>(row[n] + off + 2 + j)));
          return hn::Mul(hn::ConvertTo(d, q), dq[n]);
        });
      }
    } else if constexpr (F == QFormat::q4_0 && kWide) {
      // A whole group's scales at once (a shorter last group block by block).
      HWY_ALIGN float sc[NR][8];
      for (int64_t n = 0; n < NR; ++n) BlockScales<F>(row[n], k0, k1, sc[n]);
      for (int64_t kb = k0; kb < k1; kb += 32) {
        const int64_t off = kb / 32 * 18;
        V table[NR];
        hn::Vec<hn::Rebind<int32_t, QTag>> bytes[NR];  // the 16 bytes widened once for both nibbles
        for (int64_t n = 0; n < NR; ++n) {
          table[n] = NibbleTable(d, sc[n][(kb - k0) / 32], 8);
          bytes[n] = Bytes32(d, row[n] + off + 2);
        }
        block(kb, [&](int64_t n, int64_t j) { return Nibbles(d, bytes[n], j >= 16, table[n], table[n], 8); });
      }
    } else if constexpr (F == QFormat::q4_0) {
      for (int64_t kb = k0; kb < k1; kb += 32) {
        const int64_t off = kb / 32 * 18;
        V dq[NR], table[NR];
        for (int64_t n = 0; n < NR; ++n) {
          const float scale = ScaleF16(row[n] + off);
          dq[n] = hn::Set(d, scale);
          table[n] = NibbleTable(d, scale, 8);
        }
        block(kb, [&](int64_t n, int64_t j) {
          return Nibbles(d, Bytes32(d, row[n] + off + 2 + (j & 15)), j >= 16, table[n], dq[n], 8);
        });
      }
    } else {
      const int64_t off = k0 / 256 * 144;
      HWY_ALIGN float sd[NR][16];  // per row: d * sc of the 8 sub-blocks, then dmin * m
      const uint8_t* head[NR];
      for (int64_t n = 0; n < NR; ++n) {
        head[n] = row[n] + off;
      }
      if constexpr (NR == 4) {
        Q4KScales4(head, sd);
      } else {
        for (int64_t n = 0; n < NR; ++n) Q4KScales(head[n], sd[n], sd[n] + 8);
      }
      if constexpr (kWide) {
        // A pair of sub-blocks at a time: 32 bytes of each row, widened once,
        // the low nibbles sub-block 2p, the high ones 2p + 1.
        for (int64_t p = 0; p < 4; ++p) {
          hn::Vec<hn::Rebind<int32_t, QTag>> bytes[NR][2];
          V table[NR];
          for (int64_t n = 0; n < NR; ++n) {
            bytes[n][0] = Bytes32(d, row[n] + off + 16 + 32 * p);
            bytes[n][1] = Bytes32(d, row[n] + off + 32 + 32 * p);
            table[n] = NibbleTable(d, sd[n][2 * p], 0);
          }
          block(k0 + 64 * p,
                [&](int64_t n, int64_t j) { return Nibbles(d, bytes[n][j / 16], false, table[n], table[n], 0); });
          for (int64_t n = 0; n < NR; ++n) table[n] = NibbleTable(d, sd[n][2 * p + 1], 0);
          block(k0 + 64 * p + 32,
                [&](int64_t n, int64_t j) { return Nibbles(d, bytes[n][j / 16], true, table[n], table[n], 0); });
        }
      } else {
        for (int64_t s = 0; s < 8; ++s) {
          V scale[NR], table[NR];
          for (int64_t n = 0; n < NR; ++n) {
            scale[n] = hn::Set(d, sd[n][s]);
            table[n] = NibbleTable(d, sd[n][s], 0);
          }
          block(k0 + 32 * s, [&](int64_t n, int64_t j) {
            return Nibbles(d, Bytes32(d, row[n] + off + 16 + 32 * (s / 2) + j), (s & 1) != 0, table[n], scale[n], 0);
          });
        }
      }
      for (int64_t p = 0; p < kMinPieces; ++p)
        for (int64_t m = 0; m < MR; ++m) {
          const auto s8 = hn::LoadU(d8, sx + m * (K / 32) + k0 / 32 + p * L8);
          for (int64_t n = 0; n < NR; ++n)
            mins[m][n][p] = hn::MulAdd(hn::Load(d8, sd[n] + 8 + p * L8), s8, mins[m][n][p]);
        }
    }
    for (int64_t m = 0; m < MR; ++m)
      for (int64_t n = 0; n < NR; ++n) total[m][n] = hn::Add(total[m][n], acc[m][n]);
  }
  for (int64_t m = 0; m < MR; ++m)
    for (int64_t n = 0; n < NR; ++n) {
      float sum = hn::GetLane(hn::SumOfLanes(d, total[m][n]));
      if constexpr (kQ4K) {
        auto mv = mins[m][n][0];
        for (int64_t p = 1; p < kMinPieces; ++p) mv = hn::Add(mv, mins[m][n][p]);
        sum -= hn::GetLane(hn::SumOfLanes(d8, mv));
      }
      y[m * ldy + n0 + n] = sum;
    }
}

// Columns [n_begin, n_end) of MR rows of x: NR rows of W at a time, then one.
template <QFormat F, int64_t MR, int64_t NR>
void QRows(const float* x, int64_t ldx, const QuantWeights<F>& w, int64_t n_begin, int64_t n_end, int64_t K,
           const float* sx, float* y, int64_t ldy) {
  int64_t n = n_begin;
  for (; n + NR <= n_end; n += NR) QTile<F, MR, NR>(x, ldx, w, n, K, sx, y, ldy);
  for (; n < n_end; ++n) QTile<F, MR, 1>(x, ldx, w, n, K, sx, y, ldy);
}

// Each row of x alone, four rows of W at a time (the decode GEMV; more rows
// take the panel GEMM below).
template <QFormat F>
void QColumns(const float* x, const QuantWeights<F>& w, int64_t M, int64_t n0, int64_t n1, int64_t K, const float* sx,
              float* y, int64_t ldy) {
  const int64_t ls = K / 32;
  for (int64_t m = 0; m < M; ++m) QRows<F, 1, 4>(x + m * K, K, w, n0, n1, K, sx + m * ls, y + m * ldy, ldy);
}

// ---------------------------------------------------------------- the panel GEMM
// More rows of x (M >= kQPanelRows) take the same order on another schedule.
// A group of NR rows of W is decoded once into a small buffer (the same exact
// floats as QTile's) and read by every row of a chunk of x, in tiles of MR
// rows of x by NR rows of W: MR x NR chains in registers, MR + NR loads per
// MR x NR multiply-adds, each weight decoded once per chunk of x (QTile's
// register tiles decode it again for every few rows of x). The running
// vectors live in a scratch array (one load, add and store per chain and
// group); Q4_K's mins are chained in a pass of their own.

#if HWY_TARGET <= HWY_AVX3 && HWY_TARGET != HWY_SCALAR
constexpr int64_t kPanelMR = 4, kPanelNR = 6;  // 24 chains + 4 rows of x: 28 of 32 registers
#else
constexpr int64_t kPanelMR = 3, kPanelNR = 4;  // 12 chains + 3 rows of x: 15 of 16 registers
#endif
constexpr int64_t kQPanelRows = 2;  // one row of x takes QColumns (the GEMV)

// The weights of columns [k0, k1) of W's row n, decoded into vectors
// dst + s * stride (s the vector's index from k0); Q4_K also the group's
// eight mins dmin * m into dm.
template <QFormat F>
HWY_INLINE void DecodeGroup(const QuantWeights<F>& w, int64_t n, int64_t k0, int64_t k1, float* HWY_RESTRICT dst,
                            int64_t stride, float* HWY_RESTRICT dm) {
  const QTag d;
  const hn::Rebind<int32_t, QTag> di;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const uint8_t* row = w.Block(n, 0);
  if constexpr (F == QFormat::q8_0) {
    (void)dm;
    const hn::Rebind<int8_t, QTag> d8s;
    for (int64_t kb = k0; kb < k1; kb += 32) {
      const uint8_t* b = row + kb / 32 * 34;
      const auto dq = hn::Set(d, ScaleF16(b));
      for (int64_t j = 0; j < 32; j += L, dst += stride) {
        const auto q = hn::PromoteTo(di, hn::LoadU(d8s, reinterpret_cast<const int8_t*>(b + 2 + j)));
        hn::Store(hn::Mul(hn::ConvertTo(d, q), dq), d, dst);
      }
    }
  } else if constexpr (F == QFormat::q4_0) {
    (void)dm;
    for (int64_t kb = k0; kb < k1; kb += 32) {
      const uint8_t* b = row + kb / 32 * 18;
      const float scale = ScaleF16(b);
      const auto dq = hn::Set(d, scale), table = NibbleTable(d, scale, 8);
      for (int64_t j = 0; j < 32; j += L, dst += stride)
        hn::Store(Nibbles(d, Bytes32(d, b + 2 + (j & 15)), j >= 16, table, dq, 8), d, dst);
    }
  } else {
    const uint8_t* b = row + k0 / 256 * 144;
    HWY_ALIGN float dsc[8];
    Q4KScales(b, dsc, dm);
    for (int64_t s = 0; s < 8; ++s) {
      const auto scale = hn::Set(d, dsc[s]), table = NibbleTable(d, dsc[s], 0);
      for (int64_t j = 0; j < 32; j += L, dst += stride)
        hn::Store(Nibbles(d, Bytes32(d, b + 16 + 32 * (s / 2) + j), (s & 1) != 0, table, scale, 0), d, dst);
    }
  }
}

// Starts loading the bytes of W's row n for the group from column k0: W
// comes from memory once per chunk of x, and each row of a panel is a
// stream too short for the hardware's prefetcher.
template <QFormat F>
HWY_INLINE void PrefetchGroup(const QuantWeights<F>& w, int64_t n, int64_t k0) {
  constexpr int64_t kBytes = kQGroup / QuantWeights<F>::kValues * QuantWeights<F>::kBytes;
  const uint8_t* b = w.Block(n, k0);
  for (int64_t i = 0; i < kBytes; i += 64) hwy::Prefetch(b + i);
  hwy::Prefetch(b + kBytes - 1);
}

// One group for MR rows of x (packed by PackRows: vector s of row m at
// (s * MR + m) * L) and the NR decoded rows of `panel` (vector s of row n at
// (s * NR + n) * L): each chain from zero over `steps` vectors, then added to
// its running vector in `run` (chain m * NR + n at (m * NR + n) * L).
template <int64_t MR, int64_t NR>
HWY_INLINE void PanelTile(const float* HWY_RESTRICT x, const float* HWY_RESTRICT panel, int64_t steps,
                          float* HWY_RESTRICT run) {
  const QTag d;
  using V = hn::Vec<QTag>;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  V acc[MR][NR];
  for (int64_t m = 0; m < MR; ++m)
    for (int64_t n = 0; n < NR; ++n) acc[m][n] = hn::Zero(d);
  for (int64_t s = 0; s < steps; ++s) {
    V xv[MR];
    for (int64_t m = 0; m < MR; ++m) xv[m] = hn::Load(d, x + (s * MR + m) * L);
    const float* p = panel + s * NR * L;
    for (int64_t n = 0; n < NR; ++n) {
      const V wv = hn::Load(d, p + n * L);
      for (int64_t m = 0; m < MR; ++m) acc[m][n] = hn::MulAdd(xv[m], wv, acc[m][n]);
    }
  }
  for (int64_t m = 0; m < MR; ++m)
    for (int64_t n = 0; n < NR; ++n) {
      float* r = run + (m * NR + n) * L;
      hn::Store(hn::Add(hn::Load(d, r), acc[m][n]), d, r);
    }
}

// PanelTile for `rows` (< MR) rows: the tile of that many.
template <int64_t MR, int64_t NR>
HWY_INLINE void PanelTileRows(int64_t rows, const float* x, const float* panel, int64_t steps, float* run) {
  if constexpr (MR > 1) {
    if (rows == MR - 1) return PanelTile<MR - 1, NR>(x, panel, steps, run);
    PanelTileRows<MR - 1, NR>(rows, x, panel, steps, run);
  }
}

// Scratch of one task: two decoded groups of NR rows (one in use, the next
// being decoded), each chain's running vector for `rows` rows of x, and
// Q4_K's mins dmin * m of every group of the NR rows.
struct PanelScratch {
  hwy::AlignedFreeUniquePtr<float[]> xp, panels, run, dm;
  PanelScratch(int64_t rows, int64_t K) {
    const int64_t L = static_cast<int64_t>(hn::Lanes(QTag()));
    xp = hwy::AllocateAligned<float>(static_cast<size_t>(rows * (K + kQGroup - 1) / kQGroup * kQGroup));
    panels = hwy::AllocateAligned<float>(static_cast<size_t>(2 * kPanelNR * kQGroup));
    run = hwy::AllocateAligned<float>(static_cast<size_t>(rows * kPanelNR * L));
    dm = hwy::AllocateAligned<float>(static_cast<size_t>(kPanelNR * std::max<int64_t>(K / 32, 8)));
  }
};

// Prefetches group g (of `groups` per row) of the panel from row n0, or of
// the next panel (from n0 + NR, below n_end) for g past the last.
template <QFormat F, int64_t NR>
HWY_INLINE void PrefetchPanelGroup(const QuantWeights<F>& w, int64_t n0, int64_t n_end, int64_t g, int64_t groups) {
  if (g >= groups) {
    g -= groups;
    n0 += NR;
  }
  for (int64_t n = n0; n < std::min(n0 + NR, n_end); ++n) PrefetchGroup(w, n, g * kQGroup);
}

// Q4_K: y -= the mins' sum, for `rows` rows of x (sx: their sub-block sums,
// groups * 8 a row) and the NR rows of W whose mins dmin * m are
// dm[(n * groups + g) * 8 + j]: per row of x and of W, pieces of
// 8 / kMinPieces lanes, each a chain over the groups in order (QTile's
// chains, here held in registers over the groups).
template <int64_t NR>
HWY_INLINE void SubtractMins(const float* HWY_RESTRICT sx, int64_t rows, int64_t groups, const float* HWY_RESTRICT dm,
                             float* HWY_RESTRICT y, int64_t ldy) {
  const MinTag d8;
  const int64_t L8 = static_cast<int64_t>(hn::Lanes(d8));
  for (int64_t r = 0; r < rows; ++r) {
    hn::Vec<MinTag> mins[NR][kMinPieces];
    for (int64_t n = 0; n < NR; ++n)
      for (auto& v : mins[n]) v = hn::Zero(d8);
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t p = 0; p < kMinPieces; ++p) {
        const auto s8 = hn::LoadU(d8, sx + r * groups * 8 + g * 8 + p * L8);
        for (int64_t n = 0; n < NR; ++n)
          mins[n][p] = hn::MulAdd(hn::Load(d8, dm + (n * groups + g) * 8 + p * L8), s8, mins[n][p]);
      }
    for (int64_t n = 0; n < NR; ++n) {
      auto mv = mins[n][0];
      for (int64_t p = 1; p < kMinPieces; ++p) mv = hn::Add(mv, mins[n][p]);
      y[r * ldy + n] -= hn::GetLane(hn::SumOfLanes(d8, mv));
    }
  }
}

// y[m][n0 .. n0 + NR) for `rows` rows of x (packed by PackRows; sx: Q4_K's
// sub-block sums, K / 32 a row) and NR rows of W from n0 (< n_end, the
// task's end): group by group, each group decoded once for all the rows. The next group is decoded a row of W after
// each tile of x, so that its loads, conversions and shuffles overlap the tiles' multiply-adds; W's bytes are
// prefetched two groups ahead.
template <QFormat F, int64_t NR>
void PanelColumns(const float* x, const QuantWeights<F>& w, int64_t rows, int64_t n0, int64_t n_end, int64_t K,
                  const float* sx, float* y, int64_t ldy, PanelScratch& buf) {
  const QTag d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const int64_t groups = (K + kQGroup - 1) / kQGroup;
  float* run = buf.run.get();
  float* dm = buf.dm.get();
  float* cur = buf.panels.get();
  float* next = cur + kPanelNR * kQGroup;
  for (int64_t i = 0; i < rows * NR * L; i += L) hn::Store(hn::Zero(d), d, run + i);
  // Row n of W's group g into panel p.
  auto decode = [&](int64_t g, int64_t n, float* p) {
    DecodeGroup(w, n0 + n, g * kQGroup, std::min(K, (g + 1) * kQGroup), p + n * L, NR * L, dm + (n * groups + g) * 8);
  };
  if (groups > 0) {  // (K = 0: no blocks to read, every output 0)
    PrefetchPanelGroup<F, NR>(w, n0, n_end, 1, groups);
    for (int64_t n = 0; n < NR; ++n) decode(0, n, cur);
  }
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t k0 = g * kQGroup, steps = (std::min(K, k0 + kQGroup) - k0) / L;
    const bool more = g + 1 < groups;
    const float* xg = x + g * rows * kQGroup;
    PrefetchPanelGroup<F, NR>(w, n0, n_end, g + 2, groups);
    int64_t m = 0, decoded = 0;
    for (; m + kPanelMR <= rows; m += kPanelMR) {
      PanelTile<kPanelMR, NR>(xg + m * steps * L, cur, steps, run + m * NR * L);
      if (more && decoded < NR) decode(g + 1, decoded++, next);
    }
    if (m < rows) PanelTileRows<kPanelMR, NR>(rows - m, xg + m * steps * L, cur, steps, run + m * NR * L);
    if (more)
      for (; decoded < NR; ++decoded) decode(g + 1, decoded, next);
    std::swap(cur, next);
  }
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t n = 0; n < NR; ++n)
      y[r * ldy + n0 + n] = hn::GetLane(hn::SumOfLanes(d, hn::Load(d, run + (r * NR + n) * L)));
  if constexpr (F == QFormat::q4_k) SubtractMins<NR>(sx, rows, groups, dm, y + n0, ldy);
}

// PanelColumns for the last `cols` (< NR) rows of W.
template <QFormat F, int64_t NR>
void PanelColumnsLeft(int64_t cols, const float* x, const QuantWeights<F>& w, int64_t rows, int64_t n0, int64_t K,
                      const float* sx, float* y, int64_t ldy, PanelScratch& buf) {
  if constexpr (NR > 1) {
    if (cols == NR - 1) return PanelColumns<F, NR - 1>(x, w, rows, n0, n0 + cols, K, sx, y, ldy, buf);
    PanelColumnsLeft<F, NR - 1>(cols, x, w, rows, n0, K, sx, y, ldy, buf);
  }
}

// Rows [0, rows) of x (row stride K) into xp in the order PanelTile reads
// them: per group (rows * kQGroup floats apart), per tile of kPanelMR rows
// (the last of rows % kPanelMR), per vector of columns, the tile's rows.
// Each tile then streams through consecutive lines where it read a line of
// each of its rows, 16 KiB apart.
HWY_INLINE void PackRows(const float* HWY_RESTRICT x, int64_t rows, int64_t K, float* HWY_RESTRICT xp) {
  const QTag d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t k0 = 0; k0 < K; k0 += kQGroup) {
    const int64_t steps = (std::min(K, k0 + kQGroup) - k0) / L;
    float* xg = xp + k0 / kQGroup * rows * kQGroup;
    for (int64_t m0 = 0; m0 < rows; m0 += kPanelMR) {
      const int64_t r = std::min(kPanelMR, rows - m0);
      float* t = xg + m0 * steps * L;
      for (int64_t m = 0; m < r; ++m)
        for (int64_t s = 0; s < steps; ++s)
          hn::Store(hn::LoadU(d, x + (m0 + m) * K + k0 + s * L), d, t + (s * r + m) * L);
    }
  }
}

// Rows of x in chunks (packed, at most half of L2, at least 16 rows) that
// stay in L2 while every group of W's rows [n0, n1) is decoded and used, NR
// rows of W at a time.
template <QFormat F>
void PanelGemm(const float* x, const QuantWeights<F>& w, int64_t M, int64_t n0, int64_t n1, int64_t K, const float* sx,
               float* y, int64_t ldy) {
  const int64_t fit = static_cast<int64_t>(L2Bytes() / 2) / (std::max<int64_t>(K, 1) * 4);
  const int64_t chunk = std::min(M, std::max<int64_t>(16, fit / kPanelMR * kPanelMR));
  PanelScratch buf(chunk, K);
  const int64_t ls = K / 32;
  for (int64_t m = 0; m < M; m += chunk) {
    const int64_t rows = std::min(chunk, M - m);
    PackRows(x + m * K, rows, K, buf.xp.get());
    const float* xm = buf.xp.get();
    const float* sxm = sx + m * ls;
    float* ym = y + m * ldy;
    int64_t n = n0;
    for (; n + kPanelNR <= n1; n += kPanelNR) PanelColumns<F, kPanelNR>(xm, w, rows, n, n1, K, sxm, ym, ldy, buf);
    if (n < n1) PanelColumnsLeft<F, kPanelNR>(n1 - n, xm, w, rows, n, K, sxm, ym, ldy, buf);
  }
}

// Below this many multiply-adds one thread does it all.
constexpr int64_t kQParallelWork = int64_t{1} << 22;

template <QFormat F>
void QMatmulFused(const float* x, const uint8_t* wq, float* y, int64_t M, int64_t N, int64_t K) {
  if (M <= 0 || N <= 0) return;
  const QuantWeights<F> w{wq, K};
  // Q4_K: the sums of x over each sub-block, 32 terms in order.
  hwy::AlignedFreeUniquePtr<float[]> sx;
  if constexpr (F == QFormat::q4_k) {
    sx = hwy::AllocateAligned<float>(static_cast<size_t>(std::max<int64_t>(M * (K / 32), 1)));
    for (int64_t i = 0; i < M * (K / 32); ++i) {
      float s = 0.0f;
      for (int64_t k = 0; k < 32; ++k) s += x[i * 32 + k];
      sx[static_cast<size_t>(i)] = s;
    }
  }
  const int64_t work = M * N * std::max<int64_t>(K, 1);
  const int64_t threads = work >= kQParallelWork ? ThreadCount() : 1;
  const int64_t per = ((N + threads - 1) / threads + 7) / 8 * 8;
  const int64_t tasks = (N + per - 1) / per;
  ParallelFor(tasks, [&](int64_t t) {
    const int64_t n0 = t * per, n1 = std::min(N, n0 + per);
    if (M >= kQPanelRows) PanelGemm(x, w, M, n0, n1, K, sx.get(), y, N);
    else QColumns(x, w, M, n0, n1, K, sx.get(), y, N);
  });
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_QMATMUL_INL_H_
