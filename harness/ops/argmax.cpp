// Argmax: lowest index of the largest number, NaN skipped, -1 if none (§2.4).
#include <cmath>
#include <limits>
#include <string>

#include "konform/c_call.hpp"
#include "konform/reference/elementwise.hpp"
#include "konform/values.hpp"
#include "konform/op.hpp"
#include "tinyllm/elementwise.h"

namespace konform::ops {

std::vector<OpSpec> argmax();

namespace {

Case make(Rng& rng, int64_t index, int64_t edges) {
  const auto& sizes = edge_sizes();
  const int64_t vocab[] = {0, 32000, 128256};
  int64_t n = index < edges
                  ? sizes[static_cast<size_t>(index)]
                  : (rng.chance(0.05) ? rng.pick(vocab) : (rng.chance(0.3) ? rng.pick(sizes) : rng.range(0, 300)));
  const int kind = static_cast<int>(rng.range(0, 6));
  std::vector<float> x;
  std::string what;
  constexpr float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  switch (kind) {
    case 0:
      x = make_values(rng, rng.pick(kAllValueClasses), n);
      what = "mixed classes";
      break;
    case 1:
      x = make_values(rng, ValueClass::ties, n);
      what = "ties";
      break;
    case 2:
      x.assign(static_cast<size_t>(n), nan);
      what = "all NaN";
      break;
    case 3:
      x.assign(static_cast<size_t>(n), -inf);
      what = "all -Inf";
      break;
    case 4:
      x = make_values(rng, ValueClass::zeros, n);
      what = "+0 and -0";
      break;
    case 5:  // the maximum repeated at random places, NaN sprinkled, a NaN first
      x = make_values(rng, ValueClass::normal, n);
      for (auto& v : x)
        if (rng.chance(0.1)) v = 7.0f;
        else if (rng.chance(0.1)) v = nan;
      if (n > 0) x[0] = nan;
      what = "repeated max and NaN";
      break;
    default: x = make_values(rng, ValueClass::specials, n); what = "specials";
  }
  Case c;
  c.params = {{"n", double(n)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({n}, x)});
  c.args.push_back({"index", Access::out, Tensor::zeros(DType::i32, {1}), Match::exact});
  c.label = "n=" + std::to_string(n) + " x=" + what;
  return c;
}

Oracle oracle(const Case& c) {
  Expected e;
  e.value = {double(reference::argmax(c.in("x").f32(), c.iparam("n")))};
  return {{"index", e}};
}

}  // namespace

std::vector<OpSpec> argmax() {
  OpSpec op;
  op.name = "elementwise_argmax";  // the contract tinyllm/elementwise.h
  op.args = {{"x", Access::in, "T", "n"}, {"index", Access::out, "i32", "1", {Match::exact}}};
  op.former_name = "argmax";
  op.group = "elementwise";
  op.symbol = "tl_argmax_f32";
  op.summary = "index of the largest x[i]: lowest on ties, NaN skipped, -1 when there is no number";
  op.spec = "elementwise-kernels.txt 2. Principles: 2.4 Embedding, add, argmax";
  op.params = {{"n", ParamType::i64, ">= 0"}};
  op.domain = "every value class, all-NaN, all -Inf, +0/-0 ties, n up to 128256";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size());
  op.make_case = [edges = op.edge_cases](Rng& rng, int64_t i) { return make(rng, i, edges); };
  // The return value lands in the guarded "index" output like any other.
  declare_c_call<decltype(tl_argmax_f32)>(op, {"x", "n"}, "index");
  op.oracle = oracle;
  return {op};
}

}  // namespace konform::ops
