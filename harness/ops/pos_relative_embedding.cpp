// RelativePosEmbedding (spec §3): T5's learned relative-position bias,
// bias[h, i, j] = table[bucket(k_pos[j] - q_pos[i]), h], with the exact bucket
// function of tinyllm/pos.h (a gather: compared bit for bit).
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "konform/c_call.hpp"
#include "konform/op.hpp"
#include "konform/reference/pos.hpp"
#include "konform/values.hpp"
#include "pos_support.hpp"
#include "tinyllm/pos.h"

namespace konform::ops {

std::vector<OpSpec> pos_relative_embedding();

namespace {

using namespace pos;

tl_status expected_status(const Case& c) {
  const int64_t Lq = c.iparam("Lq"), Lk = c.iparam("Lk"), H = c.iparam("H"), nb = c.iparam("num_buckets");
  const int64_t md = c.iparam("max_distance"), bidir = c.iparam("bidirectional");
  if (Lq < 0 || Lk < 0 || H < 1 || (bidir != 0 && bidir != 1)) return TL_ERR_INVALID_ARGUMENT;
  const int64_t side = bidir ? nb / 2 : nb;
  if (side < 2 || nb > 1024 || H > INT32_MAX / nb) return TL_ERR_INVALID_ARGUMENT;
  if (md <= side / 2 || md > INT32_MAX) return TL_ERR_INVALID_ARGUMENT;
  return TL_OK;
}

// Distances on both sides of every bucket boundary: me (md/me)^(k/m) rounded
// down and up, which includes the boundaries that are exact integers (16, 32
// and 64 for T5's defaults), where float logs land a bucket low.
std::vector<int64_t> boundary_distances(int64_t side, int64_t md) {
  const int64_t me = side / 2, m = side - me;
  std::vector<int64_t> out = {0, 1, me - 1, me, me + 1, md - 1, md, md + 1};
  for (int64_t k = 1; k < m; ++k) {
    const double x = double(me) * std::pow(double(md) / double(me), double(k) / double(m));
    for (int64_t n : {int64_t(std::floor(x)) - 1, int64_t(std::floor(x)), int64_t(std::ceil(x))}) out.push_back(n);
  }
  return out;
}

// The last two edge cases: biases of 16 MiB and more, which libtl_kernels
// writes with non-temporal stores (impl/simd/stream-inl.h). H 16 x 512 x 512
// with consecutive keys (its copy of a window) and 16 x 512 x 513 with every
// other key (its gather, most rows starting off a vector boundary).
constexpr int64_t kStreamedEdges = 2;

Case streamed(Rng& rng, bool consecutive) {
  const int64_t H = 16, Lq = 512, Lk = consecutive ? 512 : 513, nb = 32, md = 128;
  std::vector<int32_t> q(static_cast<size_t>(Lq)), k(static_cast<size_t>(Lk));
  for (int64_t i = 0; i < Lq; ++i) q[i] = static_cast<int32_t>(i);
  for (int64_t j = 0; j < Lk; ++j) k[j] = static_cast<int32_t>(consecutive ? j : 2 * j);
  Case c;
  c.params = {{"Lq", double(Lq)},          {"Lk", double(Lk)},           {"H", double(H)},
              {"num_buckets", double(nb)}, {"max_distance", double(md)}, {"bidirectional", 1.0}};
  c.args.push_back({"table", Access::in, Tensor::of_f32({nb, H}, make_values(rng, ValueClass::normal, nb * H))});
  c.args.push_back({"q_pos", Access::in, Tensor::of_i32({Lq}, q)});
  c.args.push_back({"k_pos", Access::in, Tensor::of_i32({Lk}, k)});
  c.args.push_back({"bias", Access::out, Tensor::zeros(DType::f32, {H, Lq, Lk}), Match::exact});
  c.args.push_back(status_arg());
  c.label = "Lq=512 Lk=" + std::to_string(Lk) + " H=16 num_buckets=32 max_distance=128 bidirectional, " +
            (consecutive ? "consecutive keys" : "every other key") + " (a bias of 16 MiB: streamed)";
  return c;
}

// In f16 and bf16: the table of the dtype (the value class rounded, or a
// third of the time random bit patterns, NaN payloads among them), the bias
// of the dtype; no streamed edges (the f32 kernel's streamed stores).
Case make(DType t, Rng& rng, int64_t index, int64_t edges) {
  if (t == DType::f32 && index < edges && index >= edges - kStreamedEdges)
    return streamed(rng, index == edges - kStreamedEdges);
  const int64_t bucket_options[] = {32, 32, 32, 64, 128, 8, 4, 2, 3, 320, 1024, 17};
  const bool bidir = rng.chance(0.5);
  int64_t nb = index < edges ? 2 + edge_sizes()[static_cast<size_t>(index)] % 200 : rng.pick(bucket_options);
  if (bidir && nb < 4) nb = 4;
  const int64_t side = bidir ? nb / 2 : nb, me = side / 2;
  const double u = rng.unit();
  int64_t md = u < 0.5 ? 128 : u < 0.6 ? me + 1 : u < 0.9 ? rng.range(me + 1, 5000) : rng.range(me + 1, INT32_MAX);
  if (md <= me) md = me + 1;
  const int64_t H = rng.range(1, 4);
  const int64_t Lq = rng.chance(0.04) ? 0 : rng.range(1, 16), Lk = rng.chance(0.04) ? 0 : rng.range(1, 40);
  std::vector<int32_t> q(static_cast<size_t>(Lq)), k(static_cast<size_t>(Lk));
  const double layout = rng.unit();
  if (layout < 0.4) {  // a prompt against itself, or decode steps after a past
    const int64_t past = rng.chance(0.5) ? 0 : rng.range(0, 1000);
    for (int64_t j = 0; j < Lk; ++j) k[j] = static_cast<int32_t>(j);
    for (int64_t i = 0; i < Lq; ++i) q[i] = static_cast<int32_t>(past + i);
  } else if (layout < 0.8) {  // keys on both sides of every bucket boundary
    const auto dist = boundary_distances(side, md);
    const int64_t q0 = rng.range(-100000, 100000);
    for (auto& v : q) v = static_cast<int32_t>(q0 + rng.range(-2, 2));
    for (auto& v : k)
      v = static_cast<int32_t>(
          std::clamp<int64_t>(q0 + (rng.chance(0.5) ? 1 : -1) * rng.pick(dist), INT32_MIN, INT32_MAX));
  } else {  // anywhere in int32, the extremes included
    for (auto& v : q) v = static_cast<int32_t>(rng.chance(0.2) ? INT32_MIN : rng.range(INT32_MIN, INT32_MAX));
    for (auto& v : k) v = static_cast<int32_t>(rng.chance(0.2) ? INT32_MAX : rng.range(INT32_MIN, INT32_MAX));
  }
  const ValueClass vc = rng.pick(kAllValueClasses);

  Case c;
  c.params = {{"Lq", double(Lq)},          {"Lk", double(Lk)},           {"H", double(H)},
              {"num_buckets", double(nb)}, {"max_distance", double(md)}, {"bidirectional", double(bidir)}};
  const bool bits = t != DType::f32 && rng.chance(0.3);
  const std::vector<float> values = make_values(rng, vc, nb * H);
  Tensor table = t == DType::f32 ? Tensor::of_f32({nb, H}, values)
                 : bits          ? random_half_bits(rng, t, nb * H)
                                 : Tensor::of_half(t, {nb, H}, values);
  table.shape = {nb, H};
  c.args.push_back({"table", Access::in, std::move(table)});
  c.args.push_back({"q_pos", Access::in, Tensor::of_i32({Lq}, q)});
  c.args.push_back({"k_pos", Access::in, Tensor::of_i32({Lk}, k)});
  c.args.push_back({"bias", Access::out, Tensor::zeros(t, {H, Lq, Lk}), Match::exact});
  c.args.push_back(status_arg());
  c.label = std::string(bits ? "table=random bits " : "") + "Lq=" + std::to_string(Lq) + " Lk=" + std::to_string(Lk) +
            " H=" + std::to_string(H) + " num_buckets=" + std::to_string(nb) + " max_distance=" + std::to_string(md) +
            (bidir ? " bidirectional" : " causal");
  if (index >= edges && rng.chance(0.1)) {
    switch (rng.range(0, 5)) {
      case 0: c.params["num_buckets"] = bidir ? 3 : 1; break;
      case 1: c.params["num_buckets"] = 1025; break;
      case 2: c.params["max_distance"] = double(me); break;
      case 3: c.params["max_distance"] = double(int64_t{INT32_MAX} + 1); break;
      case 4: c.params["H"] = 0; break;
      default: c.params["bidirectional"] = 2; break;
    }
    c.label += " bad: num_buckets=" + std::to_string(c.iparam("num_buckets")) +
               " max_distance=" + std::to_string(c.iparam("max_distance")) + " H=" + std::to_string(c.iparam("H")) +
               " bidirectional=" + std::to_string(c.iparam("bidirectional"));
  }
  return c;
}

Oracle oracle(const Case& c) {
  if (tl_status s = expected_status(c)) return refused(s);
  const int64_t Lq = c.iparam("Lq"), Lk = c.iparam("Lk"), H = c.iparam("H");
  Expected e;
  e.value.resize(static_cast<size_t>(H * Lq * Lk));
  const Tensor& table = c.in("table");
  std::vector<float> rows(static_cast<size_t>(table.elements()));  // exact for f32 and the half dtypes
  for (int64_t k = 0; k < table.elements(); ++k) rows[static_cast<size_t>(k)] = static_cast<float>(table.at(k));
  reference::relative_pos_embedding<double>(rows.data(), c.in("q_pos").i32(), c.in("k_pos").i32(), e.value.data(), Lq,
                                            Lk, H, c.iparam("num_buckets"), c.iparam("max_distance"),
                                            c.iparam("bidirectional") != 0);
  return {{"status", status_expected(TL_OK)}, {"bias", e}};
}

// In f16 and bf16: the table and bias of the dtype, copied bit for bit.
OpSpec relative_pos_embedding(DType t) {
  const bool half = t != DType::f32;
  const std::string dtype(dtype_name(t));
  OpSpec op;
  op.name = half ? "RelativePosEmbedding_" + dtype : "RelativePosEmbedding";
  op.dtype = t;
  op.args = {{"table", Access::in, "T", "num_buckets, H"},
             {"q_pos", Access::in, "i32", "Lq"},
             {"k_pos", Access::in, "i32", "Lk"},
             {"bias", Access::out, "T", "H, Lq, Lk", {Match::exact}},
             status_output()};
  op.group = "pos";
  op.symbol = "tl_relative_pos_embedding_" + dtype;
  op.summary =
      "T5 relative-position bias[h, i, j] = table[bucket(k_pos[j] - q_pos[i]), h]: exact log buckets, "
      "bidirectional or causal";
  if (half) op.summary += "; " + dtype + " table and bias";
  op.spec = "operations.txt 3. Position encoding: RelativePosEmbedding";
  op.params = {{"Lq", ParamType::i64, ">= 0"},
               {"Lk", ParamType::i64, ">= 0"},
               {"H", ParamType::i64, ">= 1, H * num_buckets <= 2^31 - 1"},
               {"num_buckets", ParamType::i64, "2 (4 bidirectional) .. 1024"},
               {"max_distance", ParamType::i64, "num_buckets per side / 2 < max_distance <= 2^31 - 1"},
               {"bidirectional", ParamType::i32, "1 bidirectional, 0 causal"}};
  op.domain =
      "q_pos, k_pos any int32; T5's defaults and others, distances on both sides of every bucket boundary, "
      "positions anywhere in int32; every value class in the table (a gather is exact); two biases of 16 MiB; "
      "1 case in 10 has a bad argument";
  if (half)
    op.domain = "tables of the value classes rounded to " + dtype + " and of random bit patterns; " +
                op.domain.substr(0, op.domain.find("; two biases")) + "; 1 case in 10 has a bad argument";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size()) + (half ? 0 : kStreamedEdges);
  op.make_case = [t, edges = op.edge_cases](Rng& rng, int64_t i) { return make(t, rng, i, edges); };
  const std::array<const char*, 10> names = {"table", "q_pos", "k_pos",       "bias",         "Lq",
                                             "Lk",    "H",     "num_buckets", "max_distance", "bidirectional"};
  if (half) declare_c_call<decltype(tl_relative_pos_embedding_f16)>(op, names);  // bf16 alike
  else declare_c_call<decltype(tl_relative_pos_embedding_f32)>(op, names);
  op.oracle = oracle;
  return op;
}

}  // namespace

std::vector<OpSpec> pos_relative_embedding() {
  return {relative_pos_embedding(DType::f32), relative_pos_embedding(DType::f16), relative_pos_embedding(DType::bf16)};
}

}  // namespace konform::ops
