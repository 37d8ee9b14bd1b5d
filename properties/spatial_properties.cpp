// Properties of the spatial ops (tinyllm/spatial.h, spec/operations.txt §7):
// the shuffles invert each other bit for bit, Unpatchify inverts the patch
// layout, PatchEmbed is the convolution with kernel = stride = p written out
// and is linear. Each is stated so it can fail; the mutant named beside it
// in mutants/manifest.tsv breaks it.
#include <bit>
#include <cmath>
#include <vector>

#include "konform/properties.hpp"
#include "spatial_calls.hpp"
#include "support.hpp"

namespace konform {
namespace {

using namespace props;
namespace sc = calls::spatial;
using Sizes = sc::Sizes;

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

int64_t pick(int64_t lo, int64_t hi) { return *rc::gen::inRange<int64_t>(lo, hi + 1); }

void same_bits(const std::vector<float>& got, const std::vector<float>& want) {
  RC_ASSERT(got.size() == want.size());
  for (size_t k = 0; k < want.size(); ++k) RC_ASSERT(props::same_bits(got[k], want[k]));
}

// ---------------------------------------------------------------- the shuffles

// x [1, 8, 1, 2] with x[c, 0, w] = 10 c + w, r = 2: output channel c takes
// input channels 4c .. 4c+3 as its 2 x 2 sub-pixels, row-major.
void shuffle_hand_example(const Backend& b) {
  std::vector<float> x(16);
  for (int c = 0; c < 8; ++c)
    for (int w = 0; w < 2; ++w) x[c * 2 + w] = float(10 * c + w);
  const auto y = sc::shuffle(b, x, {1, 8, 1, 2, 2, 0});
  RC_ASSERT(y.status == TL_OK);
  same_bits(y.y, {0, 10, 1, 11, 20, 30, 21, 31, 40, 50, 41, 51, 60, 70, 61, 71});
}

// The converse of the example above.
void unshuffle_hand_example(const Backend& b) {
  const std::vector<float> x = {0, 10, 1, 11, 20, 30, 21, 31, 40, 50, 41, 51, 60, 70, 61, 71};
  const auto y = sc::unshuffle(b, x, {1, 2, 2, 4, 2, 0});
  RC_ASSERT(y.status == TL_OK);
  std::vector<float> want(16);
  for (int c = 0; c < 8; ++c)
    for (int w = 0; w < 2; ++w) want[c * 2 + w] = float(10 * c + w);
  same_bits(y.y, want);
}

// PixelUnshuffle(PixelShuffle(x)) == x bit for bit (NaN and -0 among x).
void shuffle_then_unshuffle_is_identity(const Backend& b) {
  const int64_t r = pick(1, 4);
  const Sizes s{pick(1, 2), pick(1, 3) * r * r, pick(1, 9), pick(1, 19), r, 0};
  auto x = finite_floats(s.B * s.C * s.H * s.W);
  x[0] = -0.0f;
  if (x.size() > 1) x[1] = NAN;
  const auto y = sc::shuffle(b, x, s);
  RC_ASSERT(y.status == TL_OK);
  const auto back = sc::unshuffle(b, y.y, {s.B, s.C / (r * r), s.H * r, s.W * r, r, 0});
  RC_ASSERT(back.status == TL_OK);
  same_bits(back.y, x);
}

// PixelShuffle(PixelUnshuffle(x)) == x bit for bit.
void unshuffle_then_shuffle_is_identity(const Backend& b) {
  const int64_t r = pick(1, 4);
  const Sizes s{pick(1, 2), pick(1, 3), pick(1, 6) * r, pick(1, 12) * r, r, 0};
  const auto x = finite_floats(s.B * s.C * s.H * s.W);
  const auto y = sc::unshuffle(b, x, s);
  RC_ASSERT(y.status == TL_OK);
  const auto back = sc::shuffle(b, y.y, {s.B, s.C * r * r, s.H / r, s.W / r, r, 0});
  RC_ASSERT(back.status == TL_OK);
  same_bits(back.y, x);
}

// ---------------------------------------------------------------- Unpatchify

// Tokens made from an image by DiT's patchify (token hp (W/p) + wp, feature
// (i p + j) C + c) unpatchify to that image, bit for bit.
void unpatchify_inverts_the_patch_layout(const Backend& b) {
  const int64_t p = pick(1, 4);
  const Sizes s{pick(1, 2), pick(1, 5), pick(1, 6) * p, pick(1, 9) * p, p, 0};
  const int64_t gh = s.H / p, gw = s.W / p, F = p * p * s.C;
  const auto img = finite_floats(s.B * s.C * s.H * s.W);
  std::vector<float> tokens(img.size());
  for (int64_t b_ = 0; b_ < s.B; ++b_)
    for (int64_t c = 0; c < s.C; ++c)
      for (int64_t h = 0; h < s.H; ++h)
        for (int64_t w = 0; w < s.W; ++w) {
          const int64_t n = (h / p) * gw + w / p, f = ((h % p) * p + w % p) * s.C + c;
          tokens[static_cast<size_t>((b_ * gh * gw + n) * F + f)] =
              img[static_cast<size_t>(((b_ * s.C + c) * s.H + h) * s.W + w)];
        }
  const auto y = sc::unpatchify(b, tokens, s);
  RC_ASSERT(y.status == TL_OK);
  same_bits(y.y, img);
}

// ---------------------------------------------------------------- PatchEmbed

struct Embed {
  Sizes s;
  std::vector<float> x, w, bias;
};

Embed gen_embed(int64_t p, bool with_bias) {
  Embed e;
  e.s = {pick(1, 2), pick(1, 4), pick(1, 4) * p, pick(1, 5) * p, p, pick(1, 20)};
  e.x = finite_floats(e.s.B * e.s.C * e.s.H * e.s.W);
  e.w = finite_floats(e.s.D * e.s.C * p * p);
  if (with_bias) e.bias = finite_floats(e.s.D);
  return e;
}

// The convolution of the spec's Conv2d loop with kernel = stride = p, in
// double, and its scale sum |x w| + |bias|; y [B, N, D] in raster order.
void conv_reference(const Embed& e, std::vector<double>* y, std::vector<double>* scale) {
  const Sizes& s = e.s;
  const int64_t p = s.f, gh = s.H / p, gw = s.W / p;
  y->assign(static_cast<size_t>(s.B * gh * gw * s.D), 0.0);
  scale->assign(y->size(), 0.0);
  for (int64_t b = 0; b < s.B; ++b)
    for (int64_t d = 0; d < s.D; ++d)
      for (int64_t oi = 0; oi < gh; ++oi)
        for (int64_t oj = 0; oj < gw; ++oj) {
          double acc = e.bias.empty() ? 0.0 : e.bias[d], mag = e.bias.empty() ? 0.0 : std::fabs(e.bias[d]);
          for (int64_t c = 0; c < s.C; ++c)
            for (int64_t ki = 0; ki < p; ++ki)
              for (int64_t kj = 0; kj < p; ++kj) {
                const double t = double(e.x[((b * s.C + c) * s.H + oi * p + ki) * s.W + oj * p + kj]) *
                                 double(e.w[((d * s.C + c) * p + ki) * p + kj]);
                acc += t;
                mag += std::fabs(t);
              }
          const size_t k = static_cast<size_t>(((b * gh + oi) * gw + oj) * s.D + d);
          (*y)[k] = acc;
          (*scale)[k] = mag;
        }
}

void near_all(const std::vector<float>& got, const std::vector<double>& want, const std::vector<double>& scale,
              double limit) {
  RC_ASSERT(got.size() == want.size());
  for (size_t k = 0; k < want.size(); ++k) RC_ASSERT(near(got[k], want[k], scale[k], limit));
}

// PatchEmbed is Conv2d(kernel = stride = p) with its output as raster-order
// tokens: the patches reshaped to rows times w^T, plus the bias.
void patch_embed_is_the_strided_convolution(const Backend& b) {
  const Embed e = gen_embed(pick(1, 5), *rc::gen::arbitrary<bool>());
  const auto y = sc::patch_embed(b, e.x, e.w, e.bias, e.s);
  RC_ASSERT(y.status == TL_OK);
  std::vector<double> want, scale;
  conv_reference(e, &want, &scale);
  near_all(y.y, want, scale, limit_of("PatchEmbed"));
}

// With p = 1 every pixel is a token: y[b, h W + w, d] = sum_c x[b, c, h, w]
// w[d, c] + bias[d], a 1 x 1 convolution as a channel matmul.
void patch_embed_p1_is_a_channel_matmul(const Backend& b) {
  const Embed e = gen_embed(1, true);
  const Sizes& s = e.s;
  const auto y = sc::patch_embed(b, e.x, e.w, e.bias, s);
  RC_ASSERT(y.status == TL_OK);
  const int64_t HW = s.H * s.W;
  std::vector<double> want(static_cast<size_t>(s.B * HW * s.D)), scale(want.size());
  for (int64_t b_ = 0; b_ < s.B; ++b_)
    for (int64_t t = 0; t < HW; ++t)
      for (int64_t d = 0; d < s.D; ++d) {
        double acc = e.bias[d], mag = std::fabs(e.bias[d]);
        for (int64_t c = 0; c < s.C; ++c) {
          const double term = double(e.x[(b_ * s.C + c) * HW + t]) * double(e.w[d * s.C + c]);
          acc += term;
          mag += std::fabs(term);
        }
        want[static_cast<size_t>((b_ * HW + t) * s.D + d)] = acc;
        scale[static_cast<size_t>((b_ * HW + t) * s.D + d)] = mag;
      }
  near_all(y.y, want, scale, limit_of("PatchEmbed"));
}

// Linear in x: PE(2 x) is 2 PE(x) bit for bit (doubling is exact through
// every product and sum), PE(x1 + x2) is PE(x1) + PE(x2) within the limit
// on both scales, and the bias adds: PE(x, bias) = PE(x, NULL) + bias.
void patch_embed_is_linear(const Backend& b) {
  Embed e = gen_embed(pick(1, 4), false);
  const Sizes& s = e.s;
  const auto y1 = sc::patch_embed(b, e.x, e.w, {}, s);
  RC_ASSERT(y1.status == TL_OK);
  std::vector<float> x2 = e.x, doubled = e.x;
  for (float& v : doubled) v *= 2.0f;
  const auto yd = sc::patch_embed(b, doubled, e.w, {}, s);
  for (size_t k = 0; k < y1.y.size(); ++k) RC_ASSERT(bits(yd.y[k]) == bits(2.0f * y1.y[k]));
  x2 = finite_floats(static_cast<int64_t>(e.x.size()));
  std::vector<float> sum(e.x.size());
  for (size_t k = 0; k < sum.size(); ++k) sum[k] = e.x[k] + x2[k];
  const auto y2 = sc::patch_embed(b, x2, e.w, {}, s);
  const auto ys = sc::patch_embed(b, sum, e.w, {}, s);
  std::vector<double> r1, s1, r2, s2;
  conv_reference(e, &r1, &s1);
  Embed e2 = e;
  e2.x = x2;
  conv_reference(e2, &r2, &s2);
  const double L = limit_of("PatchEmbed");
  for (size_t k = 0; k < ys.y.size(); ++k)  // the sum x1 + x2 itself rounds: 1 u of each |x| w more
    RC_ASSERT(near(ys.y[k], double(y1.y[k]) + double(y2.y[k]), s1[k] + s2[k], 2 * L + 1));
  e.bias = finite_floats(s.D);
  const auto yb = sc::patch_embed(b, e.x, e.w, e.bias, s);
  for (size_t k = 0; k < yb.y.size(); ++k) {
    const double bias = e.bias[k % static_cast<size_t>(s.D)];
    RC_ASSERT(near(yb.y[k], double(y1.y[k]) + bias, s1[k] + std::fabs(bias), 2 * L));
  }
}

}  // namespace

namespace props {

std::vector<Property> spatial_properties() {
  return {
      {"hand_example", "PixelShuffle", "unit", shuffle_hand_example},
      {"hand_example", "PixelUnshuffle", "unit", unshuffle_hand_example},
      {"shuffle_then_unshuffle_is_identity", "PixelShuffle", "property", shuffle_then_unshuffle_is_identity},
      {"unshuffle_then_shuffle_is_identity", "PixelUnshuffle", "property", unshuffle_then_shuffle_is_identity},
      {"unpatchify_inverts_the_patch_layout", "Unpatchify", "property", unpatchify_inverts_the_patch_layout},
      {"patch_embed_is_the_strided_convolution", "PatchEmbed", "property", patch_embed_is_the_strided_convolution},
      {"patch_embed_p1_is_a_channel_matmul", "PatchEmbed", "property", patch_embed_p1_is_a_channel_matmul},
      {"patch_embed_is_linear", "PatchEmbed", "property", patch_embed_is_linear},
  };
}

}  // namespace props
}  // namespace konform
