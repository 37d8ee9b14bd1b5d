// The oneDNN peer adapter (libonednn_adapter.so, over Debian's libdnnl 2.6):
// konform's C ABI mapped onto oneDNN primitives. Argument checks are konform's
// own (impl/common, impl/simd/*checks*), so a refusal has the words konform's
// backends use; every number is computed by oneDNN. A case oneDNN refuses is
// TL_ERR_UNSUPPORTED with oneDNN's words (dnnl_glue.hpp), never made up.
//
// This file (activations, tensor.h, norm.h, elementwise.h):
//   Relu, LeakyRelu      eltwise_relu (alpha 0, alpha)
//   Gelu_erf, Gelu_tanh  eltwise_gelu_erf, eltwise_gelu_tanh
//   Sigmoid, Tanh, Silu  eltwise_logistic, eltwise_tanh, eltwise_swish (alpha 1)
//   SwiGlu, GeGlu, Glu, silu_mul   that eltwise on gate, then binary_mul by up
//   PRelu                prelu_forward, slope as [1, C, 1]
//   Softmax              softmax_forward along the axis
//   Add/Sub/Mul/Div, add binary_add/sub/mul/div; oneDNN broadcasts only its
//                        second source, so a broadcast first operand is
//                        copied out to y's shape first
//   Clamp                eltwise_clip (alpha lo, beta hi)
//   Transpose, Permute, Reshape   a reorder through permuted strides
//   Concat               concat (empty inputs left out); Split, Chunk: a
//                        reorder of each part's sub-memory
//   LayerNorm            layer_normalization_forward, use_scale | use_shift
//   BatchNorm            batch_normalization_forward, use_global_stats
//   InstanceNorm         batch_normalization_forward per sample (its batch
//                        statistics over one sample are per-channel ones)
//   GroupNorm            batch statistics over [1, N groups, C/groups * S],
//                        then binary_mul by g and binary_add of b
//   AdaLN, AdaLN_Zero    layer norm without affine, binary ops for 1 + scale,
//                        shift and gate
// Not exported (oneDNN 2.6 has no primitive for them): RmsNorm and what builds
// on it (rmsnorm, FusedSkipNorm, FusedNormMatmul, QkNorm), Argmax, NanToNum,
// Embedding, the Rope and position ops, attention, KV cache, quantization,
// sampling.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "adapters/onednn/dnnl_glue.hpp"
#include "impl/common/activation_args.hpp"
#include "impl/common/norm_args.hpp"
#include "impl/common/tensor_cut_checks.hpp"
#include "impl/common/tensor_op_checks.hpp"
#include "tinyllm/activations.h"
#include "tinyllm/elementwise.h"
#include "tinyllm/norm.h"
#include "tinyllm/tensor.h"

namespace kt = konform::impl::tensor;
namespace ki = konform::impl;
using namespace konform::peer::onednn;
using dnnl::algorithm;
using dnnl::prop_kind;

namespace {

// y = f(x) over n elements with oneDNN's eltwise algorithm `alg`.
void eltwise(const float* x, float* y, int64_t n, algorithm alg, float alpha = 0.f, float beta = 0.f) {
  if (n == 0) return;
  const auto d = plain({n});
  dnnl::eltwise_forward::primitive_desc pd({prop_kind::forward_inference, alg, d, alpha, beta}, cpu());
  run(dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, wrap(d, x)}, {DNNL_ARG_DST, wrap(d, y)}});
}

// y = a OP b, a of y's dims, b of the same rank with any dimension 1 (oneDNN
// broadcasts its second source only).
void binary(algorithm alg, const float* a, const dims& ad, const float* b, const dims& bd, float* y) {
  if (count(ad) == 0) return;
  const auto da = plain(ad), db = plain(bd);
  dnnl::binary::primitive_desc pd({alg, da, db, da}, cpu());
  run(dnnl::binary(pd), {{DNNL_ARG_SRC_0, wrap(da, a)}, {DNNL_ARG_SRC_1, wrap(db, b)}, {DNNL_ARG_DST, wrap(da, y)}});
}

// x (dims xd, same rank as yd, each 1 or equal) repeated to yd: the copy
// NumPy's broadcast makes of a first operand, which oneDNN cannot broadcast.
std::vector<float> expand(const float* x, const dims& xd, const dims& yd) {
  std::vector<float> out(static_cast<size_t>(count(yd)));
  const dims xs = row_major_strides(xd);
  const size_t rank = yd.size();
  std::vector<int64_t> idx(rank, 0);
  for (float& v : out) {
    int64_t at = 0;
    for (size_t k = 0; k < rank; ++k) at += xd[k] == 1 ? 0 : idx[k] * xs[k];
    v = x[at];
    for (size_t k = rank; k-- > 0;)
      if (++idx[k] < yd[k]) break;
      else idx[k] = 0;
  }
  return out;
}

// Add, Sub, Mul, Div with NumPy broadcasting: konform's checks, then one
// oneDNN binary primitive on shapes padded to y's rank.
tl_status broadcast(const char* fn, algorithm alg, const float* a, const int64_t* a_shape, int64_t a_rank,
                    const float* b, const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                    int64_t y_rank) {
  kt::BroadcastPlan plan;
  if (tl_status s = kt::PlanBroadcast(a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape, y_rank, &plan)) return s;
  if (plan.count == 0) return TL_OK;
  const size_t rank = y_rank > 0 ? static_cast<size_t>(y_rank) : 1;  // a scalar is one element
  dims yd(rank, 1), ad(rank, 1), bd(rank, 1);
  for (int64_t k = 0; k < y_rank; ++k) yd[rank - y_rank + k] = y_shape[k];
  for (int64_t k = 0; k < a_rank; ++k) ad[rank - a_rank + k] = a_shape[k];
  for (int64_t k = 0; k < b_rank; ++k) bd[rank - b_rank + k] = b_shape[k];
  return guarded(fn, [&] {
    std::vector<float> wide, out;
    const float* src0 = a;
    if (ad != yd) wide = expand(a, ad, yd), src0 = wide.data();
    float* dst = y;
    if (y == b && b != src0) out.resize(static_cast<size_t>(plan.count)), dst = out.data();  // no dst == src1
    binary(alg, src0, yd, b, bd, dst);
    if (dst != y) std::memcpy(y, dst, out.size() * sizeof(float));
  });
}

// act(gate) * up, the activation rounded to float first (as the unfused ops).
void gated(const char* fn, algorithm act, float alpha, const float* gate, const float* up, float* y, int64_t n) {
  must(fn, [&] {
    if (n == 0) return;
    std::vector<float> a(static_cast<size_t>(n));
    eltwise(gate, a.data(), n, act, alpha);
    if (y == up) binary(algorithm::binary_mul, up, {n}, a.data(), {n}, y);  // y may be src0, never src1
    else binary(algorithm::binary_mul, a.data(), {n}, up, {n}, y);
  });
}

// Layer normalization of `rows` rows of d, oneDNN's statistics; g and b may
// be NULL (no scale, no shift).
void layer_norm(const float* x, const float* g, const float* b, float* y, int64_t rows, int64_t d, float eps) {
  if (rows * d == 0) return;
  const auto data = plain({rows, d}), param = plain({d});
  auto flags = dnnl::normalization_flags::none;
  if (g) flags |= dnnl::normalization_flags::use_scale;
  if (b) flags |= dnnl::normalization_flags::use_shift;
  dnnl::layer_normalization_forward::primitive_desc pd({prop_kind::forward_inference, data, eps, flags}, cpu());
  Args args{{DNNL_ARG_SRC, wrap(data, x)}, {DNNL_ARG_DST, wrap(data, y)}};
  if (g) args.emplace(DNNL_ARG_SCALE, wrap(param, g));
  if (b) args.emplace(DNNL_ARG_SHIFT, wrap(param, b));
  run(dnnl::layer_normalization_forward(pd), args);
}

// Batch normalization of x [n, c, s]: with the running statistics given, or
// (mean == NULL) with the statistics of each channel over n and s computed
// by oneDNN. g and b may be NULL.
void batch_norm(const float* x, const float* mean, const float* var, const float* g, const float* b, float* y,
                int64_t n, int64_t c, int64_t s, float eps) {
  if (n * c * s == 0) return;
  const auto data = plain({n, c, s}), param = plain({c});
  auto flags = dnnl::normalization_flags::none;
  if (mean) flags |= dnnl::normalization_flags::use_global_stats;
  if (g) flags |= dnnl::normalization_flags::use_scale;
  if (b) flags |= dnnl::normalization_flags::use_shift;
  dnnl::batch_normalization_forward::primitive_desc pd({prop_kind::forward_inference, data, eps, flags}, cpu());
  Args args{{DNNL_ARG_SRC, wrap(data, x)}, {DNNL_ARG_DST, wrap(data, y)}};
  if (mean) args.emplace(DNNL_ARG_MEAN, wrap(param, mean)), args.emplace(DNNL_ARG_VARIANCE, wrap(param, var));
  if (g) args.emplace(DNNL_ARG_SCALE, wrap(param, g));
  if (b) args.emplace(DNNL_ARG_SHIFT, wrap(param, b));
  run(dnnl::batch_normalization_forward(pd), args);
}

// AdaLN on rows of sample s: LayerNorm without affine, then * (1 + scale[s])
// + shift[s], each step one oneDNN primitive rounded to float.
void ada_ln(const float* x, const float* scale, const float* shift, float* y, const ki::SampleShape& s, float eps) {
  const int64_t n = s.batch * s.tokens * s.d;
  if (n == 0) return;
  std::vector<float> one_plus(static_cast<size_t>(s.batch * s.d)), normed(static_cast<size_t>(n));
  const float one = 1.0f;
  binary(algorithm::binary_add, scale, {s.batch * s.d}, &one, {1}, one_plus.data());
  layer_norm(x, nullptr, nullptr, normed.data(), s.batch * s.tokens, s.d, eps);
  const dims rows{s.batch, s.tokens, s.d}, per_sample{s.batch, 1, s.d};
  binary(algorithm::binary_mul, normed.data(), rows, one_plus.data(), per_sample, normed.data());
  binary(algorithm::binary_add, normed.data(), rows, shift, per_sample, y);
}

}  // namespace

extern "C" {

// ---- tinyllm/elementwise.h (the two it can express) -------------------------

void tl_add_f32(const float* a, const float* b, float* y, int64_t n) {
  must("tl_add_f32", [&] {
    if (n == 0) return;
    std::vector<float> out;
    float* dst = y;
    if (y == b && b != a) out.resize(static_cast<size_t>(n)), dst = out.data();
    binary(algorithm::binary_add, a, {n}, b, {n}, dst);
    if (dst != y) std::memcpy(y, dst, out.size() * sizeof(float));
  });
}

void tl_silu_mul_f32(const float* gate, const float* up, float* y, int64_t n) {
  gated("tl_silu_mul_f32", algorithm::eltwise_swish, 1.f, gate, up, y, n);
}

// ---- tinyllm/activations.h ----------------------------------------------------

void tl_silu_f32(const float* x, float* y, int64_t n) {
  must("tl_silu_f32", [&] { eltwise(x, y, n, algorithm::eltwise_swish, 1.f); });
}
void tl_gelu_erf_f32(const float* x, float* y, int64_t n) {
  must("tl_gelu_erf_f32", [&] { eltwise(x, y, n, algorithm::eltwise_gelu_erf); });
}
void tl_gelu_tanh_f32(const float* x, float* y, int64_t n) {
  must("tl_gelu_tanh_f32", [&] { eltwise(x, y, n, algorithm::eltwise_gelu_tanh); });
}
void tl_relu_f32(const float* x, float* y, int64_t n) {
  must("tl_relu_f32", [&] { eltwise(x, y, n, algorithm::eltwise_relu, 0.f); });
}
void tl_leaky_relu_f32(const float* x, float* y, int64_t n, float alpha) {
  must("tl_leaky_relu_f32", [&] { eltwise(x, y, n, algorithm::eltwise_relu, alpha); });
}
void tl_sigmoid_f32(const float* x, float* y, int64_t n) {
  must("tl_sigmoid_f32", [&] { eltwise(x, y, n, algorithm::eltwise_logistic); });
}
void tl_tanh_f32(const float* x, float* y, int64_t n) {
  must("tl_tanh_f32", [&] { eltwise(x, y, n, algorithm::eltwise_tanh); });
}

// oneDNN's PReLU primitive, the slope broadcast as [1, channels, 1].
void tl_prelu_f32(const float* x, const float* slope, float* y, int64_t outer, int64_t channels, int64_t inner) {
  must("tl_prelu_f32", [&] {
    if (outer * channels * inner == 0) return;
    const auto data = plain({outer, channels, inner}), w = plain({1, channels, 1});
    dnnl::prelu_forward::primitive_desc pd({prop_kind::forward_inference, data, w}, cpu());
    run(dnnl::prelu_forward(pd),
        {{DNNL_ARG_SRC, wrap(data, x)}, {DNNL_ARG_WEIGHTS, wrap(w, slope)}, {DNNL_ARG_DST, wrap(data, y)}});
  });
}

tl_status tl_softmax_f32(const float* x, float* y, const int64_t* shape, int rank, int axis) {
  ki::AxisSplit s;
  if (tl_status st = ki::split_at_axis(shape, rank, axis, &s)) return st;
  if (s.outer * s.length * s.inner == 0) return TL_OK;
  return guarded("tl_softmax_f32", [&] {
    const auto data = plain(dims(shape, shape + rank));
    dnnl::softmax_forward::primitive_desc pd({prop_kind::forward_inference, data, axis < 0 ? axis + rank : axis},
                                             cpu());
    run(dnnl::softmax_forward(pd), {{DNNL_ARG_SRC, wrap(data, x)}, {DNNL_ARG_DST, wrap(data, y)}});
  });
}

void tl_swiglu_f32(const float* gate, const float* up, float* y, int64_t n) {
  gated("tl_swiglu_f32", algorithm::eltwise_swish, 1.f, gate, up, y, n);
}
tl_status tl_geglu_f32(const float* gate, const float* up, float* y, int64_t n, int approximation) {
  if (tl_status st = ki::check_gelu_approximation(approximation)) return st;
  gated("tl_geglu_f32", approximation == TL_GELU_ERF ? algorithm::eltwise_gelu_erf : algorithm::eltwise_gelu_tanh, 0.f,
        gate, up, y, n);
  return TL_OK;
}
void tl_glu_f32(const float* gate, const float* up, float* y, int64_t n) {
  gated("tl_glu_f32", algorithm::eltwise_logistic, 0.f, gate, up, y, n);
}

// ---- tinyllm/tensor.h ----------------------------------------------------------

tl_status tl_add_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return broadcast("tl_add_broadcast_f32", algorithm::binary_add, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape,
                   y_rank);
}
tl_status tl_sub_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return broadcast("tl_sub_broadcast_f32", algorithm::binary_sub, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape,
                   y_rank);
}
tl_status tl_mul_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return broadcast("tl_mul_broadcast_f32", algorithm::binary_mul, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape,
                   y_rank);
}
tl_status tl_div_broadcast_f32(const float* a, const int64_t* a_shape, int64_t a_rank, const float* b,
                               const int64_t* b_shape, int64_t b_rank, float* y, const int64_t* y_shape,
                               int64_t y_rank) {
  return broadcast("tl_div_broadcast_f32", algorithm::binary_div, a, a_shape, a_rank, b, b_shape, b_rank, y, y_shape,
                   y_rank);
}

// oneDNN's clip: lo where x <= lo, hi where x > hi.
tl_status tl_clamp_f32(const float* x, float* y, int64_t n, float lo, float hi) {
  if (tl_status s = kt::CheckClamp(x, y, n, lo, hi)) return s;
  return guarded("tl_clamp_f32", [&] { eltwise(x, y, n, algorithm::eltwise_clip, lo, hi); });
}

tl_status tl_transpose_f32(const float* x, const int64_t* shape, int64_t rank, float* y) {
  kt::MovePlan plan;
  if (tl_status st = kt::PlanTranspose(x, shape, rank, y, &plan)) return st;
  std::vector<int> perm(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) perm[i] = i;
  std::swap(perm[rank - 2], perm[rank - 1]);
  return guarded("tl_transpose_f32", [&] { permute(x, y, dims(shape, shape + rank), perm); });
}

tl_status tl_permute_f32(const float* x, const int64_t* shape, int64_t rank, const int64_t* perm, float* y) {
  kt::MovePlan plan;
  if (tl_status st = kt::PlanPermuteChecked(x, shape, rank, perm, y, &plan)) return st;
  if (rank == 0) return guarded("tl_permute_f32", [&] { permute(x, y, {1}, {0}); });
  return guarded("tl_permute_f32",
                 [&] { permute(x, y, dims(shape, shape + rank), std::vector<int>(perm, perm + rank)); });
}

tl_status tl_reshape_f32(const float* x, const int64_t* shape, int64_t rank, float* y, const int64_t* new_shape,
                         int64_t new_rank) {
  int64_t n = 0;
  if (tl_status st = kt::CheckReshape(x, shape, rank, y, new_shape, new_rank, &n)) return st;
  if (x == y) return TL_OK;  // the view
  return guarded("tl_reshape_f32", [&] { permute(x, y, {n}, {0}); });
}

// oneDNN's concat primitive; inputs with nothing along the axis are left out
// (they add nothing, and oneDNN refuses empty sources).
tl_status tl_concat_f32(const float* const* xs, const int64_t* shapes, int64_t count_in, int64_t rank, int64_t axis,
                        float* y) {
  kt::ConcatPlan plan;
  if (tl_status st = kt::PlanConcat(xs, shapes, count_in, rank, axis, y, &plan)) return st;
  if (plan.out.count == 0) return TL_OK;
  return guarded("tl_concat_f32", [&] {
    std::vector<dnnl::memory::desc> mds;
    Args args;
    for (int64_t k = 0; k < count_in; ++k) {
      if (plan.in[k].count == 0) continue;
      mds.push_back(plain(dims(plan.in[k].d, plan.in[k].d + rank)));
      args.emplace(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(mds.size() - 1), wrap(mds.back(), xs[k]));
    }
    const auto out = plain(dims(plan.out.d, plan.out.d + rank));
    dnnl::concat::primitive_desc pd(out, plan.axis, mds, cpu());
    args.emplace(DNNL_ARG_DST, wrap(out, y));
    run(dnnl::concat(pd), args);
  });
}

}  // extern "C"

namespace {

// Split and Chunk: each part a reorder of a sub-memory of x.
tl_status cut(const char* fn, const float* x, const kt::CutPlan& plan, int64_t parts, float* const* ys,
              int64_t (*length)(const void*, int64_t), const void* ctx) {
  if (plan.x.count == 0) return TL_OK;
  return guarded(fn, [&] {
    const dims xd(plan.x.d, plan.x.d + plan.x.rank);
    const auto whole = plain(xd);
    dims offsets(xd.size(), 0);
    for (int64_t k = 0; k < parts; ++k) {
      dims part = xd;
      part[plan.axis] = length(ctx, k);
      if (count(part) > 0) {
        dnnl::memory src = wrap(whole.submemory_desc(part, offsets), x), dst = wrap(plain(part), ys[k]);
        run(dnnl::reorder(src, dst), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
      }
      offsets[plan.axis] += part[plan.axis];
    }
  });
}

}  // namespace

extern "C" {

tl_status tl_split_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, const int64_t* sizes,
                       int64_t parts, float* const* ys) {
  kt::CutPlan plan;
  if (tl_status st = kt::CheckSplit(x, shape, rank, axis, sizes, parts, ys, &plan)) return st;
  return cut(
      "tl_split_f32", x, plan, parts, ys, [](const void* c, int64_t k) { return static_cast<const int64_t*>(c)[k]; },
      sizes);
}

tl_status tl_chunk_f32(const float* x, const int64_t* shape, int64_t rank, int64_t axis, int64_t chunks,
                       float* const* ys) {
  kt::CutPlan plan;
  if (tl_status st = kt::CheckChunk(x, shape, rank, axis, chunks, ys, &plan)) return st;
  const int64_t ctx[2] = {plan.x.d[plan.axis], chunks};
  return cut(
      "tl_chunk_f32", x, plan, chunks, ys,
      [](const void* c, int64_t k) {
        const auto* v = static_cast<const int64_t*>(c);
        return tl_chunk_length(v[0], v[1], k);
      },
      ctx);
}

// ---- tinyllm/norm.h -------------------------------------------------------------

tl_status tl_layer_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, float eps) {
  ki::RowsShape s;
  if (tl_status st = ki::check_rows("tl_layer_norm_f32", shape, ndim, eps, &s)) return st;
  return guarded("tl_layer_norm_f32", [&] { layer_norm(x, g, b, y, s.rows, s.d, eps); });
}

tl_status tl_batch_norm_f32(const float* x, const float* mean, const float* var, const float* g, const float* b,
                            float* y, const int64_t* shape, int32_t ndim, float eps) {
  ki::ChannelShape s;
  if (tl_status st = ki::check_channels("tl_batch_norm_f32", shape, ndim, eps, false, &s)) return st;
  return guarded("tl_batch_norm_f32", [&] { batch_norm(x, mean, var, g, b, y, s.n, s.c, s.s, eps); });
}

// One sample at a time: oneDNN's batch statistics of a batch of one are the
// per-(sample, channel) statistics InstanceNorm takes.
tl_status tl_instance_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                               int32_t ndim, float eps) {
  ki::ChannelShape s;
  if (tl_status st = ki::check_channels("tl_instance_norm_f32", shape, ndim, eps, true, &s)) return st;
  return guarded("tl_instance_norm_f32", [&] {
    for (int64_t n = 0; n < s.n; ++n)
      batch_norm(x + n * s.c * s.s, nullptr, nullptr, g, b, y + n * s.c * s.s, 1, s.c, s.s, eps);
  });
}

// Batch statistics over [1, N groups, (C / groups) s] give each (sample,
// group) its mean and variance; the per-channel g and b follow as a binary
// multiply and add.
tl_status tl_group_norm_f32(const float* x, const float* g, const float* b, float* y, const int64_t* shape,
                            int32_t ndim, int64_t num_groups, float eps) {
  ki::ChannelShape s;
  if (tl_status st = ki::check_groups("tl_group_norm_f32", shape, ndim, num_groups, eps, &s)) return st;
  return guarded("tl_group_norm_f32", [&] {
    const int64_t n = s.n * s.c * s.s;
    if (n == 0) return;
    std::vector<float> t(static_cast<size_t>(n));
    batch_norm(x, nullptr, nullptr, nullptr, nullptr, t.data(), 1, s.n * num_groups, (s.c / num_groups) * s.s, eps);
    const dims data{s.n, s.c, s.s}, channel{1, s.c, 1};
    binary(algorithm::binary_mul, t.data(), data, g, channel, t.data());
    binary(algorithm::binary_add, t.data(), data, b, channel, y);
  });
}

tl_status tl_ada_ln_f32(const float* x, const float* scale, const float* shift, float* y, const int64_t* shape,
                        int32_t ndim, float eps) {
  ki::SampleShape s;
  if (tl_status st = ki::check_samples("tl_ada_ln_f32", shape, ndim, eps, &s)) return st;
  return guarded("tl_ada_ln_f32", [&] { ada_ln(x, scale, shift, y, s, eps); });
}

// h = x + gate[s] * r as a binary multiply and a binary add, then AdaLN(h).
tl_status tl_ada_ln_zero_f32(const float* x, const float* r, const float* gate, const float* scale, const float* shift,
                             float* h, float* y, const int64_t* shape, int32_t ndim, float eps) {
  ki::SampleShape s;
  if (tl_status st = ki::check_samples("tl_ada_ln_zero_f32", shape, ndim, eps, &s)) return st;
  return guarded("tl_ada_ln_zero_f32", [&] {
    const int64_t n = s.batch * s.tokens * s.d;
    if (n == 0) return;
    std::vector<float> gr(static_cast<size_t>(n));
    const dims rows{s.batch, s.tokens, s.d};
    binary(algorithm::binary_mul, r, rows, gate, {s.batch, 1, s.d}, gr.data());
    binary(algorithm::binary_add, x, rows, gr.data(), rows, h);
    ada_ln(h, scale, shift, y, s, eps);
  });
}

}  // extern "C"
