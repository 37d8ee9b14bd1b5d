// The bf16 Matmul's AVX512_BF16 micro-kernel (matmul_bf16_dp.cpp): plain
// C++, called from the AVX3 target of linalg_simd.cpp (matmul_pairs-inl.h)
// where the CPU has the instruction and it rounds as that file's order says.
#pragma once

#include <cstdint>

namespace konform::simd {

// Whether vdpbf16ps may run here: the CPU has AVX512_BF16 (with F, BW and VL),
// and on a probe of normal values the instruction gives the bits of two IEEE
// fused multiply-adds, the odd pair's product first.
bool HasBf16DotPairs();

// The tile of matmul_gemm-inl.h's packed path for bf16 pairs: rows (1..12)
// rows of x by 32 columns of W, over kc pairs of k. a: kc x 12 pairs (x's
// panel), b: kc x 32 pairs (W's panel), each pair a 32-bit lane (element 2p
// in the low half). c (+)= the rows' chains, as the f32 micro-kernel does.
// The instruction reads subnormal inputs as zero and flushes subnormal sums:
// the caller runs it only where no product or partial sum can be subnormal.
// next: the tile of y computed next, or nullptr (tile_prefetch.h).
void Bf16PairsTile(int64_t rows, int64_t kc, const float* a, const float* b, float* c, int64_t ldc, bool add,
                   const float* next);

}  // namespace konform::simd
