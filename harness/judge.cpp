#include "konform/judge.hpp"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>

#include "tinyllm/status.h"

namespace konform {

bool needs_tolerance(const Case& c) {
  for (const Arg& a : c.args)
    if (a.access != Access::in && a.match == Match::tolerance) return true;
  return false;
}

double case_limit(const OpSpec& op, const Case& c, const Tolerance* tol) {
  if (tol == nullptr) return 0.0;
  return tol->at(op.sum_length ? op.sum_length(c) : 0, unit_roundoff(op.dtype));
}

bool worse_than(const Finding& f, const std::optional<Finding>& current) {
  if (!current) return true;
  const bool f_fails = !(f.error <= f.limit), cur_fails = !(current->error <= current->limit);
  if (f_fails != cur_fails) return f_fails;
  return f.error > current->error;
}

namespace {

// A tl_status as its number and name (tinyllm/status.h).
std::string status_text(int32_t status) {
  const char* names[] = {"TL_OK", "TL_ERR_INVALID_ARGUMENT", "TL_ERR_SHAPE", "TL_ERR_CONTEXT_OVERFLOW",
                         "TL_ERR_UNSUPPORTED"};
  const std::string number = "status " + std::to_string(status);
  return status >= 0 && status <= TL_ERR_UNSUPPORTED ? number + " (" + names[status] + ")" : number;
}

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
// into the verdict: metrics, the worst element, and a finding per cause
// that failed, each with its own worst element and count.
void record(CaseVerdict& verdict, const std::string& check, const std::string& output,
            const std::vector<int64_t>& shape, const std::string& quantity, const Comparison& cmp, bool exact,
            const Case& c) {
  verdict.metrics.merge(cmp.metrics);
  if (cmp.worst.index < 0) return;
  const double ratio = exact                 ? cmp.worst.error
                       : cmp.worst.limit > 0 ? cmp.worst.error / cmp.worst.limit
                                             : (cmp.worst.error > 0 ? INFINITY : 0.0);
  if (std::isfinite(ratio)) verdict.worst_ratio = std::fmax(verdict.worst_ratio, ratio);
  const Finding f = element_finding(check, output, shape, cmp.worst, c);
  if (worse_than(f, verdict.worst)) verdict.worst = f;
  if (cmp.worst.ok) return;
  int64_t total = 1;
  for (int64_t e : shape) total *= e;
  std::map<Cause, CauseTally> causes = cmp.causes;
  if (causes.empty()) causes[cmp.worst.cause] = {cmp.mismatches, cmp.worst};  // a comparison built by hand
  for (const auto& [cause, tally] : causes) {
    Finding detailed = element_finding(check, output, shape, tally.worst, c);
    detailed.cause = cause_name(cause);
    detailed.elements = tally.mismatches;
    detailed.message = tally.worst.why + " (" + std::to_string(tally.mismatches) + " of " + std::to_string(total) +
                       " " + quantity + " out)";
    verdict.findings.push_back(detailed);
  }
}

// A subnormal float as a zero of its sign; anything else as it is.
template <typename T>
bool flush_value(T& v) {
  if (v == 0 || !(std::fabs(v) < FLT_MIN) || std::isnan(v)) return false;
  v = std::copysign(T(0), v);
  return true;
}

}  // namespace

CaseVerdict judge_case(const Backend& backend, const OpSpec& op, void* fn, const Case& c, const Tolerance* tol,
                       const CallOptions& options, const Oracle* precomputed, bool flush_subnormals) {
  if (needs_tolerance(c) && tol == nullptr)
    throw std::runtime_error("no tolerance for " + op.name + " " + std::string(dtype_name(op.dtype)));
  CaseVerdict verdict;
  const double limit = case_limit(op, c, tol);
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
  const int32_t status = op.status.empty() ? 0 : call.outputs.at(op.status).i32()[0];
  if (!op.status.empty() && !verdict.refused && status != TL_OK) {
    // A valid case refused: the library's status and words are the finding;
    // its outputs, left unwritten as a refusal must, say nothing more.
    verdict.message = backend.last_error().value_or("");
    if (status == TL_ERR_UNSUPPORTED) {
      verdict.unsupported = true;
      return verdict;
    }
    Finding f;
    f.check = "matches_oracle";
    f.case_label = c.label;
    f.output = op.status;
    f.message = "returned " + status_text(status) + " for a valid case" +
                (verdict.message.empty() ? " (tl_last_error is empty)" : ": \"" + verdict.message + "\"");
    verdict.findings.insert(verdict.findings.begin(), f);
    return verdict;
  }
  Oracle daz;  // the oracle of c's inputs read as DAZ, made the first time an output fails
  bool daz_done = false;
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
    if (a.name != op.status) {
      OutputSpread& spread = verdict.spread[a.name];
      spread.exact = exact;
      spread.cases = 1;
      for (double x : e.value) spread.add(x);
    }
    auto compare = [&](const Subnormals& sub) {
      return exact ? compare_exact(got, e, sub) : compare_tolerance(got, e, limit, sub);
    };
    Comparison cmp = compare({});
    if (cmp.mismatches > 0) {  // a second look: would the failing elements pass with subnormals flushed?
      if (!daz_done) {
        daz_done = true;
        if (const auto flushed = inputs_flushed(c)) daz = op.oracle(*flushed);
      }
      const auto twin = daz.find(a.name);
      cmp = compare({flush_subnormals, true, twin == daz.end() ? nullptr : &twin->second});
    }
    record(verdict, "matches_oracle", a.name, a.value.shape, "elements of " + a.name, cmp, exact, c);
  }
  if (op.verify && !verdict.refused) {
    for (const Verification& v : op.verify(c, call.outputs, limit)) {
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

std::optional<Case> inputs_flushed(const Case& c) {
  Case flushed = c;
  bool any = false;
  for (Arg& a : flushed.args) {
    if (a.access == Access::out) continue;
    if (a.value.dtype == DType::f32) {
      float* v = a.value.f32();
      for (int64_t k = 0; k < a.value.elements(); ++k) any |= flush_value(v[k]);
    } else if (a.value.dtype == DType::f16 || a.value.dtype == DType::bf16) {  // a subnormal's bits: its sign alone
      for (int64_t k = 0; k < a.value.elements(); ++k) {
        const double v = a.value.at(k);
        if (v == 0 || std::fabs(v) >= smallest_normal(a.value.dtype)) continue;
        const auto zero = static_cast<uint16_t>(a.value.bits(k) & 0x8000u);
        std::memcpy(a.value.bytes.data() + 2 * k, &zero, 2);
        any = true;
      }
    }
  }
  for (auto& [name, v] : flushed.params) any |= flush_value(v);
  if (!any) return std::nullopt;
  return flushed;
}

}  // namespace konform
