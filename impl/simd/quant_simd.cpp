// libtl_kernels: Quantize and Dequantize of tinyllm/quant.h (the quantized
// matmuls live with Matmul in linalg_simd.cpp), once per Highway target.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/simd/quant_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "impl/simd/half-inl.h"
#include "impl/simd/matmul_weights-inl.h"
#include "impl/simd/quantize-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void Dequantize(int format, const uint8_t* blocks, float* y, int64_t rows, int64_t k) {
  auto run = [&](const auto& w) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k0 = 0; k0 < k; k0 += 256) w.Row(r, k0, std::min<int64_t>(256, k - k0), y + r * k + k0);
  };
  switch (static_cast<QFormat>(format)) {
    case QFormat::q8_0: run(QuantWeights<QFormat::q8_0>{blocks, k}); break;
    case QFormat::q4_0: run(QuantWeights<QFormat::q4_0>{blocks, k}); break;
    case QFormat::q4_k: run(QuantWeights<QFormat::q4_k>{blocks, k}); break;
  }
}

// Into f16 or bf16: each row decoded 256 values at a time into an aligned
// float buffer (the f32 kernel's values), then rounded once to the dtype
// (half-inl.h: to nearest even on every target).
template <class Half>
void DequantizeTo(int format, const uint8_t* blocks, uint16_t* y, int64_t rows, int64_t k) {
  HWY_ALIGN float buf[256];
  auto run = [&](const auto& w) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k0 = 0; k0 < k; k0 += 256) {
        const int64_t m = std::min<int64_t>(256, k - k0);
        w.Row(r, k0, m, buf);
        half::Narrow<Half>(buf, y + r * k + k0, static_cast<size_t>(m));
      }
  };
  switch (static_cast<QFormat>(format)) {
    case QFormat::q8_0: run(QuantWeights<QFormat::q8_0>{blocks, k}); break;
    case QFormat::q4_0: run(QuantWeights<QFormat::q4_0>{blocks, k}); break;
    case QFormat::q4_k: run(QuantWeights<QFormat::q4_k>{blocks, k}); break;
  }
}
void DequantizeF16(int format, const uint8_t* blocks, uint16_t* y, int64_t rows, int64_t k) {
  DequantizeTo<half::F16>(format, blocks, y, rows, k);
}
void DequantizeBF16(int format, const uint8_t* blocks, uint16_t* y, int64_t rows, int64_t k) {
  DequantizeTo<half::BF16>(format, blocks, y, rows, k);
}

// n values into n / QK blocks, no checks (the caller validated them).
void QuantizeBlocks(int format, const float* x, uint8_t* out, int64_t n) {
  switch (static_cast<QFormat>(format)) {
    case QFormat::q8_0:
      for (int64_t b = 0; b < n / 32; ++b) QuantizeQ8Block(x + 32 * b, out + 34 * b);
      break;
    case QFormat::q4_0:
      for (int64_t b = 0; b < n / 32; ++b) QuantizeQ4Block(x + 32 * b, out + 18 * b);
      break;
    case QFormat::q4_k:
      for (int64_t b = 0; b < n / 256; ++b) QuantizeQ4KBlock(x + 256 * b, out + 144 * b);
      break;
  }
}

// -1 when the n values may be quantized as they are: all finite and every
// block's f16 scale finite; else the index of the first bad value (as
// -2 - index) or the first block whose scale overflows (as its index).
// Q4_K's scales come out of its search: the caller checks them afterwards.
int64_t CheckValues(int format, const float* x, int64_t n) {
  int64_t bad = 0;
  if (!AllFinite(x, n, &bad)) return -2 - bad;
  const auto f = static_cast<QFormat>(format);
  if (f == QFormat::q4_k) return -1;
  for (int64_t b = 0; b < n / 32; ++b) {
    const float amax = BlockAbsMax(x + 32 * b);
    const float scale = f == QFormat::q8_0 ? Q8Scale(amax) : Q4Scale(amax);
    if ((F32ToF16(scale) & 0x7c00u) == 0x7c00u) return b;
  }
  return -1;
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <cstring>
#include <vector>

#include "impl/common/quant_args.hpp"
#include "tinyllm/quant.h"
#include "tinyllm/tensor.h"

namespace konform::simd {

HWY_EXPORT(Dequantize);
HWY_EXPORT(DequantizeF16);
HWY_EXPORT(DequantizeBF16);
HWY_EXPORT(QuantizeBlocks);
HWY_EXPORT(CheckValues);

}  // namespace konform::simd

namespace ks = konform::simd;
namespace qargs = konform::impl::quant_args;

namespace {

struct Layout {
  int format;
  int64_t values, bytes;
};
constexpr Layout kQ8_0{0, TL_QK8_0, TL_Q8_0_BLOCK_BYTES};
constexpr Layout kQ4_0{1, TL_QK4_0, TL_Q4_0_BLOCK_BYTES};
constexpr Layout kQ4_K{2, TL_QK_K, TL_Q4_K_BLOCK_BYTES};

tl_status quantize(const char* fn, Layout f, const float* x, void* blocks, int64_t rows, int64_t k) {
  if (tl_status s = qargs::check_rows(fn, rows, k, f.values)) return s;
  const int64_t n = rows * k;
  const int64_t verdict = HWY_DYNAMIC_DISPATCH(ks::CheckValues)(f.format, x, n);
  if (verdict <= -2) return qargs::non_finite(fn, -2 - verdict, x[-2 - verdict]);
  if (verdict >= 0) return qargs::scale_overflow(fn, verdict);
  auto* out = static_cast<uint8_t*>(blocks);
  if (f.format != kQ4_K.format) {
    HWY_DYNAMIC_DISPATCH(ks::QuantizeBlocks)(f.format, x, out, n);
    return TL_OK;
  }
  // Q4_K: into scratch first, since a scale may overflow f16 only after the
  // search, and a refused call writes nothing.
  std::vector<uint8_t> scratch(static_cast<size_t>(n / f.values * f.bytes));
  HWY_DYNAMIC_DISPATCH(ks::QuantizeBlocks)(f.format, x, scratch.data(), n);
  if (tl_status s = qargs::check_block_scales(fn, scratch.data(), n / f.values, f.bytes, true)) return s;
  if (!scratch.empty()) std::memcpy(out, scratch.data(), scratch.size());
  return TL_OK;
}

tl_status dequantize(const char* fn, Layout f, const void* blocks, float* y, int64_t rows, int64_t k) {
  if (tl_status s = qargs::check_rows(fn, rows, k, f.values)) return s;
  HWY_DYNAMIC_DISPATCH(ks::Dequantize)(f.format, static_cast<const uint8_t*>(blocks), y, rows, k);
  return TL_OK;
}

// f16 and bf16 input: widened by the library's own casts (cast_simd.cpp),
// then the f32 quantizer and its refusals.
tl_status quantize_half(const char* fn, Layout f, bool bf16, const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  if (tl_status s = qargs::check_rows(fn, rows, k, f.values)) return s;
  std::vector<float> xf(static_cast<size_t>(rows * k));
  (bf16 ? tl_cast_bf16_to_f32 : tl_cast_f16_to_f32)(x, xf.data(), rows * k);
  return quantize(fn, f, xf.data(), blocks, rows, k);
}

tl_status dequantize_half(const char* fn, Layout f, bool bf16, const void* blocks, uint16_t* y, int64_t rows,
                          int64_t k) {
  if (tl_status s = qargs::check_rows(fn, rows, k, f.values)) return s;
  const auto* b = static_cast<const uint8_t*>(blocks);
  if (bf16) HWY_DYNAMIC_DISPATCH(ks::DequantizeBF16)(f.format, b, y, rows, k);
  else HWY_DYNAMIC_DISPATCH(ks::DequantizeF16)(f.format, b, y, rows, k);
  return TL_OK;
}

}  // namespace

extern "C" {

tl_status tl_quantize_q8_0_f32(const float* x, void* blocks, int64_t rows, int64_t k) {
  return quantize("tl_quantize_q8_0_f32", kQ8_0, x, blocks, rows, k);
}
tl_status tl_quantize_q4_0_f32(const float* x, void* blocks, int64_t rows, int64_t k) {
  return quantize("tl_quantize_q4_0_f32", kQ4_0, x, blocks, rows, k);
}
tl_status tl_quantize_q4_k_f32(const float* x, void* blocks, int64_t rows, int64_t k) {
  return quantize("tl_quantize_q4_k_f32", kQ4_K, x, blocks, rows, k);
}
tl_status tl_dequantize_q8_0_f32(const void* blocks, float* y, int64_t rows, int64_t k) {
  return dequantize("tl_dequantize_q8_0_f32", kQ8_0, blocks, y, rows, k);
}
tl_status tl_dequantize_q4_0_f32(const void* blocks, float* y, int64_t rows, int64_t k) {
  return dequantize("tl_dequantize_q4_0_f32", kQ4_0, blocks, y, rows, k);
}
tl_status tl_dequantize_q4_k_f32(const void* blocks, float* y, int64_t rows, int64_t k) {
  return dequantize("tl_dequantize_q4_k_f32", kQ4_K, blocks, y, rows, k);
}

tl_status tl_quantize_q8_0_f16(const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  return quantize_half("tl_quantize_q8_0_f16", kQ8_0, false, x, blocks, rows, k);
}
tl_status tl_quantize_q4_0_f16(const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  return quantize_half("tl_quantize_q4_0_f16", kQ4_0, false, x, blocks, rows, k);
}
tl_status tl_quantize_q4_k_f16(const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  return quantize_half("tl_quantize_q4_k_f16", kQ4_K, false, x, blocks, rows, k);
}
tl_status tl_quantize_q8_0_bf16(const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  return quantize_half("tl_quantize_q8_0_bf16", kQ8_0, true, x, blocks, rows, k);
}
tl_status tl_quantize_q4_0_bf16(const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  return quantize_half("tl_quantize_q4_0_bf16", kQ4_0, true, x, blocks, rows, k);
}
tl_status tl_quantize_q4_k_bf16(const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  return quantize_half("tl_quantize_q4_k_bf16", kQ4_K, true, x, blocks, rows, k);
}
tl_status tl_dequantize_q8_0_f16(const void* blocks, uint16_t* y, int64_t rows, int64_t k) {
  return dequantize_half("tl_dequantize_q8_0_f16", kQ8_0, false, blocks, y, rows, k);
}
tl_status tl_dequantize_q4_0_f16(const void* blocks, uint16_t* y, int64_t rows, int64_t k) {
  return dequantize_half("tl_dequantize_q4_0_f16", kQ4_0, false, blocks, y, rows, k);
}
tl_status tl_dequantize_q4_k_f16(const void* blocks, uint16_t* y, int64_t rows, int64_t k) {
  return dequantize_half("tl_dequantize_q4_k_f16", kQ4_K, false, blocks, y, rows, k);
}
tl_status tl_dequantize_q8_0_bf16(const void* blocks, uint16_t* y, int64_t rows, int64_t k) {
  return dequantize_half("tl_dequantize_q8_0_bf16", kQ8_0, true, blocks, y, rows, k);
}
tl_status tl_dequantize_q4_0_bf16(const void* blocks, uint16_t* y, int64_t rows, int64_t k) {
  return dequantize_half("tl_dequantize_q4_0_bf16", kQ4_0, true, blocks, y, rows, k);
}
tl_status tl_dequantize_q4_k_bf16(const void* blocks, uint16_t* y, int64_t rows, int64_t k) {
  return dequantize_half("tl_dequantize_q4_k_bf16", kQ4_K, true, blocks, y, rows, k);
}

}  // extern "C"
#endif  // HWY_ONCE
