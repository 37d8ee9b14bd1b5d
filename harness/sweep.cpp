#include "konform/sweep.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <utility>
#include <stdexcept>

#include "konform/call.hpp"
#include "konform/judge.hpp"
#include "konform/replay.hpp"

namespace konform {

Case sweep_case(const OpSpec& op, uint64_t seed, int64_t index) {
  Rng rng(case_seed(seed, op.case_key(), index));
  try {
    return op.make_case(rng, index);
  } catch (const std::exception& e) {
    throw std::runtime_error("making case " + std::to_string(index) + " of " + op.name + " (seed " +
                             std::to_string(seed) + "): " + e.what());
  }
}

std::pair<int64_t, int64_t> case_range(const SweepOptions& options) {
  if (options.only_case >= 0) {
    if (options.only_case == std::numeric_limits<int64_t>::max())
      throw std::invalid_argument("case " + std::to_string(options.only_case) + " is past the last case there can be");
    return {options.only_case, options.only_case + 1};
  }
  return {0, options.cases};
}

namespace {

// The strict profile's limit on the same case: the case's largest r
// against Tolerance::strict, its own check (matches_oracle_strict) so that
// the default verdict stands apart. Measured on every run, counted only
// under --profile strict.
void judge_strict(const CaseVerdict& v, const Tolerance& tol, int64_t index, const std::string& reproduce,
                  OpResult& result) {
  CheckSummary& check = result.check("matches_oracle_strict", "sweep");
  check.profile = "strict";
  ++check.runs;
  if (!v.worst || !(v.metrics.max_r > tol.strict) || !(v.worst->error <= v.worst->limit)) return;
  ++check.failures;
  Finding f = *v.worst;
  f.check = check.name;
  f.profile = "strict";
  f.message = "beyond the strict profile's limit (pairwise-accurate sums, docs/tolerances.md#profiles)";
  f.limit = tol.strict;
  f.case_index = index;
  f.reproduce = reproduce + " --profile strict";
  result.fail(f);
}

}  // namespace

double case_deadline(const Case& c, double ceiling) {
  double elements = 0;
  for (const Arg& a : c.args) elements += static_cast<double>(a.value.elements());
  return std::min(ceiling, 60 + elements / 1e5);
}

void sweep_op(const Backend& backend, const OpSpec& op, const SweepOptions& options, OpResult& result,
              const CaseProgress& progress, const CaseDone& done) {
  void* fn = backend.symbol(op.symbol);
  if (fn == nullptr) {
    result.verdict = "unsupported";
    return;
  }
  const Tolerance* tol = options.tolerances->find(op.name, op.dtype);
  if (tol != nullptr) {
    result.limit = tol->limit;
    result.limit_why = tol->why;
    if (tol->has_strict()) result.strict_limit = tol->strict;
  }
  const auto [first, last] = case_range(options);
  CheckSummary& oracle_check = result.check("matches_oracle", "sweep");
  // The guards every call goes through, each its own check in the report.
  std::vector<std::string> guards = {"no_write_out_of_bounds", "no_read_out_of_bounds", "output_fully_written",
                                     "inputs_unchanged",       "deterministic",         "no_write_after_return"};
  if (!op.status.empty()) guards.push_back("writes_nothing_on_error");
  if (backend.device_runtime != nullptr) {  // no fence: a read past a device buffer faults nowhere
    guards.erase(std::find(guards.begin(), guards.end(), "no_read_out_of_bounds"));
    result.check("no_read_out_of_bounds", "sweep").reason =
        "not run on a device: reads past a device buffer are compute-sanitizer memcheck's (docs/cuda.md)";
  }
  for (int64_t i = std::max(first, options.resume_at); i < last; ++i) {
    if (options.skip.count(i) != 0) continue;
    const Case c = sweep_case(op, options.seed, i);
    if (progress) progress(i, c);
    if (needs_tolerance(c) && tol == nullptr)
      throw std::runtime_error("the tolerance table " + options.tolerances->source() + " has no entry for " + op.name +
                               " " + std::string(dtype_name(op.dtype)));
    // First each input's last byte against unmapped memory: the judged calls
    // keep the sweep's alignment, so their inputs end in a little slack.
    if (options.fence_inputs) call_fenced(backend, op, fn, c);
    const std::string reproduce = replay_command(backend, op.name, options.seed, i, options.tolerances_file);
    const CaseVerdict v = judge_case(backend, op, fn, c, tol, CallOptions{static_cast<size_t>(i % 2) * 4, true},
                                     nullptr, options.flush_subnormals);
    ++result.cases;
    for (const auto& g : guards) ++result.check(g, "sweep").runs;
    if (v.unsupported) {
      ++result.unsupported_cases;
      result.unsupported_message = v.message;
    } else {
      ++oracle_check.runs;
      result.judged_valid_cases += !v.refused;
      for (const auto& [name, spread] : v.spread) result.spread[name].merge(spread);
    }
    for (const auto& check : v.verifications) {  // OpSpec::verify's checks
      CheckSummary& s = result.check(check, "sweep");
      ++s.runs;
      if (auto p = v.profiled.find(check); p != v.profiled.end()) s.profile = p->second;
    }
    result.metrics.merge(v.metrics);
    std::set<std::string> failed;  // each check fails at most once per case
    std::string failed_list;
    for (Finding f : v.findings) {
      if (failed.insert(f.check).second) ++result.check(f.check, "sweep").failures;
      failed_list += (failed_list.empty() ? "" : ", ") + f.check + (f.cause.empty() ? "" : " (" + f.cause + ")");
      f.case_index = i;
      f.reproduce = reproduce;
      result.fail(f);
    }
    if (tol != nullptr && tol->has_strict()) judge_strict(v, *tol, i, reproduce, result);
    if (v.worst) {
      Finding w = *v.worst;
      w.case_index = i;
      w.reproduce = reproduce;
      if (worse_than(w, result.worst)) result.worst = w;
    }
    if (done) done(i, failed_list);
    if (options.settled(result)) break;  // --fail-fast
  }
  result.settle_unsupported();
}

}  // namespace konform
