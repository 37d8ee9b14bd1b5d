// Clamp and NanToNum (spec §1 "Numerical stability", tinyllm/tensor.h):
// every output is an input's bits or a given value, compared bit for bit
// (a NaN any NaN). In f16 and bf16 the given value is rounded to the dtype;
// case 0 of those holds every bit pattern of the dtype.
#include <array>
#include <cfloat>
#include <cmath>
#include <limits>
#include <string>

#include "konform/c_call.hpp"
#include "konform/values.hpp"
#include "konform/reference/tensor.hpp"
#include "tensor_support.hpp"
#include "tinyllm/tensor.h"

namespace konform::ops {

std::vector<OpSpec> tensor_select();

namespace {

using namespace tensor;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

int64_t pick_n(Rng& rng, int64_t index) {
  const auto& sizes = edge_sizes();
  if (index < static_cast<int64_t>(sizes.size())) return sizes[static_cast<size_t>(index)];
  return rng.chance(0.3) ? rng.pick(sizes) : rng.range(0, 400);
}

// Values with the specials well represented, and with exact hits on the
// bounds (`marks`) so that ties with lo and hi and their zeros are tried.
// In f16 and bf16 case 0 is every bit pattern, a quarter of the others
// random bit patterns, the rest these values rounded to the dtype.
// With many_specials, half of the time a third of the values are NaN or an
// infinity.
Tensor values_with(Rng& rng, DType t, int64_t index, int64_t n, const std::vector<float>& marks, bool many_specials,
                   std::string* label) {
  if (t != DType::f32 && index == 0) {
    *label = "every " + std::string(dtype_name(t)) + " value";
    return every_half(t);
  }
  if (t != DType::f32 && rng.chance(0.25)) {
    *label = "random bits";
    return random_half_bits(rng, t, n);
  }
  std::vector<float> x = random_values(rng, n, label);
  if (!marks.empty() && rng.chance(0.5)) {
    for (float& v : x)
      if (rng.chance(0.2)) v = rng.pick(marks);
    *label += "+bounds";
  }
  if (rng.chance(0.3)) {
    for (float& v : x)
      if (rng.chance(0.15)) v = rng.pick(std::vector<float>{kNaN, -kNaN, kInf, -kInf, 0.0f, -0.0f});
    *label += "+specials";
  }
  if (many_specials && rng.chance(0.5)) {
    for (float& v : x)
      if (rng.chance(0.3)) v = rng.pick(std::vector<float>{kNaN, -kNaN, kInf, -kInf});
    *label += "+many specials";
  }
  return t == DType::f32 ? Tensor::of_f32({n}, x) : Tensor::of_half(t, {n}, x);
}

// Element k of x as a float: exact for f32 and the half dtypes.
std::vector<float> as_floats(const Tensor& x) {
  std::vector<float> v(static_cast<size_t>(x.elements()));
  for (int64_t k = 0; k < x.elements(); ++k) v[static_cast<size_t>(k)] = static_cast<float>(x.at(k));
  return v;
}

// The case's index among the f32 op's: the half ops' case 0 comes first.
int64_t f32_index(DType t, int64_t index) { return t == DType::f32 ? index : index - 1; }

// Bounds and replacements that the half dtypes cannot hold: rounded to a
// neighbour, to a tie's even side, to an infinity past the largest finite
// value (65504 in f16; 65519 rounds down, 65520 is the tie that overflows),
// to zero below the subnormals.
const float kHalfRounded[] = {0.1f,     -0.3f,    1.0f + 0x1p-11f, 1.0f + 0x1p-8f, 1e4f,   -1e4f,
                              65519.0f, 65520.0f, -70000.0f,       1e-30f,         3.4e38f};

// ---------------------------------------------------------------- Clamp

Case make_clamp(DType t, Rng& rng, int64_t index) {
  const bool every = t != DType::f32 && index == 0;
  int64_t n = every ? kHalfPatterns : pick_n(rng, f32_index(t, index));
  const float bounds[][2] = {{-1.0f, 1.0f}, {0.0f, 6.0f},  {-0.0f, 0.0f}, {0.0f, 0.0f},        {-kInf, 0.5f},
                             {-2.0f, kInf}, {-kInf, kInf}, {3.0f, 3.0f},  {-FLT_MAX, FLT_MAX}, {1e-30f, 2e-30f}};
  float lo, hi;
  if (t != DType::f32 && rng.chance(0.4)) {  // bounds between the dtype's values
    lo = rng.pick(kHalfRounded);
    hi = rng.pick(kHalfRounded);
    if (lo > hi) std::swap(lo, hi);
  } else if (rng.chance(0.6)) {
    const auto& b = rng.pick(bounds);
    lo = b[0];
    hi = b[1];
  } else {
    lo = make_values(rng, ValueClass::normal, 1)[0];
    hi = lo + std::fabs(make_values(rng, ValueClass::wide, 1)[0]);
  }
  std::string bad;
  if (f32_index(t, index) >= static_cast<int64_t>(edge_sizes().size()) && rng.chance(0.12)) {
    switch (rng.range(0, 2)) {
      case 0:
        std::swap(lo, hi);
        if (lo == hi) lo = hi + 1.0f;
        bad = "bad: lo > hi";
        break;
      case 1:
        (rng.chance(0.5) ? lo : hi) = kNaN;
        bad = "bad: a NaN bound";
        break;
      default: n = -rng.range(1, 5); bad = "bad: n < 0";
    }
  }
  const int64_t buffer = std::max<int64_t>(n, 0);
  std::string label;
  // The bounds, their negations and their neighbours one ulp either side:
  // a comparison off by one ulp (<= for <, a nudged bound) shows only there.
  std::vector<float> marks;
  for (const float b : {lo, hi, -lo, -hi})
    for (const float v : {b, std::nextafter(b, -kInf), std::nextafter(b, kInf)}) marks.push_back(v);
  if (t != DType::f32)  // and the dtype's values either side of each bound's nearest
    for (const float b : {lo, hi}) {
      const auto h = half_bits(t, b);
      for (const int step : {-1, 1})
        marks.push_back(static_cast<float>(half_value(t, static_cast<uint16_t>(h + step))));
    }
  Tensor x = values_with(rng, t, index, buffer, marks, false, &label);
  const bool in_place = bad.empty() && !every && rng.chance(0.3);
  Case c;
  c.params = {{"n", double(n)}, {"lo", double(lo)}, {"hi", double(hi)}};
  c.args.push_back({"x", Access::in, std::move(x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, {buffer}), Match::exact, in_place ? "x" : ""});
  c.args.push_back(status_arg());
  c.label = "n=" + std::to_string(n) + " lo=" + std::to_string(lo) + " hi=" + std::to_string(hi) + " x:" + label +
            (in_place ? " y==x" : "") + (bad.empty() ? "" : " " + bad);
  return c;
}

Oracle clamp_oracle(const Case& c) {
  static const float somewhere[1] = {};
  const int64_t n = c.iparam("n");
  const float lo = static_cast<float>(c.param("lo")), hi = static_cast<float>(c.param("hi"));
  if (const reference::Verdict v = reference::check_clamp(somewhere, somewhere, n, lo, hi); !v.ok())
    return {{"status", status_expected(v.status)}};
  const std::vector<float> x = as_floats(c.in("x"));
  std::vector<double> y(static_cast<size_t>(n));
  reference::clamp<double>(x.data(), y.data(), n, lo, hi);
  Expected e = exact_expected(std::move(y));  // the comparator rounds it to y's dtype
  // A zero x at a zero bound: the header keeps x's sign, IEEE maximum and
  // minimum may give the other zero. Either passes (an open edge).
  if (lo == 0 || hi == 0) {
    e.alternative = e.value;
    for (int64_t k = 0; k < n; ++k)
      if (x[k] == 0) e.alternative[static_cast<size_t>(k)] = -e.value[static_cast<size_t>(k)];
  }
  return {{"y", e}, {"status", status_expected(TL_OK)}};
}

// What the f16 and bf16 twins add to an f32 op's declaration.
void declare_half(OpSpec& op, DType t) {
  const std::string name(dtype_name(t));
  op.dtype = t;
  op.name += "_" + name;
  op.symbol = op.symbol.substr(0, op.symbol.size() - 3) + name;
  op.summary += "; " + name + " in and out, the given values rounded to " + name;
  op.domain = "case 0: every " + name + " bit pattern; then " + op.domain +
              ", rounded to the dtype, random bit patterns, and given values between the dtype's values";
  op.edge_cases += 1;
}

OpSpec clamp_spec(DType t) {
  OpSpec op;
  op.name = "Clamp";
  op.args = {{"x", Access::in, "T", "n"}, {"y", Access::out, "T", "n", {Match::exact}, {"x"}}, status_output()};
  op.group = "tensor";
  op.symbol = "tl_clamp_f32";
  op.summary = "y = min(max(x, lo), hi): lo if x < lo, hi if x > hi, else x's bits; NaN propagates; y == x allowed";
  op.spec = "operations.txt 1. Linear algebra: Clamp, NanToNum";
  op.params = {{"n", ParamType::i64, ">= 0"},
               {"lo", ParamType::f32, "a number <= hi (-Inf allowed: no lower bound)"},
               {"hi", ParamType::f32, "a number >= lo (+Inf allowed: no upper bound)"}};
  op.domain =
      "every value class, NaN payloads and signed zeros, values equal to the bounds, bounds of +-0, "
      "+-Inf and lo == hi; refused: lo > hi, a NaN bound, n < 0";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size());
  op.make_case = [t](Rng& rng, int64_t i) { return make_clamp(t, rng, i); };
  if (t == DType::f32) declare_c_call<decltype(tl_clamp_f32)>(op, {"x", "y", "n", "lo", "hi"});
  else declare_c_call<decltype(tl_clamp_f16)>(op, {"x", "y", "n", "lo", "hi"});  // bf16 alike
  op.oracle = clamp_oracle;
  if (t != DType::f32) declare_half(op, t);
  return op;
}

// ---------------------------------------------------------------- NanToNum

// The header's defaults for each dtype.
struct Replacements {
  float nan, posinf, neginf;
};
Replacements nan_to_num_defaults(DType t) {
  if (t == DType::f16) return {0.0f, TL_NAN_TO_NUM_F16_DEFAULT_POSINF, TL_NAN_TO_NUM_F16_DEFAULT_NEGINF};
  if (t == DType::bf16) return {0.0f, TL_NAN_TO_NUM_BF16_DEFAULT_POSINF, TL_NAN_TO_NUM_BF16_DEFAULT_NEGINF};
  return {TL_NAN_TO_NUM_DEFAULT_NAN, TL_NAN_TO_NUM_DEFAULT_POSINF, TL_NAN_TO_NUM_DEFAULT_NEGINF};
}

Case make_nan_to_num(DType t, Rng& rng, int64_t index) {
  const bool every = t != DType::f32 && index == 0;
  int64_t n = every ? kHalfPatterns : pick_n(rng, f32_index(t, index));
  // The header's defaults most of the time, other replacements otherwise.
  auto [nan, posinf, neginf] = nan_to_num_defaults(t);
  const bool defaults = rng.chance(0.6);
  if (!defaults) {
    const float options[] = {-1.0f, 1e4f, -1e4f, 0.0f, -0.0f, 65504.0f, -65504.0f, FLT_MIN, kInf, -kInf};
    const auto pick = [&] { return t != DType::f32 && rng.chance(0.5) ? rng.pick(kHalfRounded) : rng.pick(options); };
    nan = pick();
    posinf = pick();
    neginf = pick();
  }
  std::string bad;
  if (f32_index(t, index) >= static_cast<int64_t>(edge_sizes().size()) && rng.chance(0.08)) {
    n = -rng.range(1, 5);
    bad = "bad: n < 0";
  }
  const int64_t buffer = std::max<int64_t>(n, 0);
  std::string label;
  Tensor x = values_with(rng, t, index, buffer, {}, true, &label);
  const bool in_place = bad.empty() && !every && rng.chance(0.3);
  Case c;
  c.params = {{"n", double(n)}, {"nan", double(nan)}, {"posinf", double(posinf)}, {"neginf", double(neginf)}};
  c.args.push_back({"x", Access::in, std::move(x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, {buffer}), Match::exact, in_place ? "x" : ""});
  c.args.push_back(status_arg());
  c.label = "n=" + std::to_string(n) +
            (defaults ? " defaults"
                      : " nan=" + std::to_string(nan) + " posinf=" + std::to_string(posinf) +
                            " neginf=" + std::to_string(neginf)) +
            " x:" + label + (in_place ? " y==x" : "") + (bad.empty() ? "" : " " + bad);
  return c;
}

Oracle nan_to_num_oracle(const Case& c) {
  static const float somewhere[1] = {};
  const int64_t n = c.iparam("n");
  if (const reference::Verdict v = reference::check_elementwise(somewhere, somewhere, n); !v.ok())
    return {{"status", status_expected(v.status)}};
  const std::vector<float> x = as_floats(c.in("x"));
  std::vector<double> y(static_cast<size_t>(n));
  reference::nan_to_num<double>(x.data(), y.data(), n, static_cast<float>(c.param("nan")),
                                static_cast<float>(c.param("posinf")), static_cast<float>(c.param("neginf")));
  return {{"y", exact_expected(std::move(y))}, {"status", status_expected(TL_OK)}};
}

OpSpec nan_to_num_spec(DType t) {
  OpSpec op;
  op.name = "NanToNum";
  op.args = {{"x", Access::in, "T", "n"}, {"y", Access::out, "T", "n", {Match::exact}, {"x"}}, status_output()};
  op.group = "tensor";
  op.symbol = "tl_nan_to_num_f32";
  op.summary =
      "NaN -> nan, +Inf -> posinf, -Inf -> neginf, finite x kept bit for bit; defaults 0, FLT_MAX, "
      "-FLT_MAX (the spec's F32_MIN is Rust's f32::MIN); y == x allowed";
  op.spec = "operations.txt 1. Linear algebra: Clamp, NanToNum";
  op.params = {{"n", ParamType::i64, ">= 0"},
               {"nan", ParamType::f32, "any float: what NaN becomes", "0 (TL_NAN_TO_NUM_DEFAULT_NAN)"},
               {"posinf", ParamType::f32, "any float: what +Inf becomes", "FLT_MAX (TL_NAN_TO_NUM_DEFAULT_POSINF)"},
               {"neginf", ParamType::f32, "any float: what -Inf becomes", "-FLT_MAX (TL_NAN_TO_NUM_DEFAULT_NEGINF)"}};
  op.domain =
      "every value class with NaN of both signs and +-Inf mixed in, the default replacements and others "
      "(+-0, +-Inf, FLT_MIN); refused: n < 0";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size());
  op.make_case = [t](Rng& rng, int64_t i) { return make_nan_to_num(t, rng, i); };
  const std::array<const char*, 6> names = {"x", "y", "n", "nan", "posinf", "neginf"};
  if (t == DType::f32) declare_c_call<decltype(tl_nan_to_num_f32)>(op, names);
  else declare_c_call<decltype(tl_nan_to_num_f16)>(op, names);  // bf16 alike
  op.oracle = nan_to_num_oracle;
  if (t != DType::f32) {
    op.summary =
        "NaN -> nan, +Inf -> posinf, -Inf -> neginf, finite x kept bit for bit; defaults 0 and the dtype's "
        "largest finite value and its negation; y == x allowed";
    declare_half(op, t);
    const std::string top = t == DType::f16 ? "65504" : "3.38953139e38", macro = t == DType::f16 ? "F16" : "BF16";
    op.params[2].default_value = top + " (TL_NAN_TO_NUM_" + macro + "_DEFAULT_POSINF)";
    op.params[3].default_value = "-" + top + " (TL_NAN_TO_NUM_" + macro + "_DEFAULT_NEGINF)";
  }
  return op;
}

}  // namespace

std::vector<OpSpec> tensor_select() {
  std::vector<OpSpec> ops;
  for (DType t : {DType::f32, DType::f16, DType::bf16}) {
    ops.push_back(clamp_spec(t));
    ops.push_back(nan_to_num_spec(t));
  }
  return ops;
}

}  // namespace konform::ops
