// The tolerance table: one limit per (op, dtype), with its justification.
// The built-in table is the ops' declared rules (OpSpec::tolerances);
// --tolerances FILE reads another in the same format, the one
// `konform list --tolerances` writes (reference/tolerances.tsv).
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "konform/dtype.hpp"

namespace konform {

struct OpSpec;

struct Tolerance {
  double limit = 0;         // on r, in units of roundoff: the fixed part of the default profile's limit
  double per_term = 0;      // plus this many u per term of the case's longest sum (OpSpec::sum_length)
  double strict = 0;        // the strict profile's limit (fixed; equal to `limit` when the entry names none)
  double spec_ceiling = 0;  // the spec's relative figure, 0 if none
  std::string why;
  // The default profile's limit for a case whose longest sum has n terms:
  // limit + per_term * n, never above the spec's ceiling.
  double at(int64_t n, double unit_roundoff) const;
  bool has_strict() const { return per_term > 0 || strict != limit; }
  std::string text() const;  // as the table writes it: "3+1n; strict 24"
};

// A malformed table: the message names the source, the line and the field.
struct TableError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ToleranceTable {
 public:
  // Parses the TSV text; `source` names it in error messages.
  static ToleranceTable parse(const std::string& text, const std::string& source);
  // The ops' declared rules (OpSpec::tolerances), parsed as a table is.
  static const ToleranceTable& builtin();
  // The rules `ops` declare as a table's text: a header, then one line per
  // (op, dtype) in their order (`konform list --tolerances`).
  static std::string text_of(const std::vector<const OpSpec*>& ops);

  // nullptr when the table has no entry; `op` may be a former name.
  const Tolerance* find(const std::string& op, DType dtype) const;
  const std::string& source() const { return source_; }
  // One line per entry naming an op by its former name ("FILE:LINE: op 'add'
  // is now ..."), for the caller to show.
  const std::vector<std::string>& notes() const { return notes_; }

  // Throws a TableError naming every op of `ops` judged against a limit
  // that has no entry here ("has no entry for elementwise_add f32, ..."): a table read
  // whole, refused before the run rather than failing op by op.
  void require_entries_for(const std::vector<const OpSpec*>& ops) const;

 private:
  std::map<std::pair<std::string, DType>, Tolerance> entries_;
  std::string source_;
  std::vector<std::string> notes_;
};

}  // namespace konform
