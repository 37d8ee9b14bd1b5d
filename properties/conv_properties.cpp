// Properties of the convolutions and Pool (tinyllm/conv.h), from the math of
// spec §6. Most run on small integers, where every order of summation is
// exact, so two routes to the same number must agree bit for bit and no
// tolerance can hide a wrong tap. Each is named in mutants/manifest.tsv for
// the defect of mutants/conv_base.c it catches.
#include <dlfcn.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "conv_calls.hpp"
#include "konform/properties.hpp"
#include "konform/rng.hpp"
#include "konform/values.hpp"
#include "linalg_calls.hpp"
#include "support.hpp"

namespace konform {
namespace {

using namespace props;
using calls::conv::Floats;
using calls::conv::Geometry;
using calls::conv::Kind;

// Small integers in [-4, 4] from a generated seed: products and sums of up
// to a few hundred terms are integers below 2^24, exact in any order.
Floats small_ints(int64_t n) {
  Rng rng(*rc::gen::arbitrary<uint64_t>());
  Floats v(static_cast<size_t>(n));
  for (float& e : v) e = static_cast<float>(rng.range(-4, 4));
  return v;
}

Floats normals(int64_t n) {
  Rng rng(*rc::gen::arbitrary<uint64_t>());
  return make_values(rng, ValueClass::normal, n);
}

int64_t gen(int64_t lo, int64_t hi) { return *rc::gen::inRange<int64_t>(lo, hi + 1); }

// A valid 2-d (or nd-d) geometry with every knob drawn: kernel 1..3, stride
// and dilation 1..2, padding 0..3, groups g; B 1..2.
Geometry draw(int nd, int64_t groups, int64_t cin_g, int64_t cout_g) {
  Geometry g;
  g.nd = nd, g.B = gen(1, 2), g.groups = groups, g.C_in = groups * cin_g, g.C_out = groups * cout_g;
  for (int a = 0; a < nd; ++a) {
    g.k[a] = gen(1, 3), g.s[a] = gen(1, 2), g.d[a] = gen(1, 2), g.p[a] = gen(0, 3);
    g.in[a] = std::max(gen(1, nd == 3 ? 5 : 9), g.d[a] * (g.k[a] - 1) + 1);
  }
  return g;
}

int64_t count(const Geometry& g, int64_t n0, int64_t n1, const int64_t* sp) {
  int64_t n = n0 * n1;
  for (int a = 0; a < g.nd; ++a) n *= sp[a];
  return n;
}
int64_t x_count(const Geometry& g) { return count(g, g.B, g.C_in, g.in); }
int64_t w_count(const Geometry& g) { return count(g, g.C_out, g.C_in / g.groups, g.k); }

Floats conv(const Backend& b, const char* name, const Geometry& g, const Floats& x, const Floats& w,
            const Floats& bias = {}) {
  return calls::conv::run(b, name, name == std::string("DepthwiseConv") ? Kind::depthwise : Kind::conv, g, x, w, bias);
}

void assert_same(const Floats& a, const Floats& b) {
  RC_ASSERT(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) RC_ASSERT(same_bits(a[i], b[i]));
}

// ---------------------------------------------------------------- Conv2d

// x = 1..9 (3x3), w = [[1, 0], [0, -1]], bias 0.5: every output is
// x[i, j] - x[i+1, j+1] + 0.5 = -3.5; with padding 1 and stride 2 (no
// bias): [-1, -3, -7, -4] (the pads hit w's 1, x's corners its -1).
void conv2d_hand_example(const Backend& b) {
  Geometry g;
  g.in[0] = g.in[1] = 3, g.k[0] = g.k[1] = 2;
  const Floats x = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w = {1, 0, 0, -1};
  for (float v : conv(b, "Conv2d", g, x, w, {0.5f})) RC_ASSERT(v == -3.5f);
  g.s[0] = g.s[1] = 2, g.p[0] = g.p[1] = 1;
  const Floats want = {-1, -3, -7, -4};
  assert_same(conv(b, "Conv2d", g, x, w), want);
}

// y = Conv(x, W) + bias is linear: Conv(a x1 + x2) = a Conv(x1) + Conv(x2)
// (bias NULL), and the same in W; exact on small integers.
void conv_is_linear_in_x_and_w(const Backend& b) {
  const Geometry g = draw(2, gen(1, 2), gen(1, 3), gen(1, 3));
  const Floats x1 = small_ints(x_count(g)), x2 = small_ints(x_count(g)), w1 = small_ints(w_count(g)),
               w2 = small_ints(w_count(g));
  const float a = static_cast<float>(gen(-3, 3));
  Floats xs(x1.size()), ws(w1.size());
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = a * x1[i] + x2[i];
  for (size_t i = 0; i < ws.size(); ++i) ws[i] = a * w1[i] + w2[i];
  const auto y1 = conv(b, "Conv2d", g, x1, w1), y2 = conv(b, "Conv2d", g, x2, w1), ysum = conv(b, "Conv2d", g, xs, w1);
  for (size_t i = 0; i < y1.size(); ++i) RC_ASSERT(ysum[i] == a * y1[i] + y2[i]);
  const auto v2 = conv(b, "Conv2d", g, x1, w2), vsum = conv(b, "Conv2d", g, x1, ws);
  for (size_t i = 0; i < y1.size(); ++i) RC_ASSERT(vsum[i] == a * y1[i] + v2[i]);
}

// A 1x1 convolution is a matmul over channels: y[b, :, p] = W x[b, :, p],
// against the backend's own Matmul (or the exact integers if it has none).
void conv_1x1_is_a_matmul_over_channels(const Backend& b) {
  Geometry g;
  g.B = gen(1, 2), g.C_in = gen(1, 9), g.C_out = gen(1, 9), g.in[0] = gen(1, 6), g.in[1] = gen(1, 20);
  const int64_t P = g.in[0] * g.in[1];
  const Floats x = small_ints(x_count(g)), w = small_ints(w_count(g)), bias = small_ints(g.C_out);
  const auto y = conv(b, "Conv2d", g, x, w, bias);
  for (int64_t bb = 0; bb < g.B; ++bb)
    for (int64_t co = 0; co < g.C_out; ++co)
      for (int64_t p = 0; p < P; ++p) {
        int64_t want = static_cast<int64_t>(bias[co]);
        for (int64_t ci = 0; ci < g.C_in; ++ci)
          want += static_cast<int64_t>(w[co * g.C_in + ci]) * static_cast<int64_t>(x[(bb * g.C_in + ci) * P + p]);
        RC_ASSERT(y[(bb * g.C_out + co) * P + p] == static_cast<float>(want));
      }
}

// groups = g is g separate convolutions (groups = 1) on the channel slices,
// their outputs concatenated along C_out.
void groups_are_separate_convs(const Backend& b) {
  const int64_t groups = gen(2, 4), cin_g = gen(1, 3), cout_g = gen(1, 3);
  const Geometry g = draw(2, groups, cin_g, cout_g);
  const Floats x = small_ints(x_count(g)), w = small_ints(w_count(g)), bias = small_ints(g.C_out);
  const auto y = conv(b, "Conv2d", g, x, w, bias);
  Geometry one = g;
  one.groups = 1, one.C_in = cin_g, one.C_out = cout_g;
  const int64_t IS = g.in[0] * g.in[1];
  const int64_t OS = static_cast<int64_t>(y.size()) / (g.B * g.C_out);
  for (int64_t gi = 0; gi < groups; ++gi) {
    Floats xs,
        ws(w.begin() + gi * cout_g * cin_g * g.k[0] * g.k[1], w.begin() + (gi + 1) * cout_g * cin_g * g.k[0] * g.k[1]);
    for (int64_t bb = 0; bb < g.B; ++bb)
      xs.insert(xs.end(), x.begin() + (bb * g.C_in + gi * cin_g) * IS,
                x.begin() + (bb * g.C_in + (gi + 1) * cin_g) * IS);
    const Floats bs(bias.begin() + gi * cout_g, bias.begin() + (gi + 1) * cout_g);
    const auto part = conv(b, "Conv2d", one, xs, ws, bs);
    for (int64_t bb = 0; bb < g.B; ++bb)
      for (int64_t i = 0; i < cout_g * OS; ++i)
        RC_ASSERT(same_bits(part[bb * cout_g * OS + i], y[(bb * g.C_out + gi * cout_g) * OS + i]));
  }
}

// A backend that lets its thread count be set (tinyllm/threads.h) gives the
// same bits on 1 and 2 threads, past 2^22 multiply-adds where libtl_kernels
// splits a convolution's output positions between threads.
void conv_threads_do_not_change_bits(const Backend& b) {
  using SetThreads = int (*)(int);
  auto set = b.handle ? reinterpret_cast<SetThreads>(dlsym(b.handle.get(), "tl_set_num_threads")) : nullptr;
  if (set == nullptr) return;  // nothing to vary
  Geometry g;
  g.C_in = gen(16, 24), g.C_out = gen(16, 32), g.in[0] = gen(40, 56), g.in[1] = gen(40, 70);
  g.k[0] = g.k[1] = 3, g.p[0] = g.p[1] = 1;
  const Floats x = normals(x_count(g)), w = normals(w_count(g)), bias = normals(g.C_out);
  const int before = set(1);
  const auto one = conv(b, "Conv2d", g, x, w, bias);
  set(2);
  const auto two = conv(b, "Conv2d", g, x, w, bias);
  set(before);
  assert_same(one, two);
}

// ---------------------------------------------------------------- Conv1d, Conv3d

// Conv1d is Conv2d with H = 1 (a 1-tall kernel, no padding in H); Conv3d is
// Conv2d with D = 1. Bit for bit on small integers.
void conv1d_is_conv2d_with_height_1(const Backend& b) {
  const Geometry g1 = draw(1, gen(1, 2), gen(1, 3), gen(1, 3));
  Geometry g2 = g1;
  g2.nd = 2;
  g2.in[1] = g1.in[0], g2.k[1] = g1.k[0], g2.s[1] = g1.s[0], g2.p[1] = g1.p[0], g2.d[1] = g1.d[0];
  g2.in[0] = 1, g2.k[0] = 1, g2.s[0] = gen(1, 2), g2.p[0] = 0, g2.d[0] = gen(1, 2);
  const Floats x = small_ints(x_count(g1)), w = small_ints(w_count(g1)), bias = small_ints(g1.C_out);
  assert_same(conv(b, "Conv1d", g1, x, w, bias), conv(b, "Conv2d", g2, x, w, bias));
}

void conv3d_is_conv2d_with_depth_1(const Backend& b) {
  const Geometry g2 = draw(2, gen(1, 2), gen(1, 3), gen(1, 3));
  Geometry g3 = g2;
  g3.nd = 3;
  for (int a = 2; a >= 1; --a)
    g3.in[a] = g2.in[a - 1], g3.k[a] = g2.k[a - 1], g3.s[a] = g2.s[a - 1], g3.p[a] = g2.p[a - 1], g3.d[a] = g2.d[a - 1];
  g3.in[0] = 1, g3.k[0] = 1, g3.s[0] = 1, g3.p[0] = 0, g3.d[0] = 1;
  const Floats x = small_ints(x_count(g2)), w = small_ints(w_count(g2)), bias = small_ints(g2.C_out);
  assert_same(conv(b, "Conv3d", g3, x, w, bias), conv(b, "Conv2d", g2, x, w, bias));
}

// A Conv3d's depth taps: with a kernel deep enough to span the input, a one-hot
// input at depth t lands at every output whose window covers t (strides,
// dilation and padding in D as the formula says).
void conv3d_matches_its_loops_on_integers(const Backend& b) {
  const Geometry g = draw(3, gen(1, 2), gen(1, 2), gen(1, 2));
  const Floats x = small_ints(x_count(g)), w = small_ints(w_count(g));
  const auto y = conv(b, "Conv3d", g, x, w);
  const auto s = ops::convs::shape_of(Kind::conv, g);
  std::vector<double> want(y.size());
  reference::conv<double>(x.data(), w.data(), nullptr, want.data(), s);
  for (size_t i = 0; i < y.size(); ++i) RC_ASSERT(y[i] == want[i]);
}

// ---------------------------------------------------------------- DepthwiseConv

// DepthwiseConv is tl_conv_f32 with groups = C_in = C_out, bit for bit on
// small integers, and channel c uses filter c only.
void depthwise_is_conv_with_groups_c(const Backend& b) {
  const int64_t C = gen(1, 6);
  Geometry g = draw(2, C, 1, 1);
  const Floats x = small_ints(x_count(g)), w = small_ints(w_count(g)), bias = small_ints(C);
  assert_same(conv(b, "DepthwiseConv", g, x, w, bias), conv(b, "Conv2d", g, x, w, bias));
}

// A strided output is the stride-1 output sampled at every stride-th
// position, y_s[oh, ow] = y_1[oh sH, ow sW] (same kernel, padding,
// dilation), bit for bit on small integers. In libtl_kernels W strides 1 and
// 2 take the direct path and 3 the patch path, so this sets them against
// each other.
void assert_strided_is_subsampled(const Backend& b, const char* name, Kind kind, const Geometry& g, const Floats& x,
                                  const Floats& w = {}, const Floats& bias = {}) {
  Geometry one = g;
  one.s[0] = one.s[1] = 1;
  const auto ys = calls::conv::run(b, name, kind, g, x, w, bias), y1 = calls::conv::run(b, name, kind, one, x, w, bias);
  const auto ss = ops::convs::shape_of(kind, g), s1 = ops::convs::shape_of(kind, one);
  for (int64_t bc = 0; bc < g.B * g.C_out; ++bc)
    for (int64_t oh = 0; oh < ss.out[0]; ++oh)
      for (int64_t ow = 0; ow < ss.out[1]; ++ow)
        RC_ASSERT(same_bits(ys[static_cast<size_t>((bc * ss.out[0] + oh) * ss.out[1] + ow)],
                            y1[static_cast<size_t>((bc * s1.out[0] + oh * g.s[0]) * s1.out[1] + ow * g.s[1])]));
}

void depthwise_strided_is_subsampled(const Backend& b) {
  const int64_t C = gen(1, 4);
  Geometry g = draw(2, C, 1, 1);
  g.s[0] = gen(1, 3), g.s[1] = gen(1, 3);
  const Floats x = small_ints(x_count(g)), w = small_ints(w_count(g)), bias = small_ints(C);
  assert_strided_is_subsampled(b, "DepthwiseConv", Kind::depthwise, g, x, w, bias);
}

// ---------------------------------------------------------------- ConvTranspose2d

// ConvTranspose2d is the adjoint of Conv2d with the same W:
// <Conv2d(x), y> = <x, ConvTranspose2d(y)> for every x and y, output_padding
// chosen so the transposed output has x's shape. Exact on small integers.
void conv_transpose_is_the_adjoint(const Backend& b) {
  const int64_t groups = gen(1, 2);
  const Geometry g = draw(2, groups, gen(1, 3), gen(1, 3));
  const Floats x = small_ints(x_count(g)), w = small_ints(w_count(g));
  const auto cx = conv(b, "Conv2d", g, x, w);
  const auto s = ops::convs::shape_of(Kind::conv, g);
  Geometry t = g;
  t.C_in = g.C_out, t.C_out = g.C_in;
  for (int a = 0; a < 2; ++a) {
    t.in[a] = s.out[a];
    t.op[a] = (g.in[a] + 2 * g.p[a] - g.d[a] * (g.k[a] - 1) - 1) % g.s[a];
  }
  const Floats yv = small_ints(static_cast<int64_t>(cx.size()));
  const auto ty = calls::conv::run(b, "ConvTranspose2d", Kind::transpose, t, yv, w);
  RC_ASSERT(ty.size() == x.size());
  int64_t lhs = 0, rhs = 0;
  for (size_t i = 0; i < cx.size(); ++i) lhs += static_cast<int64_t>(cx[i]) * static_cast<int64_t>(yv[i]);
  for (size_t i = 0; i < x.size(); ++i) rhs += static_cast<int64_t>(x[i]) * static_cast<int64_t>(ty[i]);
  RC_ASSERT(lhs == rhs);
}

// x = [[1, 2], [3, 4]], W = ones(2x2), stride 2: each input becomes a 2x2 block;
// with bias 1 and W's second output channel of twos (groups 1), 2 x + 1.
void conv_transpose_hand_example(const Backend& b) {
  Geometry g;
  g.C_in = 1, g.C_out = 2, g.in[0] = g.in[1] = 2, g.k[0] = g.k[1] = 2, g.s[0] = g.s[1] = 2;
  const Floats w = {1, 1, 1, 1, 2, 2, 2, 2};
  const auto y = calls::conv::run(b, "ConvTranspose2d", Kind::transpose, g, {1, 2, 3, 4}, w, {0, 1});
  RC_ASSERT(y.size() == 32u);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const float v = static_cast<float>(1 + (i / 2) * 2 + j / 2);
      RC_ASSERT(y[i * 4 + j] == v);
      RC_ASSERT(y[16 + i * 4 + j] == 2 * v + 1);
    }
}

// ---------------------------------------------------------------- CausalConv1d

Geometry draw_causal() {
  Geometry g;
  g.nd = 1, g.B = gen(1, 2), g.groups = gen(1, 2);
  g.C_in = g.groups * gen(1, 3), g.C_out = g.groups * gen(1, 3);
  g.in[0] = gen(1, 40), g.k[0] = gen(1, 5), g.s[0] = gen(1, 3), g.d[0] = gen(1, 3);
  return g;
}

// Output t reads no input after t * stride: changing every later input
// leaves y[.., <= t] bit for bit as it was.
void causal_conv_ignores_the_future(const Backend& b) {
  const Geometry g = draw_causal();
  const Floats x = normals(x_count(g)), w = normals(w_count(g)), bias = normals(g.C_out);
  const auto y = calls::conv::run(b, "CausalConv1d", Kind::causal, g, x, w, bias);
  const int64_t T = g.in[0], To = (T - 1) / g.s[0] + 1, t = gen(0, To - 1);
  Floats x2 = x;
  for (int64_t bc = 0; bc < g.B * g.C_in; ++bc)
    for (int64_t i = t * g.s[0] + 1; i < T; ++i) x2[bc * T + i] = x2[bc * T + i] * -3.0f + 7.0f;
  const auto y2 = calls::conv::run(b, "CausalConv1d", Kind::causal, g, x2, w, bias);
  for (int64_t bc = 0; bc < g.B * g.C_out; ++bc)
    for (int64_t i = 0; i <= t; ++i) RC_ASSERT(same_bits(y[bc * To + i], y2[bc * To + i]));
}

// The left padding replicates x[.., 0] (the spec's "replicate-pad left"):
// CausalConv1d(x) = Conv1d(padding 0) of x with dilation (k - 1) copies of
// its first sample prepended. Bit for bit on small integers.
void causal_conv_replicates_the_first_sample(const Backend& b) {
  const Geometry g = draw_causal();
  const Floats x = small_ints(x_count(g)), w = small_ints(w_count(g)), bias = small_ints(g.C_out);
  const auto y = calls::conv::run(b, "CausalConv1d", Kind::causal, g, x, w, bias);
  const int64_t T = g.in[0], P = g.d[0] * (g.k[0] - 1);
  Geometry c = g;
  c.in[0] = T + P, c.p[0] = 0;
  Floats xp;
  for (int64_t bc = 0; bc < g.B * g.C_in; ++bc) {
    xp.insert(xp.end(), static_cast<size_t>(P), x[bc * T]);
    xp.insert(xp.end(), x.begin() + bc * T, x.begin() + (bc + 1) * T);
  }
  assert_same(y, conv(b, "Conv1d", c, xp, w, bias));
}

// ---------------------------------------------------------------- Pool

Geometry draw_pool(int mode) {
  Geometry g;
  g.mode = mode, g.B = gen(1, 2), g.C_in = g.C_out = g.groups = gen(1, 3);
  for (int a = 0; a < 2; ++a) {
    g.k[a] = gen(1, 4), g.s[a] = gen(1, 3), g.p[a] = gen(0, 3);
    g.in[a] = std::max(gen(1, 12), g.k[a] - 2 * g.p[a]);
  }
  return g;
}

// Each max is >= every element of its window and equal to one of them, or
// -inf where the window lies wholly in the padding.
void max_pool_is_the_largest_of_its_window(const Backend& b) {
  const Geometry g = draw_pool(TL_POOL_MAX);
  const Floats x = normals(x_count(g));
  const auto y = calls::conv::run(b, "Pool", Kind::pool, g, x);
  const auto s = ops::convs::shape_of(Kind::pool, g);
  const int64_t OS = s.out_elems(), IS = s.in_elems();
  for (int64_t bc = 0; bc < g.B * g.C_in; ++bc)
    for (int64_t o = 0; o < OS; ++o) {
      const float v = y[bc * OS + o];
      bool found = false, any = false;
      for (int64_t kk = 0; kk < s.taps(); ++kk) {
        const int64_t i = s.source(o, kk);
        if (i < 0) continue;
        any = true;
        RC_ASSERT(v >= x[bc * IS + i]);
        found = found || same_bits(v, x[bc * IS + i]);
      }
      RC_ASSERT((any ? found : v == -std::numeric_limits<float>::infinity()));
    }
}

// Avg of a constant c is c times the share of the window inside the input
// (the spec divides by kH kW, pads included): within Pool's tolerance.
void avg_pool_of_a_constant(const Backend& b) {
  const Geometry g = draw_pool(TL_POOL_AVG);
  const float c = static_cast<float>(gen(-8, 8)) * 0.75f;
  const Floats x(static_cast<size_t>(x_count(g)), c);
  const auto y = calls::conv::run(b, "Pool", Kind::pool, g, x);
  const auto s = ops::convs::shape_of(Kind::pool, g);
  const int64_t OS = s.out_elems();
  for (int64_t bc = 0; bc < g.B * g.C_in; ++bc)
    for (int64_t o = 0; o < OS; ++o) {
      int64_t inside = 0;
      for (int64_t kk = 0; kk < s.taps(); ++kk) inside += s.source(o, kk) >= 0;
      const double want = double(c) * double(inside) / double(s.taps());
      RC_ASSERT(near(y[bc * OS + o], want, std::fabs(want), limit_of("Pool")));
    }
}

// stride NULL is stride = kernel (the spec's default), bit for bit, in both modes.
void pool_default_stride_is_the_kernel(const Backend& b) {
  Geometry g = draw_pool(static_cast<int>(gen(0, 1)));
  g.s[0] = g.k[0], g.s[1] = g.k[1];
  const Floats x = normals(x_count(g));
  const auto explicit_stride = calls::conv::run(b, "Pool", Kind::pool, g, x);
  g.default_stride = true;
  assert_same(calls::conv::run(b, "Pool", Kind::pool, g, x), explicit_stride);
}

// Pool's draw has W strides 1..3 already.
void pool_strided_is_subsampled(const Backend& b) {
  const Geometry g = draw_pool(static_cast<int>(gen(0, 1)));
  assert_strided_is_subsampled(b, "Pool", Kind::pool, g, small_ints(x_count(g)));
}

// x = [[1, 2], [3, 4]], 2x2 window, stride 1, padding 1: avg [0.25, 0.75,
// 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1]; max [1, 2, 2, 3, 4, 4, 3, 4, 4].
void pool_hand_example(const Backend& b) {
  Geometry g;
  g.in[0] = g.in[1] = 2, g.k[0] = g.k[1] = 2, g.p[0] = g.p[1] = 1;
  g.mode = TL_POOL_AVG;
  assert_same(calls::conv::run(b, "Pool", Kind::pool, g, {1, 2, 3, 4}),
              {0.25f, 0.75f, 0.5f, 1, 2.5f, 1.5f, 0.75f, 1.75f, 1});
  g.mode = TL_POOL_MAX;
  assert_same(calls::conv::run(b, "Pool", Kind::pool, g, {1, 2, 3, 4}), {1, 2, 2, 3, 4, 4, 3, 4, 4});
}

}  // namespace

namespace props {

std::vector<Property> conv_properties() {
  return {
      {"hand_example", "Conv2d", "unit", conv2d_hand_example},
      {"conv_is_linear_in_x_and_w", "Conv2d", "property", conv_is_linear_in_x_and_w},
      {"conv_1x1_is_a_matmul_over_channels", "Conv2d", "property", conv_1x1_is_a_matmul_over_channels},
      {"groups_are_separate_convs", "Conv2d", "property", groups_are_separate_convs},
      {"conv_threads_do_not_change_bits", "Conv2d", "property", conv_threads_do_not_change_bits},
      {"conv1d_is_conv2d_with_height_1", "Conv1d", "property", conv1d_is_conv2d_with_height_1},
      {"conv3d_is_conv2d_with_depth_1", "Conv3d", "property", conv3d_is_conv2d_with_depth_1},
      {"conv3d_matches_its_loops_on_integers", "Conv3d", "property", conv3d_matches_its_loops_on_integers},
      {"depthwise_is_conv_with_groups_c", "DepthwiseConv", "property", depthwise_is_conv_with_groups_c},
      {"strided_is_subsampled", "DepthwiseConv", "property", depthwise_strided_is_subsampled},
      {"hand_example", "ConvTranspose2d", "unit", conv_transpose_hand_example},
      {"conv_transpose_is_the_adjoint", "ConvTranspose2d", "property", conv_transpose_is_the_adjoint},
      {"causal_conv_ignores_the_future", "CausalConv1d", "property", causal_conv_ignores_the_future},
      {"causal_conv_replicates_the_first_sample", "CausalConv1d", "property", causal_conv_replicates_the_first_sample},
      {"hand_example", "Pool", "unit", pool_hand_example},
      {"max_pool_is_the_largest_of_its_window", "Pool", "property", max_pool_is_the_largest_of_its_window},
      {"avg_pool_of_a_constant", "Pool", "property", avg_pool_of_a_constant},
      {"pool_default_stride_is_the_kernel", "Pool", "property", pool_default_stride_is_the_kernel},
      {"strided_is_subsampled", "Pool", "property", pool_strided_is_subsampled},
  };
}

}  // namespace props

}  // namespace konform
