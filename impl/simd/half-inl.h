// f16 and bf16 arrays through an f32 kernel: blocks widened into a float
// buffer on the stack, the kernel run on the buffer in place, the results
// rounded back to nearest with ties to even. Each block is read whole before
// any of it is written, so y == x works.
//
// Why not hwy::DemoteTo alone: in Highway 1.0.3 its bf16 demotion drops the
// low half (truncation) on every target, and its f16 demotion truncates on
// SSE4 and below; only F16C's vcvtps2ph (AVX2 and AVX3 targets) rounds to
// nearest even. bf16 is rounded here with integer operations on every
// target, f16 by F16C where the target has it and one element at a time
// (impl/common/f16.hpp) where it does not. On the AVX3 target, where the CPU
// has AVX512_BF16 (HasBf16Cvt), BF16Cvt rounds bf16 with vcvtneps2bf16,
// the same bits in one instruction; the loops over vectors here and in
// activations-inl.h, tensor_arith-inl.h and norm-inl.h swap BF16 for it
// once per call (kToBf16Cvt).

#if defined(KONFORM_SIMD_HALF_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_HALF_INL_H_
#undef KONFORM_SIMD_HALF_INL_H_
#else
#define KONFORM_SIMD_HALF_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "hwy/highway.h"
#include "impl/common/bf16.hpp"
#include "impl/common/f16.hpp"
#include "impl/simd/bf16_cvt.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE::half {
namespace hn = hwy::HWY_NAMESPACE;

#undef KONFORM_SIMD_F16C  // set again for each target
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
#define KONFORM_SIMD_F16C 1
#else
#define KONFORM_SIMD_F16C 0
#endif
#undef KONFORM_SIMD_BF16CVT
#if HWY_ARCH_X86_64 && HWY_TARGET <= HWY_AVX3 && (defined(__GNUC__) || defined(__clang__))
#define KONFORM_SIMD_BF16CVT 1
#else
#define KONFORM_SIMD_BF16CVT 0
#endif

struct F16 {
  static float Widen(uint16_t h) { return impl::f16::F16ToF32(h); }
  static uint16_t Narrow(float f) { return impl::f16::F32ToF16(f); }
  static constexpr bool kVector = KONFORM_SIMD_F16C;
  static constexpr bool kPairs = false;                             // BF16Cvt's WidenPair and NarrowPair
  static constexpr uint16_t kInfBits = 0x7c00, kQuietBit = 0x0200;  // +inf; a NaN's quiet bit

  template <class D>
  static HWY_INLINE hn::Vec<D> WidenVec(D d, const uint16_t* p) {
    const hn::Rebind<hwy::float16_t, D> dh;
    return hn::PromoteTo(d, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
  }
  template <class D>
  static HWY_INLINE void NarrowVec(D d, hn::Vec<D> v, uint16_t* p) {
    const hn::Rebind<hwy::float16_t, D> dh;
    hn::StoreU(hn::DemoteTo(dh, v), dh, reinterpret_cast<hwy::float16_t*>(p));
  }
};

struct BF16 {
  static float Widen(uint16_t h) { return impl::bf16::BF16ToF32(h); }
  static uint16_t Narrow(float f) { return impl::bf16::F32ToBF16(f); }
  static constexpr bool kVector = true;
  static constexpr bool kPairs = false;
  static constexpr uint16_t kInfBits = 0x7f80, kQuietBit = 0x0040;

  template <class D>
  static HWY_INLINE hn::Vec<D> WidenVec(D d, const uint16_t* p) {
    const hn::RebindToUnsigned<D> du;
    const hn::Rebind<uint16_t, D> dh;
    return hn::BitCast(d, hn::ShiftLeft<16>(hn::PromoteTo(du, hn::LoadU(dh, p))));
  }
  // As impl::bf16::F32ToBF16, lane by lane: the rounding bias 0x7fff plus
  // the lowest kept bit, carried into the top half; a NaN's top half with
  // the quiet bit set.
  template <class D>
  static HWY_INLINE void NarrowVec(D d, hn::Vec<D> v, uint16_t* p) {
    const hn::Rebind<uint16_t, D> dh;
    hn::StoreU(hn::DemoteTo(dh, Rounded(d, v)), dh, p);
  }
  // NarrowVec's bf16 patterns, each in the low half of its 32-bit lane.
  template <class D>
  static HWY_INLINE hn::Vec<hn::RebindToSigned<D>> Rounded(D, hn::Vec<D> v) {
    const hn::RebindToSigned<D> di;
    const auto bits = hn::BitCast(di, v);
    const auto top = hn::ShiftRight<16>(hn::BitCast(hn::RebindToUnsigned<D>(), v));
    const auto lowest_kept = hn::BitCast(di, hn::And(top, hn::Set(hn::RebindToUnsigned<D>(), 1u)));
    const auto rounded =
        hn::BitCast(di, hn::ShiftRight<16>(hn::BitCast(hn::RebindToUnsigned<D>(),
                                                       hn::Add(hn::Add(bits, hn::Set(di, 0x7fff)), lowest_kept))));
    const auto quiet = hn::BitCast(di, hn::Or(top, hn::Set(hn::RebindToUnsigned<D>(), 0x40u)));
    const auto nan = hn::Not(hn::Eq(v, v));
    return hn::IfThenElse(hn::RebindMask(di, nan), quiet, rounded);  // 0 .. 0xffff
  }
};

#if KONFORM_SIMD_BF16CVT
// BF16 with the rounding of a full vector by vcvtneps2bf16, written as inline
// assembly because this target's attributes lack avx512bf16 (bf16_cvt.cpp).
// The instruction reads a subnormal input as zero: a vector with one
// (vfpclassps, rare in data) takes BF16's integer rounding, so the bits are
// BF16's on every input. Used only where HasBf16Cvt() is true.
struct BF16Cvt : BF16 {
  template <class D>
  static HWY_INLINE void NarrowVec(D d, hn::Vec<D> v, uint16_t* p) {
    if constexpr (std::is_same_v<D, hn::Full512<float>>) {
      if (HWY_LIKELY(_mm512_fpclass_ps_mask(v.raw, 0x20) == 0)) {  // 0x20: subnormal
        __m256i bits;
        asm("vcvtneps2bf16 {%1, %0|%0, %1}" : "=v"(bits) : "v"(v.raw));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), bits);
        return;
      }
    }
    BF16::NarrowVec(d, v, p);
  }

  // 32 values as two vectors without a shuffle: the values at even positions
  // (each 32-bit word shifted up) and at odd ones (the low half cleared),
  // for loops whose operation is lane by lane. NarrowPair stores them back
  // in order, 64 bytes at once: one vcvtne2ps2bf16 and one vpermw for 32
  // values, where WidenVec and NarrowVec take 2 + 1 per 16 and store 32
  // bytes (the 64-byte loops reach 84-99 % of the copy from L2, the 32-byte
  // ones 71-74 %: docs/benchmarks.md, "What the conversions alone cost").
  static constexpr bool kPairs = true;
  static HWY_INLINE void WidenPair(const uint16_t* p, hn::Vec<hn::Full512<float>>& even,
                                   hn::Vec<hn::Full512<float>>& odd) {
    const __m512i v = _mm512_loadu_si512(p);
    even.raw = _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
    odd.raw = _mm512_castsi512_ps(_mm512_and_si512(v, _mm512_set1_epi32(static_cast<int>(0xffff0000u))));
  }
  static HWY_INLINE void NarrowPair(hn::Vec<hn::Full512<float>> even, hn::Vec<hn::Full512<float>> odd, uint16_t* p) {
    if (HWY_LIKELY((_mm512_fpclass_ps_mask(even.raw, 0x20) | _mm512_fpclass_ps_mask(odd.raw, 0x20)) == 0)) {
      __m512i words;  // even's 16 roundings in the low half, odd's in the high
      asm("vcvtne2ps2bf16 {%2, %1, %0|%0, %1, %2}" : "=v"(words) : "v"(odd.raw), "v"(even.raw));
      const __m512i order = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7, 22, 6,
                                             21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
      _mm512_storeu_si512(p, _mm512_permutexvar_epi16(order, words));
      return;
    }
    // A subnormal among them: BF16's integer rounding, each pattern put back
    // into the half of the word it came from.
    const hn::Full512<float> d;
    const hn::RebindToUnsigned<decltype(d)> du;
    const auto lo = hn::BitCast(du, BF16::Rounded(d, even));
    const auto hi = hn::ShiftLeft<16>(hn::BitCast(du, BF16::Rounded(d, odd)));
    hn::StoreU(hn::Or(lo, hi), du, reinterpret_cast<uint32_t*>(p));
  }
};
#else
using BF16Cvt = BF16;  // never used: kToBf16Cvt is false
#endif
// Whether a loop over Format's vectors runs as BF16Cvt where HasBf16Cvt()
// says so: Format is BF16 and the target is AVX3. The loops ask once per
// call: if constexpr (kToBf16Cvt<Format>) if (HasBf16Cvt()) return
// Loop<BF16Cvt>(...).
template <class Format>
constexpr bool kToBf16Cvt = KONFORM_SIMD_BF16CVT&& std::is_same_v<Format, BF16>;

// A half row (f16 or bf16 bit patterns of Format) widened as it is read:
// Full(d, i) the Lanes(d) values from i, Part(d, i, m) the m values from i
// padded with zeros (nothing past them read). The norms' sums and
// Softmax's passes read half rows through it, without a float copy.
template <class Format>
struct WidenedRow {
  const uint16_t* x;
  template <class D>
  HWY_INLINE hn::Vec<D> Full(D d, size_t i) const {
    if constexpr (Format::kVector) {
      return Format::WidenVec(d, x + i);
    } else {
      return Part(d, i, hn::Lanes(d));
    }
  }
  template <class D>
  HWY_INLINE hn::Vec<D> Part(D d, size_t i, size_t m) const {
    HWY_ALIGN float v[HWY_MAX_BYTES / sizeof(float)] = {};
    for (size_t j = 0; j < m; ++j) v[j] = Format::Widen(x[i + j]);
    return hn::Load(d, v);
  }
};

// The elements per block: 1 KiB of floats on the stack, and a whole number
// of vectors on every target.
constexpr size_t kBlock = 256;

template <class Format>
HWY_INLINE void Widen(const uint16_t* x, float* out, size_t m) {
  size_t i = 0;
  if constexpr (Format::kVector) {
    const hn::ScalableTag<float> d;
    const size_t N = hn::Lanes(d);
    for (; i + N <= m; i += N) hn::Store(Format::WidenVec(d, x + i), d, out + i);
  }
  for (; i < m; ++i) out[i] = Format::Widen(x[i]);
}

template <class Format>
HWY_INLINE void Narrow(const float* in, uint16_t* y, size_t m) {
  if constexpr (kToBf16Cvt<Format>)
    if (HasBf16Cvt()) return Narrow<BF16Cvt>(in, y, m);
  size_t i = 0;
  if constexpr (Format::kVector) {
    const hn::ScalableTag<float> d;
    const size_t N = hn::Lanes(d);
    for (; i + N <= m; i += N) Format::NarrowVec(d, hn::Load(d, in + i), y + i);
  }
  for (; i < m; ++i) y[i] = Format::Narrow(in[i]);
}

// y[i] = kernel(x[i]) for an f32 kernel `void(const float*, float*, int64_t)`
// that allows its output to be its input.
template <class Format, class Kernel>
HWY_INLINE void ThroughF32(const uint16_t* x, uint16_t* y, int64_t n, const Kernel& kernel) {
  HWY_ALIGN float buf[kBlock];
  for (int64_t i = 0; i < n; i += static_cast<int64_t>(kBlock)) {
    const size_t m = static_cast<size_t>(n - i < static_cast<int64_t>(kBlock) ? n - i : static_cast<int64_t>(kBlock));
    Widen<Format>(x + i, buf, m);
    kernel(buf, buf, static_cast<int64_t>(m));
    Narrow<Format>(buf, y + i, m);
  }
}

// y[i] = kernel(a[i], b[i]) for an f32 kernel `void(const float*, const
// float*, float*, int64_t)` (the gated activations): both blocks widened
// before any of y is written, so y == a or y == b works.
template <class Format, class Kernel>
HWY_INLINE void PairThroughF32(const uint16_t* a, const uint16_t* b, uint16_t* y, int64_t n, const Kernel& kernel) {
  HWY_ALIGN float buf_a[kBlock];
  HWY_ALIGN float buf_b[kBlock];
  for (int64_t i = 0; i < n; i += static_cast<int64_t>(kBlock)) {
    const size_t m = static_cast<size_t>(n - i < static_cast<int64_t>(kBlock) ? n - i : static_cast<int64_t>(kBlock));
    Widen<Format>(a + i, buf_a, m);
    Widen<Format>(b + i, buf_b, m);
    kernel(buf_a, buf_b, buf_a, static_cast<int64_t>(m));
    Narrow<Format>(buf_a, y + i, m);
  }
}

}  // namespace konform::simd::HWY_NAMESPACE::half
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_HALF_INL_H_
