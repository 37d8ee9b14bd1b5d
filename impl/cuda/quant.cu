// libtl_cuda: tinyllm/quant.h on a CUDA device and its device-pointer twins,
// as elementwise.cu. Quantize encodes a block per thread (quantize.cuh, the
// oracle's quantizers bit for bit); Q4_K's into a scratch copy whose f16
// scales are checked on the host before it is handed out. Dequantize and the quantized matmul decode each weight
// where it is read (quant_blocks.cuh); the matmul is linalg.cu's
// (matmul.cuh), so QMatmul is Matmul of the exactly dequantized weights. The
// checks are libtl_kernels' (impl/common/quant_args.hpp), before any CUDA call.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "impl/common/quant_args.hpp"
#include "impl/cuda/abi.cuh"
#include "impl/cuda/grid.cuh"
#include "impl/cuda/matmul.cuh"
#include "impl/cuda/quant_blocks.cuh"
#include "impl/cuda/quantize.cuh"
#include "impl/common/q8x.hpp"
#include "tinyllm/cuda/quant.h"
#include "tinyllm/cuda/tensor.h"

namespace kc = konform::cuda;
namespace qargs = konform::impl::quant_args;

namespace konform::cuda {

// The checks that come before any CUDA call (x in host memory).
template <class Q>
tl_status check_quantize(const char* fn, const float* x, int64_t rows, int64_t k) {
  if (tl_status s = qargs::check_rows(fn, rows, k, Q::kValues)) return s;
  const int64_t n = rows * k;
  if (tl_status s = qargs::check_finite(fn, x, n)) return s;
  if (Q::kValues == 32)
    if (tl_status s = qargs::check_block_maxima(fn, x, n, Q::kBytes == TL_Q8_0_BLOCK_BYTES ? 127.0f : 8.0f)) return s;
  return TL_OK;
}

// count blocks of checked device x into device blocks. Q4_K's scales come
// out of its search, so its blocks are checked in a scratch copy first (a
// refused call writes nothing); that waits for `stream`.
template <class Q>
tl_status encode(const char* fn, const float* x, uint8_t* blocks, int64_t count, tl_cuda_stream stream) {
  if (Q::kValues != TL_QK_K) {
    launch(quantize_blocks<Q>, grid_for(count, kThreads), kThreads, stream, x, blocks, count, Q{});
    check_launch(fn);
    return TL_OK;
  }
  const size_t bytes = static_cast<size_t>(count * Q::kBytes);
  DeviceBuffer<uint8_t> scratch(bytes, fn, stream);
  launch(quantize_blocks<Q>, grid_for(count, kThreads), kThreads, stream, x, scratch.get(), count, Q{});
  check_launch(fn);
  const std::vector<uint8_t> host = fetch(static_cast<const uint8_t*>(scratch.get()), bytes, stream, fn);
  if (tl_status s = qargs::check_block_scales(fn, host.data(), count, Q::kBytes, true)) return s;
  copy_on_device(blocks, static_cast<const uint8_t*>(scratch.get()), bytes, stream, fn);
  return TL_OK;
}

// The checks read the values: x is copied to the host first (waits for `stream`).
template <class Q>
tl_status quantize_dev(const char* fn, const float* x, void* blocks, int64_t rows, int64_t k, tl_cuda_stream stream) {
  if (tl_status s = qargs::check_rows(fn, rows, k, Q::kValues)) return s;
  const int64_t n = rows * k, count = n / Q::kValues;
  if (tl_status s = check_quantize<Q>(fn, fetch(x, static_cast<size_t>(n), stream, fn).data(), rows, k)) return s;
  if (count == 0) return TL_OK;
  return encode<Q>(fn, x, static_cast<uint8_t*>(blocks), count, stream);
}

template <class Q>
tl_status quantize(const char* fn, const float* x, void* blocks, int64_t rows, int64_t k) {
  if (tl_status s = check_quantize<Q>(fn, x, rows, k)) return s;
  const int64_t n = rows * k, count = n / Q::kValues;
  if (count == 0) return TL_OK;
  return on_device(fn, encode<Q>, fn, in(x, n), out(static_cast<uint8_t*>(blocks), count * Q::kBytes), count);
}

// f16 and bf16 input: widened on the device by the casts' kernels into
// scratch, then the f32 twin (which fetches the floats for its checks and
// waits for `stream`).
template <class Q, bool kBF16>
tl_status quantize_half_dev(const char* fn, const uint16_t* x, void* blocks, int64_t rows, int64_t k,
                            tl_cuda_stream stream) {
  if (tl_status s = qargs::check_rows(fn, rows, k, Q::kValues)) return s;
  const int64_t n = rows * k;
  DeviceBuffer<float> xf(static_cast<size_t>(n > 0 ? n : 1), fn, stream);
  if (n > 0) (kBF16 ? tl_cast_bf16_to_f32_dev : tl_cast_f16_to_f32_dev)(x, xf.get(), n, stream);
  return quantize_dev<Q>(fn, xf.get(), blocks, rows, k, stream);
}

// The host function: x widened on the host for the checks (exactly, as the
// device does), then the device twin on a copy of x.
template <class Q, bool kBF16, class Dev>
tl_status quantize_half(const char* fn, Dev dev, const uint16_t* x, void* blocks, int64_t rows, int64_t k) {
  if (tl_status s = qargs::check_rows(fn, rows, k, Q::kValues)) return s;
  const int64_t n = rows * k, count = n / Q::kValues;
  std::vector<float> xf(static_cast<size_t>(n));
  for (size_t i = 0; i < xf.size(); ++i) xf[i] = kBF16 ? impl::bf16::BF16ToF32(x[i]) : impl::f16::F16ToF32(x[i]);
  if (tl_status s = check_quantize<Q>(fn, xf.data(), rows, k)) return s;
  if (count == 0) return TL_OK;
  return on_device(fn, dev, in(x, n), out(static_cast<uint8_t*>(blocks), count * Q::kBytes), rows, k);
}

template <class F>
tl_status dequantize_dev(const char* fn, const void* blocks, float* y, int64_t rows, int64_t k, tl_cuda_stream stream) {
  if (tl_status s = qargs::check_rows(fn, rows, k, F::kValues)) return s;
  if (rows == 0 || k == 0) return TL_OK;
  const QuantRows<F> w{static_cast<const uint8_t*>(blocks), k / F::kValues * F::kBytes};
  launch(dequantize_rows<QuantRows<F>>, grid_for(rows * k, kThreads), kThreads, stream, w, y, rows, k);
  check_launch(fn);
  return TL_OK;
}

// The host functions, into f32, f16 or bf16 (Y: float or uint16_t).
template <class F, class Dev, class Y>
tl_status dequantize(const char* fn, Dev dev, const void* blocks, Y* y, int64_t rows, int64_t k) {
  if (tl_status s = qargs::check_rows(fn, rows, k, F::kValues)) return s;
  if (rows == 0 || k == 0) return TL_OK;
  return on_device(fn, dev, in(static_cast<const uint8_t*>(blocks), rows * (k / F::kValues * F::kBytes)),
                   out(y, rows * k), rows, k);
}

template <class F, bool kBF16>
tl_status dequantize_half_dev(const char* fn, const void* blocks, uint16_t* y, int64_t rows, int64_t k,
                              tl_cuda_stream stream) {
  if (tl_status s = qargs::check_rows(fn, rows, k, F::kValues)) return s;
  if (rows == 0 || k == 0) return TL_OK;
  const QuantRows<F> w{static_cast<const uint8_t*>(blocks), k / F::kValues * F::kBytes};
  launch(dequantize_rows_half<QuantRows<F>, kBF16>, grid_for(rows * k, kThreads), kThreads, stream, w, y, rows, k);
  check_launch(fn);
  return TL_OK;
}

template <class F>
tl_status qmatmul_dev(const char* fn, const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K,
                      tl_cuda_stream stream) {
  if (tl_status s = qargs::check_qmatmul(fn, M, N, K, F::kValues)) return s;
  const QuantRows<F> rows{static_cast<const uint8_t*>(w), K / F::kValues * F::kBytes};
  matmul_on_device(x, rows, y, M, N, K, fn, stream);
  return TL_OK;
}

template <class F, class Dev>
tl_status qmatmul(const char* fn, Dev dev, const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  if (tl_status s = qargs::check_qmatmul(fn, M, N, K, F::kValues)) return s;
  if (M == 0 || N == 0) return TL_OK;
  return on_device(fn, dev, in(x, M * K), in(static_cast<const uint8_t*>(w), N * (K / F::kValues * F::kBytes)),
                   out(y, M * N), M, N, K);
}

// ---------------------------------------------------------------- q8x

// x's blocks, one thread each (impl/common/q8x.hpp, the simd kernels' math).
template <class XBlock>
__global__ void quantize_x_blocks(const float* x, XBlock* out, int64_t count) {
  const int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b >= count) return;
  if constexpr (sizeof(XBlock) == sizeof(impl::q8x::XBlockQ8K)) impl::q8x::quantize_x_q8_k(x + 256 * b, out + b);
  else impl::q8x::quantize_x_q8_0(x + 32 * b, out + b);
}

// One thread per output: the blocks' terms added in block order, each from
// its exact integer sums (the bits of the scalar and simd backends).
template <int kFormat, class XBlock>
__global__ void q8x_outputs(const XBlock* xq, const uint8_t* w, float* y, int64_t M, int64_t N, int64_t K) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= M * N) return;
  const int64_t m = i / N, n = i % N;
  constexpr int64_t qk = kFormat == 2 ? 256 : 32, bytes = kFormat == 0 ? 34 : kFormat == 1 ? 18 : 144;
  const int64_t nb = K / qk;
  float acc = 0.0f;
  for (int64_t b = 0; b < nb; ++b) {
    const uint8_t* wb = w + (n * nb + b) * bytes;
    const XBlock& x = xq[m * nb + b];
    const float dw = impl::f16::F16ToF32(impl::f16::LoadF16(wb));
    if constexpr (kFormat == 2) {
      int32_t isum, isum_min;
      impl::q8x::isum_q4_k(wb, x, &isum, &isum_min);
      acc = acc + impl::q8x::term_q4_k(dw, impl::f16::F16ToF32(impl::f16::LoadF16(wb + 2)), x.d, isum, isum_min);
    } else {
      const int32_t isum = kFormat == 0 ? impl::q8x::isum_q8_0(wb, x.qs) : impl::q8x::isum_q4_0(wb, x.qs);
      acc = acc + impl::q8x::term(dw, x.d, isum);
    }
  }
  y[i] = acc;
}

// The device twin: x is fetched to the host for its checks (waits for `stream`).
template <int kFormat>
tl_status qmatmul_q8x_dev(const char* fn, const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K,
                          tl_cuda_stream stream) {
  constexpr int64_t qk = kFormat == 2 ? 256 : 32;
  if (tl_status s = qargs::check_qmatmul(fn, M, N, K, qk)) return s;
  if (tl_status s = qargs::check_qmatmul_q8x(fn, fetch(x, static_cast<size_t>(M * K), stream, fn).data(), M, N, K, qk))
    return s;
  if (M == 0 || N == 0) return TL_OK;
  using XBlock = std::conditional_t<kFormat == 2, impl::q8x::XBlockQ8K, impl::q8x::XBlockQ8>;
  const int64_t count = M * K / qk;
  DeviceBuffer<XBlock> xq(static_cast<size_t>(count > 0 ? count : 1), fn, stream);
  if (count > 0) {
    launch(quantize_x_blocks<XBlock>, grid_for(count, kThreads), kThreads, stream, x, xq.get(), count);
    check_launch(fn);
  }
  launch(q8x_outputs<kFormat, XBlock>, grid_for(M * N, kThreads), kThreads, stream,
         static_cast<const XBlock*>(xq.get()), static_cast<const uint8_t*>(w), y, M, N, K);
  check_launch(fn);
  return TL_OK;
}

template <int kFormat, class Dev>
tl_status qmatmul_q8x(const char* fn, Dev dev, const float* x, const void* w, float* y, int64_t M, int64_t N,
                      int64_t K) {
  constexpr int64_t qk = kFormat == 2 ? 256 : 32, bytes = kFormat == 0 ? 34 : kFormat == 1 ? 18 : 144;
  if (tl_status s = qargs::check_qmatmul_q8x(fn, x, M, N, K, qk)) return s;
  if (M == 0 || N == 0) return TL_OK;
  return on_device(fn, dev, in(x, M * K), in(static_cast<const uint8_t*>(w), N * (K / qk * bytes)), out(y, M * N), M, N,
                   K);
}

}  // namespace konform::cuda

// Each format's Quantize, Dequantize and QMatmul, host and device.
#define TL_CUDA_QUANT(fmt, Quantizer, Format)                                                                        \
  TL_CUDA_EXPORT tl_status tl_quantize_##fmt##_f32_dev(const float* x, void* blocks, int64_t rows, int64_t k,        \
                                                       tl_cuda_stream stream) {                                      \
    return kc::quantize_dev<kc::Quantizer>("tl_quantize_" #fmt "_f32", x, blocks, rows, k, stream);                  \
  }                                                                                                                  \
  TL_CUDA_EXPORT tl_status tl_quantize_##fmt##_f32(const float* x, void* blocks, int64_t rows, int64_t k) {          \
    return kc::quantize<kc::Quantizer>("tl_quantize_" #fmt "_f32", x, blocks, rows, k);                              \
  }                                                                                                                  \
  TL_CUDA_EXPORT tl_status tl_dequantize_##fmt##_f32_dev(const void* blocks, float* y, int64_t rows, int64_t k,      \
                                                         tl_cuda_stream stream) {                                    \
    return kc::dequantize_dev<kc::Format>("tl_dequantize_" #fmt "_f32", blocks, y, rows, k, stream);                 \
  }                                                                                                                  \
  TL_CUDA_EXPORT tl_status tl_dequantize_##fmt##_f32(const void* blocks, float* y, int64_t rows, int64_t k) {        \
    return kc::dequantize<kc::Format>("tl_dequantize_" #fmt "_f32", tl_dequantize_##fmt##_f32_dev, blocks, y, rows,  \
                                      k);                                                                            \
  }                                                                                                                  \
  TL_CUDA_EXPORT tl_status tl_qmatmul_##fmt##_f32_dev(const float* x, const void* w, float* y, int64_t M, int64_t N, \
                                                      int64_t K, tl_cuda_stream stream) {                            \
    return kc::qmatmul_dev<kc::Format>("tl_qmatmul_" #fmt "_f32", x, w, y, M, N, K, stream);                         \
  }                                                                                                                  \
  TL_CUDA_EXPORT tl_status tl_qmatmul_##fmt##_f32(const float* x, const void* w, float* y, int64_t M, int64_t N,     \
                                                  int64_t K) {                                                       \
    return kc::qmatmul<kc::Format>("tl_qmatmul_" #fmt "_f32", tl_qmatmul_##fmt##_f32_dev, x, w, y, M, N, K);         \
  }
TL_CUDA_QUANT(q8_0, QuantizeQ8_0, Q8_0)
TL_CUDA_QUANT(q4_0, QuantizeQ4_0, Q4_0)
TL_CUDA_QUANT(q4_k, QuantizeQ4_K, Q4_K)

// Quantize from f16 and bf16, host and device.
#define TL_CUDA_QUANT_HALF(fmt, Quantizer, dtype, kBF16)                                                               \
  TL_CUDA_EXPORT tl_status tl_quantize_##fmt##_##dtype##_dev(const uint16_t* x, void* blocks, int64_t rows, int64_t k, \
                                                             tl_cuda_stream stream) {                                  \
    return kc::quantize_half_dev<kc::Quantizer, kBF16>("tl_quantize_" #fmt "_" #dtype, x, blocks, rows, k, stream);    \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_quantize_##fmt##_##dtype(const uint16_t* x, void* blocks, int64_t rows, int64_t k) {     \
    return kc::quantize_half<kc::Quantizer, kBF16>("tl_quantize_" #fmt "_" #dtype, tl_quantize_##fmt##_##dtype##_dev,  \
                                                   x, blocks, rows, k);                                                \
  }
TL_CUDA_QUANT_HALF(q8_0, QuantizeQ8_0, f16, false)
TL_CUDA_QUANT_HALF(q4_0, QuantizeQ4_0, f16, false)
TL_CUDA_QUANT_HALF(q4_k, QuantizeQ4_K, f16, false)
TL_CUDA_QUANT_HALF(q8_0, QuantizeQ8_0, bf16, true)
TL_CUDA_QUANT_HALF(q4_0, QuantizeQ4_0, bf16, true)
TL_CUDA_QUANT_HALF(q4_k, QuantizeQ4_K, bf16, true)
#undef TL_CUDA_QUANT_HALF

// Dequantize into f16 and bf16, host and device.
#define TL_CUDA_DEQUANT_HALF(fmt, Format, dtype, kBF16)                                                              \
  TL_CUDA_EXPORT tl_status tl_dequantize_##fmt##_##dtype##_dev(const void* blocks, uint16_t* y, int64_t rows,        \
                                                               int64_t k, tl_cuda_stream stream) {                   \
    return kc::dequantize_half_dev<kc::Format, kBF16>("tl_dequantize_" #fmt "_" #dtype, blocks, y, rows, k, stream); \
  }                                                                                                                  \
  TL_CUDA_EXPORT tl_status tl_dequantize_##fmt##_##dtype(const void* blocks, uint16_t* y, int64_t rows, int64_t k) { \
    return kc::dequantize<kc::Format>("tl_dequantize_" #fmt "_" #dtype, tl_dequantize_##fmt##_##dtype##_dev, blocks, \
                                      y, rows, k);                                                                   \
  }
TL_CUDA_DEQUANT_HALF(q8_0, Q8_0, f16, false)
TL_CUDA_DEQUANT_HALF(q4_0, Q4_0, f16, false)
TL_CUDA_DEQUANT_HALF(q4_k, Q4_K, f16, false)
TL_CUDA_DEQUANT_HALF(q8_0, Q8_0, bf16, true)
TL_CUDA_DEQUANT_HALF(q4_0, Q4_0, bf16, true)
TL_CUDA_DEQUANT_HALF(q4_k, Q4_K, bf16, true)
#undef TL_CUDA_DEQUANT_HALF

// The q8x matmuls (x quantized too), host and device.
#define TL_CUDA_Q8X(fmt, kFormat)                                                                                     \
  TL_CUDA_EXPORT tl_status tl_qmatmul_##fmt##_q8x_f32_dev(const float* x, const void* w, float* y, int64_t M,         \
                                                          int64_t N, int64_t K, tl_cuda_stream stream) {              \
    return kc::qmatmul_q8x_dev<kFormat>("tl_qmatmul_" #fmt "_q8x_f32", x, w, y, M, N, K, stream);                     \
  }                                                                                                                   \
  TL_CUDA_EXPORT tl_status tl_qmatmul_##fmt##_q8x_f32(const float* x, const void* w, float* y, int64_t M, int64_t N,  \
                                                      int64_t K) {                                                    \
    return kc::qmatmul_q8x<kFormat>("tl_qmatmul_" #fmt "_q8x_f32", tl_qmatmul_##fmt##_q8x_f32_dev, x, w, y, M, N, K); \
  }
TL_CUDA_Q8X(q8_0, 0)
TL_CUDA_Q8X(q4_0, 1)
TL_CUDA_Q8X(q4_k, 2)
