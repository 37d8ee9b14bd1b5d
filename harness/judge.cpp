#include "konform/judge.hpp"

#include <cmath>
#include <set>
#include <stdexcept>

namespace konform {

bool needs_tolerance(const Case& c) {
  for (const Arg& a : c.args)
    if (a.access != Access::in && a.match == Match::tolerance) return true;
  return false;
}

bool worse_than(const Finding& f, const std::optional<Finding>& current) {
  if (!current) return true;
  const bool f_fails = !(f.error <= f.limit), cur_fails = !(current->error <= current->limit);
  if (f_fails != cur_fails) return f_fails;
  return f.error > current->error;
}

namespace {

Finding element_finding(const std::string& check, const std::string& output, const std::vector<int64_t>& shape,
                        const ElementVerdict& v, const Case& c) {
  Finding f;
  f.check = check;
  f.case_label = c.label;
  f.output = output;
  f.element = index_string(shape, v.index);
  f.has_values = true;
  f.expected = v.expected;
  f.got = v.got;
  f.error = v.error;
  f.limit = v.limit;
  f.message = v.ok ? "largest error" : v.why;
  return f;
}

// Folds one comparison (of an output, or of a verify hook's quantities)
// into the verdict: metrics, the worst element, a finding if it failed.
void record(CaseVerdict& verdict, const std::string& check, const std::string& output,
            const std::vector<int64_t>& shape, const std::string& quantity, const Comparison& cmp, bool exact,
            const Case& c) {
  verdict.metrics.merge(cmp.metrics);
  if (cmp.worst.index < 0) return;
  const double ratio = exact                  ? cmp.worst.error
                       : cmp.worst.limit > 0 ? cmp.worst.error / cmp.worst.limit
                                             : (cmp.worst.error > 0 ? INFINITY : 0.0);
  if (std::isfinite(ratio)) verdict.worst_ratio = std::fmax(verdict.worst_ratio, ratio);
  const Finding f = element_finding(check, output, shape, cmp.worst, c);
  if (worse_than(f, verdict.worst)) verdict.worst = f;
  if (!cmp.worst.ok) {
    Finding detailed = f;
    int64_t total = 1;
    for (int64_t e : shape) total *= e;
    detailed.message = cmp.worst.why + " (" + std::to_string(cmp.mismatches) + " of " + std::to_string(total) + " " +
                       quantity + " out)";
    verdict.findings.push_back(detailed);
  }
}

}  // namespace

CaseVerdict judge_case(const Backend& backend, const OpSpec& op, void* fn, const Case& c, const Tolerance* tol,
                       const CallOptions& options, const Oracle* precomputed) {
  if (needs_tolerance(c) && tol == nullptr)
    throw std::runtime_error("no tolerance for " + op.name + " " + std::string(dtype_name(op.dtype)));
  CaseVerdict verdict;
  const CallResult call = call_kernel(backend, op, fn, c, options);
  for (const Violation& v : call.violations) {
    Finding f;
    f.check = v.check;
    f.message = v.message;
    f.case_label = c.label;
    f.output = v.arg;
    if (v.element >= 0) f.element = index_string(c.arg(v.arg).value.shape, v.element);
    verdict.findings.push_back(f);
  }

  const Oracle computed = precomputed == nullptr ? op.oracle(c) : Oracle{};
  const Oracle& expected = precomputed == nullptr ? computed : *precomputed;
  // When the oracle refuses the arguments, the status is all there is to compare.
  verdict.refused = !op.status.empty() && expected.at(op.status).value.at(0) != 0;
  for (const Arg& a : c.args) {
    if (a.access == Access::in || (verdict.refused && a.name != op.status)) continue;
    const auto it = expected.find(a.name);
    if (it == expected.end() && op.verify) continue;  // judged by the op's verify hook alone
    if (it == expected.end()) throw std::logic_error(op.name + ": the oracle returned nothing for " + a.name);
    const Expected& e = it->second;
    const Tensor& got = call.outputs.at(a.name);
    if (static_cast<int64_t>(e.value.size()) != got.elements())
      throw std::logic_error(op.name + ": the oracle returned " + std::to_string(e.value.size()) + " values for " +
                             a.name + " of " + std::to_string(got.elements()));
    const bool exact = a.match == Match::exact;
    const Comparison cmp = exact ? compare_exact(got, e) : compare_tolerance(got, e, tol->limit);
    record(verdict, "matches_oracle", a.name, a.value.shape, "elements of " + a.name, cmp, exact, c);
  }
  if (op.verify && !verdict.refused) {
    for (const Verification& v : op.verify(c, call.outputs, tol != nullptr ? tol->limit : 0.0)) {
      verdict.verifications.push_back(v.check);
      const size_t before = verdict.findings.size();
      const auto worst = verdict.worst;
      const double worst_ratio = verdict.worst_ratio;
      record(verdict, v.check, v.output, v.shape, v.quantity, v.comparison, false, c);
      if (v.profile.empty()) continue;
      // A profile's check is shown as its findings, never as the case's worst error.
      verdict.worst = worst;
      verdict.worst_ratio = worst_ratio;
      verdict.profiled[v.check] = v.profile;
      for (size_t i = before; i < verdict.findings.size(); ++i) verdict.findings[i].profile = v.profile;
    }
  }
  return verdict;
}

}  // namespace konform
