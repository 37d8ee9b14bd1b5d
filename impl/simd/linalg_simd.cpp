// libtl_kernels: tinyllm/linalg.h (Matmul, the feed-forwards, the fused ops)
// and the quantized matmuls of tinyllm/quant.h, compiled once per Highway
// target (foreach_target) and chosen at run time (HWY_DYNAMIC_DISPATCH).
//
// The f32 ops are the one matmul, y = x @ W^T, with x and W from different
// sources: M <= kStripRows rows take the unpacked strip path (W read once:
// decode), more take the packed path; both sum every output the same way, and
// threads split the columns, so no result depends on M, on the path or on
// the thread count. The quantized matmuls decode their blocks in registers
// and sum in their own order (qmatmul-inl.h), with the same guarantees.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/simd/linalg_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "impl/simd/ffn_gate-inl.h"
#include "impl/simd/half-inl.h"
#include "impl/simd/matmul_gemm-inl.h"
#include "impl/simd/matmul_half-inl.h"
#include "impl/simd/matmul_pairs-inl.h"
#include "impl/simd/matmul_strip-inl.h"
#include "impl/simd/matmul_weights-inl.h"
#include "impl/simd/parallel.h"
#include "impl/simd/qmatmul-inl.h"

HWY_BEFORE_NAMESPACE();
namespace konform::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Below this many multiply-adds one thread does it all (a thread costs tens
// of microseconds to start).
constexpr int64_t kParallelWork = int64_t{1} << 22;

// fn(n0, n1) for column ranges of y, whole multiples of `align` (the tile
// width), one per thread; one thread below kParallelWork multiply-adds.
template <class Fn>
void ForColumnRanges(int64_t M, int64_t N, int64_t K, int64_t align, const Fn& fn) {
  const int64_t work = M * N * std::max<int64_t>(K, 1);
  const int64_t threads = work >= kParallelWork ? ThreadCount() : 1;
  const int64_t per = ((N + threads - 1) / threads + align - 1) / align * align;
  const int64_t tasks = (N + per - 1) / per;
  ParallelFor(tasks, [&](int64_t t) {
    const int64_t n0 = t * per;
    fn(n0, std::min(N, n0 + per));
  });
}

// y = x @ W^T with y's row stride ldy; x rows from `rows` (packed path) or
// the plain x (strip path, x != nullptr when M <= kStripRows).
template <class Rows, class Weights>
void MatmulFrom(const Rows& rows, const float* x, int64_t ldx, const Weights& w, float* y, int64_t ldy, int64_t M,
                int64_t N, int64_t K) {
  if (M <= 0 || N <= 0) return;
  const bool strip = M <= kStripRows;
  ForColumnRanges(M, N, K, strip ? 8 : GemmNR(), [&](int64_t n0, int64_t n1) {
    if (strip) {
      StripPath(x, ldx, w, y, ldy, M, n0, n1, K);
    } else {
      GemmBuffers buf;
      GemmColumns(rows, w, y, ldy, M, n0, n1, K, buf);
    }
  });
}

template <class Weights>
void MatmulPlain(const float* x, const Weights& w, float* y, int64_t ldy, int64_t M, int64_t N, int64_t K) {
  MatmulFrom(F32Rows{x, K}, x, K, w, y, ldy, M, N, K);
}

void MatmulF32(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K) {
  MatmulPlain(x, F32Weights{w, K}, y, N, M, N, K);
}

// f16 and bf16 (matmul_half-inl.h): the f32 matmul's sums of the widened
// values into an f32 buffer, rounded once. A few rows (the strip path reads
// x as floats) are widened whole first.
template <class Format>
void MatmulHalf(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N, int64_t K) {
  if (M <= 0 || N <= 0) return;
  auto yf = hwy::AllocateAligned<float>(static_cast<size_t>(M * N));
  hwy::AlignedFreeUniquePtr<float[]> xf;
  if (M <= kStripRows) {
    xf = hwy::AllocateAligned<float>(static_cast<size_t>(std::max<int64_t>(M * K, 1)));
    WidenRun<Format>(x, xf.get(), M * K);
  }
  MatmulFrom(HalfRows<Format>{x, K}, xf.get(), K, HalfWeights<Format>{w, K}, yf.get(), N, M, N, K);
  half::Narrow<Format>(yf.get(), y, static_cast<size_t>(M * N));
}

void MatmulF16(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N, int64_t K) {
  MatmulHalf<half::F16>(x, w, y, M, N, K);
}
void MatmulBF16(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N, int64_t K) {
#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86_64
  // With AVX512_BF16, pairs of k per lane (matmul_pairs-inl.h) at every M,
  // in one order: the strip path's emulated pairs for a few rows (x widened
  // whole, an odd K's last value paired with a zero), the packed path's
  // tiles for more.
  if (HasBf16DotPairs()) {
    if (M <= 0 || N <= 0) return;
    const int64_t pairs = (K + 1) / 2;
    auto yf = hwy::AllocateAligned<float>(static_cast<size_t>(M * N));
    if (M <= kStripRows) {
      auto xf = hwy::AllocateAligned<float>(static_cast<size_t>(std::max<int64_t>(M * 2 * pairs, 1)));
      for (int64_t m = 0; m < M; ++m) {
        WidenRun<half::BF16>(x + m * K, xf.get() + m * 2 * pairs, K);
        if (K % 2 != 0) xf[static_cast<size_t>(m * 2 * pairs + K)] = 0.0f;
      }
      ForColumnRanges(M, N, pairs, 8, [&](int64_t n0, int64_t n1) {
        StripPath(xf.get(), 2 * pairs, PairWeights{w, K}, yf.get(), N, M, n0, n1, pairs);
      });
    } else {
      ForColumnRanges(M, N, pairs, GemmNR(), [&](int64_t n0, int64_t n1) {
        GemmBuffers buf;
        GemmColumns(PairRows{x, K}, PairWeights{w, K}, yf.get(), N, M, n0, n1, pairs, buf, PairTiles());
      });
    }
    half::Narrow<half::BF16>(yf.get(), y, static_cast<size_t>(M * N));
    return;
  }
#endif
  MatmulHalf<half::BF16>(x, w, y, M, N, K);
}

// The quantized matmuls have their own order (qmatmul-inl.h): k along the
// lanes, the blocks decoded in registers.
void QMatmul(int format, const float* x, const uint8_t* w, float* y, int64_t M, int64_t N, int64_t K) {
  switch (static_cast<QFormat>(format)) {
    case QFormat::q8_0: QMatmulFused<QFormat::q8_0>(x, w, y, M, N, K); break;
    case QFormat::q4_0: QMatmulFused<QFormat::q4_0>(x, w, y, M, N, K); break;
    case QFormat::q4_k: QMatmulFused<QFormat::q4_k>(x, w, y, M, N, K); break;
  }
}

// ---------------------------------------------------------------- FusedNormMatmul

// Rows of RmsNorm(x): z = (x * inv[m]) * g, formed while x is packed, so the
// normalized rows never exist as a tensor.
struct NormRows {
  const float* x;
  int64_t K;
  const float* inv;
  const float* g;
  HWY_INLINE void Pack(int64_t m, int64_t k0, int64_t kc, float* out, int64_t stride) const {
    const float* src = x + m * K + k0;
    const float s = inv[m];
    for (int64_t k = 0; k < kc; ++k) out[k * stride] = src[k] * s * g[k0 + k];
  }
};

void FusedNormMatmulF32(const float* x, const float* g, const float* w, float* y, int64_t M, int64_t N, int64_t K,
                        float eps) {
  // 1 / sqrt(mean(x^2) + eps) per row: the sum of squares in double (no
  // overflow, no order to choose), rounded once to float.
  auto inv = hwy::AllocateAligned<float>(static_cast<size_t>(std::max<int64_t>(M, 1)));
  for (int64_t m = 0; m < M; ++m) {
    double sum = 0;
    for (int64_t k = 0; k < K; ++k) sum += static_cast<double>(x[m * K + k]) * x[m * K + k];
    inv[m] = static_cast<float>(1.0 / std::sqrt(sum / static_cast<double>(K) + static_cast<double>(eps)));
  }
  const NormRows rows{x, K, inv.get(), g};
  if (M > kStripRows) {
    MatmulFrom(rows, nullptr, K, F32Weights{w, K}, y, N, M, N, K);
    return;
  }
  // A few rows (decode): normalized into a small buffer for the strip path.
  auto z = hwy::AllocateAligned<float>(static_cast<size_t>(std::max<int64_t>(M * K, 1)));
  for (int64_t m = 0; m < M; ++m) rows.Pack(m, 0, K, z.get() + m * K, 1);
  MatmulFrom(rows, z.get(), K, F32Weights{w, K}, y, N, M, N, K);
}

// ---------------------------------------------------------------- feed-forwards

// Rows and columns of the hidden layer done at a time: the gate and up
// blocks (2 x 256 x 256 floats) stay in L2 between the matmuls and the gate.
constexpr int64_t kHiddenRows = 256, kHiddenCols = 256;

// h[:, :] = act(x @ w_gate^T) * (x @ w_up^T), h with row stride ldh.
void GatedHidden(GateKind act, const float* x, const float* w_gate, const float* w_up, float* h, int64_t ldh, int64_t M,
                 int64_t D, int64_t H) {
  auto gate = hwy::AllocateAligned<float>(static_cast<size_t>(kHiddenRows * kHiddenCols));
  auto up = hwy::AllocateAligned<float>(static_cast<size_t>(kHiddenRows * kHiddenCols));
  for (int64_t m0 = 0; m0 < M; m0 += kHiddenRows) {
    const int64_t mr = std::min(kHiddenRows, M - m0);
    for (int64_t h0 = 0; h0 < H; h0 += kHiddenCols) {
      const int64_t hc = std::min(kHiddenCols, H - h0);
      MatmulPlain(x + m0 * D, F32Weights{w_gate + h0 * D, D}, gate.get(), hc, mr, hc, D);
      MatmulPlain(x + m0 * D, F32Weights{w_up + h0 * D, D}, up.get(), hc, mr, hc, D);
      for (int64_t m = 0; m < mr; ++m)
        GateMul(act, gate.get() + m * hc, up.get() + m * hc, h + (m0 + m) * ldh + h0, hc);
    }
  }
}

void FusedSwiGluF32(const float* x, const float* w_gate, const float* w_up, float* h, int64_t M, int64_t D, int64_t H) {
  GatedHidden(GateKind::silu, x, w_gate, w_up, h, H, M, D, H);
}

// y = (act(x Wg^T) * (x Wu^T)) @ w_down^T: the hidden layer [M, H] is the
// one tensor in between (the input of the third matmul).
void GatedFfnF32(int act, const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                 int64_t M, int64_t D, int64_t H) {
  auto hidden = hwy::AllocateAligned<float>(static_cast<size_t>(std::max<int64_t>(M * H, 1)));
  GatedHidden(static_cast<GateKind>(act), x, w_gate, w_up, hidden.get(), H, M, D, H);
  MatmulPlain(hidden.get(), F32Weights{w_down, H}, y, D, M, D, H);
}

}  // namespace konform::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <vector>

#include "impl/common/linalg_args.hpp"
#include "impl/common/quant_args.hpp"
#include "tinyllm/linalg.h"
#include "tinyllm/quant.h"
#include "tinyllm/tensor.h"

namespace konform::simd {

HWY_EXPORT(MatmulF32);
HWY_EXPORT(MatmulF16);
HWY_EXPORT(MatmulBF16);
HWY_EXPORT(QMatmul);
HWY_EXPORT(FusedNormMatmulF32);
HWY_EXPORT(FusedSwiGluF32);
HWY_EXPORT(GatedFfnF32);

}  // namespace konform::simd

namespace ks = konform::simd;
namespace args = konform::impl::linalg_args;
namespace qargs = konform::impl::quant_args;

namespace {

// The HWY_NAMESPACE-independent names of the gates (GateKind's order).
enum Gate { kSilu = 0, kGeluErf = 1, kGeluTanh = 2, kSigmoid = 3 };

tl_status ffn(const char* fn, int gate, const float* x, const float* w_gate, const float* w_up, const float* w_down,
              float* y, int64_t M, int64_t D, int64_t H) {
  if (tl_status s = args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;
  HWY_DYNAMIC_DISPATCH(ks::GatedFfnF32)(gate, x, w_gate, w_up, w_down, y, M, D, H);
  return TL_OK;
}

// The feed-forwards and fused ops in f16 and bf16: the inputs widened by the
// library's own casts (cast_simd.cpp), the f32 kernels (the hidden layer and
// FusedNormMatmul's z stay f32), the output rounded back once.
struct HalfCasts {
  void (*widen)(const uint16_t*, float*, int64_t);
  void (*narrow)(const float*, uint16_t*, int64_t);
  std::vector<float> in(const uint16_t* h, int64_t n) const {
    std::vector<float> f(static_cast<size_t>(n));
    widen(h, f.data(), n);
    return f;
  }
};
constexpr HalfCasts kF16Casts{tl_cast_f16_to_f32, tl_cast_f32_to_f16};
constexpr HalfCasts kBF16Casts{tl_cast_bf16_to_f32, tl_cast_f32_to_bf16};

// w_down null: FusedSwiGlu, y the hidden layer [M, H].
tl_status ffn_half(const char* fn, const HalfCasts& c, int gate, const uint16_t* x, const uint16_t* w_gate,
                   const uint16_t* w_up, const uint16_t* w_down, uint16_t* y, int64_t M, int64_t D, int64_t H) {
  if (tl_status s = args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;
  const std::vector<float> xf = c.in(x, M * D), gf = c.in(w_gate, H * D), uf = c.in(w_up, H * D);
  const int64_t count = w_down == nullptr ? M * H : M * D;
  std::vector<float> yf(static_cast<size_t>(count));
  if (w_down == nullptr) {
    HWY_DYNAMIC_DISPATCH(ks::FusedSwiGluF32)(xf.data(), gf.data(), uf.data(), yf.data(), M, D, H);
  } else {
    const std::vector<float> df = c.in(w_down, D * H);
    HWY_DYNAMIC_DISPATCH(ks::GatedFfnF32)(gate, xf.data(), gf.data(), uf.data(), df.data(), yf.data(), M, D, H);
  }
  c.narrow(yf.data(), y, count);
  return TL_OK;
}

tl_status norm_matmul_half(const char* fn, const HalfCasts& c, const uint16_t* x, const float* norm_w,
                           const uint16_t* w, uint16_t* y, int64_t M, int64_t N, int64_t K, float eps) {
  if (tl_status s = args::check_fused_norm_matmul(fn, M, N, K, eps)) return s;
  const std::vector<float> xf = c.in(x, M * K), wf = c.in(w, N * K);
  std::vector<float> yf(static_cast<size_t>(M * N));
  HWY_DYNAMIC_DISPATCH(ks::FusedNormMatmulF32)(xf.data(), norm_w, wf.data(), yf.data(), M, N, K, eps);
  c.narrow(yf.data(), y, M * N);
  return TL_OK;
}

tl_status qmatmul(const char* fn, int format, int64_t qk, const float* x, const void* w, float* y, int64_t M, int64_t N,
                  int64_t K) {
  if (tl_status s = qargs::check_qmatmul(fn, M, N, K, qk)) return s;
  HWY_DYNAMIC_DISPATCH(ks::QMatmul)(format, x, static_cast<const uint8_t*>(w), y, M, N, K);
  return TL_OK;
}

}  // namespace

extern "C" {

tl_status tl_matmul_f32(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K) {
  if (tl_status s = args::check_sizes("tl_matmul_f32", {{"M", M}, {"N", N}, {"K", K}})) return s;
  HWY_DYNAMIC_DISPATCH(ks::MatmulF32)(x, w, y, M, N, K);
  return TL_OK;
}

// f16 and bf16: the same checks (the sizes rule counts 4 bytes an element).
tl_status tl_matmul_f16(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N, int64_t K) {
  if (tl_status s = args::check_sizes("tl_matmul_f16", {{"M", M}, {"N", N}, {"K", K}})) return s;
  HWY_DYNAMIC_DISPATCH(ks::MatmulF16)(x, w, y, M, N, K);
  return TL_OK;
}

tl_status tl_matmul_bf16(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N, int64_t K) {
  if (tl_status s = args::check_sizes("tl_matmul_bf16", {{"M", M}, {"N", N}, {"K", K}})) return s;
  HWY_DYNAMIC_DISPATCH(ks::MatmulBF16)(x, w, y, M, N, K);
  return TL_OK;
}

tl_status tl_swiglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                            int64_t M, int64_t D, int64_t H) {
  return ffn("tl_swiglu_ffn_f32", kSilu, x, w_gate, w_up, w_down, y, M, D, H);
}

tl_status tl_geglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                           int64_t M, int64_t D, int64_t H, tl_ffn_gelu gelu) {
  if (tl_status s = args::check_gelu("tl_geglu_ffn_f32", gelu)) return s;
  return ffn("tl_geglu_ffn_f32", gelu == TL_FFN_GELU_ERF ? kGeluErf : kGeluTanh, x, w_gate, w_up, w_down, y, M, D, H);
}

tl_status tl_glu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                         int64_t M, int64_t D, int64_t H) {
  return ffn("tl_glu_ffn_f32", kSigmoid, x, w_gate, w_up, w_down, y, M, D, H);
}

tl_status tl_fused_swiglu_f32(const float* x, const float* w_gate, const float* w_up, float* h, int64_t M, int64_t D,
                              int64_t H) {
  if (tl_status s = args::check_sizes("tl_fused_swiglu_f32", {{"M", M}, {"D", D}, {"H", H}})) return s;
  HWY_DYNAMIC_DISPATCH(ks::FusedSwiGluF32)(x, w_gate, w_up, h, M, D, H);
  return TL_OK;
}

tl_status tl_fused_norm_matmul_f32(const float* x, const float* norm_w, const float* w, float* y, int64_t M, int64_t N,
                                   int64_t K, float eps) {
  const char* fn = "tl_fused_norm_matmul_f32";
  if (tl_status s = args::check_fused_norm_matmul(fn, M, N, K, eps)) return s;
  HWY_DYNAMIC_DISPATCH(ks::FusedNormMatmulF32)(x, norm_w, w, y, M, N, K, eps);
  return TL_OK;
}

#define KONFORM_SIMD_FFN_HALF(Dtype, casts)                                                                         \
  tl_status tl_swiglu_ffn_##Dtype(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up,                  \
                                  const uint16_t* w_down, uint16_t* y, int64_t M, int64_t D, int64_t H) {           \
    return ffn_half("tl_swiglu_ffn_" #Dtype, casts, kSilu, x, w_gate, w_up, w_down, y, M, D, H);                    \
  }                                                                                                                 \
  tl_status tl_geglu_ffn_##Dtype(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up,                   \
                                 const uint16_t* w_down, uint16_t* y, int64_t M, int64_t D, int64_t H,              \
                                 tl_ffn_gelu gelu) {                                                                \
    if (tl_status s = args::check_gelu("tl_geglu_ffn_" #Dtype, gelu)) return s;                                     \
    return ffn_half("tl_geglu_ffn_" #Dtype, casts, gelu == TL_FFN_GELU_ERF ? kGeluErf : kGeluTanh, x, w_gate, w_up, \
                    w_down, y, M, D, H);                                                                            \
  }                                                                                                                 \
  tl_status tl_glu_ffn_##Dtype(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up,                     \
                               const uint16_t* w_down, uint16_t* y, int64_t M, int64_t D, int64_t H) {              \
    return ffn_half("tl_glu_ffn_" #Dtype, casts, kSigmoid, x, w_gate, w_up, w_down, y, M, D, H);                    \
  }                                                                                                                 \
  tl_status tl_fused_swiglu_##Dtype(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, uint16_t* h,   \
                                    int64_t M, int64_t D, int64_t H) {                                              \
    return ffn_half("tl_fused_swiglu_" #Dtype, casts, kSilu, x, w_gate, w_up, nullptr, h, M, D, H);                 \
  }                                                                                                                 \
  tl_status tl_fused_norm_matmul_##Dtype(const uint16_t* x, const float* norm_w, const uint16_t* w, uint16_t* y,    \
                                         int64_t M, int64_t N, int64_t K, float eps) {                              \
    return norm_matmul_half("tl_fused_norm_matmul_" #Dtype, casts, x, norm_w, w, y, M, N, K, eps);                  \
  }
KONFORM_SIMD_FFN_HALF(f16, kF16Casts)
KONFORM_SIMD_FFN_HALF(bf16, kBF16Casts)
#undef KONFORM_SIMD_FFN_HALF

tl_status tl_qmatmul_q8_0_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return qmatmul("tl_qmatmul_q8_0_f32", 0, TL_QK8_0, x, w, y, M, N, K);
}

tl_status tl_qmatmul_q4_0_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return qmatmul("tl_qmatmul_q4_0_f32", 1, TL_QK4_0, x, w, y, M, N, K);
}

tl_status tl_qmatmul_q4_k_f32(const float* x, const void* w, float* y, int64_t M, int64_t N, int64_t K) {
  return qmatmul("tl_qmatmul_q4_k_f32", 2, TL_QK_K, x, w, y, M, N, K);
}

}  // extern "C"
#endif  // HWY_ONCE
