#include "konform/sweep.hpp"

#include <set>
#include <stdexcept>

#include "konform/call.hpp"
#include "konform/compare.hpp"

namespace konform {

std::string replay_command(const std::string& backend, const std::string& op, uint64_t seed, int64_t index) {
  return "konform check --backend " + backend + " --op " + op + " --seed " + std::to_string(seed) + " --case " +
         std::to_string(index);
}

namespace {

bool needs_tolerance(const Case& c) {
  for (const Arg& a : c.args)
    if (a.access != Access::in && a.match == Match::tolerance) return true;
  return false;
}

Finding element_finding(const std::string& check, const Arg& out, const ElementVerdict& v, int64_t index,
                        const Case& c, const std::string& reproduce) {
  Finding f;
  f.check = check;
  f.case_index = index;
  f.case_label = c.label;
  f.output = out.name;
  f.element = index_string(out.value.shape, v.index);
  f.has_values = true;
  f.expected = v.expected;
  f.got = v.got;
  f.error = v.error;
  f.limit = v.limit;
  f.message = v.ok ? "largest error" : v.why;
  f.reproduce = reproduce;
  return f;
}

// The report's worst element: a failing one before a passing one, then the
// larger error.
bool worse_than(const Finding& f, const std::optional<Finding>& current) {
  if (!current) return true;
  const bool f_fails = !(f.error <= f.limit), cur_fails = !(current->error <= current->limit);
  if (f_fails != cur_fails) return f_fails;
  return f.error > current->error;
}

}  // namespace

void sweep_op(const Backend& backend, const OpSpec& op, const SweepOptions& options, OpResult& result,
              const CaseProgress& progress) {
  void* fn = backend.symbol(op.symbol);
  if (fn == nullptr) {
    result.verdict = "unsupported";
    return;
  }
  const Tolerance* tol = options.tolerances->find(op.name, op.dtype);
  if (tol != nullptr) {
    result.limit = tol->limit;
    result.limit_why = tol->why;
  }
  const int64_t first = options.only_case >= 0 ? options.only_case : 0;
  const int64_t last = options.only_case >= 0 ? options.only_case + 1 : options.cases;
  CheckSummary& oracle_check = result.check("matches_oracle", "sweep");
  // The guards every call goes through, each its own check in the report.
  std::vector<std::string> guards = {"no_write_out_of_bounds", "output_fully_written", "inputs_unchanged",
                                     "deterministic"};
  if (!op.status.empty()) guards.push_back("writes_nothing_on_error");
  for (int64_t i = first; i < last; ++i) {
    Rng rng(case_seed(options.seed, op.name, i));
    const Case c = op.make_case(rng, i);
    if (progress) progress(i, c.label);
    if (needs_tolerance(c) && tol == nullptr)
      throw std::runtime_error("the tolerance table " + options.tolerances->source() + " has no entry for " + op.name +
                               " " + std::string(dtype_name(op.dtype)));
    const std::string reproduce = replay_command(backend.name, op.name, options.seed, i);
    const CallResult call = call_kernel(backend, op, fn, c, CallOptions{static_cast<size_t>(i % 2) * 4, true});
    ++result.cases;

    for (const auto& g : guards) ++result.check(g, "sweep").runs;
    std::set<std::string> violated;
    for (const Violation& v : call.violations) {
      if (violated.insert(v.check).second) ++result.check(v.check, "sweep").failures;
      Finding f;
      f.check = v.check;
      f.message = v.message;
      f.case_index = i;
      f.case_label = c.label;
      f.output = v.arg;
      f.reproduce = reproduce;
      result.fail(f);
    }

    const Oracle expected = op.oracle(c);
    ++oracle_check.runs;
    bool case_ok = true;
    // When the oracle refuses the arguments, the status is all there is to compare.
    const bool refused = !op.status.empty() && expected.at(op.status).value.at(0) != 0;
    for (const Arg& a : c.args) {
      if (a.access == Access::in || (refused && a.name != op.status)) continue;
      const Expected& e = expected.at(a.name);
      const Tensor& got = call.outputs.at(a.name);
      if (static_cast<int64_t>(e.value.size()) != got.elements())
        throw std::logic_error(op.name + ": the oracle returned " + std::to_string(e.value.size()) +
                               " values for " + a.name + " of " + std::to_string(got.elements()));
      const Comparison cmp = a.match == Match::exact ? compare_exact(got, e) : compare_tolerance(got, e, tol->limit);
      result.metrics.merge(cmp.metrics);
      if (cmp.worst.index < 0) continue;
      const Finding f = element_finding("matches_oracle", a, cmp.worst, i, c, reproduce);
      if (worse_than(f, result.worst)) result.worst = f;
      if (!cmp.worst.ok) {
        case_ok = false;
        Finding detailed = f;
        detailed.message = cmp.worst.why + " (" + std::to_string(cmp.mismatches) + " of " +
                           std::to_string(got.elements()) + " elements of " + a.name + " out)";
        result.fail(detailed);
      }
    }
    if (!case_ok) ++oracle_check.failures;
  }
}

}  // namespace konform
