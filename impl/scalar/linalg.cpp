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

// f16 or bf16 tensors widened whole (exactly) and f32 results rounded once.
template <float (*Widen)(uint16_t), uint16_t (*Narrow)(float)>
struct Half {
  static std::vector<float> in(const uint16_t* h, int64_t n) {
    std::vector<float> v(static_cast<size_t>(n));
    for (size_t k = 0; k < v.size(); ++k) v[k] = Widen(h[k]);
    return v;
  }
  static void out(const std::vector<float>& f, uint16_t* y) {
    for (size_t k = 0; k < f.size(); ++k) y[k] = Narrow(f[k]);
  }
};
using F16 = Half<ref::f16_to_f32, ref::f32_to_f16>;
using BF16 = Half<ref::bf16_to_f32, ref::f32_to_bf16>;

// f16 and bf16: x and w widened whole (exactly), the oracle's matmul in
// float (pairwise sums of the exact products), each y rounded once.
template <class F>
tl_status matmul_half(const char* name, const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N,
                      int64_t K) {
  if (tl_status s = args::check_sizes(name, {{"M", M}, {"N", N}, {"K", K}})) return s;
  const std::vector<float> xf = F::in(x, M * K), wf = F::in(w, N * K);
  std::vector<float> yf(static_cast<size_t>(M * N));
  ref::matmul<float>(xf.data(), wf.data(), yf.data(), M, N, K);
  F::out(yf, y);
  return TL_OK;
}

// The feed-forwards and FusedSwiGlu in f16 and bf16: the float kernels on
// the widened inputs (the hidden layer stays f32), the output rounded once.
template <class F>
tl_status ffn_half(const char* fn, const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up,
                   const uint16_t* w_down, uint16_t* y, int64_t M, int64_t D, int64_t H, Gate act) {
  if (tl_status s = args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;
  const std::vector<float> xf = F::in(x, M * D), gf = F::in(w_gate, H * D), uf = F::in(w_up, H * D);
  if (w_down == nullptr) {  // FusedSwiGlu: y is the hidden layer [M, H]
    std::vector<float> hf(static_cast<size_t>(M * H));
    ref::gated_hidden<float>(xf.data(), gf.data(), uf.data(), hf.data(), M, D, H, act);
    F::out(hf, y);
    return TL_OK;
  }
  const std::vector<float> df = F::in(w_down, D * H);
  std::vector<float> yf(static_cast<size_t>(M * D));
  ref::gated_ffn<float>(xf.data(), gf.data(), uf.data(), df.data(), yf.data(), M, D, H, act);
  F::out(yf, y);
  return TL_OK;
}

// FusedNormMatmul in f16 and bf16: x and w widened, norm_w f32 as given, z in
// float, y rounded once.
template <class F>
tl_status fused_norm_matmul_half(const char* fn, const uint16_t* x, const float* norm_w, const uint16_t* w, uint16_t* y,
                                 int64_t M, int64_t N, int64_t K, float eps) {
  if (tl_status s = args::check_fused_norm_matmul(fn, M, N, K, eps)) return s;
  const std::vector<float> xf = F::in(x, M * K), wf = F::in(w, N * K);
  std::vector<float> yf(static_cast<size_t>(M * N));
  ref::fused_norm_matmul<float>(xf.data(), norm_w, wf.data(), yf.data(), M, N, K, eps);
  F::out(yf, y);
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
  return matmul_half<F16>("tl_matmul_f16", x, w, y, M, N, K);
}

tl_status matmul_bf16(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N, int64_t K) {
  return matmul_half<BF16>("tl_matmul_bf16", x, w, y, M, N, K);
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

// generate_exports.py finds these definitions at the start of a line.

tl_status swiglu_ffn_f16(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, const uint16_t* w_down,
                         uint16_t* y, int64_t M, int64_t D, int64_t H) {
  return ffn_half<F16>("tl_swiglu_ffn_f16", x, w_gate, w_up, w_down, y, M, D, H, Gate::silu);
}

tl_status geglu_ffn_f16(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, const uint16_t* w_down,
                        uint16_t* y, int64_t M, int64_t D, int64_t H, tl_ffn_gelu gelu) {
  if (tl_status s = args::check_gelu("tl_geglu_ffn_f16", gelu)) return s;
  return ffn_half<F16>("tl_geglu_ffn_f16", x, w_gate, w_up, w_down, y, M, D, H,
                       gelu == TL_FFN_GELU_ERF ? Gate::gelu_erf : Gate::gelu_tanh);
}

tl_status glu_ffn_f16(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, const uint16_t* w_down,
                      uint16_t* y, int64_t M, int64_t D, int64_t H) {
  return ffn_half<F16>("tl_glu_ffn_f16", x, w_gate, w_up, w_down, y, M, D, H, Gate::sigmoid);
}

tl_status fused_swiglu_f16(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, uint16_t* h, int64_t M,
                           int64_t D, int64_t H) {
  return ffn_half<F16>("tl_fused_swiglu_f16", x, w_gate, w_up, nullptr, h, M, D, H, Gate::silu);
}

tl_status fused_norm_matmul_f16(const uint16_t* x, const float* norm_w, const uint16_t* w, uint16_t* y, int64_t M,
                                int64_t N, int64_t K, float eps) {
  return fused_norm_matmul_half<F16>("tl_fused_norm_matmul_f16", x, norm_w, w, y, M, N, K, eps);
}

tl_status swiglu_ffn_bf16(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, const uint16_t* w_down,
                          uint16_t* y, int64_t M, int64_t D, int64_t H) {
  return ffn_half<BF16>("tl_swiglu_ffn_bf16", x, w_gate, w_up, w_down, y, M, D, H, Gate::silu);
}

tl_status geglu_ffn_bf16(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, const uint16_t* w_down,
                         uint16_t* y, int64_t M, int64_t D, int64_t H, tl_ffn_gelu gelu) {
  if (tl_status s = args::check_gelu("tl_geglu_ffn_bf16", gelu)) return s;
  return ffn_half<BF16>("tl_geglu_ffn_bf16", x, w_gate, w_up, w_down, y, M, D, H,
                        gelu == TL_FFN_GELU_ERF ? Gate::gelu_erf : Gate::gelu_tanh);
}

tl_status glu_ffn_bf16(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, const uint16_t* w_down,
                       uint16_t* y, int64_t M, int64_t D, int64_t H) {
  return ffn_half<BF16>("tl_glu_ffn_bf16", x, w_gate, w_up, w_down, y, M, D, H, Gate::sigmoid);
}

tl_status fused_swiglu_bf16(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, uint16_t* h, int64_t M,
                            int64_t D, int64_t H) {
  return ffn_half<BF16>("tl_fused_swiglu_bf16", x, w_gate, w_up, nullptr, h, M, D, H, Gate::silu);
}

tl_status fused_norm_matmul_bf16(const uint16_t* x, const float* norm_w, const uint16_t* w, uint16_t* y, int64_t M,
                                 int64_t N, int64_t K, float eps) {
  return fused_norm_matmul_half<BF16>("tl_fused_norm_matmul_bf16", x, norm_w, w, y, M, N, K, eps);
}

}  // namespace konform::scalar
