// The properties of the f16 and bf16 ops (the activations and Softmax of
// tinyllm/activations.h, PRelu among them, Clamp and NanToNum of
// tinyllm/tensor.h, RmsNorm and LayerNorm of tinyllm/norm.h, Rope, its cache,
// MultiAxisRope and SinusoidalEmbed of
// tinyllm/pos.h, SwiGlu, GeGlu and Glu of tinyllm/activations.h, Matmul, the
// feed-forwards and FusedNormMatmul of tinyllm/linalg.h, Sdpa, FlashAttention,
// SdpaCross, SdpaWindow and QkNorm of tinyllm/attention.h, Quantize and
// Dequantize of tinyllm/quant.h): what the half
// dtypes add to the f32 ops' own
// properties. Each can fail: the mutants
// of mutants/half_base.c break them (mutants/manifest.tsv).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "calls.hpp"
#include "konform/compare.hpp"
#include "konform/judge.hpp"
#include "konform/properties.hpp"
#include "tinyllm/status.h"
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

// The op's result: its first output besides the status (y; Rope_cache's cache).
std::string result_of(const OpSpec& op) {
  for (const ArgSpec& a : op.args)
    if (a.access == Access::out && a.name != op.status) return a.name;
  return "y";
}

// y (of dtype t) against yf, the same backend's f32 result: each element
// within half_limit u_t of the oracle's scale plus f32_limit u_f32 of it;
// where the oracle's value rounds past the dtype's range, that infinity;
// NaN for NaN.
//
// Under --flush-subnormals a subnormal read as zero or flushed in either
// call can part the two results by more than that (a row of subnormal
// products a flushing kernel sums to zero, the other to a normal value), so
// there an element off the bound passes when the half result alone meets the
// sweep's rule in flush mode, against the oracle of case c or of its inputs
// read as zeros where subnormal (compare_tolerance's Subnormals).
void assert_within_one_rounding(DType t, const Tensor& y, const std::vector<float>& yf, const Expected& e,
                                double half_limit, double f32_limit, const OpSpec& op, const Case& c) {
  int flushed_ok = -1;  // whether y meets the flush rule, found the first time it is needed
  auto meets_flush_rule = [&] {
    if (flushed_ok < 0) {
      std::optional<Expected> daz;
      if (const auto zeros = inputs_flushed(c)) daz = op.oracle(*zeros).at(result_of(op));
      const Subnormals flush{true, true, daz ? &*daz : nullptr};
      flushed_ok = compare_tolerance(y, e, half_limit, flush).mismatches == 0;
    }
    return flushed_ok == 1;
  };
  for (int64_t k = 0; k < y.elements(); ++k) {
    const double h = y.at(k), want = e.value[k], s = e.scale[k];
    bool ok;
    if (std::isnan(want)) {
      ok = std::isnan(h);
    } else if (std::isinf(round_to(t, want))) {
      ok = h == round_to(t, want);
    } else {
      const double bound = half_limit * unit_roundoff(t) * std::fmax(s, smallest_normal(t)) +
                           f32_limit * 0x1p-24 * std::fmax(s, 0x1p-126);
      ok = std::fabs(h - yf[k]) <= bound;
    }
    RC_ASSERT(ok || (flush_subnormals() && meets_flush_rule()));
  }
}

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
  assert_within_one_rounding(t, y, yf, e, half_limit, f32_limit, op, c);
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

// -------------------- the ops over rows and lines (norms, Softmax, Rope, FlashAttention), and the
// gated activations (two inputs, on their own cases)

// A case of the op from its own generator, past its edge cases: the sweep's
// shapes and values, drawn by RapidCheck's seed. Of at most `most` input
// elements (2^14; the sweep has the long rows, 4097 and 11008 wide): the
// first such of up to 8 draws.
Case drawn_case(const OpSpec& op, int64_t most = int64_t{1} << 14) {
  Rng rng(*rc::gen::arbitrary<uint64_t>());
  const int64_t first = op.edge_cases + *rc::gen::inRange<int64_t>(0, 1 << 20);
  Case c;
  for (int64_t k = 0; k < 8; ++k) {
    c = op.make_case(rng, first + k);
    int64_t elements = 0;
    for (const Arg& a : c.args)
      if (a.access == Access::in) elements += a.value.elements();
    if (elements <= most) break;
  }
  return c;
}

bool accepted(const OpSpec& op, const Case& c) {
  const Oracle o = op.oracle(c);
  return o.count("status") == 0 || o.at("status").value.at(0) == static_cast<double>(TL_OK);
}

// The case's inputs as given, or with every half tensor widened to f32 (the
// f32 twin's call), shapes kept.
CaseInputs inputs_of(const Case& c, bool widen) {
  CaseInputs in{c.params, {}};
  for (const Arg& a : c.args) {
    if (a.access != Access::in) continue;
    Tensor t = a.value;
    if (widen && dtype_size(t.dtype) == 2) {
      std::vector<float> wide(static_cast<size_t>(t.elements()));
      for (int64_t k = 0; k < t.elements(); ++k) wide[static_cast<size_t>(k)] = static_cast<float>(t.at(k));
      t = Tensor::of_f32(t.shape, wide);
    }
    in.inputs.emplace_back(a.name, std::move(t));
  }
  return in;
}

// within_one_rounding_of_f32 on the op's own cases, the limits at the case's
// sum length (Softmax's line, a norm's row).
void rows_within_one_rounding_of_f32(const Backend& b, const std::string& name, int64_t most = int64_t{1} << 14) {
  const OpSpec& op = calls::op(name);
  const DType t = op.dtype;
  const std::string y = result_of(op);
  const Case c = drawn_case(op, most);
  RC_PRE(accepted(op, c));
  const calls::Outcome h = calls::call(b, name, inputs_of(c, false));
  const calls::Outcome f = calls::call(b, f32_twin(name), inputs_of(c, true));
  RC_ASSERT(h.status == TL_OK);
  RC_ASSERT(f.status == TL_OK);
  const Expected e = op.oracle(c).at(y);
  const int64_t n = op.sum_length ? op.sum_length(c) : 0;
  const double half_limit = ToleranceTable::builtin().find(name, t)->at(n, unit_roundoff(t));
  const double f32_limit = limit_of(f32_twin(name), n);
  assert_within_one_rounding(t, h.out.at(y), f.f32(y), e, half_limit, f32_limit, op, c);
}

bool same_bits_or_nan(const Tensor& a, int64_t i, const Tensor& b, int64_t j) {
  return a.bits(i) == b.bits(j) || (std::isnan(a.at(i)) && std::isnan(b.at(j)));
}

// The same call twice gives the same bits (NaN for NaN): no result depends
// on threads, timing or uninitialized memory.
void deterministic(const Backend& b, const std::string& name, int64_t most = int64_t{1} << 14) {
  const OpSpec& op = calls::op(name);
  const std::string y = result_of(op);
  const Case c = drawn_case(op, most);
  RC_PRE(accepted(op, c));
  const Tensor first = calls::call(b, name, inputs_of(c, false)).out.at(y);
  const Tensor second = calls::call(b, name, inputs_of(c, false)).out.at(y);
  for (int64_t k = 0; k < first.elements(); ++k) RC_ASSERT(same_bits_or_nan(first, k, second, k));
}

// A norm's row alone (shape [D]) has the bits it has among the case's rows.
void rows_independent(const Backend& b, const std::string& name) {
  const OpSpec& op = calls::op(name);
  const Case c = drawn_case(op);
  RC_PRE(accepted(op, c));
  const Tensor& x = c.in("x");
  const int64_t d = x.shape.back(), rows = x.elements() / std::max<int64_t>(d, 1);
  RC_PRE(rows >= 2);
  const Tensor y = calls::call(b, name, inputs_of(c, false)).out.at("y");
  const int64_t r = *rc::gen::inRange<int64_t>(0, rows);
  CaseInputs one{{{"ndim", 1.0}, {"s0", double(d)}, {"eps", c.param("eps")}}, {}};
  Tensor row = Tensor::zeros(x.dtype, {d});
  std::memcpy(row.bytes.data(), x.bytes.data() + 2 * r * d, static_cast<size_t>(2 * d));
  one.inputs.emplace_back("x", row);
  for (const Arg& a : c.args)
    if (a.access == Access::in && a.name != "x") one.inputs.emplace_back(a.name, a.value);
  const Tensor alone = calls::call(b, name, std::move(one)).out.at("y");
  for (int64_t i = 0; i < d; ++i) RC_ASSERT(same_bits_or_nan(alone, i, y, r * d + i));
}

// A row of Matmul's x alone (M = 1) has the bits it has in the case's batch:
// the summation order depends on K alone.
void matmul_rows_batch_invariant(const Backend& b, const std::string& name) {
  const OpSpec& op = calls::op(name);
  const Case c = drawn_case(op, int64_t{1} << 17);
  RC_PRE(accepted(op, c));
  const int64_t M = c.iparam("M"), N = c.iparam("N"), K = c.iparam("K");
  RC_PRE(M >= 2 && N >= 1);
  const Tensor y = calls::call(b, name, inputs_of(c, false)).out.at("y");
  const int64_t r = *rc::gen::inRange<int64_t>(0, M);
  const Tensor& x = c.in("x");
  Tensor row = Tensor::zeros(x.dtype, {1, K});
  std::memcpy(row.bytes.data(), x.bytes.data() + 2 * r * K, static_cast<size_t>(2 * K));
  CaseInputs one{{{"M", 1.0}, {"N", double(N)}, {"K", double(K)}, {"big", 0.0}}, {{"x", row}, {"w", c.in("w")}}};
  const Tensor alone = calls::call(b, name, std::move(one)).out.at("y");
  for (int64_t n = 0; n < N; ++n) RC_ASSERT(same_bits_or_nan(alone, n, y, r * N + n));
}

// Dequantize into the dtype: the same backend's f32 values, each rounded
// once to nearest even, bit for bit (Q4_K's f32 difference, not the exact one).
void dequantize_is_the_f32_result_rounded(const Backend& b, const std::string& name) {
  const OpSpec& op = calls::op(name);
  const Case c = drawn_case(op);
  RC_PRE(accepted(op, c));
  const Tensor y = calls::call(b, name, inputs_of(c, false)).out.at("y");
  const std::vector<float> yf = calls::call(b, f32_twin(name), inputs_of(c, false)).f32("y");
  for (int64_t k = 0; k < y.elements(); ++k) RC_ASSERT(y.bits(k) == half_bits(op.dtype, yf[static_cast<size_t>(k)]));
}

// Quantize from the dtype: the same backend's f32 op on the widened values,
// the same status and the same bytes.
void quantize_is_the_f32_op_widened(const Backend& b, const std::string& name) {
  const OpSpec& op = calls::op(name);
  const Case c = drawn_case(op);
  RC_PRE(accepted(op, c));
  const calls::Outcome h = calls::call(b, name, inputs_of(c, false));
  const calls::Outcome f = calls::call(b, f32_twin(name), inputs_of(c, true));
  RC_ASSERT(h.status == f.status);
  if (h.status == TL_OK) RC_ASSERT(h.u8("blocks") == f.u8("blocks"));
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
    for (const char* base : {"SwiGlu", "GeGlu", "Glu", "PRelu"}) {  // elementwise: cases of at most 2^10 inputs suffice
      const std::string name = std::string(base) + dtype;
      out.push_back({"half_within_one_rounding_of_f32", name, "property",
                     [name](const Backend& b) { rows_within_one_rounding_of_f32(b, name, 1 << 10); }});
      out.push_back(
          {"half_deterministic", name, "property", [name](const Backend& b) { deterministic(b, name, 1 << 10); }});
    }
    for (const char* base :
         {"RmsNorm", "LayerNorm", "Softmax", "Rope", "FlashAttention", "Sdpa", "SdpaCross", "SdpaWindow", "QkNorm",
          "MultiAxisRope", "SinusoidalEmbed", "BatchNorm", "GroupNorm", "InstanceNorm", "AdaLN", "Rope_cache"}) {
      const std::string name = std::string(base) + dtype;
      out.push_back({"half_within_one_rounding_of_f32", name, "property",
                     [name](const Backend& b) { rows_within_one_rounding_of_f32(b, name); }});
      out.push_back({"half_deterministic", name, "property", [name](const Backend& b) { deterministic(b, name); }});
      if (std::string(base) == "RmsNorm" || std::string(base) == "LayerNorm")
        out.push_back(
            {"half_rows_independent", name, "property", [name](const Backend& b) { rows_independent(b, name); }});
    }
    {
      // On its own cases, as the norms, of up to 2^17 input values: most of
      // its shapes past the edges hold more than the norms' 2^14, and each
      // one drawn and put aside costs more than a call.
      const std::string name = std::string("Matmul") + dtype;
      constexpr int64_t most = int64_t{1} << 17;
      out.push_back({"half_within_one_rounding_of_f32", name, "property",
                     [name](const Backend& b) { rows_within_one_rounding_of_f32(b, name, most); }});
      out.push_back(
          {"half_deterministic", name, "property", [name](const Backend& b) { deterministic(b, name, most); }});
      out.push_back({"half_batch_invariant", name, "property",
                     [name](const Backend& b) { matmul_rows_batch_invariant(b, name); }});
    }
    // The feed-forwards and FusedNormMatmul on their own cases: within their
    // rule (the hidden layer or z rounded once, or kept) of the f32 twin.
    // (Their determinism and batch invariance are the f32 ops' properties:
    // one property each keeps them within the check's time.)
    for (const char* base : {"SwiGlu_FFN", "GeGlu_FFN", "Glu_FFN", "FusedNormMatmul"}) {
      const std::string name = std::string(base) + dtype;
      out.push_back({"half_within_one_rounding_of_f32", name, "property",
                     [name](const Backend& b) { rows_within_one_rounding_of_f32(b, name); }});
    }
    for (const char* format : {"Q8_0", "Q4_0", "Q4_K"}) {
      const std::string dequantize = std::string("Dequantize_") + format + dtype;
      out.push_back({"half_is_the_f32_result_rounded", dequantize, "property",
                     [dequantize](const Backend& b) { dequantize_is_the_f32_result_rounded(b, dequantize); }});
      const std::string quantize = std::string("Quantize_") + format + dtype;
      out.push_back({"half_is_the_f32_op_on_the_widened_input", quantize, "property",
                     [quantize](const Backend& b) { quantize_is_the_f32_op_widened(b, quantize); }});
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
