// TokenEmbed and PosEmbed (spec §3): rows of a learned table, y = W[id],
// copied bit for bit; unlike tl_embedding_f32 they validate every index and
// refuse before writing (a position past the table is ContextOverflowError).
#include <algorithm>
#include <string>

#include "konform/c_call.hpp"
#include "konform/values.hpp"
#include "konform/op.hpp"
#include "konform/reference/pos.hpp"
#include "pos_support.hpp"
#include "tinyllm/pos.h"

namespace konform::ops {

std::vector<OpSpec> pos_embed();

namespace {

using namespace pos;

enum class Table { token, position };

// The header's rules: sizes, then the indices in order (the first bad one
// decides the status).
tl_status expected_status(const Case& c, Table kind) {
  const int64_t n = c.iparam("n"), rows = c.iparam("rows"), d = c.iparam("d");
  if (n < 0 || rows < 1 || d < 1) return TL_ERR_INVALID_ARGUMENT;
  const int32_t* index = c.in("index").i32();
  for (int64_t i = 0; i < n; ++i) {
    if (index[i] < 0) return TL_ERR_INVALID_ARGUMENT;
    if (index[i] >= rows) return kind == Table::token ? TL_ERR_INVALID_ARGUMENT : TL_ERR_CONTEXT_OVERFLOW;
  }
  return TL_OK;
}

std::string make_invalid(Rng& rng, Case& c) {
  const int64_t n = c.iparam("n"), rows = c.iparam("rows");
  const int64_t kind = rng.range(0, 7);
  if (kind <= 4 && n > 0) {  // an index past the table, or negative, often at the end
    const int64_t i = rng.chance(0.5) ? n - 1 : rng.range(0, n - 1);
    const int64_t bad[] = {rows, rows, rows + 1, int64_t{INT32_MAX}, -1, int64_t{INT32_MIN}};
    c.arg("index").value.i32()[i] = static_cast<int32_t>(std::min<int64_t>(rng.pick(bad), INT32_MAX));
    return "bad: index[" + std::to_string(i) + "] = " + std::to_string(c.arg("index").value.i32()[i]);
  }
  switch (kind) {
    case 5: c.params["rows"] = 0; return "bad: no rows";
    case 6: c.params["d"] = 0; return "bad: d = 0";
    default: c.params["n"] = -1; return "bad: n = -1";
  }
}

Case make(Rng& rng, int64_t index, int64_t edges, Table kind, DType t) {
  const auto& sizes = edge_sizes();
  const int64_t d = index < edges ? sizes[static_cast<size_t>(index)] : rng.range(1, 300);
  const int64_t rows = rng.range(1, d > 1024 ? 6 : 60);
  const int64_t n = rng.range(0, 12);
  std::vector<int32_t> idx(static_cast<size_t>(n));
  if (kind == Table::position && rng.chance(0.6)) {  // a prompt's or a decode step's positions
    const int64_t start = rng.range(0, std::max<int64_t>(0, rows - n));
    for (int64_t i = 0; i < n; ++i) idx[i] = static_cast<int32_t>(std::min(start + i, rows - 1));
  } else {  // any order, repeats, both ends of the table
    for (auto& v : idx)
      v = static_cast<int32_t>(rng.chance(0.2) ? (rng.chance(0.5) ? 0 : rows - 1) : rng.range(0, rows - 1));
  }
  const ValueClass vc = rng.pick(kAllValueClasses);

  Case c;
  c.params = {{"n", double(n)}, {"rows", double(rows)}, {"d", double(d)}};
  // f16 and bf16 tables: the value class rounded to the dtype, or (a third
  // of the time) random bit patterns, NaN payloads of every kind among them.
  const bool bits = t != DType::f32 && rng.chance(0.3);
  const std::vector<float> values = make_values(rng, vc, rows * d);
  Tensor table = t == DType::f32 ? Tensor::of_f32({rows, d}, values)
                 : bits          ? random_half_bits(rng, t, rows * d)
                                 : Tensor::of_half(t, {rows, d}, values);
  table.shape = {rows, d};
  c.args.push_back({"table", Access::in, std::move(table)});
  c.args.push_back({"index", Access::in, Tensor::of_i32({n}, idx)});
  c.args.push_back({"out", Access::out, Tensor::zeros(t, {n, d}), Match::exact});
  c.args.push_back(status_arg());
  c.label = "n=" + std::to_string(n) + " rows=" + std::to_string(rows) + " d=" + std::to_string(d) +
            " table=" + (bits ? std::string("random bits") : std::string(value_class_name(vc)));
  if (index >= edges && rng.chance(0.12)) c.label += " " + make_invalid(rng, c);
  return c;
}

Oracle oracle(const Case& c, Table kind) {
  if (tl_status s = expected_status(c, kind)) return refused(s);
  const int64_t n = c.iparam("n"), d = c.iparam("d");
  Expected e;
  e.value.resize(static_cast<size_t>(n * d));
  const Tensor& table = c.in("table");
  std::vector<float> rows(static_cast<size_t>(table.elements()));  // exact for f32 and the half dtypes
  for (int64_t k = 0; k < table.elements(); ++k) rows[static_cast<size_t>(k)] = static_cast<float>(table.at(k));
  reference::gather_rows<double>(rows.data(), c.in("index").i32(), e.value.data(), n, d);
  return {{"status", status_expected(TL_OK)}, {"out", e}};
}

// In f16 and bf16: the table and out of the dtype, rows copied bit for bit.
OpSpec declare(Table kind, DType t) {
  const bool half = t != DType::f32;
  const std::string dtype(dtype_name(t));
  OpSpec op;
  op.dtype = t;
  op.group = "pos";
  op.status = "status";
  op.edge_cases = static_cast<int64_t>(edge_sizes().size());
  op.make_case = [edges = op.edge_cases, kind, t](Rng& rng, int64_t i) { return make(rng, i, edges, kind, t); };
  op.oracle = [kind](const Case& c) { return oracle(c, kind); };
  if (kind == Table::token) {
    op.name = "TokenEmbed";
    op.args = {{"table", Access::in, "T", "rows, d"},
               {"index", Access::in, "i32", "n"},
               {"out", Access::out, "T", "n, d", {Match::exact}},
               status_output()};
    op.symbol = "tl_token_embed_f32";
    op.summary = "out[i] = table[ids[i]] (bit for bit), every id checked against the vocabulary first";
    op.spec = "operations.txt 3. Position encoding: PosEmbed, TokenEmbed";
    op.params = {{"n", ParamType::i64, ">= 0: the ids"},
                 {"rows", ParamType::i64, "vocab: the table's rows, >= 1"},
                 {"d", ParamType::i64, ">= 1"}};
    op.domain = "ids (index[i]) 0 .. vocab - 1, else refused; ";
    if (half) declare_c_call<decltype(tl_token_embed_f16)>(op, {"table", "index", "out", "n", "rows", "d"});
    else declare_c_call<decltype(tl_token_embed_f32)>(op, {"table", "index", "out", "n", "rows", "d"});
  } else {
    op.name = "PosEmbed";
    op.args = {{"table", Access::in, "T", "rows, d"},
               {"index", Access::in, "i32", "n"},
               {"out", Access::out, "T", "n, d", {Match::exact}},
               status_output()};
    op.symbol = "tl_pos_embed_f32";
    op.summary = "out[i] = table[pos[i]] (bit for bit); a position past the table is ContextOverflowError";
    op.spec = "operations.txt 3. Position encoding: PosEmbed, TokenEmbed";
    op.params = {{"n", ParamType::i64, ">= 0: the positions"},
                 {"rows", ParamType::i64, "max_pos: the table's rows, >= 1"},
                 {"d", ParamType::i64, ">= 1"}};
    op.domain = "positions (index[i]) 0 .. max_pos - 1; negative refused, past the end ContextOverflowError; ";
    if (half) declare_c_call<decltype(tl_pos_embed_f16)>(op, {"table", "index", "out", "n", "rows", "d"});
    else declare_c_call<decltype(tl_pos_embed_f32)>(op, {"table", "index", "out", "n", "rows", "d"});
  }
  op.domain +=
      "every value class, NaN payloads included (a copy is exact); 1 case in 8 has a bad argument, most "
      "often an index past the table";
  if (half) {
    op.name += "_" + dtype;
    op.symbol = op.symbol.substr(0, op.symbol.size() - 3) + dtype;
    op.summary += "; " + dtype + " table and out";
    op.domain = "tables of the value classes rounded to " + dtype + " and of random bit patterns; " + op.domain;
  }
  return op;
}

}  // namespace

std::vector<OpSpec> pos_embed() {
  std::vector<OpSpec> ops;
  for (DType t : {DType::f32, DType::f16, DType::bf16}) {
    ops.push_back(declare(Table::token, t));
    ops.push_back(declare(Table::position, t));
  }
  return ops;
}

}  // namespace konform::ops
