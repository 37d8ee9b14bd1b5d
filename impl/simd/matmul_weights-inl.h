// Where the weights of y = x @ W^T come from: f32 rows, or rows of quantized
// blocks (Q8_0, Q4_0, Q4_K) decoded a vector at a time where they are used,
// so a quantized matmul never holds an f32 copy of W. Every decoded value is
// exactly the float Dequantize writes (the products d * q are exact; Q4_K's
// (d * sc) * q - dmin * m rounds once, as there), which makes the quantized
// matmul the f32 matmul of the dequantized weights, bit for bit.
//
// A source has:
//   Load(d, n, k)         Lanes(d) values of row n from column k (k and the
//                         vector stay inside one block: k % Lanes(d) == 0
//                         and Lanes(d) <= 16 for quantized rows)
//   At(n, k)              one value (the f32 K tail; quantized K has none)
//   Row(n, k0, kc, buf)   columns [k0, k0 + kc) of row n as floats, in buf
//                         or in place (k0, kc multiples of 16 for quantized)
// and, where rows are plain arrays (f32, half, bf16 pairs), kElementBytes,
// Address(n, k) and LoadRow(d, Address(n, 0), k) for the decode path.

#if defined(KONFORM_SIMD_MATMUL_WEIGHTS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KONFORM_SIMD_MATMUL_WEIGHTS_INL_H_
#undef KONFORM_SIMD_MATMUL_WEIGHTS_INL_H_
#else
#define KONFORM_SIMD_MATMUL_WEIGHTS_INL_H_
#endif

#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "impl/common/f16.hpp"
#include "impl/common/quantize.hpp"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using impl::f16::F16ToF32;  // (qmatmul-inl.h too)
using impl::f16::LoadF16;

struct F32Weights {
  static constexpr bool kRowPointers = true;  // Row() points into w: no copy, any number at once
  const float* w;
  int64_t K;

  template <class D>
  HWY_INLINE hn::Vec<D> Load(D d, int64_t n, int64_t k) const {
    return LoadRow(d, Address(n, 0), k);
  }
  HWY_INLINE float At(int64_t n, int64_t k) const { return w[n * K + k]; }
  HWY_INLINE const float* Row(int64_t n, int64_t k0, int64_t /*kc*/, float* /*buf*/) const { return w + n * K + k0; }
  // The strip path's decode streams (matmul_strip-inl.h): row n's address,
  // and a vector of a row from it.
  static constexpr int64_t kElementBytes = 4;
  HWY_INLINE const float* Address(int64_t n, int64_t k) const { return w + n * K + k; }
  template <class D>
  static HWY_INLINE hn::Vec<D> LoadRow(D d, const float* row, int64_t k) {
    return hn::LoadU(d, row + k);
  }
};

enum class QFormat { q8_0, q4_0, q4_k };

template <QFormat F>
struct QuantWeights {
  static constexpr bool kRowPointers = false;  // Row() dequantizes into one buffer
  static constexpr int64_t kValues = F == QFormat::q4_k ? 256 : 32;
  static constexpr int64_t kBytes = F == QFormat::q8_0 ? 34 : F == QFormat::q4_0 ? 18 : 144;
  const uint8_t* w;
  int64_t K;

  HWY_INLINE const uint8_t* Block(int64_t n, int64_t k) const { return w + (n * (K / kValues) + k / kValues) * kBytes; }

  // Q4_K: the scale d * sc and the min dmin * m of the sub-block of column k.
  static HWY_INLINE void SubBlock(const uint8_t* b, int64_t k, float* scale, float* min) {
    impl::quantize::q4_k_sub_block(b, static_cast<int>((k % 256) / 32), scale, min);
  }

  template <class D>
  HWY_INLINE hn::Vec<D> Load(D d, int64_t n, int64_t k) const {
    const hn::Rebind<int32_t, D> di;
    const uint8_t* b = Block(n, k);
    const int64_t j = k % kValues;
    if constexpr (F == QFormat::q8_0) {
      const hn::Rebind<int8_t, D> d8;
      const auto q = hn::PromoteTo(di, hn::LoadU(d8, reinterpret_cast<const int8_t*>(b + 2 + j)));
      return hn::Mul(hn::ConvertTo(d, q), hn::Set(d, F16ToF32(LoadF16(b))));
    } else if constexpr (F == QFormat::q4_0) {
      const hn::Rebind<uint8_t, D> du8;
      const auto bytes = hn::PromoteTo(di, hn::LoadU(du8, b + 2 + j % 16));
      const auto q = j < 16 ? hn::And(bytes, hn::Set(di, 15)) : hn::ShiftRight<4>(bytes);
      return hn::Mul(hn::ConvertTo(d, hn::Sub(q, hn::Set(di, 8))), hn::Set(d, F16ToF32(LoadF16(b))));
    } else {
      const hn::Rebind<uint8_t, D> du8;
      const auto bytes = hn::PromoteTo(di, hn::LoadU(du8, b + 16 + 32 * (j / 64) + j % 32));
      const auto q = (j % 64) < 32 ? hn::And(bytes, hn::Set(di, 15)) : hn::ShiftRight<4>(bytes);
      float scale, min;
      SubBlock(b, k, &scale, &min);
      // (d * sc) * q is exact; the subtraction rounds once, as Dequantize's.
      return hn::Sub(hn::Mul(hn::Set(d, scale), hn::ConvertTo(d, q)), hn::Set(d, min));
    }
  }

  HWY_INLINE float At(int64_t n, int64_t k) const {
    const hn::CappedTag<float, 1> d1;
    return hn::GetLane(Load(d1, n, k));
  }

  const float* Row(int64_t n, int64_t k0, int64_t kc, float* buf) const {
    const hn::CappedTag<float, 16> d;
    const int64_t L = static_cast<int64_t>(hn::Lanes(d));
    for (int64_t k = 0; k < kc; k += L) hn::StoreU(Load(d, n, k0 + k), d, buf + k);
    return buf;
  }
};

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // KONFORM_SIMD_MATMUL_WEIGHTS_INL_H_
