// libtl_cuda: the ops of tinyllm/spatial.h on a CUDA device and their
// device-pointer twins, as elementwise.cu: PixelShuffle, PixelUnshuffle and Unpatchify
// (copies of 32-bit words, NaN payloads kept), Interpolate (the oracle's
// float arithmetic, one thread per output, no FMA contraction: libtl_cuda is
// built with --fmad=false) and PatchEmbed (the patches gathered into rows on
// the device, matmul.cuh's product, then the bias: Matmul's arithmetic). The
// arguments are checked by the host code the CPU backends run
// (impl/common/spatial_args.hpp), so a refused call gets the same status and
// words and makes no CUDA call.
#include <cstdint>

#include "impl/common/spatial_args.hpp"
#include "impl/cuda/abi.cuh"
#include "impl/cuda/grid.cuh"
#include "impl/cuda/matmul.cuh"
#include "tinyllm/cuda/spatial.h"

namespace kc = konform::cuda;
namespace args = konform::impl::spatial_args;

namespace konform::cuda {

// The sizes of a layout op, as its caller gave them.
struct Layout {
  int64_t B, C, H, W, f;
};

// y[b, c, h r + i, w r + j] = x[b, c r^2 + i r + j, h, w]; s describes x.
__global__ void pixel_shuffle(const uint32_t* x, uint32_t* y, Layout s, int64_t count) {
  const int64_t r = s.f, Co = s.C / (r * r), Ho = s.H * r, Wo = s.W * r;
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    const int64_t ow = k % Wo, oh = (k / Wo) % Ho, c = (k / (Wo * Ho)) % Co, b = k / (Wo * Ho * Co);
    const int64_t h = oh / r, i = oh % r, w = ow / r, j = ow % r;
    y[k] = x[((b * s.C + c * r * r + i * r + j) * s.H + h) * s.W + w];
  }
}

// y[b, c r^2 + i r + j, h, w] = x[b, c, h r + i, w r + j]; s describes x.
__global__ void pixel_unshuffle(const uint32_t* x, uint32_t* y, Layout s, int64_t count) {
  const int64_t r = s.f, Co = s.C * r * r, Ho = s.H / r, Wo = s.W / r;
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    const int64_t w = k % Wo, h = (k / Wo) % Ho, oc = (k / (Wo * Ho)) % Co, b = k / (Wo * Ho * Co);
    const int64_t c = oc / (r * r), i = (oc / r) % r, j = oc % r;
    y[k] = x[((b * s.C + c) * s.H + h * r + i) * s.W + w * r + j];
  }
}

// y[b, c, hp p + i, wp p + j] = x[b, hp (W/p) + wp, (i p + j) C + c]; s
// describes y.
__global__ void unpatchify(const uint32_t* x, uint32_t* y, Layout s, int64_t count) {
  const int64_t p = s.f, gh = s.H / p, gw = s.W / p, F = p * p * s.C;
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    const int64_t ow = k % s.W, oh = (k / s.W) % s.H, c = (k / (s.W * s.H)) % s.C, b = k / (s.W * s.H * s.C);
    const int64_t hp = oh / p, i = oh % p, wp = ow / p, j = ow % p;
    y[k] = x[((b * gh + hp) * gw + wp) * F + (i * p + j) * s.C + c];
  }
}

struct Resize {
  int64_t H, W, Ho, Wo;
  int32_t mode, align_corners;
};

// One axis of bilinear, as the oracle's bilinear_taps<float>.
struct Taps {
  int64_t i0, i1;
  float l0, l1;
};
__device__ inline Taps bilinear_taps(int64_t d, int64_t in, int64_t out, bool align_corners) {
  float src;
  if (align_corners) {
    const float scale = out > 1 ? float(in - 1) / float(out - 1) : 0.0f;
    src = float(d) * scale;
  } else {
    const float scale = float(in) / float(out);
    src = (float(d) + 0.5f) * scale - 0.5f;
    if (src < 0.0f) src = 0.0f;
  }
  Taps t;
  t.i0 = static_cast<int64_t>(floorf(src));
  if (t.i0 > in - 1) t.i0 = in - 1;
  t.i1 = t.i0 + 1 < in - 1 ? t.i0 + 1 : in - 1;
  t.l1 = src - float(t.i0);
  t.l0 = 1.0f - t.l1;
  return t;
}

// y = Interpolate(x): one thread per output element, the oracle's float
// expressions in its order.
__global__ void interpolate(const float* x, float* y, Resize r, int64_t count) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    const int64_t ox = k % r.Wo, oy = (k / r.Wo) % r.Ho, plane = k / (r.Wo * r.Ho);
    const float* xp = x + plane * r.H * r.W;
    float v = 0.0f;
    if (r.mode == TL_INTERP_NEAREST) {
      v = xp[(oy * r.H / r.Ho) * r.W + ox * r.W / r.Wo];
    } else if (r.mode == TL_INTERP_BILINEAR) {
      const Taps ty = bilinear_taps(oy, r.H, r.Ho, r.align_corners != 0);
      const Taps tx = bilinear_taps(ox, r.W, r.Wo, r.align_corners != 0);
      const float* r0 = xp + ty.i0 * r.W;
      const float* r1 = xp + ty.i1 * r.W;
      const float top = tx.l0 * r0[tx.i0] + tx.l1 * r0[tx.i1];
      const float bottom = tx.l0 * r1[tx.i0] + tx.l1 * r1[tx.i1];
      v = ty.l0 * top + ty.l1 * bottom;
    } else {  // area: the mean of [floor(d in / out), ceil((d + 1) in / out)) on each axis
      const int64_t y0 = oy * r.H / r.Ho, y1 = ((oy + 1) * r.H + r.Ho - 1) / r.Ho;
      const int64_t x0 = ox * r.W / r.Wo, x1 = ((ox + 1) * r.W + r.Wo - 1) / r.Wo;
      for (int64_t i = y0; i < y1; ++i)
        for (int64_t j = x0; j < x1; ++j) v += xp[i * r.W + j];
      v = v / float((y1 - y0) * (x1 - x0));
    }
    y[k] = v;
  }
}

// The patches of x as rows [B N, C p p], as the oracle's patch_rows.
__global__ void patch_rows(const float* x, float* rows, Layout s, int64_t count) {
  const int64_t p = s.f, gh = s.H / p, gw = s.W / p, K = s.C * p * p;
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    const int64_t col = k % K, row = k / K;
    const int64_t j = col % p, i = (col / p) % p, c = col / (p * p);
    const int64_t wp = row % gw, hp = (row / gw) % gh, b = row / (gw * gh);
    rows[k] = x[((b * s.C + c) * s.H + hp * p + i) * s.W + wp * p + j];
  }
}

// y[m, d] += bias[d], one float addition after the product's rounding.
__global__ void add_bias(float* y, const float* bias, int64_t D, int64_t count) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride)
    y[k] += bias[k % D];
}

}  // namespace konform::cuda

namespace {

using Kernel = void (*)(const uint32_t*, uint32_t*, kc::Layout, int64_t);

// A layout op: B C H W words from x to y, `kernel` mapping each output to its source.
void run_layout(Kernel kernel, const float* x, float* y, const kc::Layout& s, const char* where,
                tl_cuda_stream stream) {
  const int64_t count = s.B * s.C * s.H * s.W;
  if (count == 0) return;
  kc::launch(kernel, kc::grid_for(count, kc::kThreads), kc::kThreads, stream, reinterpret_cast<const uint32_t*>(x),
             reinterpret_cast<uint32_t*>(y), s, count);
  kc::check_launch(where);
}

}  // namespace

// The layout ops, each checked by args::check_copy as its kind.
#define TL_CUDA_LAYOUT(name, kind, kernel)                                                                             \
  TL_CUDA_EXPORT tl_status name##_dev(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t f, \
                                      tl_cuda_stream stream) {                                                         \
    if (tl_status s = args::check_copy({#name, args::Kind::kind, B, C, H, W, f}, x, y)) return s;                      \
    run_layout(kernel, x, y, {B, C, H, W, f}, #name "_dev", stream);                                                   \
    return TL_OK;                                                                                                      \
  }                                                                                                                    \
  TL_CUDA_EXPORT tl_status name(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t f) {     \
    if (tl_status s = args::check_copy({#name, args::Kind::kind, B, C, H, W, f}, x, y)) return s;                      \
    const int64_t count = B * C * H * W;                                                                               \
    if (count == 0) return TL_OK;                                                                                      \
    return kc::on_device(#name, name##_dev, kc::in(x, count), kc::out(y, count), B, C, H, W, f);                       \
  }
TL_CUDA_LAYOUT(tl_pixel_shuffle_f32, shuffle, kc::pixel_shuffle)
TL_CUDA_LAYOUT(tl_pixel_unshuffle_f32, unshuffle, kc::pixel_unshuffle)
TL_CUDA_LAYOUT(tl_unpatchify_f32, unpatchify, kc::unpatchify)

namespace {

tl_status check_interpolate(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t H_out,
                            int64_t W_out, int32_t mode, int32_t align_corners) {
  const char* fn = "tl_interpolate_f32";
  if (tl_status s = args::check_interpolate(B, C, H, W, H_out, W_out, mode, align_corners)) return s;
  if (tl_status s = args::need(fn, x, B * C * H * W, "x")) return s;
  return args::need(fn, y, B * C * H_out * W_out, "y");
}

tl_status check_patch_embed(const float* x, const float* w, float* y, int64_t B, int64_t C, int64_t H, int64_t W,
                            int64_t D, int64_t p) {
  const char* fn = "tl_patch_embed_f32";
  if (tl_status s = args::check({fn, args::Kind::patch_embed, B, C, H, W, p, D})) return s;
  if (tl_status s = args::need(fn, x, B * C * H * W, "x")) return s;
  if (tl_status s = args::need(fn, w, D * C * p * p, "w")) return s;
  return args::need(fn, y, B * (H / p) * (W / p) * D, "y");
}

}  // namespace

TL_CUDA_EXPORT tl_status tl_interpolate_f32_dev(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W,
                                                int64_t H_out, int64_t W_out, int32_t mode, int32_t align_corners,
                                                tl_cuda_stream stream) {
  if (tl_status s = check_interpolate(x, y, B, C, H, W, H_out, W_out, mode, align_corners)) return s;
  const int64_t count = B * C * H_out * W_out;
  if (count == 0) return TL_OK;
  kc::launch(kc::interpolate, kc::grid_for(count, kc::kThreads), kc::kThreads, stream, x, y,
             kc::Resize{H, W, H_out, W_out, mode, align_corners}, count);
  kc::check_launch("tl_interpolate_f32_dev");
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_interpolate_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W,
                                            int64_t H_out, int64_t W_out, int32_t mode, int32_t align_corners) {
  if (tl_status s = check_interpolate(x, y, B, C, H, W, H_out, W_out, mode, align_corners)) return s;
  const int64_t count = B * C * H_out * W_out;
  if (count == 0) return TL_OK;
  return kc::on_device("tl_interpolate_f32", tl_interpolate_f32_dev, kc::in(x, B * C * H * W), kc::out(y, count), B, C,
                       H, W, H_out, W_out, mode, align_corners);
}

// Waits for `stream` (the patches' rows are scratch).
TL_CUDA_EXPORT tl_status tl_patch_embed_f32_dev(const float* x, const float* w, const float* bias, float* y, int64_t B,
                                                int64_t C, int64_t H, int64_t W, int64_t D, int64_t p,
                                                tl_cuda_stream stream) {
  if (tl_status s = check_patch_embed(x, w, y, B, C, H, W, D, p)) return s;
  const int64_t M = B * (H / p) * (W / p), K = C * p * p;
  if (M == 0 || D == 0) return TL_OK;  // y has no element
  const char* fn = "tl_patch_embed_f32_dev";
  kc::DeviceBuffer<float> rows(static_cast<size_t>(M * K), fn, stream);
  if (M * K > 0) {
    kc::launch(kc::patch_rows, kc::grid_for(M * K, kc::kThreads), kc::kThreads, stream, x, rows.get(),
               kc::Layout{B, C, H, W, p}, M * K);
    kc::check_launch(fn);
  }
  kc::matmul_on_device(rows.get(), kc::F32Rows{w, K}, y, M, D, K, fn, stream);
  if (bias != nullptr) {
    kc::launch(kc::add_bias, kc::grid_for(M * D, kc::kThreads), kc::kThreads, stream, y, bias, D, M * D);
    kc::check_launch(fn);
  }
  return TL_OK;
}

TL_CUDA_EXPORT tl_status tl_patch_embed_f32(const float* x, const float* w, const float* bias, float* y, int64_t B,
                                            int64_t C, int64_t H, int64_t W, int64_t D, int64_t p) {
  if (tl_status s = check_patch_embed(x, w, y, B, C, H, W, D, p)) return s;
  const int64_t M = B * (H / p) * (W / p), K = C * p * p;
  if (M == 0 || D == 0) return TL_OK;
  return kc::on_device("tl_patch_embed_f32", tl_patch_embed_f32_dev, kc::in(x, B * C * H * W), kc::in(w, D * K),
                       kc::in(bias, bias == nullptr ? 0 : D), kc::out(y, M * D), B, C, H, W, D, p);
}
