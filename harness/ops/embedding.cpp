// Embedding: out[t, :] = table[ids[t], :], a bitwise gather (spec §2.4).
#include <string>

#include "konform/c_call.hpp"
#include "konform/reference/elementwise.hpp"
#include "konform/values.hpp"
#include "konform/op.hpp"
#include "tinyllm/elementwise.h"

namespace konform::ops {

std::vector<OpSpec> embedding();

namespace {

Case make(Rng& rng, int64_t index, int64_t edges) {
  const auto& sizes = edge_sizes();
  const int64_t d = index < edges ? sizes[static_cast<size_t>(index)] : rng.range(1, 300);
  const int64_t V = rng.range(1, d > 1024 ? 6 : 40);
  const int64_t n = rng.range(0, 12);
  std::vector<int32_t> ids(static_cast<size_t>(n));
  for (auto& id : ids) id = static_cast<int32_t>(rng.range(0, V - 1));  // repeats and any order
  const ValueClass vc = rng.pick(kAllValueClasses);

  Case c;
  c.params = {{"n", double(n)}, {"d", double(d)}, {"V", double(V)}};
  c.args.push_back({"table", Access::in, Tensor::of_f32({V, d}, make_values(rng, vc, V * d))});
  c.args.push_back({"ids", Access::in, Tensor::of_i32({n}, ids)});
  c.args.push_back({"out", Access::out, Tensor::zeros(DType::f32, {n, d}), Match::exact});
  c.label = "n=" + std::to_string(n) + " d=" + std::to_string(d) + " V=" + std::to_string(V) +
            " table=" + std::string(value_class_name(vc));
  return c;
}

Oracle oracle(const Case& c) {
  const int64_t n = c.iparam("n"), d = c.iparam("d");
  Expected e;
  e.value.resize(static_cast<size_t>(n * d));
  reference::embedding<double>(c.in("table").f32(), c.in("ids").i32(), e.value.data(), n, d);
  return {{"out", e}};
}

}  // namespace

std::vector<OpSpec> embedding() {
  OpSpec op;
  op.name = "elementwise_embedding";  // the contract tinyllm/elementwise.h
  op.args = {{"table", Access::in, "T", "V, d"},
             {"ids", Access::in, "i32", "n"},
             {"out", Access::out, "T", "n, d", {Match::exact}}};
  op.former_name = "embedding";
  op.group = "elementwise";
  op.symbol = "tl_embedding_f32";
  op.summary = "out[t, :] = table[ids[t], :] (rows copied bit for bit)";
  op.spec = "elementwise-kernels.txt 2. Principles: 2.4 Embedding, add, argmax";
  op.params = {{"n", ParamType::i64, ">= 0"},
               {"d", ParamType::i64, ">= 1"},
               {"V", ParamType::i64, ">= 1: table's rows (not passed; ids[t] < V)"}};
  op.domain = "every value class, NaN payloads included: a copy is exact; ids[t] in 0 .. V-1 (the caller checks)";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size());
  op.make_case = [edges = op.edge_cases](Rng& rng, int64_t i) { return make(rng, i, edges); };
  declare_c_call<decltype(tl_embedding_f32)>(op, {"table", "ids", "out", "n", "d"});
  op.oracle = oracle;
  return {op};
}

}  // namespace konform::ops
