#include "scalar/kernels.hpp"

#include <vector>

#include "impl/common/norm_args.hpp"
#include "konform/reference/bf16.hpp"
#include "konform/reference/f16.hpp"
#include "konform/reference/norm.hpp"

namespace konform::scalar {
namespace ref = konform::reference;
using impl::ChannelShape;
using impl::RowsShape;
using impl::SampleShape;

// In place (y == x) is safe in every template below: a row or group is read
// whole (its moments) before any of it is written, and each output element
// reads only its own input element after that.

tl_status rms_norm_f32(const float* x, const float* g, float* y, const int64_t* shape, int32_t ndim, float eps) {
  RowsShape s;
  if (tl_status st = impl::check_rows("tl_rms_norm_f32", shape, ndim, eps, &s)) return st;
  ref::rms_norm<float>(x, g, y, s.rows, s.d, eps);
  return TL_OK;
}

// f16 and bf16: x widened whole, the f32 template, y rounded; in place is
// safe as the copy is read, not x.
template <float (*Widen)(uint16_t), uint16_t (*Narrow)(float), class F32Rows>
tl_status rows_in_float(const char* name, const uint16_t* x, uint16_t* y, const int64_t* shape, int32_t ndim, float eps,
                        const F32Rows& f32_rows) {
  RowsShape s;
  if (tl_status st = impl::check_rows(name, shape, ndim, eps, &s)) return st;
  std::vector<float> wide(static_cast<size_t>(s.rows * s.d));
  for (size_t k = 0; k < wide.size(); ++k) wide[k] = Widen(x[k]);
  f32_rows(wide.data(), s.rows, s.d);
  for (size_t k = 0; k < wide.size(); ++k) y[k] = Narrow(wide[k]);
  return TL_OK;
}

tl_status rms_norm_f16(const uint16_t* x, const float* g, uint16_t* y, const int64_t* shape, int32_t ndim, float eps) {
  return rows_in_float<ref::f16_to_f32, ref::f32_to_f16>(
      "tl_rms_norm_f16", x, y, shape, ndim, eps,
      [&](float* w, int64_t rows, int64_t d) { ref::rms_norm<float>(w, g, w, rows, d, eps); });
}

tl_status rms_norm_bf16(const uint16_t* x, const float* g, uint16_t* y, const int64_t* shape, int32_t ndim, float eps) {
  return rows_in_float<ref::bf16_to_f32, ref::f32_to_bf16>(
      "tl_rms_norm_bf16", x, y, shape, ndim, eps,
      [&](float* w, int64_t rows, int64_t d) { ref::rms_norm<float>(w, g, w, rows, d, eps); });
}

tl_status layer_norm_f16(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                         int32_t ndim, float eps) {
  return rows_in_float<ref::f16_to_f32, ref::f32_to_f16>(
      "tl_layer_norm_f16", x, y, shape, ndim, eps,
      [&](float* w, int64_t rows, int64_t d) { ref::layer_norm<float>(w, g, b, w, rows, d, eps); });
}

tl_status layer_norm_bf16(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                          int32_t ndim, float eps) {
  return rows_in_float<ref::bf16_to_f32, ref::f32_to_bf16>(
      "tl_layer_norm_bf16", x, y, shape, ndim, eps,
      [&](float* w, int64_t rows, int64_t d) { ref::layer_norm<float>(w, g, b, w, rows, d, eps); });
}

tl_status layer_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape, int32_t ndim,
                         float eps) {
  RowsShape s;
  if (tl_status st = impl::check_rows("tl_layer_norm_f32", shape, ndim, eps, &s)) return st;
  ref::layer_norm<float>(x, g, b, y, s.rows, s.d, eps);
  return TL_OK;
}

tl_status batch_norm_f32(const float* x, const float* mean, const float* var, const float* g, const float* b, float* y,
                         const int64_t* shape, int32_t ndim, float eps) {
  ChannelShape s;
  if (tl_status st = impl::check_channels("tl_batch_norm_f32", shape, ndim, eps, false, &s)) return st;
  ref::batch_norm<float>(x, mean, var, g, b, y, s.n, s.c, s.s, eps);
  return TL_OK;
}

tl_status group_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape, int32_t ndim,
                         int64_t num_groups, float eps) {
  ChannelShape s;
  if (tl_status st = impl::check_groups("tl_group_norm_f32", shape, ndim, num_groups, eps, &s)) return st;
  ref::group_norm<float>(x, g, b, y, s.n, s.c, s.s, num_groups, eps);
  return TL_OK;
}

tl_status instance_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, float eps) {
  ChannelShape s;
  if (tl_status st = impl::check_channels("tl_instance_norm_f32", shape, ndim, eps, true, &s)) return st;
  ref::instance_norm<float>(x, g, b, y, s.n, s.c, s.s, eps);
  return TL_OK;
}

tl_status ada_ln_f32(const float* x, const float* scale, const float* shift, float* y, const int64_t* shape,
                     int32_t ndim, float eps) {
  SampleShape s;
  if (tl_status st = impl::check_samples("tl_ada_ln_f32", shape, ndim, eps, &s)) return st;
  ref::ada_ln<float>(x, scale, shift, y, s.batch, s.tokens, s.d, eps);
  return TL_OK;
}

// h == x is safe: h[k] reads x[k] alone, and AdaLN then reads h.
tl_status ada_ln_zero_f32(const float* x, const float* r, const float* gate, const float* scale, const float* shift,
                          float* h, float* y, const int64_t* shape, int32_t ndim, float eps) {
  SampleShape s;
  if (tl_status st = impl::check_samples("tl_ada_ln_zero_f32", shape, ndim, eps, &s)) return st;
  ref::ada_ln_zero<float>(x, r, gate, scale, shift, h, y, s.batch, s.tokens, s.d, eps);
  return TL_OK;
}

// sum == x or sum == skip is safe: sum[k] reads x[k] and skip[k] alone.
tl_status fused_skip_norm_f32(const float* x, const float* skip, const float* g, float* sum, float* y,
                              const int64_t* shape, int32_t ndim, float eps) {
  RowsShape s;
  if (tl_status st = impl::check_rows("tl_fused_skip_norm_f32", shape, ndim, eps, &s)) return st;
  ref::fused_skip_norm<float>(x, skip, g, sum, y, s.rows, s.d, eps);
  return TL_OK;
}

// ---------------------------------------------------------------- f16, bf16

// The f16 and bf16 twins of the norms of x[N, C, ...] and the fused ones:
// every half input widened whole to f32 (exactly), the f32 template, every
// half output rounded once; in place is safe as the copies are read.
struct F16 {
  static float widen(uint16_t h) { return ref::f16_to_f32(h); }
  static uint16_t narrow(float f) { return ref::f32_to_f16(f); }
};
struct BF16 {
  static float widen(uint16_t h) { return ref::bf16_to_f32(h); }
  static uint16_t narrow(float f) { return ref::f32_to_bf16(f); }
};

template <class Format>
std::vector<float> widened(const uint16_t* x, int64_t n) {
  std::vector<float> w(static_cast<size_t>(n));
  for (size_t k = 0; k < w.size(); ++k) w[k] = Format::widen(x[k]);
  return w;
}
template <class Format>
void narrow(const std::vector<float>& w, uint16_t* y) {
  for (size_t k = 0; k < w.size(); ++k) y[k] = Format::narrow(w[k]);
}

template <class Format>
tl_status batch_norm_half(const char* name, const uint16_t* x, const float* mean, const float* var, const float* g,
                          const float* b, uint16_t* y, const int64_t* shape, int32_t ndim, float eps) {
  ChannelShape s;
  if (tl_status st = impl::check_channels(name, shape, ndim, eps, false, &s)) return st;
  std::vector<float> w = widened<Format>(x, s.n * s.c * s.s);
  ref::batch_norm<float>(w.data(), mean, var, g, b, w.data(), s.n, s.c, s.s, eps);
  narrow<Format>(w, y);
  return TL_OK;
}

// GroupNorm, and InstanceNorm (`instance`: one group per channel).
template <class Format>
tl_status group_norm_half(const char* name, bool instance, const uint16_t* x, const float* g, const float* b,
                          uint16_t* y, const int64_t* shape, int32_t ndim, int64_t groups, float eps) {
  ChannelShape s;
  if (tl_status st = instance ? impl::check_channels(name, shape, ndim, eps, true, &s)
                              : impl::check_groups(name, shape, ndim, groups, eps, &s))
    return st;
  if (s.c == 0) return TL_OK;  // no channel: nothing to normalize (and no group count to divide by)
  std::vector<float> w = widened<Format>(x, s.n * s.c * s.s);
  ref::group_norm<float>(w.data(), g, b, w.data(), s.n, s.c, s.s, instance ? s.c : groups, eps);
  narrow<Format>(w, y);
  return TL_OK;
}

template <class Format>
tl_status ada_ln_half(const char* name, const uint16_t* x, const float* scale, const float* shift, uint16_t* y,
                      const int64_t* shape, int32_t ndim, float eps) {
  SampleShape s;
  if (tl_status st = impl::check_samples(name, shape, ndim, eps, &s)) return st;
  std::vector<float> w = widened<Format>(x, s.batch * s.tokens * s.d);
  ref::ada_ln<float>(w.data(), scale, shift, w.data(), s.batch, s.tokens, s.d, eps);
  narrow<Format>(w, y);
  return TL_OK;
}

// h rounded to the dtype as it is stored, then AdaLN of the stored h.
template <class Format>
tl_status ada_ln_zero_half(const char* name, const uint16_t* x, const uint16_t* r, const float* gate,
                           const float* scale, const float* shift, uint16_t* h, uint16_t* y, const int64_t* shape,
                           int32_t ndim, float eps) {
  SampleShape s;
  if (tl_status st = impl::check_samples(name, shape, ndim, eps, &s)) return st;
  const int64_t total = s.batch * s.tokens * s.d;
  std::vector<float> w = widened<Format>(x, total), wr = widened<Format>(r, total);
  for (int64_t k = 0; k < total; ++k) {
    const size_t at = static_cast<size_t>(k);
    h[k] = Format::narrow(ref::gated_residual(w[at], gate[k / (s.tokens * s.d) * s.d + k % s.d], wr[at]));
    w[at] = Format::widen(h[k]);
  }
  ref::ada_ln<float>(w.data(), scale, shift, w.data(), s.batch, s.tokens, s.d, eps);
  narrow<Format>(w, y);
  return TL_OK;
}

// sum rounded to the dtype as it is stored, then RmsNorm of the stored sum.
template <class Format>
tl_status fused_skip_norm_half(const char* name, const uint16_t* x, const uint16_t* skip, const float* g, uint16_t* sum,
                               uint16_t* y, const int64_t* shape, int32_t ndim, float eps) {
  RowsShape s;
  if (tl_status st = impl::check_rows(name, shape, ndim, eps, &s)) return st;
  std::vector<float> w = widened<Format>(x, s.rows * s.d), ws = widened<Format>(skip, s.rows * s.d);
  for (size_t k = 0; k < w.size(); ++k) {
    sum[k] = Format::narrow(ref::skip_sum(w[k], ws[k]));
    w[k] = Format::widen(sum[k]);
  }
  ref::rms_norm<float>(w.data(), g, w.data(), s.rows, s.d, eps);
  narrow<Format>(w, y);
  return TL_OK;
}

tl_status batch_norm_f16(const uint16_t* x, const float* mean, const float* var, const float* g, const float* b,
                         uint16_t* y, const int64_t* shape, int32_t ndim, float eps) {
  return batch_norm_half<F16>("tl_batch_norm_f16", x, mean, var, g, b, y, shape, ndim, eps);
}
tl_status batch_norm_bf16(const uint16_t* x, const float* mean, const float* var, const float* g, const float* b,
                          uint16_t* y, const int64_t* shape, int32_t ndim, float eps) {
  return batch_norm_half<BF16>("tl_batch_norm_bf16", x, mean, var, g, b, y, shape, ndim, eps);
}
tl_status group_norm_f16(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                         int32_t ndim, int64_t num_groups, float eps) {
  return group_norm_half<F16>("tl_group_norm_f16", false, x, g, b, y, shape, ndim, num_groups, eps);
}
tl_status group_norm_bf16(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                          int32_t ndim, int64_t num_groups, float eps) {
  return group_norm_half<BF16>("tl_group_norm_bf16", false, x, g, b, y, shape, ndim, num_groups, eps);
}
tl_status instance_norm_f16(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                            int32_t ndim, float eps) {
  return group_norm_half<F16>("tl_instance_norm_f16", true, x, g, b, y, shape, ndim, 0, eps);
}
tl_status instance_norm_bf16(const uint16_t* x, const float* g, const float* b, uint16_t* y, const int64_t* shape,
                             int32_t ndim, float eps) {
  return group_norm_half<BF16>("tl_instance_norm_bf16", true, x, g, b, y, shape, ndim, 0, eps);
}
tl_status ada_ln_f16(const uint16_t* x, const float* scale, const float* shift, uint16_t* y, const int64_t* shape,
                     int32_t ndim, float eps) {
  return ada_ln_half<F16>("tl_ada_ln_f16", x, scale, shift, y, shape, ndim, eps);
}
tl_status ada_ln_bf16(const uint16_t* x, const float* scale, const float* shift, uint16_t* y, const int64_t* shape,
                      int32_t ndim, float eps) {
  return ada_ln_half<BF16>("tl_ada_ln_bf16", x, scale, shift, y, shape, ndim, eps);
}
tl_status ada_ln_zero_f16(const uint16_t* x, const uint16_t* r, const float* gate, const float* scale,
                          const float* shift, uint16_t* h, uint16_t* y, const int64_t* shape, int32_t ndim, float eps) {
  return ada_ln_zero_half<F16>("tl_ada_ln_zero_f16", x, r, gate, scale, shift, h, y, shape, ndim, eps);
}
tl_status ada_ln_zero_bf16(const uint16_t* x, const uint16_t* r, const float* gate, const float* scale,
                           const float* shift, uint16_t* h, uint16_t* y, const int64_t* shape, int32_t ndim,
                           float eps) {
  return ada_ln_zero_half<BF16>("tl_ada_ln_zero_bf16", x, r, gate, scale, shift, h, y, shape, ndim, eps);
}
tl_status fused_skip_norm_f16(const uint16_t* x, const uint16_t* skip, const float* g, uint16_t* sum, uint16_t* y,
                              const int64_t* shape, int32_t ndim, float eps) {
  return fused_skip_norm_half<F16>("tl_fused_skip_norm_f16", x, skip, g, sum, y, shape, ndim, eps);
}
tl_status fused_skip_norm_bf16(const uint16_t* x, const uint16_t* skip, const float* g, uint16_t* sum, uint16_t* y,
                               const int64_t* shape, int32_t ndim, float eps) {
  return fused_skip_norm_half<BF16>("tl_fused_skip_norm_bf16", x, skip, g, sum, y, shape, ndim, eps);
}

}  // namespace konform::scalar
