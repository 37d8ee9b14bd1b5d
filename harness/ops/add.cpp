// Add: y = a + b, the residual connection; y == a allowed (spec §2.4).
#include <cmath>
#include <string>

#include "konform/c_call.hpp"
#include "konform/reference/elementwise.hpp"
#include "konform/values.hpp"
#include "konform/op.hpp"
#include "tinyllm/elementwise.h"

namespace konform::ops {

std::vector<OpSpec> add();

namespace {

Case make(Rng& rng, int64_t index, int64_t edges) {
  const auto& sizes = edge_sizes();
  const int64_t n =
      index < edges ? sizes[static_cast<size_t>(index)] : (rng.chance(0.3) ? rng.pick(sizes) : rng.range(0, 400));
  const ValueClass vc = rng.pick(kAllValueClasses);
  std::vector<float> a = make_values(rng, vc, n), b;
  const bool cancel = rng.chance(0.25);
  if (cancel) {  // b = -a (1 + small): the sum is all cancellation
    b.resize(a.size());
    for (size_t i = 0; i < a.size(); ++i) b[i] = -a[i] * (1.0f + static_cast<float>(rng.range(-8, 8)) * 0x1p-20f);
  } else {
    b = make_values(rng, rng.pick(kAllValueClasses), n);
  }
  const bool in_place = rng.chance(0.3);

  Case c;
  c.params = {{"n", double(n)}};
  c.args.push_back({"a", Access::in, Tensor::of_f32({n}, a)});
  c.args.push_back({"b", Access::in, Tensor::of_f32({n}, b)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {n}), Match::tolerance, in_place ? "a" : ""});
  c.label = "n=" + std::to_string(n) + " a=" + std::string(value_class_name(vc)) + (cancel ? " b=-a(1+d)" : "") +
            (in_place ? " y==a" : "");
  return c;
}

Oracle oracle(const Case& c) {
  const int64_t n = c.iparam("n");
  Expected e;
  e.value.resize(static_cast<size_t>(n));
  reference::add<double>(c.in("a").f32(), c.in("b").f32(), e.value.data(), n);
  e.scale.resize(e.value.size());
  for (int64_t i = 0; i < n; ++i) e.scale[i] = std::fabs(e.value[i]);  // one rounding of the exact sum
  return {{"y", e}};
}

}  // namespace

std::vector<OpSpec> add() {
  OpSpec op;
  op.name = "elementwise_add";  // the contract tinyllm/elementwise.h
  op.args = {{"a", Access::in, "T", "n"},
             {"b", Access::in, "T", "n"},
             {"y", Access::out, "T", "n", {Match::tolerance}, {"a"}}};
  op.tolerances = {{DType::f32, "1", "-", "one correctly rounded addition: |y - y*| <= u |y*|"}};
  op.former_name = "add";
  op.group = "elementwise";
  op.symbol = "tl_add_f32";
  op.summary = "y = a + b elementwise; y == a allowed";
  op.spec = "elementwise-kernels.txt 2. Principles: 2.4 Embedding, add, argmax";
  op.params = {{"n", ParamType::i64, ">= 0"}};
  op.domain = "every value class, including cancellation (b = -a(1 + d)) and Inf - Inf";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size());
  op.make_case = [edges = op.edge_cases](Rng& rng, int64_t i) { return make(rng, i, edges); };
  declare_c_call<decltype(tl_add_f32)>(op, {"a", "b", "y", "n"});
  op.oracle = oracle;
  return {op};
}

}  // namespace konform::ops
