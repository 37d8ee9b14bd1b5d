#include "konform/result.hpp"

namespace konform {

CheckSummary& OpResult::check(const std::string& name, const std::string& kind) {
  for (auto& c : checks)
    if (c.name == name) return c;
  checks.push_back({name, kind, 0, 0, ""});
  return checks.back();
}

void OpResult::fail(const Finding& f) {
  if (f.profile == "strict")
    strict_failed = true;
  else
    verdict = "fail";
  for (auto& existing : findings)
    if (existing.check == f.check && existing.cause == f.cause && (f.cause.empty() || existing.output == f.output)) {
      existing.cases += f.cases;
      existing.elements += f.elements;
      return;
    }
  findings.push_back(f);
}

void OpResult::settle_unsupported() {
  if (verdict == "pass" && unsupported_cases > 0 && judged_valid_cases == 0) verdict = "unsupported";
}

}  // namespace konform
