// libtl_cuda: tinyllm/linalg.h on a CUDA device and its device-pointer
// twins, as elementwise.cu. Every product is matmul.cuh's tiled one (a float
// multiply-add chain in k order per output); the gates are activations.cu's (gates.cuh); the hidden layer
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
#include "tinyllm/cuda/linalg.h"
#include "tinyllm/cuda/tensor.h"

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

// h = gate(x Wg^T) * (x Wu^T) on device pointers, h: [M, H] (M * H > 0).
// Waits for `stream` (the up projection is scratch).
template <class Gate>
void gated_hidden(const float* x, const float* w_gate, const float* w_up, float* h, int64_t M, int64_t D, int64_t H,
                  Gate gate, const char* where, tl_cuda_stream stream) {
  DeviceBuffer<float> up(static_cast<size_t>(M * H), where, stream);
  matmul_on_device(x, F32Rows{w_gate, D}, h, M, H, D, where, stream);
  matmul_on_device(x, F32Rows{w_up, D}, up.get(), M, H, D, where, stream);
  run_map2(h, up.get(), h, M * H, gate, where, stream);
}

// The feed-forwards: the hidden layer (scratch: waits for `stream`), then
// its down projection y = h Wd^T.
template <class Gate>
tl_status ffn_dev(const char* fn, const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                  int64_t M, int64_t D, int64_t H, Gate gate, tl_cuda_stream stream) {
  if (tl_status s = args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;
  if (M == 0 || D == 0) return TL_OK;
  DeviceBuffer<float> h(static_cast<size_t>(M * H), fn, stream);
  if (H > 0) gated_hidden(x, w_gate, w_up, h.get(), M, D, H, gate, fn, stream);
  matmul_on_device(h.get(), F32Rows{w_down, H}, y, M, D, H, fn, stream);  // H == 0: the empty sums, +0
  return TL_OK;
}

// Their host functions: the weights and x in, y out.
template <class Dev, class... Gelu>
tl_status ffn_host(const char* fn, Dev dev, const float* x, const float* w_gate, const float* w_up, const float* w_down,
                   float* y, int64_t M, int64_t D, int64_t H, Gelu... gelu) {
  if (tl_status s = args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;
  if (M == 0 || D == 0) return TL_OK;
  return on_device(fn, dev, in(x, M * D), in(w_gate, H * D), in(w_up, H * D), in(w_down, D * H), out(y, M * D), M, D, H,
                   gelu...);
}

// f16 and bf16 inputs widened on the device by the casts' kernels into f32
// scratch (waits for `stream`); `narrow` rounds an f32 result back once.
struct HalfCasts {
  void (*widen)(const uint16_t*, float*, int64_t, tl_cuda_stream);
  void (*narrow)(const float*, uint16_t*, int64_t, tl_cuda_stream);
};
constexpr HalfCasts kF16Casts{tl_cast_f16_to_f32_dev, tl_cast_f32_to_f16_dev};
constexpr HalfCasts kBF16Casts{tl_cast_bf16_to_f32_dev, tl_cast_f32_to_bf16_dev};

struct Widened {
  DeviceBuffer<float> buffer;
  Widened(const HalfCasts& c, const uint16_t* h, int64_t n, const char* where, tl_cuda_stream stream)
      : buffer(static_cast<size_t>(n), where, stream) {
    if (n > 0) c.widen(h, buffer.get(), n, stream);
  }
  float* get() const { return buffer.get(); }
};

}  // namespace konform::cuda

TL_CUDA_EXPORT tl_status tl_matmul_f32_dev(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K,
                                           tl_cuda_stream stream) {
  const char* fn = "tl_matmul_f32";
  if (tl_status s = args::check_sizes(fn, {{"M", M}, {"N", N}, {"K", K}})) return s;
  kc::matmul_on_device(x, kc::F32Rows{w, K}, y, M, N, K, fn, stream);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_matmul_f32(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K) {
  const char* fn = "tl_matmul_f32";
  if (tl_status s = args::check_sizes(fn, {{"M", M}, {"N", N}, {"K", K}})) return s;
  if (M == 0 || N == 0) return TL_OK;
  return kc::on_device(fn, tl_matmul_f32_dev, kc::in(x, M * K), kc::in(w, N * K), kc::out(y, M * N), M, N, K);
}

// f16 and bf16: the f32 chains on widened values, y rounded once (matmul.cuh).
#define TL_CUDA_MATMUL_HALF(Dtype, Format)                                                                             \
  TL_CUDA_EXPORT tl_status tl_matmul_##Dtype##_dev(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M,       \
                                                   int64_t N, int64_t K, tl_cuda_stream stream) {                      \
    const char* fn = "tl_matmul_" #Dtype;                                                                              \
    if (tl_status s = args::check_sizes(fn, {{"M", M}, {"N", N}, {"K", K}})) return s;                                 \
    kc::matmul_chains_on_device<kc::Format>(x, w, y, M, N, K, fn, stream);                                             \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_matmul_##Dtype(const uint16_t* x, const uint16_t* w, uint16_t* y, int64_t M, int64_t N,  \
                                             int64_t K) {                                                              \
    const char* fn = "tl_matmul_" #Dtype;                                                                              \
    if (tl_status s = args::check_sizes(fn, {{"M", M}, {"N", N}, {"K", K}})) return s;                                 \
    if (M == 0 || N == 0) return TL_OK;                                                                                \
    return kc::on_device(fn, tl_matmul_##Dtype##_dev, kc::in(x, M * K), kc::in(w, N * K), kc::out(y, M * N), M, N, K); \
  }
TL_CUDA_MATMUL_HALF(f16, F16)
TL_CUDA_MATMUL_HALF(bf16, BF16)
#undef TL_CUDA_MATMUL_HALF

TL_CUDA_EXPORT tl_status tl_swiglu_ffn_f32_dev(const float* x, const float* w_gate, const float* w_up,
                                               const float* w_down, float* y, int64_t M, int64_t D, int64_t H,
                                               tl_cuda_stream stream) {
  return kc::ffn_dev("tl_swiglu_ffn_f32", x, w_gate, w_up, w_down, y, M, D, H, kc::SwiGlu{}, stream);
}

TL_CUDA_EXPORT tl_status tl_swiglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down,
                                           float* y, int64_t M, int64_t D, int64_t H) {
  return kc::ffn_host("tl_swiglu_ffn_f32", tl_swiglu_ffn_f32_dev, x, w_gate, w_up, w_down, y, M, D, H);
}

TL_CUDA_EXPORT tl_status tl_geglu_ffn_f32_dev(const float* x, const float* w_gate, const float* w_up,
                                              const float* w_down, float* y, int64_t M, int64_t D, int64_t H,
                                              tl_ffn_gelu gelu, tl_cuda_stream stream) {
  if (tl_status s = args::check_gelu("tl_geglu_ffn_f32", gelu)) return s;
  const int approximation = gelu == TL_FFN_GELU_ERF ? TL_GELU_ERF : TL_GELU_TANH;
  return kc::ffn_dev("tl_geglu_ffn_f32", x, w_gate, w_up, w_down, y, M, D, H, kc::GeGlu{approximation}, stream);
}

TL_CUDA_EXPORT tl_status tl_geglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down,
                                          float* y, int64_t M, int64_t D, int64_t H, tl_ffn_gelu gelu) {
  if (tl_status s = args::check_gelu("tl_geglu_ffn_f32", gelu)) return s;
  return kc::ffn_host("tl_geglu_ffn_f32", tl_geglu_ffn_f32_dev, x, w_gate, w_up, w_down, y, M, D, H, gelu);
}

TL_CUDA_EXPORT tl_status tl_glu_ffn_f32_dev(const float* x, const float* w_gate, const float* w_up, const float* w_down,
                                            float* y, int64_t M, int64_t D, int64_t H, tl_cuda_stream stream) {
  return kc::ffn_dev("tl_glu_ffn_f32", x, w_gate, w_up, w_down, y, M, D, H, kc::Glu{}, stream);
}

TL_CUDA_EXPORT tl_status tl_glu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down,
                                        float* y, int64_t M, int64_t D, int64_t H) {
  return kc::ffn_host("tl_glu_ffn_f32", tl_glu_ffn_f32_dev, x, w_gate, w_up, w_down, y, M, D, H);
}

// Waits for `stream` (the up projection is scratch).
TL_CUDA_EXPORT tl_status tl_fused_swiglu_f32_dev(const float* x, const float* w_gate, const float* w_up, float* h,
                                                 int64_t M, int64_t D, int64_t H, tl_cuda_stream stream) {
  const char* fn = "tl_fused_swiglu_f32";
  if (tl_status s = args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;
  if (M == 0 || H == 0) return TL_OK;
  kc::gated_hidden(x, w_gate, w_up, h, M, D, H, kc::SwiGlu{}, fn, stream);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_fused_swiglu_f32(const float* x, const float* w_gate, const float* w_up, float* h,
                                             int64_t M, int64_t D, int64_t H) {
  const char* fn = "tl_fused_swiglu_f32";
  if (tl_status s = args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;
  if (M == 0 || H == 0) return TL_OK;
  return kc::on_device(fn, tl_fused_swiglu_f32_dev, kc::in(x, M * D), kc::in(w_gate, H * D), kc::in(w_up, H * D),
                       kc::out(h, M * H), M, D, H);
}

// Waits for `stream` (the normalized x is scratch).
TL_CUDA_EXPORT tl_status tl_fused_norm_matmul_f32_dev(const float* x, const float* norm_w, const float* w, float* y,
                                                      int64_t M, int64_t N, int64_t K, float eps,
                                                      tl_cuda_stream stream) {
  const char* fn = "tl_fused_norm_matmul_f32";
  if (tl_status s = args::check_fused_norm_matmul(fn, M, N, K, eps)) return s;
  if (M == 0 || N == 0) return TL_OK;
  kc::DeviceBuffer<float> dz(static_cast<size_t>(M * K), fn, stream);
  kc::launch(kc::norm_rows, kc::grid_for(M, kc::kThreads), kc::kThreads, stream, x, norm_w, dz.get(), M, K, eps);
  kc::check_launch(fn);
  kc::matmul_on_device(dz.get(), kc::F32Rows{w, K}, y, M, N, K, fn, stream);
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_fused_norm_matmul_f32(const float* x, const float* norm_w, const float* w, float* y,
                                                  int64_t M, int64_t N, int64_t K, float eps) {
  const char* fn = "tl_fused_norm_matmul_f32";
  if (tl_status s = args::check_fused_norm_matmul(fn, M, N, K, eps)) return s;
  if (M == 0 || N == 0) return TL_OK;
  return kc::on_device(fn, tl_fused_norm_matmul_f32_dev, kc::in(x, M * K), kc::in(norm_w, K), kc::in(w, N * K),
                       kc::out(y, M * N), M, N, K, eps);
}

namespace {

// A half feed-forward on device pointers: x and the weights widened, `f32`
// the f32 twin's call on the widened pointers, y rounded back.
template <class F32>
tl_status ffn_half_dev(const char* fn, const kc::HalfCasts& c, const uint16_t* x, const uint16_t* w_gate,
                       const uint16_t* w_up, const uint16_t* w_down, uint16_t* y, int64_t M, int64_t D, int64_t H,
                       tl_cuda_stream stream, F32 f32) {
  if (tl_status s = args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;
  if (M == 0 || D == 0) return TL_OK;
  const kc::Widened xf(c, x, M * D, fn, stream), gf(c, w_gate, H * D, fn, stream), uf(c, w_up, H * D, fn, stream),
      df(c, w_down, D * H, fn, stream);
  kc::DeviceBuffer<float> yf(static_cast<size_t>(M * D), fn, stream);
  if (tl_status s = f32(xf.get(), gf.get(), uf.get(), df.get(), yf.get())) return s;
  c.narrow(yf.get(), y, M * D, stream);
  return TL_OK;
}

template <class Dev, class... Gelu>
tl_status ffn_half_host(const char* fn, Dev dev, const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up,
                        const uint16_t* w_down, uint16_t* y, int64_t M, int64_t D, int64_t H, Gelu... gelu) {
  if (tl_status s = args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;
  if (M == 0 || D == 0) return TL_OK;
  return kc::on_device(fn, dev, kc::in(x, M * D), kc::in(w_gate, H * D), kc::in(w_up, H * D), kc::in(w_down, D * H),
                       kc::out(y, M * D), M, D, H, gelu...);
}

}  // namespace

// The feed-forwards and fused ops in f16 and bf16: the inputs widened on the
// device, the f32 functions (the hidden layer and z stay f32), the output
// rounded back once.
#define TL_CUDA_FFN_HALF(Dtype, Casts)                                                                                 \
  TL_CUDA_EXPORT tl_status tl_swiglu_ffn_##Dtype##_dev(const uint16_t* x, const uint16_t* w_gate,                      \
                                                       const uint16_t* w_up, const uint16_t* w_down, uint16_t* y,      \
                                                       int64_t M, int64_t D, int64_t H, tl_cuda_stream stream) {       \
    return ffn_half_dev("tl_swiglu_ffn_" #Dtype, kc::Casts, x, w_gate, w_up, w_down, y, M, D, H, stream,               \
                        [&](const float* xf, const float* gf, const float* uf, const float* df, float* yf) {           \
                          return tl_swiglu_ffn_f32_dev(xf, gf, uf, df, yf, M, D, H, stream);                           \
                        });                                                                                            \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_swiglu_ffn_##Dtype(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up,      \
                                                 const uint16_t* w_down, uint16_t* y, int64_t M, int64_t D,            \
                                                 int64_t H) {                                                          \
    return ffn_half_host("tl_swiglu_ffn_" #Dtype, tl_swiglu_ffn_##Dtype##_dev, x, w_gate, w_up, w_down, y, M, D, H);   \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_geglu_ffn_##Dtype##_dev(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up, \
                                                      const uint16_t* w_down, uint16_t* y, int64_t M, int64_t D,       \
                                                      int64_t H, tl_ffn_gelu gelu, tl_cuda_stream stream) {            \
    if (tl_status s = args::check_gelu("tl_geglu_ffn_" #Dtype, gelu)) return s;                                        \
    return ffn_half_dev("tl_geglu_ffn_" #Dtype, kc::Casts, x, w_gate, w_up, w_down, y, M, D, H, stream,                \
                        [&](const float* xf, const float* gf, const float* uf, const float* df, float* yf) {           \
                          return tl_geglu_ffn_f32_dev(xf, gf, uf, df, yf, M, D, H, gelu, stream);                      \
                        });                                                                                            \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_geglu_ffn_##Dtype(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up,       \
                                                const uint16_t* w_down, uint16_t* y, int64_t M, int64_t D, int64_t H,  \
                                                tl_ffn_gelu gelu) {                                                    \
    if (tl_status s = args::check_gelu("tl_geglu_ffn_" #Dtype, gelu)) return s;                                        \
    return ffn_half_host("tl_geglu_ffn_" #Dtype, tl_geglu_ffn_##Dtype##_dev, x, w_gate, w_up, w_down, y, M, D, H,      \
                         gelu);                                                                                        \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_glu_ffn_##Dtype##_dev(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up,   \
                                                    const uint16_t* w_down, uint16_t* y, int64_t M, int64_t D,         \
                                                    int64_t H, tl_cuda_stream stream) {                                \
    return ffn_half_dev("tl_glu_ffn_" #Dtype, kc::Casts, x, w_gate, w_up, w_down, y, M, D, H, stream,                  \
                        [&](const float* xf, const float* gf, const float* uf, const float* df, float* yf) {           \
                          return tl_glu_ffn_f32_dev(xf, gf, uf, df, yf, M, D, H, stream);                              \
                        });                                                                                            \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_glu_ffn_##Dtype(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up,         \
                                              const uint16_t* w_down, uint16_t* y, int64_t M, int64_t D, int64_t H) {  \
    return ffn_half_host("tl_glu_ffn_" #Dtype, tl_glu_ffn_##Dtype##_dev, x, w_gate, w_up, w_down, y, M, D, H);         \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_fused_swiglu_##Dtype##_dev(const uint16_t* x, const uint16_t* w_gate,                    \
                                                         const uint16_t* w_up, uint16_t* h, int64_t M, int64_t D,      \
                                                         int64_t H, tl_cuda_stream stream) {                           \
    const char* fn = "tl_fused_swiglu_" #Dtype;                                                                        \
    if (tl_status s = args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;                                 \
    if (M == 0 || H == 0) return TL_OK;                                                                                \
    const kc::Widened xf(kc::Casts, x, M*D, fn, stream), gf(kc::Casts, w_gate, H*D, fn, stream),                       \
        uf(kc::Casts, w_up, H*D, fn, stream);                                                                          \
    kc::DeviceBuffer<float> hf(static_cast<size_t>(M * H), fn, stream);                                                \
    if (tl_status s = tl_fused_swiglu_f32_dev(xf.get(), gf.get(), uf.get(), hf.get(), M, D, H, stream)) return s;      \
    kc::Casts.narrow(hf.get(), h, M* H, stream);                                                                       \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_fused_swiglu_##Dtype(const uint16_t* x, const uint16_t* w_gate, const uint16_t* w_up,    \
                                                   uint16_t* h, int64_t M, int64_t D, int64_t H) {                     \
    const char* fn = "tl_fused_swiglu_" #Dtype;                                                                        \
    if (tl_status s = args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;                                 \
    if (M == 0 || H == 0) return TL_OK;                                                                                \
    return kc::on_device(fn, tl_fused_swiglu_##Dtype##_dev, kc::in(x, M * D), kc::in(w_gate, H * D),                   \
                         kc::in(w_up, H * D), kc::out(h, M * H), M, D, H);                                             \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_fused_norm_matmul_##Dtype##_dev(const uint16_t* x, const float* norm_w,                  \
                                                              const uint16_t* w, uint16_t* y, int64_t M, int64_t N,    \
                                                              int64_t K, float eps, tl_cuda_stream stream) {           \
    const char* fn = "tl_fused_norm_matmul_" #Dtype;                                                                   \
    if (tl_status s = args::check_fused_norm_matmul(fn, M, N, K, eps)) return s;                                       \
    if (M == 0 || N == 0) return TL_OK;                                                                                \
    const kc::Widened xf(kc::Casts, x, M*K, fn, stream), wf(kc::Casts, w, N*K, fn, stream);                            \
    kc::DeviceBuffer<float> yf(static_cast<size_t>(M * N), fn, stream);                                                \
    if (tl_status s = tl_fused_norm_matmul_f32_dev(xf.get(), norm_w, wf.get(), yf.get(), M, N, K, eps, stream))        \
      return s;                                                                                                        \
    kc::Casts.narrow(yf.get(), y, M* N, stream);                                                                       \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status tl_fused_norm_matmul_##Dtype(const uint16_t* x, const float* norm_w, const uint16_t* w,     \
                                                        uint16_t* y, int64_t M, int64_t N, int64_t K, float eps) {     \
    const char* fn = "tl_fused_norm_matmul_" #Dtype;                                                                   \
    if (tl_status s = args::check_fused_norm_matmul(fn, M, N, K, eps)) return s;                                       \
    if (M == 0 || N == 0) return TL_OK;                                                                                \
    return kc::on_device(fn, tl_fused_norm_matmul_##Dtype##_dev, kc::in(x, M * K), kc::in(norm_w, K),                  \
                         kc::in(w, N * K), kc::out(y, M * N), M, N, K, eps);                                           \
  }
TL_CUDA_FFN_HALF(f16, kF16Casts)
TL_CUDA_FFN_HALF(bf16, kBF16Casts)
#undef TL_CUDA_FFN_HALF
