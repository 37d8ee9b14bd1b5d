// libtl_cuda: tinyllm/quant.h on a CUDA device, host pointers in and out as
// elementwise.cu. Quantize encodes a block per thread (quantize.cuh, the
// oracle's quantizers bit for bit) into a scratch copy whose f16 scales are
// checked on the host before it is handed out. Dequantize and the quantized matmul decode each weight
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
#include "tinyllm/quant.h"

namespace kc = konform::cuda;
namespace qargs = konform::impl::quant_args;

namespace konform::cuda {

// Values, and Q8_0's and Q4_0's scales, are checked before any CUDA call;
// Q4_K's scales come out of its search, so its blocks are checked in a
// scratch copy before they are handed out: a refused call writes nothing.
template <class Q>
tl_status quantize(const char* fn, const float* x, void* blocks, int64_t rows, int64_t k) {
  if (tl_status s = qargs::check_rows(fn, rows, k, Q::kValues)) return s;
  const int64_t n = rows * k, count = n / Q::kValues;
  if (tl_status s = qargs::check_finite(fn, x, n)) return s;
  if (Q::kValues == 32)
    if (tl_status s = qargs::check_block_maxima(fn, x, n, Q::kBytes == TL_Q8_0_BLOCK_BYTES ? 127.0f : 8.0f)) return s;
  if (count == 0) return TL_OK;
  std::vector<uint8_t> scratch(static_cast<size_t>(count * Q::kBytes));
  DeviceBuffer<float> dx(x, static_cast<size_t>(n), fn);
  DeviceBuffer<uint8_t> dout(scratch.size(), fn);
  launch(quantize_blocks<Q>, grid_for(count, kThreads), kThreads, dx.get(), dout.get(), count, Q{});
  check_launch(fn);
  dout.copy_to(scratch.data());
  if (Q::kValues == TL_QK_K)
    if (tl_status s = qargs::check_block_scales(fn, scratch.data(), count, Q::kBytes, true)) return s;
  std::memcpy(blocks, scratch.data(), scratch.size());
  return TL_OK;
}

template <class F>
tl_status dequantize(const char* fn, const void* blocks, float* y, int64_t rows, int64_t k) {
  if (tl_status s = qargs::check_rows(fn, rows, k, F::kValues)) return s;
  if (rows == 0 || k == 0) return TL_OK;
  const int64_t row_bytes = k / F::kValues * F::kBytes;
  DeviceBuffer<uint8_t> dw(static_cast<const uint8_t*>(blocks), static_cast<size_t>(rows * row_bytes), fn);
  DeviceBuffer<float> dy(static_cast<size_t>(rows * k), fn);
  launch(dequantize_rows<QuantRows<F>>, grid_for(rows * k, kThreads), kThreads, QuantRows<F>{dw.get(), row_bytes},
         dy.get(), rows, k);
  check_launch(fn);
  dy.copy_to(y);
  return TL_OK;
}

template <class F>
tl_status qmatmul(const char* fn, const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  if (tl_status s = qargs::check_qmatmul(fn, M, N, K, F::kValues)) return s;
  if (M == 0 || N == 0) return TL_OK;
  const int64_t row_bytes = K / F::kValues * F::kBytes;
  DeviceBuffer<float> dx(x, static_cast<size_t>(M * K), fn), dy(static_cast<size_t>(M * N), fn);
  DeviceBuffer<uint8_t> dw(static_cast<const uint8_t*>(w), static_cast<size_t>(N * row_bytes), fn);
  matmul_on_device(dx.get(), QuantRows<F>{dw.get(), row_bytes}, dy.get(), M, N, K, fn);
  dy.copy_to(y);
  return TL_OK;
}

}  // namespace konform::cuda

TL_CUDA_EXPORT tl_status tl_quantize_q8_0_f32(const float* x, void* blocks, int64_t rows, int64_t k) {
  return kc::quantize<kc::QuantizeQ8_0>("tl_quantize_q8_0_f32", x, blocks, rows, k);
}
TL_CUDA_EXPORT tl_status tl_quantize_q4_0_f32(const float* x, void* blocks, int64_t rows, int64_t k) {
  return kc::quantize<kc::QuantizeQ4_0>("tl_quantize_q4_0_f32", x, blocks, rows, k);
}
TL_CUDA_EXPORT tl_status tl_quantize_q4_k_f32(const float* x, void* blocks, int64_t rows, int64_t k) {
  return kc::quantize<kc::QuantizeQ4_K>("tl_quantize_q4_k_f32", x, blocks, rows, k);
}

TL_CUDA_EXPORT tl_status tl_dequantize_q8_0_f32(const void* blocks, float* y, int64_t rows, int64_t k) {
  return kc::dequantize<kc::Q8_0>("tl_dequantize_q8_0_f32", blocks, y, rows, k);
}
TL_CUDA_EXPORT tl_status tl_dequantize_q4_0_f32(const void* blocks, float* y, int64_t rows, int64_t k) {
  return kc::dequantize<kc::Q4_0>("tl_dequantize_q4_0_f32", blocks, y, rows, k);
}
TL_CUDA_EXPORT tl_status tl_dequantize_q4_k_f32(const void* blocks, float* y, int64_t rows, int64_t k) {
  return kc::dequantize<kc::Q4_K>("tl_dequantize_q4_k_f32", blocks, y, rows, k);
}

TL_CUDA_EXPORT tl_status tl_qmatmul_q8_0_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return kc::qmatmul<kc::Q8_0>("tl_qmatmul_q8_0_f32", x, w, y, M, N, K);
}
TL_CUDA_EXPORT tl_status tl_qmatmul_q4_0_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return kc::qmatmul<kc::Q4_0>("tl_qmatmul_q4_0_f32", x, w, y, M, N, K);
}
TL_CUDA_EXPORT tl_status tl_qmatmul_q4_k_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return kc::qmatmul<kc::Q4_K>("tl_qmatmul_q4_k_f32", x, w, y, M, N, K);
}
