// What running an op on a backend found: the record the report is made of.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "konform/compare.hpp"

namespace konform {

struct Finding {
  std::string check;  // the property's name, matches_oracle, output_fully_written, ...
  std::string message;
  int64_t case_index = -1;
  std::string case_label;
  std::string output;   // the output tensor, when an element is named
  std::string element;  // "[r, c]" within it
  bool has_values = false;
  double expected = 0, got = 0, error = 0, limit = 0;
  std::string reproduce;  // a command line that replays it
  // An element finding's class (cause_name: nan, inf, flushed, subnormal,
  // tail, magnitude), "" for the others. A result keeps one finding per
  // check and cause, counting the cases it failed in and their elements.
  std::string cause;
  int64_t cases = 1;
  int64_t elements = 0;
  std::string profile;  // "strict": a finding only the strict profile counts (docs/tolerances.md, Profiles); "" default
};

struct CheckSummary {
  std::string name;
  std::string kind;  // "sweep" or "property"
  int64_t runs = 0;
  int64_t failures = 0;
  std::string reason;   // a property that could not run: why (a companion op the backend lacks)
  std::string profile;  // "strict": a contract beyond the spec, failing the run only under --profile strict; "" default
  // A check that ran without a failure on data that could not have caught
  // one (OpResult::settle_mistrusted): why. Its verdict is then mistrusted.
  std::string mistrusted;
};

// What the oracle expected of one output over the judged cases of a sweep:
// enough to tell whether a wrong kernel could have passed them all (a
// kernel writing zeros, or one constant). Status outputs are not counted.
struct OutputSpread {
  static constexpr size_t kKept = 3;  // distinct values kept; more say nothing more
  bool exact = false;                 // compared bit for bit (Match::exact), not against a tolerance
  int64_t cases = 0;                  // judged cases that compared this output
  int64_t elements = 0;
  int64_t nonzero = 0;           // elements whose expected value is not +-0 (NaN counts)
  std::vector<double> distinct;  // the first kKept distinct expected values (all NaNs one, +0 and -0 one)

  void add(double expected);
  void merge(const OutputSpread& other);
};

struct OpResult {
  std::string op, symbol, dtype, backend, target;
  // pass | fail | unsupported (the backend lacks the symbol, or returned
  // TL_ERR_UNSUPPORTED for every valid case) | crashed | timeout | not_run (the
  // backend cannot run here: `reason` says why; nothing was called) |
  // mistrusted (nothing failed, but the sweep's data could not have caught a
  // wrong kernel: `reason` says why; settle_mistrusted)
  std::string verdict = "pass";
  std::string reason;  // not_run and mistrusted only
  int64_t cases = 0;
  // Valid cases the call answered with TL_ERR_UNSUPPORTED: counted, not
  // judged against the oracle; the op's other cases are. The message is the
  // library's tl_last_error for the last of them.
  int64_t unsupported_cases = 0;
  std::string unsupported_message;
  // Valid cases judged against the oracle (not unsupported, not refused).
  // Not in the report: an isolated child sends it with its state.
  int64_t judged_valid_cases = 0;
  // The oracle's expected values per output over those cases (not in the
  // report either: sent with the state, read by settle_mistrusted).
  std::map<std::string, OutputSpread> spread;
  double limit = 0;
  double strict_limit = 0;     // the strict profile's limit, when it differs from the default's (Tolerance::strict)
  bool strict_failed = false;  // a strict-profile check failed (the default verdict is not touched)
  std::string limit_why;
  Metrics metrics;
  std::optional<Finding> worst;     // the largest error seen, passing or not
  std::vector<Finding> findings;    // the first finding of each failing check and cause
  std::deque<CheckSummary> checks;  // a deque: check() hands out references that stay valid
  double seconds = 0;

  // Records a failure of `check`; keeps the first finding per check and
  // cause (and output, for an element finding), adding up the counts of the
  // later ones. A strict finding sets strict_failed, not the verdict.
  void fail(const Finding& f);
  CheckSummary& check(const std::string& name, const std::string& kind);
  // A library that implements none of the valid cases is not passed on its
  // guards and refusals alone: such a pass becomes unsupported.
  void settle_unsupported();
  // A sweep whose judged data could not discriminate (undiscriminating):
  // its matches_oracle check, when it did not fail, becomes mistrusted with
  // the reason, and a pass becomes mistrusted. Call it once, after the sweep.
  void settle_mistrusted();
};

// Why the sweep recorded in r could not have caught a wrong kernel, "" when
// it could or when there is no sweep to judge (docs/cli.md, Verdicts):
// every judged case was one the op must refuse; every compared output was
// empty; the expected values of all outputs together were all zero, or
// (kMinDistinct elements or more) all one value; or a tolerance-judged output
// of kMinDistinct elements or more had fewer than kMinDistinct distinct
// expected values over every case.
inline constexpr size_t kMinDistinct = 3;
std::string undiscriminating(const OpResult& r);

}  // namespace konform
