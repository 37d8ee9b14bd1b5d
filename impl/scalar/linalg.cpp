#include "scalar/kernels.hpp"

#include "impl/common/linalg_args.hpp"
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

tl_status ffn(const char* fn, const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
              int64_t M, int64_t D, int64_t H, Gate act) {
  if (tl_status s = args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;
  ref::gated_ffn<float>(x, w_gate, w_up, w_down, y, M, D, H, act);
  return TL_OK;
}

}  // namespace

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
