// libtl_cuda: tinyllm/linalg.h on a CUDA device, host pointers in and out
// as elementwise.cu. Every product is matmul.cuh's (double sums in k order,
// rounded once); the gates are activations.cu's (gates.cuh); the hidden layer
// is one f32 [M, H] tensor as in libtl_kernels. The checks are libtl_kernels'
// (impl/common/linalg_args.hpp), before any CUDA call.
#include <cstddef>
#include <cstdint>

#include "impl/common/linalg_args.hpp"
#include "impl/cuda/abi.cuh"
#include "impl/cuda/gates.cuh"
#include "impl/cuda/grid.cuh"
#include "impl/cuda/map.cuh"
#include "impl/cuda/matmul.cuh"
#include "tinyllm/linalg.h"

namespace kc = konform::cuda;
namespace args = konform::impl::linalg_args;

namespace konform::cuda {

// RmsNorm of each row of x (one thread per row, grid-striding) into z, as
// libtl_kernels: inv = 1 / sqrt(mean(x^2) + eps) in double (squares exact,
// no overflow), rounded once to float; z = (x * inv) * g in float.
__global__ void norm_rows(const float* x, const float* g, float* z, int64_t M, int64_t K, float eps) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t m = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; m < M; m += stride) {
    const float* xm = x + m * K;
    double sum = 0.0;
    for (int64_t k = 0; k < K; ++k) sum += static_cast<double>(xm[k]) * static_cast<double>(xm[k]);
    const float inv = static_cast<float>(1.0 / sqrt(sum / static_cast<double>(K) + static_cast<double>(eps)));
    for (int64_t k = 0; k < K; ++k) z[m * K + k] = xm[k] * inv * g[k];
  }
}

// h = gate(x Wg^T) * (x Wu^T) on the device, h: [M, H] (M * H > 0).
template <class Gate>
void gated_hidden(const float* x, const float* w_gate, const float* w_up, DeviceBuffer<float>& h, int64_t M, int64_t D,
                  int64_t H, Gate gate, const char* where) {
  const size_t wn = static_cast<size_t>(H * D);
  DeviceBuffer<float> dx(x, static_cast<size_t>(M * D), where), dwg(w_gate, wn, where), dwu(w_up, wn, where);
  DeviceBuffer<float> up(static_cast<size_t>(M * H), where);
  matmul_on_device(dx.get(), F32Rows{dwg.get(), D}, h.get(), M, H, D, where);
  matmul_on_device(dx.get(), F32Rows{dwu.get(), D}, up.get(), M, H, D, where);
  launch(map2<Gate>, grid_for(M * H, kThreads), kThreads, h.get(), up.get(), h.get(), M * H, gate);
  check_launch(where);
}

// The feed-forwards: the hidden layer, then its down projection y = h Wd^T.
template <class Gate>
tl_status ffn(const char* fn, const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
              int64_t M, int64_t D, int64_t H, Gate gate) {
  if (tl_status s = args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;
  if (M == 0 || D == 0) return TL_OK;
  DeviceBuffer<float> h(static_cast<size_t>(M * H), fn), wd(w_down, static_cast<size_t>(D * H), fn);
  DeviceBuffer<float> dy(static_cast<size_t>(M * D), fn);
  if (H > 0) gated_hidden(x, w_gate, w_up, h, M, D, H, gate, fn);
  matmul_on_device(h.get(), F32Rows{wd.get(), H}, dy.get(), M, D, H, fn);  // H == 0: the empty sums, +0
  dy.copy_to(y);
  return TL_OK;
}

}  // namespace konform::cuda

TL_CUDA_EXPORT tl_status tl_matmul_f32(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K) {
  const char* fn = "tl_matmul_f32";
  if (tl_status s = args::check_sizes(fn, {{"M", M}, {"N", N}, {"K", K}})) return s;
  if (M == 0 || N == 0) return TL_OK;
  kc::DeviceBuffer<float> dx(x, static_cast<size_t>(M * K), fn), dw(w, static_cast<size_t>(N * K), fn);
  kc::DeviceBuffer<float> dy(static_cast<size_t>(M * N), fn);
  kc::matmul_on_device(dx.get(), kc::F32Rows{dw.get(), K}, dy.get(), M, N, K, fn);
  dy.copy_to(y);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_swiglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down,
                                           float* y, int64_t M, int64_t D, int64_t H) {
  return kc::ffn("tl_swiglu_ffn_f32", x, w_gate, w_up, w_down, y, M, D, H, kc::SwiGlu{});
}

TL_CUDA_EXPORT tl_status tl_geglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down,
                                          float* y, int64_t M, int64_t D, int64_t H, tl_ffn_gelu gelu) {
  if (tl_status s = args::check_gelu("tl_geglu_ffn_f32", gelu)) return s;
  const int approximation = gelu == TL_FFN_GELU_ERF ? TL_GELU_ERF : TL_GELU_TANH;
  return kc::ffn("tl_geglu_ffn_f32", x, w_gate, w_up, w_down, y, M, D, H, kc::GeGlu{approximation});
}

TL_CUDA_EXPORT tl_status tl_glu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down,
                                        float* y, int64_t M, int64_t D, int64_t H) {
  return kc::ffn("tl_glu_ffn_f32", x, w_gate, w_up, w_down, y, M, D, H, kc::Glu{});
}

TL_CUDA_EXPORT tl_status tl_fused_swiglu_f32(const float* x, const float* w_gate, const float* w_up, float* h,
                                             int64_t M, int64_t D, int64_t H) {
  const char* fn = "tl_fused_swiglu_f32";
  if (tl_status s = args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;
  if (M == 0 || H == 0) return TL_OK;
  kc::DeviceBuffer<float> dh(static_cast<size_t>(M * H), fn);
  kc::gated_hidden(x, w_gate, w_up, dh, M, D, H, kc::SwiGlu{}, fn);
  dh.copy_to(h);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_fused_norm_matmul_f32(const float* x, const float* norm_w, const float* w, float* y,
                                                  int64_t M, int64_t N, int64_t K, float eps) {
  const char* fn = "tl_fused_norm_matmul_f32";
  if (tl_status s = args::check_fused_norm_matmul(fn, M, N, K, eps)) return s;
  if (M == 0 || N == 0) return TL_OK;
  kc::DeviceBuffer<float> dx(x, static_cast<size_t>(M * K), fn), dg(norm_w, static_cast<size_t>(K), fn);
  kc::DeviceBuffer<float> dw(w, static_cast<size_t>(N * K), fn), dz(static_cast<size_t>(M * K), fn);
  kc::DeviceBuffer<float> dy(static_cast<size_t>(M * N), fn);
  kc::launch(kc::norm_rows, kc::grid_for(M, kc::kThreads), kc::kThreads, dx.get(), dg.get(), dz.get(), M, K, eps);
  kc::check_launch(fn);
  kc::matmul_on_device(dz.get(), kc::F32Rows{dw.get(), K}, dy.get(), M, N, K, fn);
  dy.copy_to(y);
  return TL_OK;
}
