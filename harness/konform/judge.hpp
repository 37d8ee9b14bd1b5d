// One case through one backend, judged: the guarded call's violations and
// every output against the oracle. The sweep, the fuzzers and `konform
// repro` all reach their verdicts here, so they cannot disagree.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "konform/backend.hpp"
#include "konform/call.hpp"
#include "konform/compare.hpp"
#include "konform/op.hpp"
#include "konform/result.hpp"
#include "konform/tolerance.hpp"

namespace konform {

struct CaseVerdict {
  // A violated guard (check = the Violation's), or an output beyond its
  // limit (check = matches_oracle), in the order found. Empty: conforms.
  std::vector<Finding> findings;
  // The largest error against the oracle, passing or not (none when every
  // output was refused or empty).
  std::optional<Finding> worst;
  Metrics metrics;
  // The largest finite error over the outputs in units of their limit
  // (exact outputs: 0 or 1), for drivers that steer by it.
  double worst_ratio = 0;
  bool refused = false;  // the oracle says the op must refuse these arguments
  // The oracle accepts the case and the call returned TL_ERR_UNSUPPORTED: a
  // case the library does not implement (tinyllm/status.h). Not judged
  // against the oracle; the guards still hold. `message`: its tl_last_error.
  bool unsupported = false;
  std::string message;
  // The oracle's expected values of each output compared (the status aside),
  // for telling whether a sweep's data could discriminate (undiscriminating).
  std::map<std::string, OutputSpread> spread;
  // The checks of the op's verify hook that ran on this case (OpSpec::verify).
  std::vector<std::string> verifications;
  // Those of them that belong to a profile (Verification::profile): check -> "strict".
  std::map<std::string, std::string> profiled;
  // No finding the default profile counts.
  bool ok() const {
    for (const Finding& f : findings)
      if (f.profile.empty()) return false;
    return true;
  }
};

// Calls `fn` (the backend's symbol for `op`) on `c` under `options` and judges
// the call. `tol` may be null for ops whose outputs are all exact; throws
// std::runtime_error when an output needs a tolerance and there is none.
// `expected`, when given, is op.oracle(c) computed once for several backends.
// `flush_subnormals` (--flush-subnormals): an element that differs only
// because a subnormal was flushed to zero passes and is counted; without it,
// such an element fails with the cause `flushed` (Subnormals).
CaseVerdict judge_case(const Backend& backend, const OpSpec& op, void* fn, const Case& c, const Tolerance* tol,
                       const CallOptions& options, const Oracle* expected = nullptr, bool flush_subnormals = false);

// c with every subnormal float input (and float parameter) read as a zero of
// its sign, as a DAZ kernel reads them; nullopt when c has none.
std::optional<Case> inputs_flushed(const Case& c);

// The default profile's limit for case c (Tolerance::at with the op's sum
// length), 0 without a tolerance.
double case_limit(const OpSpec& op, const Case& c, const Tolerance* tol);

// Whether any output of `c` is judged against a tolerance.
bool needs_tolerance(const Case& c);

// The worse of two findings for a report: a failing one before a passing
// one, then the larger error.
bool worse_than(const Finding& f, const std::optional<Finding>& current);

}  // namespace konform
