// Cast between f32 and f16 or bf16 (tinyllm/tensor.h): the demotions round
// to nearest with ties to even, the promotions are exact; both compared bit
// for bit (a NaN any NaN).
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "konform/c_call.hpp"
#include "konform/values.hpp"
#include "tensor_support.hpp"
#include "tinyllm/tensor.h"

namespace konform::ops {

std::vector<OpSpec> tensor_cast();

namespace {

int64_t pick_n(Rng& rng, int64_t index) {
  const auto& sizes = edge_sizes();
  if (index < static_cast<int64_t>(sizes.size())) return sizes[static_cast<size_t>(index)];
  return rng.chance(0.3) ? rng.pick(sizes) : rng.range(0, 400);
}

// Every finite value of the dtype, the midpoint between each and its
// neighbour away from zero (a tie, which goes to the even one), and the
// floats just either side of each midpoint: all the demotion's decisions.
std::vector<float> every_decision(DType t) {
  std::vector<float> x;
  for (uint32_t p = 0; p < kHalfPatterns; ++p) {
    const double v = half_value(t, static_cast<uint16_t>(p));
    if (!std::isfinite(v)) continue;
    x.push_back(static_cast<float>(v));
    const double next = half_value(t, static_cast<uint16_t>(p + 1));
    if ((p & 0x7fffu) == 0x7fffu || !std::isfinite(next)) {  // past the largest: the overflow threshold
      const double top = std::fabs(v) + (std::fabs(v) - std::fabs(half_value(t, static_cast<uint16_t>(p - 1)))) / 2;
      const auto threshold = static_cast<float>(std::copysign(top, v));
      x.insert(x.end(), {threshold, std::nextafter(threshold, 0.0f)});
      continue;
    }
    const auto mid = static_cast<float>((v + next) / 2);  // exact: a float holds it
    x.insert(x.end(), {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, static_cast<float>(2 * next))});
  }
  return x;
}

Case make_demotion(DType t, Rng& rng, int64_t index) {
  std::vector<float> x;
  std::string label;
  if (index == 0) {
    x = every_decision(t);
    label = "every " + std::string(dtype_name(t)) + " value, midpoint and its neighbours";
  } else {
    const int64_t n = pick_n(rng, index - 1);
    if (rng.chance(0.3)) {  // random f32 bit patterns: every class of float
      x.resize(static_cast<size_t>(n));
      for (float& v : x) {
        const auto bits = static_cast<uint32_t>(rng.range(0, 0xffffffffLL));
        std::memcpy(&v, &bits, 4);
      }
      label = "random f32 bits";
    } else {
      x = tensor::random_values(rng, n, &label);
    }
  }
  const auto n = static_cast<int64_t>(x.size());
  Case c;
  c.params = {{"n", double(n)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({n}, x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(t, {n}), Match::exact});
  c.label = "n=" + std::to_string(n) + " x=" + label;
  return c;
}

Case make_promotion(DType t, Rng& rng, int64_t index) {
  Tensor x = index == 0 ? every_half(t) : random_half_bits(rng, t, pick_n(rng, index - 1));
  const int64_t n = x.elements();
  Case c;
  c.params = {{"n", double(n)}};
  c.args.push_back({"x", Access::in, std::move(x)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {n}), Match::exact});
  c.label = "n=" + std::to_string(n) + (index == 0 ? " every value" : " random bits");
  return c;
}

// y = x: the comparator rounds the oracle's value to y's dtype (to nearest,
// ties to even), so the oracle is the input itself.
Oracle identity(const Case& c) {
  const Tensor& x = c.in("x");
  std::vector<double> y(static_cast<size_t>(x.elements()));
  for (int64_t k = 0; k < x.elements(); ++k) y[k] = x.at(k);
  return {{"y", tensor::exact_expected(std::move(y))}};
}

OpSpec cast_spec(DType t, bool demote) {
  const std::string half(dtype_name(t));
  OpSpec op;
  op.name = demote ? "Cast_f32_to_" + half : "Cast_" + half + "_to_f32";
  op.dtype = t;
  op.args = demote ? std::vector<ArgSpec>{{"x", Access::in, "f32", "n"}, {"y", Access::out, "T", "n", {Match::exact}}}
                   : std::vector<ArgSpec>{{"x", Access::in, "T", "n"}, {"y", Access::out, "f32", "n", {Match::exact}}};
  op.group = "tensor";
  op.symbol = "tl_cast_" + std::string(demote ? "f32_to_" + half : half + "_to_f32");
  op.summary =
      demote ? "y = x rounded to " + half + ", to nearest with ties to even (overflow to infinity)" : "y = x, exactly";
  // The spec has no cast op; it names F16 as a dtype its ops run in, first here.
  op.spec = "operations.txt 2. Normalization: Tolerance: F32 1e-6, F16 1e-3.";
  op.params = {{"n", ParamType::i64, ">= 0"}};
  op.domain = demote ? "case 0: every " + half +
                           " value, the midpoint to each neighbour and the floats either side"
                           " of it, the overflow threshold; then every value class and random f32 bit patterns"
                     : "case 0: every " + half + " bit pattern; then random bit patterns";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size()) + 1;
  if (demote) op.make_case = [t](Rng& rng, int64_t i) { return make_demotion(t, rng, i); };
  else op.make_case = [t](Rng& rng, int64_t i) { return make_promotion(t, rng, i); };
  if (demote) declare_c_call<decltype(tl_cast_f32_to_f16)>(op, {"x", "y", "n"});  // bf16 alike
  else declare_c_call<decltype(tl_cast_f16_to_f32)>(op, {"x", "y", "n"});
  op.oracle = identity;
  return op;
}

}  // namespace

std::vector<OpSpec> tensor_cast() {
  return {cast_spec(DType::f16, true), cast_spec(DType::bf16, true), cast_spec(DType::f16, false),
          cast_spec(DType::bf16, false)};
}

}  // namespace konform::ops
