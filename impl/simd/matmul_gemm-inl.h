// The packed path of y = x @ W^T, for M above the strip kernel's rows:
// GotoBLAS/BLIS-style blocking with a register-blocked micro-kernel.
//
// Loops, outermost first:  columns in blocks of kNC (W's packed block of
// kKC x kNC, in L3)  >  k in blocks of kKC  >  rows in blocks of kMC (x's
// packed block, in L2)  >  micro-panels of NR = kNV vectors of W's columns
// (kKC x NR floats: 16 KiB, stays in L1)  >  micro-panels of kMR rows of x
// (streamed from L2)  >  the micro-kernel: kMR x NR outputs in registers, one
// fused multiply-add per output and k, x broadcast, W loaded. Up to kMC rows
// take another order (GemmFewRows): x packed whole, then W's micro-panels
// one at a time over all of k.
//
// The summation order is the library's definition of Matmul (see
// matmul_order in docs/ops-linalg.md): each output starts every block of kKC
// columns of k from zero, runs a chain of multiply-adds in k order, and the
// chains are added to y in block order. Both loop orders and the strip kernel
// (matmul_strip-inl.h) compute exactly the same operations, so every path
// gives the same bits.

#if defined(KONFORM_SIMD_MATMUL_GEMM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_MATMUL_GEMM_INL_H_
#undef KONFORM_SIMD_MATMUL_GEMM_INL_H_
#else
#define KONFORM_SIMD_MATMUL_GEMM_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

#include "hwy/aligned_allocator.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "impl/simd/tile_prefetch.h"
#include "impl/simd/transpose-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Columns of k per chain: part of the result's definition, the same on every
// target and in every path. 128 keeps W's micro-panel (128 x 32 floats) in
// L1 beside x's, and bounds a chain's error to 128 u.
constexpr int64_t kKC = 128;

// The register tile: kMR rows by kNV vectors of columns.
#if HWY_TARGET <= HWY_AVX3
constexpr int64_t kMR = 12, kNV = 2;  // 24 of 32 zmm accumulate
#elif HWY_TARGET == HWY_SCALAR
constexpr int64_t kMR = 4, kNV = 4;
#else
constexpr int64_t kMR = 6, kNV = 2;  // 12 of 16 ymm/xmm accumulate
#endif
constexpr int64_t kMC = 20 * kMR;  // rows of x packed at a time (AVX3: 240 x 128 floats, 120 KiB)
constexpr int64_t kNC = 2048;      // columns of W packed at a time (kKC x kNC floats: 1 MiB)

using GemmTag = hn::ScalableTag<float>;
HWY_INLINE int64_t GemmNR() { return kNV * static_cast<int64_t>(hn::Lanes(GemmTag())); }

// c[i][j] (+)= sum_k a[k][i] * b[k][j] for the first MR rows of a kMR x NR
// tile; a: kc x kMR and b: kc x NR, packed. `add`: c += the chain, else c =
// the chain. Rows past MR (a partial tile at the bottom of y) are neither
// computed nor written. `next`: the tile of y the caller computes next, asked
// for during the chain (tile_prefetch.h), or nullptr. kPairs: each packed
// lane holds two bf16 values of k (matmul_pairs-inl.h), multiplied and added
// widened, the odd one first.
template <int64_t MR, bool kPairs = false>
HWY_NOINLINE void MicroKernel(int64_t kc, const float* HWY_RESTRICT a, const float* HWY_RESTRICT b,
                              float* HWY_RESTRICT c, int64_t ldc, bool add, const float* next) {
  const GemmTag d;
  using V = hn::Vec<GemmTag>;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  V acc[MR][kNV];
  // y's lines: on AVX3, spread over the chain (tile_prefetch.h); below it
  // (6-row tiles of 64-byte rows, whose lines fit their L1 sets, and a
  // shorter step that the schedule's comparisons would slow) this tile's
  // rows at the start of the chain, as measured best there.
  constexpr bool kSpread = HWY_TARGET <= HWY_AVX3;
  const TileLines lines = kSpread ? TileLinesFor(c, next, ldc, kNV * L, MR, kc) : TileLinesAtStart(c, ldc, kNV * L, MR);
#pragma GCC unroll 32
  for (int64_t i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int64_t j = 0; j < kNV; ++j) acc[i][j] = hn::Zero(d);
  for (int64_t k = 0; k < kc; ++k) {
    if constexpr (kSpread) PrefetchTileLines(lines, k);
    if constexpr (kPairs) {
      const hn::RebindToUnsigned<GemmTag> du;
      const auto high = hn::Set(du, 0xFFFF0000u);
      V odd[kNV], even[kNV];
#pragma GCC unroll 8
      for (int64_t j = 0; j < kNV; ++j) {
        const auto pairs = hn::BitCast(du, hn::Load(d, b + (k * kNV + j) * L));
        odd[j] = hn::BitCast(d, hn::And(pairs, high));
        even[j] = hn::BitCast(d, hn::ShiftLeft<16>(pairs));
      }
#pragma GCC unroll 32
      for (int64_t i = 0; i < MR; ++i) {
        uint32_t pair;
        std::memcpy(&pair, a + k * kMR + i, 4);
        const uint32_t odd_bits = pair & 0xFFFF0000u, even_bits = pair << 16;
        float a_odd, a_even;
        std::memcpy(&a_odd, &odd_bits, 4);
        std::memcpy(&a_even, &even_bits, 4);
        const V ao = hn::Set(d, a_odd), ae = hn::Set(d, a_even);
#pragma GCC unroll 8
        for (int64_t j = 0; j < kNV; ++j) acc[i][j] = hn::MulAdd(ae, even[j], hn::MulAdd(ao, odd[j], acc[i][j]));
      }
    } else {
      V bv[kNV];
#pragma GCC unroll 8
      for (int64_t j = 0; j < kNV; ++j) bv[j] = hn::Load(d, b + (k * kNV + j) * L);
#pragma GCC unroll 32
      for (int64_t i = 0; i < MR; ++i) {
        const V av = hn::Set(d, a[k * kMR + i]);
#pragma GCC unroll 8
        for (int64_t j = 0; j < kNV; ++j) acc[i][j] = hn::MulAdd(av, bv[j], acc[i][j]);
      }
    }
  }
#pragma GCC unroll 32
  for (int64_t i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int64_t j = 0; j < kNV; ++j) {
      float* p = c + i * ldc + j * L;
      hn::StoreU(add ? hn::Add(hn::LoadU(d, p), acc[i][j]) : acc[i][j], d, p);
    }
}

// A tile of `rows` <= kMR full rows: the micro-kernel of that many rows.
template <bool kPairs, int64_t MR = kMR>
HWY_INLINE void RowsTile(int64_t rows, int64_t kc, const float* a, const float* b, float* c, int64_t ldc, bool add,
                         const float* next) {
  if constexpr (MR > 1) {
    if (rows < MR) return RowsTile<kPairs, MR - 1>(rows, kc, a, b, c, ldc, add, next);
  }
  MicroKernel<MR, kPairs>(kc, a, b, c, ldc, add, next);
}

// What the packed path runs on its panels: the micro-kernel (of floats, or
// of bf16 pairs). Another policy (matmul_pairs-inl.h) has the same members:
// Run on a tile of `rows` full rows, given the keys of its two panels and
// the next tile (MicroKernel's `next`);
// kKeys: whether the panels need keys (PanelKey of each packed panel).
template <bool kPairs>
struct PlainTiles {
  static constexpr bool kKeys = false;
  static uint16_t PanelKey(const float*, int64_t) { return 0; }
  HWY_INLINE void Run(int64_t rows, int64_t kc, const float* a, const float* b, float* c, int64_t ldc, bool add,
                      uint16_t /*a_key*/, uint16_t /*b_key*/, const float* next) const {
    RowsTile<kPairs>(rows, kc, a, b, c, ldc, add, next);
  }
};
using F32Tiles = PlainTiles<false>;

// A tile at the edge of y. Fewer than kMR rows: their own micro-kernel.
// Fewer than NR columns: through a full-size buffer, so the micro-kernel
// runs unchanged.
template <class Tiles>
HWY_INLINE void Tile(const Tiles& tiles, int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                     int64_t rows, int64_t cols, bool add, uint16_t a_key, uint16_t b_key, const float* next) {
  const int64_t nr = GemmNR();
  if (cols == nr) return tiles.Run(rows, kc, a, b, c, ldc, add, a_key, b_key, next);
  HWY_ALIGN float tile[kMR * kNV * HWY_MAX_BYTES / sizeof(float)];
  if (add)
    for (int64_t i = 0; i < rows; ++i) std::memcpy(tile + i * nr, c + i * ldc, static_cast<size_t>(cols) * 4);
  tiles.Run(rows, kc, a, b, tile, nr, add, a_key, b_key, nullptr);
  for (int64_t i = 0; i < rows; ++i) std::memcpy(c + i * ldc, tile + i * nr, static_cast<size_t>(cols) * 4);
}

// W's L x L tiles (transpose-inl.h): the strip kernel's view of W, and PackW's.
using StripTag = SquareTag;

// The kMR rows of kc values in `strip` (row i at strip + i kc) in the
// panel's k order, panel[k kMR + i]: L x L tiles transposed in registers, in
// groups of SquareTag's rows and then of 4 (12 = 8 + 4 on AVX3), the rows
// left (and any kc the tiles do not divide) one value at a time. A third of
// the time of the scalar moves at 2048^3 (0.5 against 1.3 ms for all of x,
// in L2).
HWY_INLINE void StripToPanel(const float* HWY_RESTRICT strip, int64_t kc, float* HWY_RESTRICT panel) {
  int64_t rows_done = 0;
#if HWY_TARGET != HWY_SCALAR
  const auto groups = [&](auto d) {
    constexpr int64_t L = static_cast<int64_t>(hn::MaxLanes(d));
    if (kc % L != 0) return;
    for (; rows_done + L <= kMR; rows_done += L)
      for (int64_t k = 0; k < kc; k += L) {
        hn::Vec<decltype(d)> r[L], c[L];
        for (int64_t i = 0; i < L; ++i) r[i] = hn::LoadU(d, strip + (rows_done + i) * kc + k);
        Transpose(d, r, c);
        for (int64_t j = 0; j < L; ++j) hn::StoreU(c[j], d, panel + (k + j) * kMR + rows_done);
      }
  };
  groups(SquareTag());
  groups(hn::CappedTag<float, 4>());
#endif
  for (int64_t k = 0; k < kc; ++k)
    for (int64_t i = rows_done; i < kMR; ++i) panel[k * kMR + i] = strip[i * kc + k];
}

// x rows [m0, m0 + mc), columns [k0, k0 + kc) into micro-panels of kMR rows:
// panel p holds a[k][i] = x[m0 + p kMR + i][k0 + k], zeros past the last row.
// `Rows` gives row m's columns [k0, k0 + kc) (plain, or normalized: FusedNormMatmul).
// With Tiles::kKeys, keys[p] is panel p's key.
template <class Tiles = F32Tiles, class Rows>
void PackX(const Rows& rows, int64_t m0, int64_t mc, int64_t k0, int64_t kc, float* out, uint16_t* keys = nullptr) {
  HWY_ALIGN float strip[kMR * kKC];
  for (int64_t p = 0; p * kMR < mc; ++p) {
    float* panel = out + p * kMR * kc;
    const int64_t n_rows = std::min(kMR, mc - p * kMR);
    // Each row contiguous into a strip, then the strip transposed into the
    // panel in k order: both sides sequential.
    for (int64_t i = 0; i < n_rows; ++i) rows.Pack(m0 + p * kMR + i, k0, kc, strip + i * kc, 1);
    for (int64_t i = n_rows; i < kMR; ++i) std::fill(strip + i * kc, strip + (i + 1) * kc, 0.0f);
    StripToPanel(strip, kc, panel);
    if constexpr (Tiles::kKeys) keys[p] = Tiles::PanelKey(panel, kMR * kc);
  }
}

// W rows [n0, n0 + nc), columns [k0, k0 + kc) into micro-panels of NR rows
// of W (columns of y): panel p holds b[k][j] = W[n0 + p NR + j][k0 + k].
// Weights whose rows are plain floats in memory (kRowPointers), or whose
// Load takes any k (kVectorLoads: half rows widened as loaded), go L x L
// tiles at a time, transposed in registers, with the next panel's rows
// prefetched where they are floats: with few rows of x (a linear layer at
// M = 32) packing W is most of the work, and one scalar store per element
// left it latency-bound.
template <class W, class = void>
struct VectorLoads : std::false_type {};
template <class W>
struct VectorLoads<W, std::void_t<decltype(W::kVectorLoads)>> : std::bool_constant<W::kVectorLoads> {};

template <class Tiles = F32Tiles, class Weights>
void PackW(const Weights& w, int64_t n0, int64_t nc, int64_t k0, int64_t kc, float* out, float* row_buf,
           uint16_t* keys = nullptr) {
  const int64_t nr = GemmNR();
  const StripTag d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t p = 0; p * nr < nc; ++p) {
    float* panel = out + p * nr * kc;
    const int64_t n_cols = std::min(nr, nc - p * nr);
    int64_t j = 0, k_vec = 0;
    if constexpr (Weights::kRowPointers || VectorLoads<Weights>::value) {
      if constexpr (Weights::kRowPointers) {
        for (int64_t i = 0; i < std::min(nr, nc - (p + 1) * nr); ++i)
          for (int64_t b = 0; b < kc; b += 16) hwy::Prefetch(w.Row(n0 + (p + 1) * nr + i, k0 + b, 0, nullptr));
      }
      k_vec = kc / L * L;
      for (; j + L <= n_cols; j += L) {
        hn::Vec<StripTag> rows[8], cols[8];
        for (int64_t k = 0; k < k_vec; k += L) {
          for (int64_t i = 0; i < L; ++i) rows[i] = w.Load(d, n0 + p * nr + j + i, k0 + k);
          Transpose(d, rows, cols);
          for (int64_t i = 0; i < L; ++i) hn::StoreU(cols[i], d, panel + (k + i) * nr + j);
        }
      }
    }
    for (int64_t jj = 0; jj < nr; ++jj) {  // what the tiles left: a partial panel, the K tail
      if (jj >= n_cols) {
        for (int64_t k = 0; k < kc; ++k) panel[k * nr + jj] = 0.0f;
        continue;
      }
      const int64_t from = jj < j ? k_vec : 0;
      if (from == kc) continue;
      const float* src = w.Row(n0 + p * nr + jj, k0, kc, row_buf);
      for (int64_t k = from; k < kc; ++k) panel[k * nr + jj] = src[k];
    }
    if constexpr (Tiles::kKeys) keys[p] = Tiles::PanelKey(panel, nr * kc);
  }
}

// Plain rows of x: x[m][k], row stride ldx.
struct F32Rows {
  const float* x;
  int64_t ldx;
  HWY_INLINE void Pack(int64_t m, int64_t k0, int64_t kc, float* out, int64_t stride) const {
    const float* src = x + m * ldx + k0;
    if (stride == 1) return static_cast<void>(std::memcpy(out, src, static_cast<size_t>(kc) * sizeof(float)));
    for (int64_t k = 0; k < kc; ++k) out[k * stride] = src[k];
  }
};

// Scratch of one thread's packed path (the keys: of the packed panels, for
// policies that have them).
struct GemmBuffers {
  hwy::AlignedFreeUniquePtr<float[]> x_pack, w_pack, row;
  uint16_t x_keys[kMC / kMR], w_keys[kNC / kNV + 1];  // a panel per NR >= kNV columns
  GemmBuffers()
      : x_pack(hwy::AllocateAligned<float>(static_cast<size_t>(kMC * kKC))),
        w_pack(hwy::AllocateAligned<float>(static_cast<size_t>(kNC * kKC + 16 * kKC))),
        row(hwy::AllocateAligned<float>(static_cast<size_t>(kKC))) {}
};

// Few rows of x (M <= kMC): x packed once over all of K, then W one
// micro-panel of NR columns at a time over all of K. Each of the panel's NR
// rows of W is then read front to back, NR sequential streams the hardware
// prefetchers keep ahead of (packing kKC x kNC blocks read kNC rows kKC
// floats at a time, each piece on another page: at M = 32 that packing was
// most of the time), and the panel's tiles of y stay in L1 from one chain to
// the next. The same chains, added in the same order: the same bits.
template <class Tiles, class Rows, class Weights>
void GemmFewRows(const Tiles& tiles, const Rows& x, const Weights& w, float* y, int64_t ldy, int64_t M, int64_t n_begin,
                 int64_t n_end, int64_t K, GemmBuffers& buf) {
  const int64_t nr = GemmNR(), mpad = (M + kMR - 1) / kMR * kMR, panels = mpad / kMR;
  // Block pc of k (kc columns) at xp + pc mpad: mpad / kMR panels of kMR x kc.
  auto xp = hwy::AllocateAligned<float>(static_cast<size_t>(mpad * K));
  std::unique_ptr<uint16_t[]> x_keys(new uint16_t[static_cast<size_t>((K + kKC - 1) / kKC * panels)]());
  for (int64_t pc = 0; pc < K; pc += kKC)
    PackX<Tiles>(x, 0, M, pc, std::min(kKC, K - pc), xp.get() + pc * mpad, x_keys.get() + pc / kKC * panels);
  for (int64_t jr = n_begin; jr < n_end; jr += nr) {
    const int64_t cols = std::min(nr, n_end - jr);
    for (int64_t pc = 0; pc < K; pc += kKC) {
      const int64_t kc = std::min(kKC, K - pc);
      PackW<Tiles>(w, jr, cols, pc, kc, buf.w_pack.get(), buf.row.get(), buf.w_keys);
      for (int64_t ir = 0; ir < M; ir += kMR) {
        float* c = y + ir * ldy + jr;
        Tile(tiles, kc, xp.get() + pc * mpad + ir * kc, buf.w_pack.get(), c, ldy, std::min(kMR, M - ir), cols, pc > 0,
             x_keys[static_cast<size_t>(pc / kKC * panels + ir / kMR)], buf.w_keys[0],
             ir + kMR < M ? c + kMR * ldy : nullptr);
      }
    }
  }
}

// y[:, n_begin:n_end] of y = x @ W^T; y has row stride ldy. K == 0 writes zeros.
template <class Rows, class Weights, class Tiles = F32Tiles>
void GemmColumns(const Rows& x, const Weights& w, float* y, int64_t ldy, int64_t M, int64_t n_begin, int64_t n_end,
                 int64_t K, GemmBuffers& buf, const Tiles& tiles = Tiles()) {
  if (K == 0) {
    for (int64_t m = 0; m < M; ++m) std::fill(y + m * ldy + n_begin, y + m * ldy + n_end, 0.0f);
    return;
  }
  if (M <= kMC) return GemmFewRows(tiles, x, w, y, ldy, M, n_begin, n_end, K, buf);
  const int64_t nr = GemmNR();
  for (int64_t jc = n_begin; jc < n_end; jc += kNC) {
    const int64_t nc = std::min(kNC, n_end - jc);
    for (int64_t pc = 0; pc < K; pc += kKC) {
      const int64_t kc = std::min(kKC, K - pc);
      const bool add = pc > 0;
      PackW<Tiles>(w, jc, nc, pc, kc, buf.w_pack.get(), buf.row.get(), buf.w_keys);
      for (int64_t ic = 0; ic < M; ic += kMC) {
        const int64_t mc = std::min(kMC, M - ic);
        PackX<Tiles>(x, ic, mc, pc, kc, buf.x_pack.get(), buf.x_keys);
        for (int64_t jr = 0; jr < nc; jr += nr) {
          const float* b = buf.w_pack.get() + (jr / nr) * nr * kc;
          const int64_t cols = std::min(nr, nc - jr);
          for (int64_t ir = 0; ir < mc; ir += kMR) {
            const float* a = buf.x_pack.get() + (ir / kMR) * kMR * kc;
            const int64_t rows = std::min(kMR, mc - ir);
            float* c = y + (ic + ir) * ldy + jc + jr;
            const float* next = ir + kMR < mc ? c + kMR * ldy : jr + nr < nc ? y + ic * ldy + jc + jr + nr : nullptr;
            Tile(tiles, kc, a, b, c, ldy, rows, cols, add, buf.x_keys[ir / kMR], buf.w_keys[jr / nr], next);
          }
        }
      }
    }
  }
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_MATMUL_GEMM_INL_H_
