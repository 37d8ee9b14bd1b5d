#include "konform/result.hpp"

#include <cmath>
#include <cstdio>

namespace konform {

CheckSummary& OpResult::check(const std::string& name, const std::string& kind) {
  for (auto& c : checks)
    if (c.name == name) return c;
  checks.push_back({name, kind, 0, 0, "", "", ""});
  return checks.back();
}

void OpResult::fail(const Finding& f) {
  if (f.profile == "strict") strict_failed = true;
  else verdict = "fail";
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

static_assert(OutputSpread::kKept >= kMinDistinct);

namespace {

// Two expected values a kernel cannot tell apart by writing one of them:
// equal, or both NaN (+0 == -0 already).
bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

std::string plural(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string value_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

void OutputSpread::add(double expected) {
  ++elements;
  nonzero += expected != 0;  // NaN != 0
  if (distinct.size() >= kKept) return;
  for (double d : distinct)
    if (same_value(d, expected)) return;
  distinct.push_back(expected);
}

void OutputSpread::merge(const OutputSpread& other) {
  exact = exact || other.exact;
  cases += other.cases;
  elements += other.elements;
  nonzero += other.nonzero;
  for (double d : other.distinct) {
    if (distinct.size() >= kKept) break;
    bool known = false;
    for (double mine : distinct) known |= same_value(mine, d);
    if (!known) distinct.push_back(d);
  }
}

std::string undiscriminating(const OpResult& r) {
  const CheckSummary* oracle = nullptr;
  for (const CheckSummary& c : r.checks)
    if (c.name == "matches_oracle") oracle = &c;
  if (oracle == nullptr || oracle->runs == 0) return "";  // no sweep (--property alone), or every case unsupported
  if (r.judged_valid_cases == 0)
    return "every case judged against the oracle (" + plural(oracle->runs, "case", "cases") +
           ") was one the op must refuse: only the status was compared, never an output";
  if (r.spread.empty()) return "";  // outputs judged by the op's verify hook alone: nothing to read here
  int64_t elements = 0;
  for (const auto& [name, s] : r.spread) elements += s.elements;
  if (elements == 0)
    return "every output of the " + plural(r.judged_valid_cases, "judged case", "judged cases") +
           " was empty: no element was compared";
  // Every output together: could one constant written everywhere pass?
  OutputSpread all;
  for (const auto& [name, s] : r.spread) all.merge(s);
  const std::string over = " over " + plural(r.judged_valid_cases, "judged case", "judged cases") + " (" +
                           plural(all.elements, "element", "elements") + ")";
  if (all.nonzero == 0) return "every expected output value" + over + " is zero: a kernel writing zeros would pass";
  // One value in one or two elements is no pattern: a wrong kernel would
  // have to hit it by chance. Zero is the exception, being what a kernel that
  // computes nothing writes.
  if (all.distinct.size() == 1 && all.elements >= static_cast<int64_t>(kMinDistinct))
    return "every expected output value" + over + " is " + value_text(all.distinct[0]) +
           ": a kernel writing that constant would pass";
  // Each output judged against a tolerance: enough distinct values to tell
  // a wrong computation from a right one.
  std::string why;
  for (const auto& [name, s] : r.spread) {
    if (s.exact || s.elements < static_cast<int64_t>(kMinDistinct) || s.distinct.size() >= kMinDistinct) continue;
    std::string values;
    for (double d : s.distinct) values += (values.empty() ? "" : ", ") + value_text(d);
    why += std::string(why.empty() ? "" : "; ") + "the expected values of " + name + " over " +
           plural(s.cases, "case", "cases") + " (" + plural(s.elements, "element", "elements") + ") take only " +
           std::to_string(s.distinct.size()) + " distinct value" + (s.distinct.size() == 1 ? "" : "s") + " (" + values +
           "): too few to tell a wrong kernel from a right one";
  }
  return why;
}

void OpResult::settle_mistrusted() {
  if (verdict != "pass" && verdict != "fail") return;  // unsupported, crashed, timeout, not_run: said already
  CheckSummary* oracle = nullptr;
  for (CheckSummary& c : checks)
    if (c.name == "matches_oracle") oracle = &c;
  if (oracle == nullptr || oracle->failures > 0) return;  // a failure: the data discriminated
  const std::string why = undiscriminating(*this);
  if (why.empty()) return;
  oracle->mistrusted = why;
  if (verdict == "pass") {
    verdict = "mistrusted";
    reason = why;
  }
}

}  // namespace konform
