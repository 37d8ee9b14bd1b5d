// vdpbf16ps (AVX512_BF16: per 32-bit lane, two bf16 products added to an f32
// accumulator) for the bf16 Matmul's packed tiles. Highway 1.0.3 does not
// emit it (its AVX3 target leaves avx512bf16 off), so this file carries its
// own target attribute and runs only where HasBf16DotPairs() says so, from
// the AVX3 target (matmul_pairs-inl.h), as qmatmul_q8x_vnni.cpp does.
//
// Intel's definition of the instruction, per lane: acc += odd product, then
// acc += even product, each an FMA (the products of two bf16 values are exact
// in f32), with subnormal inputs read as zero and subnormal results flushed.
// matmul_pairs-inl.h's emulated tile computes exactly that in IEEE; the probe
// below checks that this CPU rounds the same way before the instruction is used.
#include "impl/simd/matmul_bf16_dp.h"

#include "impl/simd/tile_prefetch.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <cmath>
#include <cstring>

#define KONFORM_BF16DP __attribute__((target("avx2,fma,avx512f,avx512bw,avx512vl,avx512bf16")))

namespace konform::simd {

namespace {

constexpr int kRows = 12, kVectors = 2;  // matmul_gemm-inl.h's AVX3 tile: kMR x kNV

float Widen(uint16_t h) {
  const uint32_t u = uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

template <int MR>
KONFORM_BF16DP void Tile(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, bool add,
                         const float* next) {
  __m512 acc[MR][kVectors];
  const TileLines lines = TileLinesFor(c, next, ldc, kVectors * 16, MR, kc);
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 2
    for (int j = 0; j < kVectors; ++j) acc[i][j] = _mm512_setzero_ps();
  for (int64_t k = 0; k < kc; ++k) {
    PrefetchTileLines(lines, k);
    __m512bh bv[kVectors];
#pragma GCC unroll 2
    for (int j = 0; j < kVectors; ++j) bv[j] = (__m512bh)_mm512_loadu_ps(b + (k * kVectors + j) * 16);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const __m512bh av = (__m512bh)_mm512_set1_ps(a[k * kRows + i]);  // the pair's bits, broadcast
#pragma GCC unroll 2
      for (int j = 0; j < kVectors; ++j) acc[i][j] = _mm512_dpbf16_ps(acc[i][j], av, bv[j]);
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 2
    for (int j = 0; j < kVectors; ++j) {
      float* p = c + i * ldc + j * 16;
      _mm512_storeu_ps(p, add ? _mm512_add_ps(_mm512_loadu_ps(p), acc[i][j]) : acc[i][j]);
    }
}

// One instruction on 16 lanes against two IEEE FMAs per lane, odd first.
// Lanes 0 and 1 tell that order from one rounding of both products and from
// the even product first (acc 1, products 2^-24 and 2^-24 or 1.5 2^-24: ties
// at half an ulp); the others have an odd product that nearly cancels acc.
KONFORM_BF16DP bool ProbeMatches() {
  alignas(64) uint32_t a[16], b[16];
  alignas(64) float acc[16], want[16];
  for (int i = 0; i < 16; ++i) {
    uint16_t a_odd = static_cast<uint16_t>(0x3F81 + 3 * i), b_odd = static_cast<uint16_t>(0x3FC0 + i);
    uint16_t a_even = static_cast<uint16_t>(0x3380 + 5 * i), b_even = static_cast<uint16_t>(0x3F81 + 7 * i);
    acc[i] = -Widen(a_odd) * Widen(b_odd) * (1.0f + std::ldexp(1.0f, -18)) + std::ldexp(1.0f, 4 - i);
    if (i < 2) {
      a_odd = a_even = 0x3F80;  // 1
      b_odd = 0x3380;           // 2^-24
      b_even = i == 0 ? 0x3380 : 0x33C0;
      acc[i] = 1.0f;
    }
    a[i] = a_even | (uint32_t{a_odd} << 16);
    b[i] = b_even | (uint32_t{b_odd} << 16);
    want[i] = std::fma(Widen(a_even), Widen(b_even), std::fma(Widen(a_odd), Widen(b_odd), acc[i]));
  }
  const __m512 got =
      _mm512_dpbf16_ps(_mm512_load_ps(acc), (__m512bh)_mm512_load_si512(a), (__m512bh)_mm512_load_si512(b));
  alignas(64) float out[16];
  _mm512_store_ps(out, got);
  return std::memcmp(out, want, sizeof out) == 0;
}

}  // namespace

bool HasBf16DotPairs() {
  static const bool has = __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl") && ProbeMatches();
  return has;
}

void Bf16PairsTile(int64_t rows, int64_t kc, const float* a, const float* b, float* c, int64_t ldc, bool add,
                   const float* next) {
  switch (rows) {
    case 1: return Tile<1>(kc, a, b, c, ldc, add, next);
    case 2: return Tile<2>(kc, a, b, c, ldc, add, next);
    case 3: return Tile<3>(kc, a, b, c, ldc, add, next);
    case 4: return Tile<4>(kc, a, b, c, ldc, add, next);
    case 5: return Tile<5>(kc, a, b, c, ldc, add, next);
    case 6: return Tile<6>(kc, a, b, c, ldc, add, next);
    case 7: return Tile<7>(kc, a, b, c, ldc, add, next);
    case 8: return Tile<8>(kc, a, b, c, ldc, add, next);
    case 9: return Tile<9>(kc, a, b, c, ldc, add, next);
    case 10: return Tile<10>(kc, a, b, c, ldc, add, next);
    case 11: return Tile<11>(kc, a, b, c, ldc, add, next);
    default: return Tile<kRows>(kc, a, b, c, ldc, add, next);
  }
}

}  // namespace konform::simd

#else  // not x86-64 with GCC or Clang: never chosen

namespace konform::simd {
bool HasBf16DotPairs() { return false; }
void Bf16PairsTile(int64_t, int64_t, const float*, const float*, float*, int64_t, bool, const float*) {}
}  // namespace konform::simd

#endif
