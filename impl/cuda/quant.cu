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
#include <vector>

#include "impl/common/quant_args.hpp"
#include "impl/cuda/abi.cuh"
#include "impl/cuda/grid.cuh"
#include "impl/cuda/matmul.cuh"
#include "impl/cuda/quant_blocks.cuh"
#include "impl/cuda/quantize.cuh"
#include "tinyllm/cuda/quant.h"

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

template <class F>
tl_status dequantize_dev(const char* fn, const void* blocks, float* y, int64_t rows, int64_t k, tl_cuda_stream stream) {
  if (tl_status s = qargs::check_rows(fn, rows, k, F::kValues)) return s;
  if (rows == 0 || k == 0) return TL_OK;
  const QuantRows<F> w{static_cast<const uint8_t*>(blocks), k / F::kValues * F::kBytes};
  launch(dequantize_rows<QuantRows<F>>, grid_for(rows * k, kThreads), kThreads, stream, w, y, rows, k);
  check_launch(fn);
  return TL_OK;
}

template <class F, class Dev>
tl_status dequantize(const char* fn, Dev dev, const void* blocks, float* y, int64_t rows, int64_t k) {
  if (tl_status s = qargs::check_rows(fn, rows, k, F::kValues)) return s;
  if (rows == 0 || k == 0) return TL_OK;
  return on_device(fn, dev, in(static_cast<const uint8_t*>(blocks), rows * (k / F::kValues * F::kBytes)),
                   out(y, rows * k), rows, k);
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
