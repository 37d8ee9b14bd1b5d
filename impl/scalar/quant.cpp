#include "scalar/kernels.hpp"

#include <cmath>
#include <cstring>
#include <vector>

#include "impl/common/quant_args.hpp"
#include "impl/common/quantize.hpp"
#include "konform/reference/bf16.hpp"
#include "konform/reference/f16.hpp"
#include "konform/reference/quant.hpp"

namespace konform::scalar {
namespace q = konform::reference::quant;
namespace args = konform::impl::quant_args;
using q::Format;

namespace {

// Quantizes into a scratch copy first: a block whose scale overflows f16
// is only known after its search (Q4_K), and a refused call writes nothing.
tl_status quantize(const char* fn, Format f, const float* x, void* blocks, int64_t rows, int64_t k) {
  if (tl_status s = args::check_rows(fn, rows, k, q::block_values(f))) return s;
  const int64_t n = rows * k;
  if (tl_status s = args::check_finite(fn, x, n)) return s;
  std::vector<uint8_t> out(static_cast<size_t>(q::row_bytes(f, n)));
  if (f == Format::q4_k) {  // the kernels' encoder (libtl_cuda's too), checked against the oracle's own
    const int64_t qk = q::block_values(f), bytes = q::block_bytes(f);
    for (int64_t b = 0; b < n / qk; ++b)
      konform::impl::quantize::quantize_q4_k_block(x + qk * b, out.data() + bytes * b);
  } else {
    q::quantize(f, x, out.data(), n);
  }
  if (tl_status s =
          args::check_block_scales(fn, out.data(), n / q::block_values(f), q::block_bytes(f), f == Format::q4_k))
    return s;
  if (!out.empty()) std::memcpy(blocks, out.data(), out.size());
  return TL_OK;
}

tl_status dequantize(const char* fn, Format f, const void* blocks, float* y, int64_t rows, int64_t k) {
  if (tl_status s = args::check_rows(fn, rows, k, q::block_values(f))) return s;
  q::dequantize(f, static_cast<const uint8_t*>(blocks), y, rows * k);
  return TL_OK;
}

// f16 and bf16 input: widened exactly, then the f32 quantizer and its refusals.
tl_status quantize_half(const char* fn, Format f, bool bf16, const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  if (tl_status s = args::check_rows(fn, rows, k, q::block_values(f))) return s;
  std::vector<float> xf(static_cast<size_t>(rows * k));
  for (size_t i = 0; i < xf.size(); ++i) xf[i] = bf16 ? reference::bf16_to_f32(x[i]) : reference::f16_to_f32(x[i]);
  return quantize(fn, f, xf.data(), blocks, rows, k);
}

// f16 and bf16: the f32 values a block at a time, each rounded once.
tl_status dequantize_half(const char* fn, Format f, bool bf16, const void* blocks, uint16_t* y, int64_t rows,
                          int64_t k) {
  if (tl_status s = args::check_rows(fn, rows, k, q::block_values(f))) return s;
  const int64_t qk = q::block_values(f), bytes = q::block_bytes(f);
  float values[256];
  for (int64_t b = 0; b < rows * k / qk; ++b) {
    q::dequantize_block(f, static_cast<const uint8_t*>(blocks) + b * bytes, values);
    for (int64_t i = 0; i < qk; ++i)
      y[b * qk + i] = bf16 ? reference::f32_to_bf16(values[i]) : reference::f32_to_f16(values[i]);
  }
  return TL_OK;
}

tl_status qmatmul(const char* fn, Format f, const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  if (tl_status s = args::check_qmatmul(fn, M, N, K, q::block_values(f))) return s;
  q::qmatmul<float>(f, x, static_cast<const uint8_t*>(w), y, M, N, K);
  return TL_OK;
}

// ggml's form: x quantized per block, integer dot products (the oracle's
// qmatmul_q8x in float).
tl_status qmatmul_q8x(const char* fn, Format f, const float* x, const void* w, float* y, int64_t M, int64_t N,
                      int64_t K) {
  if (tl_status s = args::check_qmatmul_q8x(fn, x, M, N, K, q::block_values(f))) return s;
  q::qmatmul_q8x<float>(f, x, static_cast<const uint8_t*>(w), y, M, N, K);
  return TL_OK;
}

}  // namespace

tl_status quantize_q8_0_f32(const float* x, void* blocks, int64_t rows, int64_t k) {
  return quantize("tl_quantize_q8_0_f32", Format::q8_0, x, blocks, rows, k);
}
tl_status quantize_q4_0_f32(const float* x, void* blocks, int64_t rows, int64_t k) {
  return quantize("tl_quantize_q4_0_f32", Format::q4_0, x, blocks, rows, k);
}
tl_status quantize_q4_k_f32(const float* x, void* blocks, int64_t rows, int64_t k) {
  return quantize("tl_quantize_q4_k_f32", Format::q4_k, x, blocks, rows, k);
}
tl_status dequantize_q8_0_f32(const void* blocks, float* y, int64_t rows, int64_t k) {
  return dequantize("tl_dequantize_q8_0_f32", Format::q8_0, blocks, y, rows, k);
}
tl_status dequantize_q4_0_f32(const void* blocks, float* y, int64_t rows, int64_t k) {
  return dequantize("tl_dequantize_q4_0_f32", Format::q4_0, blocks, y, rows, k);
}
tl_status dequantize_q4_k_f32(const void* blocks, float* y, int64_t rows, int64_t k) {
  return dequantize("tl_dequantize_q4_k_f32", Format::q4_k, blocks, y, rows, k);
}
tl_status quantize_q8_0_f16(const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  return quantize_half("tl_quantize_q8_0_f16", Format::q8_0, false, x, blocks, rows, k);
}
tl_status quantize_q4_0_f16(const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  return quantize_half("tl_quantize_q4_0_f16", Format::q4_0, false, x, blocks, rows, k);
}
tl_status quantize_q4_k_f16(const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  return quantize_half("tl_quantize_q4_k_f16", Format::q4_k, false, x, blocks, rows, k);
}
tl_status quantize_q8_0_bf16(const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  return quantize_half("tl_quantize_q8_0_bf16", Format::q8_0, true, x, blocks, rows, k);
}
tl_status quantize_q4_0_bf16(const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  return quantize_half("tl_quantize_q4_0_bf16", Format::q4_0, true, x, blocks, rows, k);
}
tl_status quantize_q4_k_bf16(const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  return quantize_half("tl_quantize_q4_k_bf16", Format::q4_k, true, x, blocks, rows, k);
}
tl_status dequantize_q8_0_f16(const void* blocks, uint16_t* y, int64_t rows, int64_t k) {
  return dequantize_half("tl_dequantize_q8_0_f16", Format::q8_0, false, blocks, y, rows, k);
}
tl_status dequantize_q4_0_f16(const void* blocks, uint16_t* y, int64_t rows, int64_t k) {
  return dequantize_half("tl_dequantize_q4_0_f16", Format::q4_0, false, blocks, y, rows, k);
}
tl_status dequantize_q4_k_f16(const void* blocks, uint16_t* y, int64_t rows, int64_t k) {
  return dequantize_half("tl_dequantize_q4_k_f16", Format::q4_k, false, blocks, y, rows, k);
}
tl_status dequantize_q8_0_bf16(const void* blocks, uint16_t* y, int64_t rows, int64_t k) {
  return dequantize_half("tl_dequantize_q8_0_bf16", Format::q8_0, true, blocks, y, rows, k);
}
tl_status dequantize_q4_0_bf16(const void* blocks, uint16_t* y, int64_t rows, int64_t k) {
  return dequantize_half("tl_dequantize_q4_0_bf16", Format::q4_0, true, blocks, y, rows, k);
}
tl_status dequantize_q4_k_bf16(const void* blocks, uint16_t* y, int64_t rows, int64_t k) {
  return dequantize_half("tl_dequantize_q4_k_bf16", Format::q4_k, true, blocks, y, rows, k);
}
tl_status qmatmul_q8_0_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return qmatmul("tl_qmatmul_q8_0_f32", Format::q8_0, x, w, y, M, N, K);
}
tl_status qmatmul_q4_0_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return qmatmul("tl_qmatmul_q4_0_f32", Format::q4_0, x, w, y, M, N, K);
}
tl_status qmatmul_q4_k_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return qmatmul("tl_qmatmul_q4_k_f32", Format::q4_k, x, w, y, M, N, K);
}

tl_status qmatmul_q8_0_q8x_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return qmatmul_q8x("tl_qmatmul_q8_0_q8x_f32", Format::q8_0, x, w, y, M, N, K);
}
tl_status qmatmul_q4_0_q8x_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return qmatmul_q8x("tl_qmatmul_q4_0_q8x_f32", Format::q4_0, x, w, y, M, N, K);
}
tl_status qmatmul_q4_k_q8x_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return qmatmul_q8x("tl_qmatmul_q4_k_q8x_f32", Format::q4_k, x, w, y, M, N, K);
}

}  // namespace konform::scalar
