#include "scalar/kernels.hpp"

#include <vector>

#include "impl/common/linalg_args.hpp"
#include "konform/reference/bf16.hpp"
#include "konform/reference/f16.hpp"
#include "konform/reference/linalg.hpp"

namespace konform::scalar {
namespace ref = konform::reference;
namespace args = konform::impl::linalg_args;
using ref::ffn::Gate;

tl_status matmul_f32(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K) {
  if (tl_status s = args::check_sizes("tl_matmul_f32", {{"M", M}, {"N", N}, {"K", K}})) return s;
  ref::matmul<float>(x, w, y, M, N, K);
  return TL_OK;
}

namespace {

// f16 and bf16: x and w widened whole (exactly), the oracle's matmul in
// float (pairwise sums of the exact products), each y rounded once.
template <float (*Widen)(uint16_t), uint16_t (*Narrow)(float)>
tl_status matmul_half(const char* name, const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N,
                      int64_t K) {
  if (tl_status s = args::check_sizes(name, {{"M", M}, {"N", N}, {"K", K}})) return s;
  const auto widened = [](const uint16_t* h, int64_t n) {
    std::vector<float> v(static_cast<size_t>(n));
    for (size_t k = 0; k < v.size(); ++k) v[k] = Widen(h[k]);
    return v;
  };
  const std::vector<float> xf = widened(x, M * K), wf = widened(w, N * K);
  std::vector<float> yf(static_cast<size_t>(M * N));
  ref::matmul<float>(xf.data(), wf.data(), yf.data(), M, N, K);
  for (size_t k = 0; k < yf.size(); ++k) y[k] = Narrow(yf[k]);
  return TL_OK;
}

tl_status ffn(const char* fn, const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
              int64_t M, int64_t D, int64_t H, Gate act) {
  if (tl_status s = args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;
  ref::gated_ffn<float>(x, w_gate, w_up, w_down, y, M, D, H, act);
  return TL_OK;
}

}  // namespace

tl_status matmul_f16(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N, int64_t K) {
  return matmul_half<ref::f16_to_f32, ref::f32_to_f16>("tl_matmul_f16", x, w, y, M, N, K);
}

tl_status matmul_bf16(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N, int64_t K) {
  return matmul_half<ref::bf16_to_f32, ref::f32_to_bf16>("tl_matmul_bf16", x, w, y, M, N, K);
}

tl_status swiglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                         int64_t M, int64_t D, int64_t H) {
  return ffn("tl_swiglu_ffn_f32", x, w_gate, w_up, w_down, y, M, D, H, Gate::silu);
}

tl_status geglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                        int64_t M, int64_t D, int64_t H, tl_ffn_gelu gelu) {
  if (tl_status s = args::check_gelu("tl_geglu_ffn_f32", gelu)) return s;
  return ffn("tl_geglu_ffn_f32", x, w_gate, w_up, w_down, y, M, D, H,
             gelu == TL_FFN_GELU_ERF ? Gate::gelu_erf : Gate::gelu_tanh);
}

tl_status glu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y, int64_t M,
                      int64_t D, int64_t H) {
  return ffn("tl_glu_ffn_f32", x, w_gate, w_up, w_down, y, M, D, H, Gate::sigmoid);
}

tl_status fused_swiglu_f32(const float* x, const float* w_gate, const float* w_up, float* h, int64_t M, int64_t D,
                           int64_t H) {
  if (tl_status s = args::check_sizes("tl_fused_swiglu_f32", {{"M", M}, {"D", D}, {"H", H}})) return s;
  ref::gated_hidden<float>(x, w_gate, w_up, h, M, D, H, Gate::silu);
  return TL_OK;
}

tl_status fused_norm_matmul_f32(const float* x, const float* norm_w, const float* w, float* y, int64_t M, int64_t N,
                                int64_t K, float eps) {
  const char* fn = "tl_fused_norm_matmul_f32";
  if (tl_status s = args::check_fused_norm_matmul(fn, M, N, K, eps)) return s;
  ref::fused_norm_matmul<float>(x, norm_w, w, y, M, N, K, eps);
  return TL_OK;
}

}  // namespace konform::scalar
