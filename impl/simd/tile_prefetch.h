// When the packed Matmul's AVX-512 micro-kernels (matmul_gemm-inl.h on
// AVX3, and the bf16 pairs' matmul_bf16_dp.cpp) ask for the lines of y
// they read and write after their chain of multiply-adds: the next tile's
// rows into L2 early in the chain, one row every 8 steps of k, and this
// tile's rows into L1 late in it, one row every 4 steps, so that they
// arrive just before the chain ends.
//
// Not all at the start of the chain: a tile's rows are a row stride of y
// apart (8 KiB at 2048 columns), so they share two L1 sets, and W's and x's
// panel lines evict them before the chain ends (docs/ops-linalg.md, "y's
// lines during the chain").
#pragma once

#include <cstdint>

namespace konform::simd {

// A tile of y: rows rows of `width` floats, ldc apart, and the next tile the
// loop computes (same ldc), or nullptr; kc: the chain's steps.
struct TileLines {
  const float* c;
  const float* next;
  int64_t ldc, last, rows, late;
};

// Every function here is always inlined: GCC 12 finds a function that only
// prefetches free of side effects and deletes its calls before it would
// inline them.

// Both lines of a 128-byte row (its first and last float), into L1 or L2.
[[gnu::always_inline]] inline void RowToL1(const float* row, int64_t last) {
  __builtin_prefetch(row, 0, 3);
  __builtin_prefetch(row + last, 0, 3);
}
[[gnu::always_inline]] inline void RowToL2(const float* row, int64_t last) {
  __builtin_prefetch(row, 0, 2);
  __builtin_prefetch(row + last, 0, 2);
}

// This tile's rows asked for now, and nothing during the chain.
[[gnu::always_inline]] inline TileLines TileLinesAtStart(const float* c, int64_t ldc, int64_t width, int64_t rows) {
  for (int64_t i = 0; i < rows; ++i) RowToL1(c + i * ldc, width - 1);
  return TileLines{c, nullptr, ldc, width - 1, rows, -1};
}

// The schedule of a chain of kc steps; a chain too short for it asks for
// this tile's rows at the start.
[[gnu::always_inline]] inline TileLines TileLinesFor(const float* c, const float* next, int64_t ldc, int64_t width,
                                                     int64_t rows, int64_t kc) {
  if (kc < 4 * rows) return TileLinesAtStart(c, ldc, width, rows);
  return TileLines{c, next, ldc, width - 1, rows, kc - 4 * rows};
}

// Before step k of the chain.
[[gnu::always_inline]] inline void PrefetchTileLines(const TileLines& t, int64_t k) {
  if (t.next != nullptr && (k & 7) == 0 && (k >> 3) < t.rows) RowToL2(t.next + (k >> 3) * t.ldc, t.last);
  if (t.late >= 0 && k >= t.late && ((k - t.late) & 3) == 0) RowToL1(t.c + ((k - t.late) >> 2) * t.ldc, t.last);
}

}  // namespace konform::simd
