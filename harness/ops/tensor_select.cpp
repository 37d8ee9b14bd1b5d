// Clamp and NanToNum (spec §1 "Numerical stability", tinyllm/tensor.h):
// every output is an input's bits or a given value, compared bit for bit.
#include <cfloat>
#include <cmath>
#include <limits>
#include <string>

#include "konform/c_call.hpp"
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
std::vector<float> values_with(Rng& rng, int64_t n, const std::vector<float>& marks, std::string* label) {
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
  return x;
}

// ---------------------------------------------------------------- Clamp

Case make_clamp(Rng& rng, int64_t index) {
  int64_t n = pick_n(rng, index);
  const float bounds[][2] = {{-1.0f, 1.0f}, {0.0f, 6.0f},  {-0.0f, 0.0f}, {0.0f, 0.0f},        {-kInf, 0.5f},
                             {-2.0f, kInf}, {-kInf, kInf}, {3.0f, 3.0f},  {-FLT_MAX, FLT_MAX}, {1e-30f, 2e-30f}};
  float lo, hi;
  if (rng.chance(0.6)) {
    const auto& b = rng.pick(bounds);
    lo = b[0];
    hi = b[1];
  } else {
    lo = make_values(rng, ValueClass::normal, 1)[0];
    hi = lo + std::fabs(make_values(rng, ValueClass::wide, 1)[0]);
  }
  std::string bad;
  if (index >= static_cast<int64_t>(edge_sizes().size()) && rng.chance(0.12)) {
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
  const std::vector<float> x = values_with(rng, buffer, marks, &label);
  const bool in_place = bad.empty() && rng.chance(0.3);
  Case c;
  c.params = {{"n", double(n)}, {"lo", double(lo)}, {"hi", double(hi)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({buffer}, x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {buffer}), Match::exact, in_place ? "x" : ""});
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
  std::vector<double> y(static_cast<size_t>(n));
  reference::clamp<double>(c.in("x").f32(), y.data(), n, lo, hi);
  Expected e = exact_expected(std::move(y));
  // A zero x at a zero bound: the header keeps x's sign, IEEE maximum and
  // minimum may give the other zero. Either passes (an open edge).
  if (lo == 0 || hi == 0) {
    const float* x = c.in("x").f32();
    e.alternative = e.value;
    for (int64_t k = 0; k < n; ++k)
      if (x[k] == 0) e.alternative[static_cast<size_t>(k)] = -e.value[static_cast<size_t>(k)];
  }
  return {{"y", e}, {"status", status_expected(TL_OK)}};
}

OpSpec clamp_spec() {
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
  op.make_case = make_clamp;
  declare_c_call<decltype(tl_clamp_f32)>(op, {"x", "y", "n", "lo", "hi"});
  op.oracle = clamp_oracle;
  return op;
}

// ---------------------------------------------------------------- NanToNum

Case make_nan_to_num(Rng& rng, int64_t index) {
  int64_t n = pick_n(rng, index);
  // The header's defaults most of the time, other replacements otherwise.
  float nan = TL_NAN_TO_NUM_DEFAULT_NAN, posinf = TL_NAN_TO_NUM_DEFAULT_POSINF, neginf = TL_NAN_TO_NUM_DEFAULT_NEGINF;
  const bool defaults = rng.chance(0.6);
  if (!defaults) {
    const float options[] = {-1.0f, 1e4f, -1e4f, 0.0f, -0.0f, 65504.0f, -65504.0f, FLT_MIN, kInf, -kInf};
    nan = rng.pick(options);
    posinf = rng.pick(options);
    neginf = rng.pick(options);
  }
  std::string bad;
  if (index >= static_cast<int64_t>(edge_sizes().size()) && rng.chance(0.08)) {
    n = -rng.range(1, 5);
    bad = "bad: n < 0";
  }
  const int64_t buffer = std::max<int64_t>(n, 0);
  std::string label;
  std::vector<float> x = values_with(rng, buffer, {}, &label);
  if (rng.chance(0.5)) {  // always some of each special
    for (float& v : x)
      if (rng.chance(0.3)) v = rng.pick(std::vector<float>{kNaN, -kNaN, kInf, -kInf});
    label += "+many specials";
  }
  const bool in_place = bad.empty() && rng.chance(0.3);
  Case c;
  c.params = {{"n", double(n)}, {"nan", double(nan)}, {"posinf", double(posinf)}, {"neginf", double(neginf)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({buffer}, x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {buffer}), Match::exact, in_place ? "x" : ""});
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
  std::vector<double> y(static_cast<size_t>(n));
  reference::nan_to_num<double>(c.in("x").f32(), y.data(), n, static_cast<float>(c.param("nan")),
                                static_cast<float>(c.param("posinf")), static_cast<float>(c.param("neginf")));
  return {{"y", exact_expected(std::move(y))}, {"status", status_expected(TL_OK)}};
}

OpSpec nan_to_num_spec() {
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
  op.make_case = make_nan_to_num;
  declare_c_call<decltype(tl_nan_to_num_f32)>(op, {"x", "y", "n", "nan", "posinf", "neginf"});
  op.oracle = nan_to_num_oracle;
  return op;
}

}  // namespace

std::vector<OpSpec> tensor_select() { return {clamp_spec(), nan_to_num_spec()}; }

}  // namespace konform::ops
