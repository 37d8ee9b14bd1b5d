#include "konform/op_state.hpp"

#include <exception>

#include <nlohmann/json.hpp>

#include "konform/judge.hpp"
#include "konform/report.hpp"

namespace konform {

std::string state_json(const OpState& s) {
  const nlohmann::json j = {{"next_case", s.next_case},
                            {"next_property", s.next_property},
                            {"judged_valid_cases", s.result.judged_valid_cases},
                            {"spread", spread_to_json(s.result.spread)},
                            {"result", to_json(s.result)}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<OpState> parse_state(const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  try {
    OpState s;
    s.next_case = j.at("next_case").get<int64_t>();
    s.next_property = j.at("next_property").get<size_t>();
    s.result = op_result_from_json(j.at("result"));
    s.result.judged_valid_cases = j.at("judged_valid_cases").get<int64_t>();
    s.result.spread = spread_from_json(j.at("spread"));
    return s;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void fail_earliest(OpResult& r, const Finding& f) {
  for (Finding& existing : r.findings)
    if (existing.check == f.check && existing.cause == f.cause && (f.cause.empty() || existing.output == f.output)) {
      const int64_t cases = existing.cases + f.cases, elements = existing.elements + f.elements;
      if (f.case_index >= 0 && (existing.case_index < 0 || f.case_index < existing.case_index)) existing = f;
      existing.cases = cases;
      existing.elements = elements;
      if (f.profile == "strict") r.strict_failed = true;
      else r.verdict = "fail";
      return;
    }
  r.fail(f);
}

void merge(OpResult& into, const OpResult& part) {
  into.cases += part.cases;
  into.unsupported_cases += part.unsupported_cases;
  into.judged_valid_cases += part.judged_valid_cases;
  for (const auto& [name, spread] : part.spread) into.spread[name].merge(spread);
  if (!part.unsupported_message.empty()) into.unsupported_message = part.unsupported_message;
  if (part.limit > 0 || !part.limit_why.empty()) {  // a table may hold a limit of 0
    into.limit = part.limit;
    into.limit_why = part.limit_why;
  }
  if (part.strict_limit > 0) into.strict_limit = part.strict_limit;
  into.strict_failed = into.strict_failed || part.strict_failed;
  into.metrics.merge(part.metrics);
  if (part.worst && worse_than(*part.worst, into.worst)) into.worst = part.worst;
  for (const CheckSummary& c : part.checks) {
    CheckSummary& mine = into.check(c.name, c.kind);
    mine.runs += c.runs;
    mine.failures += c.failures;
    if (!c.reason.empty()) mine.reason = c.reason;
    if (!c.profile.empty()) mine.profile = c.profile;
  }
  for (const Finding& f : part.findings) fail_earliest(into, f);
}

}  // namespace konform
