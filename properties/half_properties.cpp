// The properties of the f16 and bf16 elementwise ops (the activations of
// tinyllm/activations.h, Clamp and NanToNum of tinyllm/tensor.h): what the
// half dtypes add to the f32 ops' own properties. Each can fail: the mutants
// of mutants/half_base.c break them (mutants/manifest.tsv).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "calls.hpp"
#include "konform/properties.hpp"
#include "support.hpp"

namespace konform {
namespace {

using props::limit_of;

const float kAlphas[] = {0.01f, 0.2f, 0.0f, 1.5f, -2.0f};
constexpr float kInf = std::numeric_limits<float>::infinity();
// Bounds and replacements, some between the half dtypes' values (rounded to
// a neighbour, to a tie's even side, past 65504 to an infinity).
const std::vector<float> kGiven = {-1.0f,           0.0f,      -0.0f,  0.1f,     -0.3f,
                                   1.0f + 0x1p-11f, 1e4f,      -1e4f,  65504.0f, 65519.0f,
                                   65520.0f,        -70000.0f, 1e-30f, kInf,     -kInf};

// n random bit patterns of the dtype (every class of its values), as a tensor.
Tensor random_half(DType t, int64_t n) {
  const auto bits = *rc::gen::container<std::vector<uint16_t>>(static_cast<size_t>(n), rc::gen::arbitrary<uint16_t>());
  Tensor x = Tensor::zeros(t, {n});
  if (n > 0) std::memcpy(x.bytes.data(), bits.data(), 2 * bits.size());
  return x;
}

bool starts(const std::string& name, const char* prefix) { return name.rfind(prefix, 0) == 0; }

// The op's parameters besides n, drawn once per run: LeakyRelu's alpha,
// Clamp's bounds, NanToNum's replacements.
std::map<std::string, double> draw_params(const std::string& name) {
  const auto given = [] { return double(*rc::gen::elementOf(kGiven)); };
  if (starts(name, "LeakyRelu"))
    return {{"alpha", *rc::gen::elementOf(std::vector<float>(std::begin(kAlphas), std::end(kAlphas)))}};
  if (starts(name, "Clamp")) {
    double lo = given(), hi = given();
    if (lo > hi) std::swap(lo, hi);
    return {{"lo", lo}, {"hi", hi}};
  }
  if (starts(name, "NanToNum")) return {{"nan", given()}, {"posinf", given()}, {"neginf", given()}};
  return {};
}

CaseInputs inputs(const Tensor& x, const std::map<std::string, double>& params) {
  CaseInputs in{{{"n", double(x.elements())}}, {{"x", x}}};
  for (const auto& [k, v] : params) in.params[k] = v;
  return in;
}

// x widened to f32, exactly.
Tensor widened(const Tensor& x) {
  std::vector<float> wide(static_cast<size_t>(x.elements()));
  for (int64_t k = 0; k < x.elements(); ++k) wide[k] = static_cast<float>(x.at(k));
  return Tensor::of_f32({x.elements()}, wide);
}

// The f32 op the half op rounds (Silu_f16 -> Silu).
std::string f32_twin(const std::string& half_op) { return half_op.substr(0, half_op.rfind('_')); }

// On the same inputs (exact in f32 too) the half op is the backend's own f32
// op rounded once: y* the oracle's value and s its scale, the half result is
// within its limit L_h u_h max(s, N_h) of y* and the f32 result within L u_f
// max(s, FLT_MIN), so they differ by at most the sum. Where y* rounds past
// the half dtype's range, the half result is that infinity; NaN for NaN.
void within_one_rounding_of_f32(const Backend& b, const std::string& name) {
  const OpSpec& op = calls::op(name);
  const DType t = op.dtype;
  const auto params = draw_params(name);
  const Tensor x = random_half(t, *rc::gen::inRange<int64_t>(1, 300));
  const Tensor y = calls::call(b, name, inputs(x, params)).out.at("y");
  const std::vector<float> yf = calls::call(b, f32_twin(name), inputs(widened(x), params)).f32("y");
  Case c;
  c.params = inputs(x, params).params;
  c.args.push_back({"x", Access::in, x});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, {x.elements()})});
  const Expected e = op.oracle(c).at("y");
  const double half_limit = ToleranceTable::builtin().find(name, t)->limit, f32_limit = limit_of(f32_twin(name));
  for (int64_t k = 0; k < x.elements(); ++k) {
    const double h = y.at(k), want = e.value[k], s = e.scale[k];
    if (std::isnan(want)) {
      RC_ASSERT(std::isnan(h));
      continue;
    }
    if (std::isinf(round_to(t, want))) {
      RC_ASSERT(h == round_to(t, want));
      continue;
    }
    const double bound =
        half_limit * unit_roundoff(t) * std::fmax(s, smallest_normal(t)) + f32_limit * 0x1p-24 * std::fmax(s, 0x1p-126);
    RC_ASSERT(std::fabs(h - yf[k]) <= bound);
  }
}

// Element k of a call is the element a call of that element alone gives,
// bit for bit (NaN for NaN): no result depends on how many share a call,
// nor on where its block of the widening starts.
void batch_invariant(const Backend& b, const std::string& name) {
  const DType t = calls::op(name).dtype;
  const auto params = draw_params(name);
  const Tensor x = random_half(t, *rc::gen::inRange<int64_t>(1, 700));
  const Tensor y = calls::call(b, name, inputs(x, params)).out.at("y");
  const int64_t k = *rc::gen::inRange<int64_t>(0, x.elements());
  Tensor one = Tensor::zeros(t, {1});
  std::memcpy(one.bytes.data(), x.bytes.data() + 2 * k, 2);
  const Tensor alone = calls::call(b, name, inputs(one, params)).out.at("y");
  RC_ASSERT(alone.bits(0) == y.bits(k) || (std::isnan(alone.at(0)) && std::isnan(y.at(k))));
}

// A selection in a half dtype is the backend's own f32 op on the widened
// input, rounded once: bit for bit (NaN for NaN), whatever the given values.
void is_the_f32_result_rounded(const Backend& b, const std::string& name) {
  const DType t = calls::op(name).dtype;
  const auto params = draw_params(name);
  const Tensor x = random_half(t, *rc::gen::inRange<int64_t>(1, 300));
  const Tensor y = calls::call(b, name, inputs(x, params)).out.at("y");
  const std::vector<float> yf = calls::call(b, f32_twin(name), inputs(widened(x), params)).f32("y");
  for (int64_t k = 0; k < x.elements(); ++k) {
    if (std::isnan(yf[k])) RC_ASSERT(std::isnan(y.at(k)));
    else RC_ASSERT(y.bits(k) == half_bits(t, yf[k]));
  }
}

}  // namespace

namespace props {

std::vector<Property> half_properties() {
  std::vector<Property> out;
  for (const char* dtype : {"_f16", "_bf16"}) {
    for (const char* base : {"Silu", "Gelu_erf", "Gelu_tanh", "Relu", "LeakyRelu", "Sigmoid", "Tanh"}) {
      const std::string name = std::string(base) + dtype;
      out.push_back({"half_within_one_rounding_of_f32", name, "property",
                     [name](const Backend& b) { within_one_rounding_of_f32(b, name); }});
      out.push_back({"half_batch_invariant", name, "property", [name](const Backend& b) { batch_invariant(b, name); }});
    }
    for (const char* base : {"Clamp", "NanToNum"}) {
      const std::string name = std::string(base) + dtype;
      out.push_back({"half_is_the_f32_result_rounded", name, "property",
                     [name](const Backend& b) { is_the_f32_result_rounded(b, name); }});
      out.push_back({"half_batch_invariant", name, "property", [name](const Backend& b) { batch_invariant(b, name); }});
    }
  }
  return out;
}

}  // namespace props
}  // namespace konform
