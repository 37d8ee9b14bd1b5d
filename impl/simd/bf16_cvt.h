// Whether half-inl.h's BF16Cvt may round f32 to bf16 with vcvtneps2bf16
// (AVX512_BF16) here (bf16_cvt.cpp): plain C++, asked by the AVX3 target.
#pragma once

namespace konform::simd {

// The CPU has AVX512_BF16 (with F, DQ, BW and VL), and on a probe of normal
// values, ties, overflows, zeros, infinities and NaNs the instruction gives
// impl::bf16::F32ToBF16's bits. Subnormal inputs are not probed: the
// instruction reads them as zero, and BF16Cvt never gives it one.
bool HasBf16Cvt();

}  // namespace konform::simd
