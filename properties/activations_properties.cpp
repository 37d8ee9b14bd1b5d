// The properties of the elementwise activations and the gated FFN middles
// (tinyllm/activations.h), from spec/operations.txt section 4 and the math of
// each op. Each can fail: the mutants of mutants/act_base.c named in
// mutants/manifest.tsv break them. Softmax's are in softmax_properties.cpp.
#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "activation_calls.hpp"
#include "konform/properties.hpp"
#include "konform/reference/activations.hpp"
#include "support.hpp"

namespace konform {
namespace {

using namespace props;
namespace call = calls::act;
using call::Floats;
namespace ref = reference::act;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr double u = 0x1p-24;

// The same value, NaN matching NaN (a zero of either sign matching a zero).
bool same_value(float a, float b) { return (std::isnan(a) && std::isnan(b)) || a == b || flushed_pair(a, b); }

// n floats of magnitude 2^-20 .. 2^20 and both signs, or `scale` * N(0, 1)-ish
// values on a grid of 2^-12, or a mix.
Floats activation_inputs(int64_t n) {
  Floats x = finite_floats(n);
  if (*rc::gen::arbitrary<bool>()) {
    const float scale = *rc::gen::element(1.0f, 4.0f, 20.0f);
    const auto ticks = *rc::gen::container<std::vector<int>>(static_cast<size_t>(n), rc::gen::inRange(-4096, 4097));
    for (int64_t i = 0; i < n; ++i) x[i] = scale * static_cast<float>(ticks[static_cast<size_t>(i)]) * 0x1p-12f;
  }
  return x;
}

// The catalog's oracle (values and scales) of a unary op on x.
Expected unary_oracle(const std::string& name, const Floats& x, float alpha = 0.0f) {
  const int64_t n = static_cast<int64_t>(x.size());
  Case c;
  c.params = {{"n", double(n)}, {"alpha", double(alpha)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({n}, x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {n})});
  return call::op(name).oracle(c).at("y");
}

// The catalog's oracle of a gated op, act(gate) * up.
Expected gated_oracle(const std::string& name, const Floats& gate, const Floats& up, int approximation) {
  const int64_t n = static_cast<int64_t>(gate.size());
  Case c;
  c.params = {{"n", double(n)}, {"approximation", double(approximation)}};
  c.args.push_back({"gate", Access::in, Tensor::of_f32({n}, gate)});
  c.args.push_back({"up", Access::in, Tensor::of_f32({n}, up)});
  return call::op(name).oracle(c).at("y");
}

// Every element of y within the op's limit of the catalog's oracle for input
// x (the sweep's own values and scales).
void assert_oracle(const std::string& name, const Floats& x, const Floats& y, float alpha = 0.0f) {
  const int64_t n = static_cast<int64_t>(x.size());
  const Expected e = unary_oracle(name, x, alpha);
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(e.value[i])) {
      RC_ASSERT(std::isnan(y[i]));
      continue;
    }
    RC_ASSERT(near_oracle(y[i], e, i, limit_of(name)));
  }
}

// A worked example (figures to 7 significant digits, checked with 30-digit
// mpmath): each figure is the oracle's e to 7 digits, and the backend's y is
// judged against the oracle by the op's own limit and scale, as the sweep
// judges it.
void assert_worked(const std::string& name, const Expected& e, const Floats& y, const std::vector<double>& printed) {
  for (size_t i = 0; i < printed.size(); ++i) {
    RC_ASSERT(agrees_to_7_digits(e.value[i], printed[i]));
    RC_ASSERT(near_oracle(y[i], e, i, limit_of(name)));
  }
}
void assert_worked(const std::string& name, const Floats& x, const Floats& y, const std::vector<double>& printed) {
  assert_worked(name, unary_oracle(name, x), y, printed);
}
void assert_worked(const std::string& name, const Floats& gate, const Floats& up, const Floats& y,
                   const std::vector<double>& printed, int approximation = 0) {
  assert_worked(name, gated_oracle(name, gate, up, approximation), y, printed);
}

// ---------------------------------------------------------------- Silu

void silu_hand_example(const Backend& b) {
  const Floats x = {0, 1, -1, 2};
  const auto y = call::unary(b, "Silu", x);
  RC_ASSERT(y[0] == 0.0f);
  assert_worked("Silu", x, y, {0, 0.7310586, -0.2689414, 1.761594});  // spec/elementwise-kernels.txt section 3
}

// Large gates give x and large negative ones 0, never NaN (an e^x / (1 + e^x)
// form is inf / inf from x = 89 on); everything else matches the oracle.
void silu_saturates_without_nan(const Backend& b) {
  const Floats x = {100.0f, 1e4f, 1e30f, 88.8f, -100.0f, -1e4f, -1e30f, -88.8f};
  const auto y = call::unary(b, "Silu", x);
  for (float v : y) RC_ASSERT(!std::isnan(v));
  for (int i = 0; i < 4; ++i) RC_ASSERT(near(y[i], x[i], std::fabs(x[i]), limit_of("Silu")));
  RC_ASSERT(std::fabs(y[4]) <= 1e-40f);  // -3.7e-42, or -0 by the spec's f32 form
  RC_ASSERT(y[5] == 0.0f && y[6] == 0.0f);
  RC_ASSERT(std::fabs(y[7]) <= 1e-36f);  // -2.4e-37, or -0 by the spec's f32 form
  const auto r = activation_inputs(*rc::gen::inRange<int64_t>(1, 200));
  assert_oracle("Silu", r, call::unary(b, "Silu", r));
}

// ---------------------------------------------------------------- the Gelus

void gelu_erf_hand_example(const Backend& b) {
  const Floats x = {0, 1, -1, 2, -3};
  const auto y = call::unary(b, "Gelu_erf", x);
  RC_ASSERT(y[0] == 0.0f);
  assert_worked("Gelu_erf", x, y, {0, 0.8413447, -0.1586553, 1.954500, -0.004049694});
}

void gelu_tanh_hand_example(const Backend& b) {
  const Floats x = {0, 1, -1, 2, -3};
  const auto y = call::unary(b, "Gelu_tanh", x);
  RC_ASSERT(y[0] == 0.0f);
  assert_worked("Gelu_tanh", x, y, {0, 0.8411920, -0.1588080, 1.954598, -0.003637392});
}

// Each Gelu matches its own formula, and at +-1, +-2, +-3 (where they differ
// by 1e-4 to 4e-4, 800 to 2600 u of |x|, dozens of times the limit) it is
// more than twice the limit from the other one: the tanh form where erf is
// asked, or the reverse, fails here.
void gelu_variants_differ(const Backend& b, const std::string& name) {
  const bool erf = name == "Gelu_erf";
  Floats x = {-3, -2, -1, 1, 2, 3};
  for (float v : activation_inputs(*rc::gen::inRange<int64_t>(0, 100))) x.push_back(std::fmod(v, 6.0f));
  const auto y = call::unary(b, name, x);
  assert_oracle(name, x, y);
  for (int i = 0; i < 6; ++i) {
    const double other = erf ? ref::gelu_tanh<double>(x[i]) : ref::gelu_erf<double>(x[i]);
    RC_ASSERT(!near(y[i], other, std::fabs(x[i]), 2 * limit_of(name)));
  }
}

// Gelu(x) = x for large x and ~0 (within the formula's u |x|) for very
// negative x; +Inf gives +Inf, NaN gives NaN, 0 gives 0.
void gelu_saturates(const Backend& b, const std::string& name) {
  const Floats x = {10.0f, 1e4f, 1e30f, -10.0f, -1e4f, -1e30f, kInf, kNaN, 0.0f};
  const auto y = call::unary(b, name, x);
  for (int i = 0; i < 3; ++i) RC_ASSERT(near(y[i], x[i], std::fabs(x[i]), limit_of(name)));
  for (int i = 3; i < 6; ++i) RC_ASSERT(std::fabs(y[i]) <= limit_of(name) * u * std::fabs(x[i]));
  RC_ASSERT(y[6] == kInf);
  RC_ASSERT(std::isnan(y[7]));
  RC_ASSERT(y[8] == 0.0f);
}

// ---------------------------------------------------------------- Relu, LeakyRelu, PRelu

Floats with_specials(Floats x) {
  const Floats specials = {kNaN, -kNaN, kInf, -kInf, 0.0f, -0.0f, FLT_MIN, -FLT_MIN, 1e-45f, -1e-45f};
  for (float s : specials)
    if (*rc::gen::inRange(0, 3) == 0) x.push_back(s);
  return x;
}

void relu_hand_example(const Backend& b) {
  const auto y = call::unary(b, "Relu", {-2, -0.0f, 0, 3, kNaN});
  RC_ASSERT(y[0] == 0.0f && y[1] == 0.0f && y[2] == 0.0f && y[3] == 3.0f && std::isnan(y[4]));
}

// Relu is x or 0 exactly, NaN kept, and y == x gives the same bits.
void relu_is_exact(const Backend& b) {
  const auto x = with_specials(activation_inputs(*rc::gen::inRange<int64_t>(0, 200)));
  const auto y = call::unary(b, "Relu", x), in_place = call::unary(b, "Relu", x, true);
  for (size_t i = 0; i < x.size(); ++i) {
    RC_ASSERT(same_value(y[i], x[i] > 0 || std::isnan(x[i]) ? x[i] : 0.0f));
    RC_ASSERT(same_bits(in_place[i], y[i]));
  }
}

void leaky_hand_example(const Backend& b) {
  const auto y = call::leaky_relu(b, {-2, -0.5f, 0, 3}, 0.1f);
  RC_ASSERT(y[0] == -2.0f * 0.1f && y[1] == -0.5f * 0.1f && y[2] == 0.0f && y[3] == 3.0f);
}

// LeakyRelu is x for x > 0 and the rounded product alpha x otherwise, for
// slopes below 0, in (0, 1), 0 and above 1 (where max(x, alpha x) is wrong).
// Under --flush-subnormals x may also be read as a zero (DAZ).
void leaky_is_exact(const Backend& b) {
  const float alpha = *rc::gen::element(0.01f, 0.2f, 0.0f, 1.5f, -0.5f);
  const auto x = with_specials(activation_inputs(*rc::gen::inRange<int64_t>(0, 200)));
  const auto y = call::leaky_relu(b, x, alpha), in_place = call::leaky_relu(b, x, alpha, true);
  auto leaky = [alpha](float v) { return v > 0 ? v : alpha * v; };
  for (size_t i = 0; i < x.size(); ++i) {
    // alpha = 0 at -inf: 0 * -inf = NaN, or the 0 of a kernel that selects (an open edge).
    const bool open_edge = alpha == 0.0f && x[i] == -kInf && y[i] == 0.0f;
    RC_ASSERT(same_value(y[i], leaky(x[i])) || same_value(y[i], leaky(daz(x[i]))) || open_edge);
    RC_ASSERT(same_bits(in_place[i], y[i]));
  }
}

void prelu_hand_example(const Backend& b) {
  // NCHW [1, 2, 2]: channel 0 slope 0.1, channel 1 slope 0.2.
  const auto y = call::prelu(b, {-1, 2, -1, -3}, {0.1f, 0.2f}, 1, 2, 2);
  RC_ASSERT(y[0] == -0.1f && y[1] == 2.0f && y[2] == -0.2f && y[3] == -3.0f * 0.2f);
}

// Element (o, c, i) uses slope[c]: distinct slopes per channel, NCHW runs
// (inner > 1) and channels-last rows (inner == 1), exact products.
void prelu_slope_per_channel(const Backend& b) {
  const int64_t outer = *rc::gen::inRange<int64_t>(1, 4), channels = *rc::gen::inRange<int64_t>(1, 20);
  const int64_t inner = *rc::gen::element<int64_t>(1, 1, 2, 3, 7, 16, 33);
  Floats slope(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) slope[c] = 0.05f * static_cast<float>(c + 1) * (c % 3 == 2 ? -1.0f : 1.0f);
  const auto x = activation_inputs(outer * channels * inner);
  const auto y = call::prelu(b, x, slope, outer, channels, inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t k = (o * channels + c) * inner + i;
        RC_ASSERT(same_value(y[k], x[k] > 0 ? x[k] : slope[c] * x[k]));
      }
}

// ---------------------------------------------------------------- Sigmoid, Tanh

void sigmoid_hand_example(const Backend& b) {
  const Floats x = {0, 1, -1, 2};
  assert_worked("Sigmoid", x, call::unary(b, "Sigmoid", x), {0.5, 0.7310586, 0.2689414, 0.8807971});
}

// sigmoid(-x) = 1 - sigmoid(x); 0 <= sigmoid <= 1 without NaN at +-1e4 or
// +-Inf; nondecreasing (to within the limit) on sorted inputs.
void sigmoid_symmetry_and_range(const Backend& b) {
  Floats x = activation_inputs(*rc::gen::inRange<int64_t>(1, 200));
  for (float v : {1e4f, -1e4f, 100.0f, -100.0f, kInf, -kInf}) x.push_back(v);
  std::sort(x.begin(), x.end());
  Floats neg(x.size());
  for (size_t i = 0; i < x.size(); ++i) neg[i] = -x[i];
  const auto s = call::unary(b, "Sigmoid", x), t = call::unary(b, "Sigmoid", neg);
  const double limit = limit_of("Sigmoid");
  for (size_t i = 0; i < x.size(); ++i) {
    RC_ASSERT(s[i] >= 0.0f && s[i] <= 1.0f);
    RC_ASSERT(std::fabs(double(t[i]) - (1.0 - double(s[i]))) <= 2 * limit * u);
    if (i > 0) RC_ASSERT(s[i] >= s[i - 1] - limit * u * (s[i] + s[i - 1]));
  }
  RC_ASSERT(s.back() == 1.0f && s.front() == 0.0f);  // +Inf and -Inf
}

void tanh_hand_example(const Backend& b) {
  const Floats x = {0, 0.5f, 1, -2};
  const auto y = call::unary(b, "Tanh", x);
  RC_ASSERT(y[0] == 0.0f);
  assert_worked("Tanh", x, y, {0, 0.4621172, 0.7615942, -0.9640276});
}

// tanh(-x) = -tanh(x); |tanh| <= 1 (no NaN at +-100, +-1e4, +-Inf, where
// (e^x - e^-x) / (e^x + e^-x) is inf / inf); tanh(x) = x to the limit for
// |x| < 2^-12 (where 2 sigmoid(2x) - 1 cancels); nondecreasing.
void tanh_is_odd_and_bounded(const Backend& b) {
  Floats x = activation_inputs(*rc::gen::inRange<int64_t>(1, 200));
  for (float v : {100.0f, -100.0f, 1e4f, -1e4f, kInf, -kInf, 1e-5f, -3e-7f, 2e-4f}) x.push_back(v);
  std::sort(x.begin(), x.end());
  Floats neg(x.size());
  for (size_t i = 0; i < x.size(); ++i) neg[i] = -x[i];
  const auto y = call::unary(b, "Tanh", x), z = call::unary(b, "Tanh", neg);
  const double limit = limit_of("Tanh");
  for (size_t i = 0; i < x.size(); ++i) {
    RC_ASSERT(std::fabs(y[i]) <= 1.0f);
    RC_ASSERT(near(-z[i], y[i], std::fabs(y[i]), 2 * limit));
    if (std::fabs(x[i]) < 0x1p-12f) RC_ASSERT(near(y[i], x[i], std::fabs(x[i]), limit));
    if (i > 0) RC_ASSERT(y[i] >= y[i - 1] - limit * u * (std::fabs(y[i]) + std::fabs(y[i - 1])));
  }
  RC_ASSERT(y.front() == -1.0f && y.back() == 1.0f);
}

// ---------------------------------------------------------------- SwiGlu, GeGlu, Glu

void swiglu_hand_example(const Backend& b) {
  // spec/elementwise-kernels.txt section 3, SiLU-mul.
  const Floats gate = {0, 1, -1}, up = {5, 2, 3};
  const auto y = call::gated(b, "SwiGlu", gate, up).y;
  RC_ASSERT(y[0] == 0.0f);
  assert_worked("SwiGlu", gate, up, y, {0, 1.4621172, -0.8068243});
}

void geglu_hand_example(const Backend& b) {
  const Floats gate = {1, -1}, up = {2, 3};
  const auto e = call::gated(b, "GeGlu", gate, up, "", TL_GELU_ERF);
  RC_ASSERT(e.status == TL_OK);
  assert_worked("GeGlu", gate, up, e.y, {2 * 0.8413447461, 3 * -0.1586552539}, TL_GELU_ERF);
  const auto t = call::gated(b, "GeGlu", gate, up, "", TL_GELU_TANH);
  RC_ASSERT(t.status == TL_OK);
  assert_worked("GeGlu", gate, up, t.y, {2 * 0.8411919906, 3 * -0.1588080094}, TL_GELU_TANH);
}

void glu_hand_example(const Backend& b) {
  const Floats gate = {0, 1}, up = {2, 3};
  assert_worked("Glu", gate, up, call::gated(b, "Glu", gate, up).y, {1, 2.193176});
}

// act(gate) * up against the catalog's oracle; y == gate and y == up give the
// same bits as a separate y; gates of +-1e4 and -100 give no NaN.
void gated_in_place_and_saturating(const Backend& b, const std::string& name) {
  Floats gate = activation_inputs(*rc::gen::inRange<int64_t>(1, 200));
  for (float v : {1e4f, -1e4f, -100.0f, 100.0f}) gate.push_back(v);
  const int64_t n = static_cast<int64_t>(gate.size());
  const auto up = activation_inputs(n);
  const int approximation = *rc::gen::inRange(0, 2);
  const auto y = call::gated(b, name, gate, up, "", approximation);
  const auto on_gate = call::gated(b, name, gate, up, "gate", approximation);
  const auto on_up = call::gated(b, name, gate, up, "up", approximation);
  RC_ASSERT(y.status == TL_OK);
  const Expected e = gated_oracle(name, gate, up, approximation);
  for (int64_t i = 0; i < n; ++i) {
    RC_ASSERT(!std::isnan(y.y[i]));
    RC_ASSERT(near_oracle(y.y[i], e, i, limit_of(name)));
    RC_ASSERT(same_bits(on_gate.y[i], y.y[i]));
    RC_ASSERT(same_bits(on_up.y[i], y.y[i]));
  }
}

// Each approximation gates with its own Gelu: at gates +-1, +-2, +-3 the
// result is the named one's, more than twice the limit from the other's.
void geglu_selects_its_gelu(const Backend& b) {
  const Floats gate = {-3, -2, -1, 1, 2, 3};
  const Floats up = {1, 1, 1, 1, 1, 1};
  for (int approximation : {TL_GELU_ERF, TL_GELU_TANH}) {
    const auto r = call::gated(b, "GeGlu", gate, up, "", approximation);
    RC_ASSERT(r.status == TL_OK);
    for (size_t i = 0; i < gate.size(); ++i) {
      const double erf = ref::gelu_erf<double>(gate[i]), tanh = ref::gelu_tanh<double>(gate[i]);
      const double want = approximation == TL_GELU_ERF ? erf : tanh, other = approximation == TL_GELU_ERF ? tanh : erf;
      RC_ASSERT(near(r.y[i], want, std::fabs(gate[i]), limit_of("GeGlu")));
      RC_ASSERT(!near(r.y[i], other, std::fabs(gate[i]), 2 * limit_of("GeGlu")));
    }
  }
}

// Any approximation but TL_GELU_ERF and TL_GELU_TANH is refused with
// TL_ERR_INVALID_ARGUMENT, y left as it was (the guarded call checks), and a
// message in tl_last_error where the backend has one.
void geglu_rejects_bad_approximation(const Backend& b) {
  const int approximation = *rc::gen::element(2, -1, 3, 100, std::numeric_limits<int>::max());
  const int64_t n = *rc::gen::inRange<int64_t>(1, 50);
  const auto r = call::gated(b, "GeGlu", activation_inputs(n), activation_inputs(n), "", approximation);
  RC_ASSERT(r.status == TL_ERR_INVALID_ARGUMENT);
  RC_ASSERT(props::left_a_message(b));
}

}  // namespace

namespace props {

std::vector<Property> activations_properties() {
  return {
      {"hand_example", "Silu", "unit", silu_hand_example},
      {"silu_saturates_without_nan", "Silu", "boundary", silu_saturates_without_nan},
      {"hand_example", "Gelu_erf", "unit", gelu_erf_hand_example},
      {"gelu_erf_and_gelu_tanh_differ", "Gelu_erf", "property",
       [](const Backend& b) { gelu_variants_differ(b, "Gelu_erf"); }},
      {"gelu_saturates", "Gelu_erf", "boundary", [](const Backend& b) { gelu_saturates(b, "Gelu_erf"); }},
      {"hand_example", "Gelu_tanh", "unit", gelu_tanh_hand_example},
      {"gelu_erf_and_gelu_tanh_differ", "Gelu_tanh", "property",
       [](const Backend& b) { gelu_variants_differ(b, "Gelu_tanh"); }},
      {"gelu_saturates", "Gelu_tanh", "boundary", [](const Backend& b) { gelu_saturates(b, "Gelu_tanh"); }},
      {"hand_example", "Relu", "unit", relu_hand_example},
      {"relu_and_leaky_are_exact", "Relu", "property", relu_is_exact},
      {"hand_example", "LeakyRelu", "unit", leaky_hand_example},
      {"relu_and_leaky_are_exact", "LeakyRelu", "property", leaky_is_exact},
      {"hand_example", "PRelu", "unit", prelu_hand_example},
      {"prelu_slope_per_channel", "PRelu", "property", prelu_slope_per_channel},
      {"hand_example", "Sigmoid", "unit", sigmoid_hand_example},
      {"sigmoid_symmetry_and_range", "Sigmoid", "property", sigmoid_symmetry_and_range},
      {"hand_example", "Tanh", "unit", tanh_hand_example},
      {"tanh_is_odd_and_bounded", "Tanh", "property", tanh_is_odd_and_bounded},
      {"hand_example", "SwiGlu", "unit", swiglu_hand_example},
      {"gated_in_place_and_saturating", "SwiGlu", "property",
       [](const Backend& b) { gated_in_place_and_saturating(b, "SwiGlu"); }},
      {"hand_example", "GeGlu", "unit", geglu_hand_example},
      {"gated_in_place_and_saturating", "GeGlu", "property",
       [](const Backend& b) { gated_in_place_and_saturating(b, "GeGlu"); }},
      {"geglu_selects_its_gelu", "GeGlu", "property", geglu_selects_its_gelu},
      {"geglu_rejects_bad_approximation", "GeGlu", "boundary", geglu_rejects_bad_approximation},
      {"hand_example", "Glu", "unit", glu_hand_example},
      {"gated_in_place_and_saturating", "Glu", "property",
       [](const Backend& b) { gated_in_place_and_saturating(b, "Glu"); }},
  };
}

}  // namespace props

}  // namespace konform
