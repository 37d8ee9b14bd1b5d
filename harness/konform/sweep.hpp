// The sweep: seeded cases of one op through one backend, judged by the
// comparator and the call's guards.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>

#include "konform/backend.hpp"
#include "konform/op.hpp"
#include "konform/result.hpp"
#include "konform/tolerance.hpp"

namespace konform {

struct SweepOptions {
  uint64_t seed = 1;
  int64_t cases = 300;
  int64_t only_case = -1;  // >= 0: replay that case alone
  const ToleranceTable* tolerances = &ToleranceTable::builtin();
  std::string tolerances_file;    // the file `tolerances` came from (--tolerances), "" for the built-in table
  bool flush_subnormals = false;  // --flush-subnormals (judge_case)
  // Where a sweep resumes after a case that crashed: the cases before
  // resume_at and those in skip are not run (skip: the ones that crashed).
  int64_t resume_at = 0;
  std::set<int64_t> skip;
  // Whether each case is first called with its inputs fenced (call_fenced).
  // The isolating parent turns it off after the first read past an input:
  // that is one finding, and the rest of the sweep (that case included) is
  // judged without it, not stopped at every case.
  bool fence_inputs = true;
  // --fail-fast: the op is settled by its first failure under the run's
  // profile (strict_counts: --profile strict, whose strict findings fail it).
  bool fail_fast = false;
  bool strict_counts = false;
  bool settled(const OpResult& r) const {
    return fail_fast && (r.verdict == "fail" || (strict_counts && r.strict_failed));
  }
};

// Called before each case, so an isolating parent knows which case was
// running if the kernel crashes or hangs.
using CaseProgress = std::function<void(int64_t index, const Case& c)>;
// Called after each case (its verdict is in the result) with the checks it
// failed, "" when it passed (for --verbose).
using CaseDone = std::function<void(int64_t index, const std::string& failed)>;

// The cases a sweep runs, [first, last): all of them, or --case alone.
std::pair<int64_t, int64_t> case_range(const SweepOptions& options);

// How long case c may take, made, called three times and judged: 60 s, plus 1 s
// per 100,000 elements of its arguments (a slow oracle's share included;
// generous, as a loaded machine can be ten times slower), at most `ceiling`.
double case_deadline(const Case& c, double ceiling);

// Case `index` of `op`'s sweep under `seed`, as the sweep and its
// reproducers make it. A generator that throws (a case too large to
// allocate, say) is named with the case, so that it can be found again.
Case sweep_case(const OpSpec& op, uint64_t seed, int64_t index);

// Runs the sweep into `result` (which names op and backend already). Each
// case is called once with its inputs fenced (call_fenced), then twice and
// judged (judge_case): a read past an input's end faults in the first call,
// and the isolating parent reports it as no_read_out_of_bounds.
void sweep_op(const Backend& backend, const OpSpec& op, const SweepOptions& options, OpResult& result,
              const CaseProgress& progress = nullptr, const CaseDone& done = nullptr);

}  // namespace konform
