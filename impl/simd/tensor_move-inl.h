// Transpose and Permute: y (contiguous) gets x through a MovePlan
// (impl/common/tensor_checks.hpp), whose dimensions are already merged where input and
// output walk memory alike.
//
// Two cases. The innermost output dimension is contiguous in x too: each
// output row is one memcpy. Otherwise the plan holds a 2-D transpose between
// the output's innermost dimension and the one x is contiguous in; it runs in
// blocks of register-transposed tiles, over an odometer of the remaining
// dimensions. Copies move bits: NaN payloads survive.

#if defined(KONFORM_SIMD_TENSOR_MOVE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_TENSOR_MOVE_INL_H_
#undef KONFORM_SIMD_TENSOR_MOVE_INL_H_
#else
#define KONFORM_SIMD_TENSOR_MOVE_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "impl/simd/cache_size.h"
#include "impl/simd/stream-inl.h"
#include "impl/common/tensor_checks.hpp"
#include "impl/simd/transpose-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The register tiles, by element type: Rows() x Cols() of x moved to y by
// Move (y[c * ys + r] = x[r * xs + c] within the tile). Floats: L x L
// transposed whole (transpose-inl.h's Transpose).
struct FloatTile {
  using T = float;
  static constexpr int64_t kBlockRows = 256, kBlockCols = 32;  // a block of TransposeTiles
  static int64_t Rows() { return static_cast<int64_t>(hn::Lanes(SquareTag())); }
  static int64_t Cols() { return Rows(); }
  static HWY_INLINE void Move(const float* HWY_RESTRICT x, int64_t xs, float* HWY_RESTRICT y, int64_t ys) {
    const SquareTag d;
    const int64_t L = Rows();
    hn::Vec<SquareTag> r[8], c[8];
    for (int64_t k = 0; k < L; ++k) r[k] = hn::LoadU(d, x + k * xs);
    Transpose(d, r, c);
    for (int64_t k = 0; k < L; ++k) hn::StoreU(c[k], d, y + k * ys);
  }
};

#if HWY_TARGET != HWY_SCALAR
// 16-bit patterns: 8 columns by 8 rows a 128-bit block (32 x 8 on AVX3,
// 16 x 8 on AVX2, 8 x 8 on SSSE3 and SSE4), an 8 x 8 transpose in each
// block (transpose-inl.h's TransposeBlocks8x8); each of the 8 stores is a
// run of a row of y, on AVX3 a whole 64-byte line. In TransposeTiles, the
// floats' blocks (256 rows by 128 bytes), prefetching past L2; on AVX3 the
// tiles run from TransposeHalfBlocks' scratch, and TransposeTiles (32 x 32
// blocks, the tiles of a band of 32 rows left to right) takes its edges.
// D: HalfTileTag, or fewer lanes (8 or 16) for thinner tiles.
template <class D>
struct HalfTileOf {
  using T = uint16_t;
#if HWY_TARGET <= HWY_AVX3
  static constexpr int64_t kBlockRows = 32, kBlockCols = 32;
#else
  static constexpr int64_t kBlockRows = 256, kBlockCols = 64;
#endif
  static int64_t Rows() { return static_cast<int64_t>(hn::Lanes(D())); }
  static int64_t Cols() { return 8; }
  static HWY_INLINE void Move(const uint16_t* HWY_RESTRICT x, int64_t xs, uint16_t* HWY_RESTRICT y, int64_t ys) {
    const D d;
    hn::Vec<D> r[8], c[8];
    for (int64_t k = 0; k < 8; ++k) r[k] = LoadHalfTileRow(d, x + k * xs, xs);
    TransposeBlocks8x8(d, r, c);
    for (int64_t k = 0; k < 8; ++k) hn::StoreU(c[k], d, y + k * ys);
  }
};
using HalfTile = HalfTileOf<HalfTileTag>;
#endif

// y[j * ys + i] = x[i * xs + j] for i < rows, j < cols, in Tile's blocks
// (floats: 256 rows by 32 columns of x), each made of Tile's tiles moved in
// registers and walked a column of tiles at a time; the rows and columns
// past a block's last whole tile go one element at a time. A float block
// reads 32 KiB of x, which stays in L1 until the second half of each line is
// used, and writes 32 rows of y, each a run of 1 KiB that fills whole lines
// in order. Against 64 x 64 blocks, on a Sapphire Rapids Xeon: the K^T
// permute 1.5x, 512 x 4096 1.4x, 1024^2 1.1-1.2x, the rest 1.0-1.2x
// (docs/ops-tensor.md, "Transpose's blocks, and prefetching the next one").
//
// With kPrefetch (data past L2), the next block's lines of x are fetched
// during the block's second column of tiles and those of y, for writing,
// during its last: x is read 128 bytes a row and y written in runs of
// 1 KiB, too short for the hardware prefetchers to follow. From L3 it pays
// (1024^2 1.2-1.5x, 512 x 4096 1.6-1.7x, the K^T permute 1.2-1.3x); in L2
// the calls run at 0.79-0.83x with it compiled in, hence the template
// parameter.
template <class Tile, bool kPrefetch = false>
void TransposeTiles(const typename Tile::T* HWY_RESTRICT x, int64_t xs, typename Tile::T* HWY_RESTRICT y, int64_t ys,
                    int64_t rows, int64_t cols) {
  using T = typename Tile::T;
  constexpr int64_t kRows = Tile::kBlockRows, kCols = Tile::kBlockCols;
  constexpr int64_t kLine = 64 / sizeof(T);  // elements per cache line, one prefetch each
  const int64_t R = Tile::Rows(), C = Tile::Cols();
  for (int64_t i0 = 0; i0 < rows; i0 += kRows) {
    const int64_t i1 = HWY_MIN(rows, i0 + kRows), i_full = i0 + (i1 - i0) / R * R;
    for (int64_t j0 = 0; j0 < cols; j0 += kCols) {
      const int64_t j1 = HWY_MIN(cols, j0 + kCols), j_full = j0 + (j1 - j0) / C * C;
      // The next block: these rows' next columns, else the next rows' first.
      const int64_t ni0 = j1 < cols ? i0 : i1, nj0 = j1 < cols ? j1 : 0;
      const int64_t nj1 = HWY_MIN(cols, nj0 + kCols);
      const bool ahead = kPrefetch && ni0 < rows;
      // The columns of tiles that fetch them: x's in the second, y's in the last.
      const int64_t y_ahead = j_full - C, x_ahead = HWY_MIN(j0 + C, y_ahead);
      for (int64_t j = j0; j < j_full; j += C)
        for (int64_t i = i0; i < i_full; i += R) {
          Tile::Move(x + i * xs + j, xs, y + j * ys + i, ys);
          if (!ahead) continue;
          const int64_t pi = ni0 + (i - i0);  // the next block's row for this tile's
          if (j == x_ahead) {
            for (int64_t k = pi; k < HWY_MIN(rows, pi + R); ++k)
              for (int64_t q = nj0; q < nj1; q += kLine) __builtin_prefetch(x + k * xs + q, 0, 3);
          }
          if (j == y_ahead && (i - i0) % kLine == 0 && pi < rows) {
            for (int64_t q = nj0; q < nj1; ++q) __builtin_prefetch(y + q * ys + pi, 1, 3);
          }
        }
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t i = (j < j_full ? i_full : i0); i < i1; ++i) y[j * ys + i] = x[i * xs + j];
    }
  }
}

// TransposeTiles for a y of kStreamBytes or more (stream-inl.h), which goes
// to memory: strips of 16 rows of x, so
// that each output row gets one whole 64-byte line (two L x L tiles side by
// side), written with non-temporal stores, across up to 1024 columns (16
// rows of 4 KiB read at a time). From DRAM, against TransposeTiles in one
// process on a Zen 3: 4096 x 4096 42% -> 76-85% of a copy, 2048 x 2048 40%
// -> 70%; in L3 (1024 x 1024) it is slower, hence kStreamBytes. Needs L = 8 and y's rows
// on 64-byte lines; the rows past the last strip and the columns past the
// last tile go through TransposeTiles.
inline void TransposeStreaming(const float* HWY_RESTRICT x, int64_t xs, float* HWY_RESTRICT y, int64_t ys, int64_t rows,
                               int64_t cols) {
  constexpr int64_t kLine = 16, kCols = 1024;
  const SquareTag d;
  const int64_t rows_full = rows / kLine * kLine, cols_full = cols / 8 * 8;
  hn::Vec<SquareTag> r[8], lo[8], hi[8];
  for (int64_t j0 = 0; j0 < cols_full; j0 += kCols) {
    const int64_t j1 = HWY_MIN(cols_full, j0 + kCols);
    for (int64_t i = 0; i < rows_full; i += kLine)
      for (int64_t j = j0; j < j1; j += 8) {
        for (int64_t k = 0; k < 8; ++k) r[k] = hn::LoadU(d, x + (i + k) * xs + j);
        Transpose(d, r, lo);
        for (int64_t k = 0; k < 8; ++k) r[k] = hn::LoadU(d, x + (i + 8 + k) * xs + j);
        Transpose(d, r, hi);
        for (int64_t k = 0; k < 8; ++k) {
          hn::Stream(lo[k], d, y + (j + k) * ys + i);
          hn::Stream(hi[k], d, y + (j + k) * ys + i + 8);
        }
      }
  }
  hwy::FlushStream();
  if (rows_full < rows) TransposeTiles<FloatTile>(x + rows_full * xs, xs, y + rows_full, ys, rows - rows_full, cols);
  if (cols_full < cols)
    TransposeTiles<FloatTile>(x + cols_full, xs, y + cols_full * ys, ys, rows_full, cols - cols_full);
}

// y[j * ys + i] = x[i * xs + j], streamed when `big` and the layout allows.
inline void Transpose2D(const float* HWY_RESTRICT x, int64_t xs, float* HWY_RESTRICT y, int64_t ys, int64_t rows,
                        int64_t cols, bool big, bool past_l2) {
#if HWY_TARGET <= HWY_AVX2  // x86 with 8 x 8 tiles
  if (big && rows >= 16 && cols >= 8 && ys % 16 == 0 && reinterpret_cast<uintptr_t>(y) % 64 == 0) {
    TransposeStreaming(x, xs, y, ys, rows, cols);
    return;
  }
#else
  (void)big;
#endif
  if (past_l2) {
    TransposeTiles<FloatTile, true>(x, xs, y, ys, rows, cols);
  } else {
    TransposeTiles<FloatTile>(x, xs, y, ys, rows, cols);
  }
}

#if HWY_TARGET <= HWY_AVX3
// y[j * ys + i] = x[i * xs + j] in 32 x 32 blocks of 16-bit patterns: the
// block's 32 lines of x loaded whole into a scratch whose rows are 80 bytes
// apart, then HalfTile's 4 tiles (32 x 8) from there, each store a whole
// line of y. Rows of x a power of two apart share L1 sets (2 KiB at 1024
// columns: 16 of the block's lines in each of 2 sets of 12 ways), so the
// tiles read straight from x fetch each line again for each tile. Against
// those tiles in 32 x 32 blocks (both libraries in one process, AVX3, best
// of 150 calls, on a Zen 5): 1024^2 1.2-1.4x, 512 x 4096 2.3x, 256 x 2048
// 2.0x, 512^2 1.2x, 2048^2 1.0x, 4096 x 512 0.87x. The rows and columns
// past the last whole block go through TransposeTiles.
inline void TransposeHalfBlocks(const uint16_t* HWY_RESTRICT x, int64_t xs, uint16_t* HWY_RESTRICT y, int64_t ys,
                                int64_t rows, int64_t cols) {
  constexpr int64_t kBlock = 32, kStride = 40;
  const hn::CappedTag<uint16_t, kBlock> d;
  HWY_ALIGN uint16_t scratch[kBlock * kStride];
  const int64_t rows_full = rows / kBlock * kBlock, cols_full = cols / kBlock * kBlock;
  for (int64_t i = 0; i < rows_full; i += kBlock)
    for (int64_t j = 0; j < cols_full; j += kBlock) {
      for (int64_t k = 0; k < kBlock; ++k) hn::StoreU(hn::LoadU(d, x + (i + k) * xs + j), d, scratch + k * kStride);
      for (int64_t t = 0; t < kBlock; t += HalfTile::Cols())
        HalfTile::Move(scratch + t, kStride, y + (j + t) * ys + i, ys);
    }
  if (cols_full < cols)
    TransposeTiles<HalfTile>(x + cols_full, xs, y + cols_full * ys, ys, rows_full, cols - cols_full);
  // The last rows: tiles of 16 rows, then of 8, then single moves.
  const int64_t rows16 = rows_full + (rows - rows_full) / 16 * 16;
  if (rows_full < rows16)
    TransposeTiles<HalfTileOf<hn::CappedTag<uint16_t, 16>>>(x + rows_full * xs, xs, y + rows_full, ys,
                                                            rows16 - rows_full, cols);
  if (rows16 < rows)
    TransposeTiles<HalfTileOf<hn::CappedTag<uint16_t, 8>>>(x + rows16 * xs, xs, y + rows16, ys, rows - rows16, cols);
}
#endif

// The half twins' transposes: 16-bit patterns moved as they are, in
// HalfTile's register tiles (on AVX3 through TransposeHalfBlocks' scratch);
// on SCALAR in 32 x 32 blocks of single moves (a block's rows of x and of y
// are a 64-byte line each).
inline void Transpose2D(const uint16_t* HWY_RESTRICT x, int64_t xs, uint16_t* HWY_RESTRICT y, int64_t ys, int64_t rows,
                        int64_t cols, bool /*big*/, bool past_l2) {
#if HWY_TARGET <= HWY_AVX3
  (void)past_l2;
  TransposeHalfBlocks(x, xs, y, ys, rows, cols);
#elif HWY_TARGET != HWY_SCALAR
  if (past_l2) {
    TransposeTiles<HalfTile, true>(x, xs, y, ys, rows, cols);
  } else {
    TransposeTiles<HalfTile>(x, xs, y, ys, rows, cols);
  }
#else
  (void)past_l2;
  constexpr int64_t kBlock = 32;
  for (int64_t i0 = 0; i0 < rows; i0 += kBlock)
    for (int64_t j0 = 0; j0 < cols; j0 += kBlock) {
      const int64_t i1 = HWY_MIN(rows, i0 + kBlock), j1 = HWY_MIN(cols, j0 + kBlock);
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t i = i0; i < i1; ++i) y[j * ys + i] = x[i * xs + j];
    }
#endif
}

// y[k] = x[the plan's source of k]: rows copied where x's innermost output
// dimension is contiguous, 2-D transposes elsewhere. T: float, or uint16_t
// for the half twins (their bits as they are: NaN payloads, -0, subnormals).
template <typename T>
void MoveAny(const impl::tensor::MovePlan& p, const T* HWY_RESTRICT x, T* HWY_RESTRICT y) {
  if (p.count == 0) return;
  const int last = p.rank - 1;
  int64_t ystride[impl::tensor::kMaxRank];
  int64_t step = 1;
  for (int k = last; k >= 0; --k) {
    ystride[k] = step;
    step *= p.n[k];
  }
  // The output dimension x is contiguous in; the last one when rows copy.
  int inner = last;
  for (int k = 0; k < last; ++k)
    if (p.src[k] == 1) inner = k;
  const bool big = p.count >= kStreamBytes / static_cast<int64_t>(sizeof(T));
  const bool past_l2 = static_cast<size_t>(p.count) * 2 * sizeof(T) > L2Bytes();  // x and y
  // The other dimensions, fastest first: in y's order for the transposes;
  // in x's for the row copies, so that x is read front to back and y's rows
  // land wherever they go. Attention's head split [512, 32, 128] ->
  // [32, 512, 128] read in y's order jumps 16 KiB after every 512 bytes,
  // which the prefetchers do not follow: 1.12-1.22x in x's order on a Zen 3
  // (docs/ops-tensor.md, "Permute's row copies and Argmax's rows in x's order").
  int walk[impl::tensor::kMaxRank];
  int walks = 0;
  for (int k = last - 1; k >= 0; --k)
    if (k != inner) walk[walks++] = k;
  if (inner == last) std::stable_sort(walk, walk + walks, [&](int a, int b) { return p.src[a] < p.src[b]; });
  int64_t idx[impl::tensor::kMaxRank] = {};
  int64_t ox = 0, oy = 0;
  for (;;) {
    if (inner == last) {
      std::memcpy(y + oy, x + ox, static_cast<size_t>(p.n[last]) * sizeof(T));
    } else {
      Transpose2D(x + ox, p.src[last], y + oy, ystride[inner], p.n[last], p.n[inner], big, past_l2);
    }
    int w = 0;  // next index of the other dimensions
    for (; w < walks; ++w) {
      const int k = walk[w];
      ox += p.src[k];
      oy += ystride[k];
      if (++idx[k] < p.n[k]) break;
      ox -= p.src[k] * p.n[k];
      oy -= ystride[k] * p.n[k];
      idx[k] = 0;
    }
    if (w == walks) return;
  }
}

inline void Move(const impl::tensor::MovePlan& p, const float* HWY_RESTRICT x, float* HWY_RESTRICT y) {
  MoveAny(p, x, y);
}
inline void Move16(const impl::tensor::MovePlan& p, const uint16_t* HWY_RESTRICT x, uint16_t* HWY_RESTRICT y) {
  MoveAny(p, x, y);
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_TENSOR_MOVE_INL_H_
