// The XNNPACK peer adapter (libxnnpack_adapter.so, over Debian's libxnnpack
// of 2022-02-16): konform's C ABI over Google's inference operators (the CPU
// backend of TensorFlow Lite and PyTorch Mobile). One operator is created, set
// up, run and deleted per call, with output bounds -inf, +inf (XNNPACK's "no
// clamp") and no thread pool. XNNPACK works channels-last, so NCHW buffers are
// copied to NHWC and back (exact moves, no arithmetic). Argument checks are
// konform's own (impl/common, impl/simd/*checks*); every number is computed
// by XNNPACK. A case XNNPACK refuses is TL_ERR_UNSUPPORTED with its status.
//   Add/Sub/Mul/Div, add     add/subtract/multiply/divide_nd (NumPy broadcast)
//   Clamp, Relu              clamp_nc (lo, hi), (0, +inf)
//   LeakyRelu, PRelu         leaky_relu_nc, prelu_nc (channels moved innermost)
//   Sigmoid                  sigmoid_nc
//   Silu, SwiGlu, Glu, silu_mul   sigmoid_nc, then multiply_nd (x sigmoid(x))
//   Softmax                  softmax_nc along the innermost axis (another axis
//                            is moved there and back)
//   Matmul, SwiGlu/Glu_FFN, FusedSwiGlu   fully_connected_nc (w [N, K] is its
//                            kernel layout), with the gates above
//   Conv1d/Conv2d, DepthwiseConv   convolution2d_nhwc (1-d as H = 1), weights
//                            moved to [C_out, kH, kW, C_in/g]
//   ConvTranspose2d          deconvolution2d_nhwc, output_padding as adjustment
//   CausalConv1d             x[.., 0] copied on the left, then convolution2d
//   Pool                     max_pooling2d_nhwc; average: constant_pad_nd of
//                            zeros, then an unpadded average_pooling2d_nhwc
//                            (XNNPACK's own padding leaves pads out of the count)
//   PatchEmbed               convolution2d_nhwc with kernel = stride = p
//   Interpolate              resize_bilinear2d_nhwc (half-pixel centres, or
//                            XNN_FLAG_ALIGN_CORNERS); nearest and area are
//                            TL_ERR_UNSUPPORTED, as is Conv3d
// Not exported (no XNNPACK operator of this version): Gelu, Tanh, GeGlu and
// GeGlu_FFN, the norms, Argmax, NanToNum, the layout-only ops of tensor.h and
// spatial.h, Rope and the position ops, attention, KV cache, quantization,
// sampling.
#include <xnnpack.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "adapters/layout_moves.hpp"
#include "impl/common/activation_args.hpp"
#include "impl/common/conv_args.hpp"
#include "impl/common/linalg_args.hpp"
#include "impl/common/spatial_args.hpp"
#include "impl/common/tensor_checks.hpp"
#include "impl/common/tensor_op_checks.hpp"
#include "tinyllm/activations.h"
#include "tinyllm/conv.h"
#include "tinyllm/elementwise.h"
#include "tinyllm/linalg.h"
#include "tinyllm/spatial.h"
#include "tinyllm/tensor.h"

namespace ki = konform::impl;
namespace kt = konform::impl::tensor;
namespace sa = konform::impl::spatial_args;

namespace {

constexpr float kInf = INFINITY;

// A refusal by XNNPACK, carried to the ABI's status.
struct Refused {
  const char* what;
  xnn_status status;
};

const char* status_name(xnn_status s) {
  switch (s) {
    case xnn_status_success: return "success";
    case xnn_status_uninitialized: return "uninitialized";
    case xnn_status_invalid_parameter: return "invalid_parameter";
    case xnn_status_invalid_state: return "invalid_state";
    case xnn_status_unsupported_parameter: return "unsupported_parameter";
    case xnn_status_unsupported_hardware: return "unsupported_hardware";
    case xnn_status_out_of_memory: return "out_of_memory";
  }
  return "unknown";
}

void ok(xnn_status s, const char* what) {
  if (s != xnn_status_success) throw Refused{what, s};
}

// One operator: created by `create`, deleted when this goes out of scope.
struct Op {
  xnn_operator_t op = nullptr;
  ~Op() {
    if (op) xnn_delete_operator(op);
  }
  void run() { ok(xnn_run_operator(op, nullptr), "xnn_run_operator"); }
};

template <class Body>
tl_status guarded(const char* fn, Body&& body) {
  try {
    static const xnn_status init = xnn_initialize(nullptr);
    ok(init, "xnn_initialize");
    body();
    return TL_OK;
  } catch (const Refused& r) {
    return ki::fail(TL_ERR_UNSUPPORTED, std::string(fn) + ": XNNPACK cannot run this case: " + r.what +
                                            " returned xnn_status_" + status_name(r.status));
  } catch (const std::bad_alloc&) {
    return ki::fail(TL_ERR_INVALID_ARGUMENT, std::string(fn) + ": out of memory");
  }
}

// For the ABI's functions without a status: a refusal stops the process.
template <class Body>
void must(const char* fn, Body&& body) {
  if (guarded(fn, static_cast<Body&&>(body)) != TL_OK) {
    std::fprintf(stderr, "%s (a call that cannot return a status)\n", tl_last_error());
    std::abort();
  }
}

// XNNPACK may read up to XNN_EXTRA_BYTES past the end of an input (its
// documented contract); the ABI's callers promise no such slack, so every
// input XNNPACK reads is a copy with that much room after it.
constexpr size_t kSlack = XNN_EXTRA_BYTES / sizeof(float);

std::vector<float> padded(const float* x, int64_t n) {
  std::vector<float> v(static_cast<size_t>(n) + kSlack, 0.f);
  std::copy(x, x + n, v.begin());
  return v;
}

// [a, b, c] -> [a, c, b]: NCHW <-> NHWC (b = C, c = H W) and back (with the
// slack, as it is XNNPACK's input).
std::vector<float> swap_last(const float* x, int64_t a, int64_t b, int64_t c) {
  std::vector<float> y(static_cast<size_t>(a * b * c) + kSlack, 0.f);
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < c; ++k) y[(i * c + k) * b + j] = x[(i * b + j) * c + k];
  return y;
}
void swap_last_into(const float* x, float* y, int64_t a, int64_t b, int64_t c) {
  const std::vector<float> t = swap_last(x, a, b, c);
  std::copy(t.begin(), t.end() - kSlack, y);
}

// ---- unary operators (XNNPACK's nc layout, one channel per element) ----------

template <class Create, class Setup>
void unary(const float* x, float* y, int64_t n, Create create, Setup setup, const char* what) {
  if (n == 0) return;
  const std::vector<float> in = padded(x, n);
  Op o;
  ok(create(&o.op), what);
  ok(setup(o.op, static_cast<size_t>(n), in.data(), y, nullptr), what);
  o.run();
}

void sigmoid(const float* x, float* y, int64_t n) {
  unary(
      x, y, n, [](xnn_operator_t* op) { return xnn_create_sigmoid_nc_f32(1, 1, 1, 0, op); }, xnn_setup_sigmoid_nc_f32,
      "xnn_create_sigmoid_nc_f32");
}

void clamp(const float* x, float* y, int64_t n, float lo, float hi) {
  unary(
      x, y, n, [=](xnn_operator_t* op) { return xnn_create_clamp_nc_f32(1, 1, 1, lo, hi, 0, op); },
      xnn_setup_clamp_nc_f32, "xnn_create_clamp_nc_f32");
}

// ---- binary operators with NumPy broadcasting ----------------------------------

using BinaryCreate = xnn_status (*)(float, float, uint32_t, xnn_operator_t*);
using BinarySetup = xnn_status (*)(xnn_operator_t, size_t, const size_t*, size_t, const size_t*, const float*,
                                   const float*, float*, pthreadpool_t);

void binary(BinaryCreate create, BinarySetup setup, const float* a, std::vector<size_t> ad, const float* b,
            std::vector<size_t> bd, float* y) {
  if (ad.empty()) ad = {1};
  if (bd.empty()) bd = {1};
  size_t na = 1, nb = 1;
  for (size_t v : ad) na *= v;
  for (size_t v : bd) nb *= v;
  const std::vector<float> pa = padded(a, na), pb = padded(b, nb);
  Op o;
  ok(create(-kInf, kInf, 0, &o.op), "xnn_create_*_nd_f32");
  ok(setup(o.op, ad.size(), ad.data(), bd.size(), bd.data(), pa.data(), pb.data(), y, nullptr), "xnn_setup_*_nd_f32");
  o.run();
}

void multiply(const float* a, const float* b, float* y, int64_t n) {
  if (n == 0) return;
  binary(xnn_create_multiply_nd_f32, xnn_setup_multiply_nd_f32, a, {static_cast<size_t>(n)}, b,
         {static_cast<size_t>(n)}, y);
}

tl_status broadcast(const char* fn, BinaryCreate create, BinarySetup setup, const float* a, const int64_t* a_shape,
                    int64_t a_rank, const float* b, const int64_t* b_shape, int64_t b_rank, float* y,
                    const int64_t* y_shape, int64_t y_rank) {
  kt::BroadcastPlan plan;
  if (tl_status s = kt::PlanBroadcast(a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank, &plan)) return s;
  if (plan.count == 0) return TL_OK;
  return guarded(fn, [&] {
    binary(create, setup, a, std::vector<size_t>(a_shape, a_shape + a_rank), b,
           std::vector<size_t>(b_shape, b_shape + b_rank), y);
  });
}

// act(gate) * up, act = sigmoid (Glu) or x sigmoid(x) (Silu), each step an
// XNNPACK operator rounded to float.
void gate_product(bool silu, const float* gate, const float* up, float* y, int64_t n) {
  if (n == 0) return;
  std::vector<float> a(static_cast<size_t>(n));
  sigmoid(gate, a.data(), n);
  if (silu) multiply(gate, a.data(), a.data(), n);
  multiply(a.data(), up, y, n);
}

void gated(const char* fn, bool silu, const float* gate, const float* up, float* y, int64_t n) {
  must(fn, [&] { gate_product(silu, gate, up, y, n); });
}

// ---- fully connected, convolutions, pooling ----------------------------------

// y [M, N] = x [M, K] w [N, K]^T: XNNPACK's fully connected operator.
void matmul(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K) {
  if (M * N == 0) return;
  const std::vector<float> px = padded(x, M * K), pw = padded(w, N * K);
  Op o;
  ok(xnn_create_fully_connected_nc_f32(K, N, K, N, pw.data(), nullptr, -kInf, kInf, 0, &o.op),
     "xnn_create_fully_connected_nc_f32");
  ok(xnn_setup_fully_connected_nc_f32(o.op, M, px.data(), y, nullptr), "xnn_setup_fully_connected_nc_f32");
  o.run();
}

// A 2-d convolution of NCHW x into NCHW y (or channels-last y when `nhwc_out`):
// weights [C_out, C_in/g, kH, kW] become XNNPACK's [C_out, kH, kW, C_in/g].
void conv2d(const ki::conv_args::ConvShape& s, const float* x, const float* w, const float* bias, float* y,
            bool nhwc_out = false) {
  const int64_t H = s.nd == 2 ? s.in[0] : 1, W = s.in[s.nd - 1];
  const int64_t kh = s.nd == 2 ? s.kernel[0] : 1, kw = s.kernel[s.nd - 1];
  const int64_t sh = s.nd == 2 ? s.stride[0] : 1, sw = s.stride[s.nd - 1];
  const int64_t dh = s.nd == 2 ? s.dil[0] : 1, dw = s.dil[s.nd - 1];
  const int64_t ph = s.nd == 2 ? s.pad[0] : 0, pw = s.pad[s.nd - 1];
  const int64_t Ho = s.nd == 2 ? s.out[0] : 1, Wo = s.out[s.nd - 1];
  if (s.B * s.C_out * Ho * Wo == 0) return;
  const int64_t ig = s.C_in / s.groups, og = s.C_out / s.groups;
  const std::vector<float> xn = swap_last(x, s.B, s.C_in, H * W), wn = swap_last(w, s.C_out, ig, kh * kw);
  std::vector<float> yn(static_cast<size_t>(s.B * Ho * Wo * s.C_out));
  Op o;
  ok(xnn_create_convolution2d_nhwc_f32(ph, pw, ph, pw, kh, kw, sh, sw, dh, dw, s.groups, ig, og, s.C_in, s.C_out,
                                       wn.data(), bias, -kInf, kInf, 0, &o.op),
     "xnn_create_convolution2d_nhwc_f32");
  ok(xnn_setup_convolution2d_nhwc_f32(o.op, s.B, H, W, xn.data(), nhwc_out ? y : yn.data(), nullptr),
     "xnn_setup_convolution2d_nhwc_f32");
  o.run();
  if (!nhwc_out) swap_last_into(yn.data(), y, s.B, Ho * Wo, s.C_out);
}

tl_status run_conv(const char* fn, const ki::conv_args::Checked& c, const float* x, const float* w, const float* bias,
                   float* y) {
  if (c.status != TL_OK) return ki::fail(c.status, c.message);
  if (c.shape.nd == 3) return ki::fail(TL_ERR_UNSUPPORTED, std::string(fn) + ": XNNPACK has no 3-d convolution");
  return guarded(fn, [&] { conv2d(c.shape, x, w, bias, y); });
}

void gated_projection(bool silu, const float* x, const float* w_gate, const float* w_up, float* h, int64_t M, int64_t D,
                      int64_t H) {
  if (M * H == 0) return;
  std::vector<float> g(static_cast<size_t>(M * H)), up(static_cast<size_t>(M * H));
  matmul(x, w_gate, g.data(), M, H, D);
  matmul(x, w_up, up.data(), M, H, D);
  gate_product(silu, g.data(), up.data(), h, M * H);
}

tl_status ffn(const char* fn, bool silu, const float* x, const float* w_gate, const float* w_up, const float* w_down,
              float* y, int64_t M, int64_t D, int64_t H) {
  if (tl_status s = ki::linalg_args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;
  return guarded(fn, [&] {
    std::vector<float> h(static_cast<size_t>(M * H));
    gated_projection(silu, x, w_gate, w_up, h.data(), M, D, H);
    matmul(h.data(), w_down, y, M, D, H);
  });
}

}  // namespace

extern "C" {

// ---- tinyllm/elementwise.h --------------------------------------------------------

void tl_add_f32(const float* a, const float* b, float* y, int64_t n) {
  must("tl_add_f32", [&] {
    if (n > 0)
      binary(xnn_create_add_nd_f32, xnn_setup_add_nd_f32, a, {static_cast<size_t>(n)}, b, {static_cast<size_t>(n)}, y);
  });
}

void tl_silu_mul_f32(const float* gate, const float* up, float* y, int64_t n) {
  gated("tl_silu_mul_f32", true, gate, up, y, n);
}

// ---- tinyllm/activations.h -----------------------------------------------------

// Silu as x * sigmoid(x): XNNPACK's sigmoid, then its multiply.
void tl_silu_f32(const float* x, float* y, int64_t n) {
  must("tl_silu_f32", [&] {
    if (n == 0) return;
    std::vector<float> s(static_cast<size_t>(n));
    sigmoid(x, s.data(), n);
    multiply(x, s.data(), y, n);
  });
}

// Relu as XNNPACK's clamp to [0, +inf].
void tl_relu_f32(const float* x, float* y, int64_t n) {
  must("tl_relu_f32", [&] { clamp(x, y, n, 0.f, kInf); });
}

void tl_leaky_relu_f32(const float* x, float* y, int64_t n, float alpha) {
  must("tl_leaky_relu_f32", [&] {
    unary(
        x, y, n, [=](xnn_operator_t* op) { return xnn_create_leaky_relu_nc_f32(1, 1, 1, alpha, 0, op); },
        xnn_setup_leaky_relu_nc_f32, "xnn_create_leaky_relu_nc_f32");
  });
}

// XNNPACK's PReLU has the channels innermost: [outer, C, inner] is moved to
// [outer, inner, C] and back when inner > 1.
void tl_prelu_f32(const float* x, const float* slope, float* y, int64_t outer, int64_t channels, int64_t inner) {
  must("tl_prelu_f32", [&] {
    if (outer * channels * inner == 0) return;
    const bool moved = inner > 1;
    std::vector<float> xn = moved ? swap_last(x, outer, channels, inner) : padded(x, outer * channels), yn;
    if (moved) yn.resize(xn.size());
    const std::vector<float> ps = padded(slope, channels);
    Op o;
    ok(xnn_create_prelu_nc_f32(channels, channels, channels, ps.data(), 0, &o.op), "xnn_create_prelu_nc_f32");
    ok(xnn_setup_prelu_nc_f32(o.op, outer * inner, xn.data(), moved ? yn.data() : y, nullptr),
       "xnn_setup_prelu_nc_f32");
    o.run();
    if (moved) swap_last_into(yn.data(), y, outer, inner, channels);
  });
}

void tl_sigmoid_f32(const float* x, float* y, int64_t n) {
  must("tl_sigmoid_f32", [&] { sigmoid(x, y, n); });
}

// XNNPACK's softmax runs along the innermost axis: another axis is moved
// there and back.
tl_status tl_softmax_f32(const float* x, float* y, const int64_t* shape, int rank, int axis) {
  ki::AxisSplit s;
  if (tl_status st = ki::split_at_axis(shape, rank, axis, &s)) return st;
  if (s.outer * s.length * s.inner == 0) return TL_OK;
  return guarded("tl_softmax_f32", [&] {
    const bool moved = s.inner > 1;
    std::vector<float> xn = moved ? swap_last(x, s.outer, s.length, s.inner) : padded(x, s.outer * s.length), yn;
    if (moved) yn.resize(xn.size());
    Op o;
    ok(xnn_create_softmax_nc_f32(s.length, s.length, s.length, 0, &o.op), "xnn_create_softmax_nc_f32");
    ok(xnn_setup_softmax_nc_f32(o.op, s.outer * s.inner, xn.data(), moved ? yn.data() : y, nullptr),
       "xnn_setup_softmax_nc_f32");
    o.run();
    if (moved) swap_last_into(yn.data(), y, s.outer, s.inner, s.length);
  });
}

void tl_swiglu_f32(const float* gate, const float* up, float* y, int64_t n) {
  gated("tl_swiglu_f32", true, gate, up, y, n);
}
void tl_glu_f32(const float* gate, const float* up, float* y, int64_t n) { gated("tl_glu_f32", false, gate, up, y, n); }

// ---- tinyllm/tensor.h -------------------------------------------------------------

tl_status tl_add_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return broadcast("tl_add_broadcast_f32", xnn_create_add_nd_f32, xnn_setup_add_nd_f32, a, a_shape, a_rank, b, b_shape,
                   b_rank, y, y_shape, y_rank);
}
tl_status tl_sub_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return broadcast("tl_sub_broadcast_f32", xnn_create_subtract_nd_f32, xnn_setup_subtract_nd_f32, a, a_shape, a_rank, b,
                   b_shape, b_rank, y, y_shape, y_rank);
}
tl_status tl_mul_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return broadcast("tl_mul_broadcast_f32", xnn_create_multiply_nd_f32, xnn_setup_multiply_nd_f32, a, a_shape, a_rank, b,
                   b_shape, b_rank, y, y_shape, y_rank);
}
tl_status tl_div_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return broadcast("tl_div_broadcast_f32", xnn_create_divide_nd_f32, xnn_setup_divide_nd_f32, a, a_shape, a_rank, b,
                   b_shape, b_rank, y, y_shape, y_rank);
}

tl_status tl_clamp_f32(const float* x, float* y, int64_t n, float lo, float hi) {
  if (tl_status s = kt::CheckClamp(x, y, n, lo, hi)) return s;
  return guarded("tl_clamp_f32", [&] { clamp(x, y, n, lo, hi); });
}

// ---- tinyllm/conv.h ----------------------------------------------------------------

tl_status tl_conv_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                      int64_t C_out, int64_t groups, int64_t n_dims, const int64_t* in_size, const int64_t* kernel,
                      const int64_t* stride, const int64_t* padding, const int64_t* dilation) {
  return run_conv("tl_conv_f32",
                  ki::conv_args::conv(B, C_in, C_out, groups, n_dims, in_size, kernel, stride, padding, dilation), x, w,
                  bias, y);
}

tl_status tl_depthwise_conv2d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C,
                                  const int64_t in_size[2], const int64_t kernel[2], const int64_t stride[2],
                                  const int64_t padding[2], const int64_t dilation[2]) {
  return run_conv("tl_depthwise_conv2d_f32", ki::conv_args::depthwise(B, C, in_size, kernel, stride, padding, dilation),
                  x, w, bias, y);
}

// XNNPACK's deconvolution: weights [C_in, C_out/g, kH, kW] moved to its
// [g, C_out/g, kH, kW, C_in/g]; output_padding is its "adjustment".
tl_status tl_conv_transpose2d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                                  int64_t C_out, int64_t groups, const int64_t in_size[2], const int64_t kernel[2],
                                  const int64_t stride[2], const int64_t padding[2], const int64_t output_padding[2],
                                  const int64_t dilation[2]) {
  const char* fn = "tl_conv_transpose2d_f32";
  const auto c = ki::conv_args::conv_transpose2d(B, C_in, C_out, groups, in_size, kernel, stride, padding,
                                                 output_padding, dilation);
  if (c.status != TL_OK) return ki::fail(c.status, c.message);
  const auto& s = c.shape;
  if (B * C_out * s.out[0] * s.out[1] == 0) return TL_OK;
  return guarded(fn, [&] {
    const int64_t ig = C_in / groups, og = C_out / groups, taps = s.kernel[0] * s.kernel[1];
    std::vector<float> wn(static_cast<size_t>(C_in * og * taps) + kSlack, 0.f);
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t i = 0; i < ig; ++i)
        for (int64_t o = 0; o < og; ++o)
          for (int64_t t = 0; t < taps; ++t)
            wn[((g * og + o) * taps + t) * ig + i] = w[((g * ig + i) * og + o) * taps + t];
    const std::vector<float> xn = swap_last(x, B, C_in, s.in[0] * s.in[1]);
    std::vector<float> yn(static_cast<size_t>(B * s.out[0] * s.out[1] * C_out));
    Op o;
    ok(xnn_create_deconvolution2d_nhwc_f32(s.pad[0], s.pad[1], s.pad[0], s.pad[1], s.kernel[0], s.kernel[1],
                                           s.stride[0], s.stride[1], s.dil[0], s.dil[1], groups, ig, og, C_in, C_out,
                                           wn.data(), bias, -kInf, kInf, 0, &o.op),
       "xnn_create_deconvolution2d_nhwc_f32");
    ok(xnn_setup_deconvolution2d_nhwc_f32(o.op, B, s.in[0], s.in[1], output_padding[0], output_padding[1], xn.data(),
                                          yn.data(), nullptr),
       "xnn_setup_deconvolution2d_nhwc_f32");
    o.run();
    swap_last_into(yn.data(), y, B, s.out[0] * s.out[1], C_out);
  });
}

// The replicate padding on the left is a copy of x[.., 0] (made here); the
// unpadded convolution over it is XNNPACK's.
tl_status tl_causal_conv1d_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C_in,
                               int64_t C_out, int64_t groups, int64_t T, int64_t kernel, int64_t stride,
                               int64_t dilation) {
  const auto c = ki::conv_args::causal_conv1d(B, C_in, C_out, groups, T, kernel, stride, dilation);
  if (c.status != TL_OK) return ki::fail(c.status, c.message);
  return guarded("tl_causal_conv1d_f32", [&] {
    const std::vector<float> replicated = konform::peer::replicate_left(x, B * C_in, T, c.shape.pad[0]);
    ki::conv_args::ConvShape s = c.shape;
    s.in[0] += s.pad[0], s.pad[0] = 0;
    conv2d(s, replicated.data(), w, bias, y);
  });
}

// Max: XNNPACK's max pooling. Average: XNNPACK's average pooling leaves the
// padding out of the divisor, so the zeros are padded explicitly first
// (XNNPACK's constant pad) and the pooling itself runs unpadded.
tl_status tl_pool_f32(const float* x, float* y, int64_t B, int64_t C, const int64_t in_size[2], const int64_t kernel[2],
                      const int64_t* stride, const int64_t* padding, int mode) {
  const auto c = ki::conv_args::pool(B, C, in_size, kernel, stride, padding, mode);
  if (c.status != TL_OK) return ki::fail(c.status, c.message);
  const auto& s = c.shape;
  if (B * C * s.out[0] * s.out[1] == 0) return TL_OK;
  return guarded("tl_pool_f32", [&] {
    int64_t H = s.in[0], W = s.in[1];
    std::vector<float> xn = swap_last(x, B, C, H * W), yn(static_cast<size_t>(B * s.out[0] * s.out[1] * C));
    Op o;
    if (mode == TL_POOL_MAX) {
      ok(xnn_create_max_pooling2d_nhwc_f32(s.pad[0], s.pad[1], s.pad[0], s.pad[1], s.kernel[0], s.kernel[1],
                                           s.stride[0], s.stride[1], 1, 1, C, C, C, -kInf, kInf, 0, &o.op),
         "xnn_create_max_pooling2d_nhwc_f32");
      ok(xnn_setup_max_pooling2d_nhwc_f32(o.op, B, H, W, xn.data(), yn.data(), nullptr),
         "xnn_setup_max_pooling2d_nhwc_f32");
      o.run();
    } else {
      if (s.pad[0] + s.pad[1] > 0) {
        const size_t shape[4] = {size_t(B), size_t(H), size_t(W), size_t(C)};
        const size_t pre[4] = {0, size_t(s.pad[0]), size_t(s.pad[1]), 0}, post[4] = {0, pre[1], pre[2], 0};
        H += 2 * s.pad[0], W += 2 * s.pad[1];
        std::vector<float> zeros_around(static_cast<size_t>(B * H * W * C) + kSlack, 0.f);
        const float zero = 0.f;
        Op pad;
        ok(xnn_create_constant_pad_nd_x32(&zero, 0, &pad.op), "xnn_create_constant_pad_nd_x32");
        ok(xnn_setup_constant_pad_nd_x32(pad.op, 4, shape, pre, post, xn.data(), zeros_around.data(), nullptr),
           "xnn_setup_constant_pad_nd_x32");
        pad.run();
        xn.swap(zeros_around);
      }
      ok(xnn_create_average_pooling2d_nhwc_f32(0, 0, 0, 0, s.kernel[0], s.kernel[1], s.stride[0], s.stride[1], C, C, C,
                                               -kInf, kInf, 0, &o.op),
         "xnn_create_average_pooling2d_nhwc_f32");
      ok(xnn_setup_average_pooling2d_nhwc_f32(o.op, B, H, W, xn.data(), yn.data(), nullptr),
         "xnn_setup_average_pooling2d_nhwc_f32");
      o.run();
    }
    swap_last_into(yn.data(), y, B, s.out[0] * s.out[1], C);
  });
}

// ---- tinyllm/linalg.h --------------------------------------------------------------

tl_status tl_matmul_f32(const float* x, const float* w, float* y, int64_t M, int64_t N, int64_t K) {
  if (tl_status s = ki::linalg_args::check_sizes("tl_matmul_f32", {{"M", M}, {"N", N}, {"K", K}})) return s;
  return guarded("tl_matmul_f32", [&] { matmul(x, w, y, M, N, K); });
}

tl_status tl_swiglu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                            int64_t M, int64_t D, int64_t H) {
  return ffn("tl_swiglu_ffn_f32", true, x, w_gate, w_up, w_down, y, M, D, H);
}

tl_status tl_glu_ffn_f32(const float* x, const float* w_gate, const float* w_up, const float* w_down, float* y,
                         int64_t M, int64_t D, int64_t H) {
  return ffn("tl_glu_ffn_f32", false, x, w_gate, w_up, w_down, y, M, D, H);
}

tl_status tl_fused_swiglu_f32(const float* x, const float* w_gate, const float* w_up, float* h, int64_t M, int64_t D,
                              int64_t H) {
  const char* fn = "tl_fused_swiglu_f32";
  if (tl_status s = ki::linalg_args::check_sizes(fn, {{"M", M}, {"D", D}, {"H", H}})) return s;
  return guarded(fn, [&] { gated_projection(true, x, w_gate, w_up, h, M, D, H); });
}

// ---- tinyllm/spatial.h -------------------------------------------------------------

// A convolution with kernel = stride = p; XNNPACK writes channels-last, which
// is y's [B, N, D].
tl_status tl_patch_embed_f32(const float* x, const float* w, const float* bias, float* y, int64_t B, int64_t C,
                             int64_t H, int64_t W, int64_t D, int64_t p) {
  const char* fn = "tl_patch_embed_f32";
  if (tl_status s = sa::check({fn, sa::Kind::patch_embed, B, C, H, W, p, D})) return s;
  if (tl_status s = sa::need(fn, x, B * C * H * W, "x")) return s;
  if (tl_status s = sa::need(fn, w, D * C * p * p, "w")) return s;
  if (tl_status s = sa::need(fn, y, B * (H / p) * (W / p) * D, "y")) return s;
  if (B * (H / p) * (W / p) * D == 0) return TL_OK;
  return guarded(fn, [&] {
    ki::conv_args::ConvShape s;
    s.nd = 2, s.B = B, s.C_in = C, s.C_out = D, s.groups = 1;
    s.in[0] = H, s.in[1] = W, s.kernel[0] = s.kernel[1] = p, s.stride[0] = s.stride[1] = p;
    s.out[0] = H / p, s.out[1] = W / p;
    conv2d(s, x, w, bias, y, true);
  });
}

// XNNPACK's bilinear resize: half-pixel centres, or XNN_FLAG_ALIGN_CORNERS.
// It has no nearest or area mode: those cases are TL_ERR_UNSUPPORTED.
tl_status tl_interpolate_f32(const float* x, float* y, int64_t B, int64_t C, int64_t H, int64_t W, int64_t H_out,
                             int64_t W_out, int32_t mode, int32_t align_corners) {
  const char* fn = "tl_interpolate_f32";
  if (tl_status s = sa::check_interpolate(B, C, H, W, H_out, W_out, mode, align_corners)) return s;
  if (tl_status s = sa::need(fn, x, B * C * H * W, "x")) return s;
  if (tl_status s = sa::need(fn, y, B * C * H_out * W_out, "y")) return s;
  if (mode != TL_INTERP_BILINEAR)
    return ki::fail(TL_ERR_UNSUPPORTED, std::string(fn) + ": XNNPACK's resize has only the bilinear mode");
  if (B * C == 0) return TL_OK;
  return guarded(fn, [&] {
    const std::vector<float> xn = swap_last(x, B, C, H * W);
    std::vector<float> yn(static_cast<size_t>(B * H_out * W_out * C));
    Op o;
    ok(xnn_create_resize_bilinear2d_nhwc_f32(C, C, C, align_corners ? XNN_FLAG_ALIGN_CORNERS : 0, &o.op),
       "xnn_create_resize_bilinear2d_nhwc_f32");
    ok(xnn_setup_resize_bilinear2d_nhwc_f32(o.op, B, H, W, H_out, W_out, xn.data(), yn.data(), nullptr),
       "xnn_setup_resize_bilinear2d_nhwc_f32");
    o.run();
    swap_last_into(yn.data(), y, B, H_out * W_out, C);
  });
}

}  // extern "C"
