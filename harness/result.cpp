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
  for (const auto& existing : findings)
    if (existing.check == f.check) return;
  findings.push_back(f);
}

}  // namespace konform
