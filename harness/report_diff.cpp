#include "konform/report_diff.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "konform/op.hpp"

namespace konform {

namespace {

using nlohmann::json;
using Key = std::pair<std::string, std::string>;  // (backend, op)

const json& results_of(const json& report, const std::string& name) {
  if (!report.is_object()) throw DiffError("'" + name + "' is not a konform report (not a JSON object)");
  const auto schema = report.find("schema");
  if (schema == report.end() || *schema != "konform-report/1")
    throw DiffError("'" + name + "' is not a konform report (no \"schema\": \"konform-report/1\")");
  const auto results = report.find("results");
  if (results == report.end() || !results->is_array())
    throw DiffError("'" + name + "' does not follow the report schema: no \"results\" array");
  return *results;
}

std::string text_field(const json& o, const char* field, const std::string& name, size_t index) {
  const auto it = o.find(field);
  if (it == o.end() || !it->is_string())
    throw DiffError("'" + name + "' does not follow the report schema: results[" + std::to_string(index) +
                    "] has no string \"" + field + "\"");
  return it->get<std::string>();
}

std::map<Key, const json*> index_results(const json& report, const std::string& name) {
  std::map<Key, const json*> out;
  const json& results = results_of(report, name);
  for (size_t i = 0; i < results.size(); ++i) {
    const json& r = results[i];
    if (!r.is_object()) throw DiffError("'" + name + "': results[" + std::to_string(i) + "] is not an object");
    // A report written before an op's rename names it by its former name.
    const std::string op = text_field(r, "op", name, i);
    const OpSpec* spec = find_op(op);
    const Key key{text_field(r, "backend", name, i), spec != nullptr ? spec->name : op};
    text_field(r, "verdict", name, i);
    if (!out.emplace(key, &r).second)
      throw DiffError("'" + name + "' holds " + key.second + " on " + key.first + " twice (results[" +
                      std::to_string(i) + "])");
  }
  return out;
}

// A report's numbers: a JSON number, or "Infinity"/"-Infinity"/"NaN".
double number(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (v == "Infinity") return INFINITY;
  if (v == "-Infinity") return -INFINITY;
  return NAN;
}

bool failing(const std::string& verdict) {
  return verdict == "fail" || verdict == "crashed" || verdict == "timeout" || verdict == "mistrusted";
}

// The names of the checks of r that failed.
std::set<std::string> failed_checks(const json& r) {
  std::set<std::string> out;
  const auto checks = r.find("checks");
  if (checks == r.end() || !checks->is_array()) return out;
  for (const json& c : *checks)
    if (c.is_object() && c.value("failures", 0) > 0) out.insert(c.value("name", std::string("?")));
  return out;
}

// The checks of r that are mistrusted, with why.
std::map<std::string, std::string> mistrusted_checks(const json& r) {
  std::map<std::string, std::string> out;
  const auto checks = r.find("checks");
  if (checks == r.end() || !checks->is_array()) return out;
  for (const json& c : *checks)
    if (c.is_object() && c.value("verdict", std::string()) == "mistrusted")
      out[c.value("name", std::string("?"))] = c.value("reason", std::string());
  return out;
}

// The worst error as a share of the limit; NaN when the op has no limit
// (exact ops) or nothing was compared.
double share_of_limit(const json& r) {
  const auto tol = r.find("tolerance");
  const auto metrics = r.find("metrics");
  if (tol == r.end() || metrics == r.end() || !tol->is_object() || !metrics->is_object()) return NAN;
  const double limit = number(tol->value("limit", json(0)));
  const double worst = number(metrics->value("max_r", json("NaN")));
  if (!(limit > 0) || std::isnan(worst)) return NAN;
  return worst / limit;
}

std::string share_text(double share, const json& r) {
  char buf[96];
  const double limit = number(r["tolerance"]["limit"]);
  std::snprintf(buf, sizeof buf, "%.3g u of %.3g (%.0f%%)", share * limit, limit, 100 * share);
  return buf;
}

DiffEntry entry(std::string kind, const Key& key, std::string check, std::string old_state, std::string new_state,
                std::string detail, bool regression) {
  return {std::move(kind),      key.second,           key.first,         std::move(check),
          std::move(old_state), std::move(new_state), std::move(detail), regression};
}

void compare_one(const Key& key, const json& o, const json& n, const DiffOptions& opt, ReportDiff& d) {
  const std::string ov = o["verdict"], nv = n["verdict"];
  if (nv == "unsupported" && ov != "unsupported") {
    d.entries.push_back(entry("newly_unsupported", key, "", ov, nv, "the backend no longer runs this op", true));
    return;
  }
  if (nv == "not_run" && ov != "not_run") {
    d.entries.push_back(entry("newly_not_run", key, "", ov, nv, n.value("reason", std::string("")), false));
    return;
  }
  // A check whose data can no longer catch a wrong kernel: a regression,
  // whatever the op's verdict (a check that failed before included).
  const auto mistrusted_before = mistrusted_checks(o);
  bool newly_mistrusted = false;
  for (const auto& [c, why] : mistrusted_checks(n))
    if (!mistrusted_before.count(c)) {
      d.entries.push_back(entry("newly_mistrusted", key, c, ov, nv, "check " + c + " is mistrusted: " + why, true));
      newly_mistrusted = true;
    }
  const bool became_mistrusted = nv == "mistrusted" && ov != "mistrusted";
  if (became_mistrusted && !newly_mistrusted) {
    if (mistrusted_before.empty())  // checks without the verdict (a report older than it)
      d.entries.push_back(entry("newly_mistrusted", key, "", ov, nv, n.value("reason", std::string("")), true));
    else if (failing(ov))  // its check was mistrusted already, beside a failure that is gone
      d.entries.push_back(entry("fixed", key, "", ov, nv, "no longer fails (still mistrusted)", false));
  }
  if (became_mistrusted) {
    // said above: no check fails in a mistrusted op
  } else if (failing(nv)) {
    const std::set<std::string> before = failing(ov) ? failed_checks(o) : std::set<std::string>{};
    bool any = false;
    for (const std::string& c : failed_checks(n))
      if (!before.count(c)) {
        d.entries.push_back(
            entry(failing(ov) ? "failing_check" : "new_failure", key, c, ov, nv, "check " + c + " fails", true));
        any = true;
      }
    if (!any && !failing(ov))  // a verdict without a failing check (a crash before any check counted)
      d.entries.push_back(entry("new_failure", key, "", ov, nv, "the op now " + nv, true));
  } else if (failing(ov)) {
    d.entries.push_back(
        entry("fixed", key, "", ov, nv, ov == "mistrusted" ? "no longer mistrusted" : "no longer fails", false));
  }
  const double before = share_of_limit(o), after = share_of_limit(n);
  if (std::isnan(after)) return;
  const double base = std::isnan(before) ? 0 : before;
  if (after > opt.share && after > opt.growth * base) {
    char detail[160];
    if (base > 0)
      std::snprintf(detail, sizeof detail, "worst error grew %.3gx, to %.0f%% of the limit", after / base, 100 * after);
    else std::snprintf(detail, sizeof detail, "worst error grew from 0 to %.0f%% of the limit", 100 * after);
    d.entries.push_back(entry("error_growth", key, "", std::isnan(before) ? "-" : share_text(before, o),
                              share_text(after, n), detail, true));
  }
}

}  // namespace

ReportDiff diff_reports(const json& old_report, const json& new_report, const DiffOptions& opt,
                        const std::string& old_name, const std::string& new_name) {
  const auto old_results = index_results(old_report, old_name);
  const auto new_results = index_results(new_report, new_name);
  ReportDiff d;
  for (const auto& [key, o] : old_results) {
    const auto it = new_results.find(key);
    if (it == new_results.end()) {
      d.entries.push_back(entry("only_in_old", key, "", (*o)["verdict"], "-", "not in the new report", false));
      continue;
    }
    ++d.compared;
    compare_one(key, *o, *it->second, opt, d);
  }
  for (const auto& [key, n] : new_results)
    if (!old_results.count(key))
      d.entries.push_back(entry("only_in_new", key, "", "-", (*n)["verdict"], "not in the old report",
                                failing((*n)["verdict"].get<std::string>())));
  for (const DiffEntry& e : d.entries) d.regressions += e.regression;
  return d;
}

json diff_to_json(const ReportDiff& d, const DiffOptions& opt, const std::string& old_name,
                  const std::string& new_name) {
  json entries = json::array();
  for (const DiffEntry& e : d.entries)
    entries.push_back({{"kind", e.kind},
                       {"op", e.op},
                       {"backend", e.backend},
                       {"check", e.check},
                       {"old", e.old_state},
                       {"new", e.new_state},
                       {"detail", e.detail},
                       {"regression", e.regression}});
  return {{"schema", "konform-diff/1"},
          {"old", old_name},
          {"new", new_name},
          {"thresholds", {{"growth", opt.growth}, {"share", opt.share}}},
          {"compared", d.compared},
          {"regressions", d.regressions},
          {"verdict", d.regressions > 0 ? "regression" : "ok"},
          {"entries", entries}};
}

std::string diff_to_text(const ReportDiff& d) {
  std::string out;
  char line[512];
  for (const DiffEntry& e : d.entries) {
    std::snprintf(line, sizeof line, "%-10s %-18s %-20s %-16s %s%s%s  (%s -> %s)\n",
                  e.regression ? "REGRESSED" : "changed", e.kind.c_str(), e.op.c_str(), e.backend.c_str(),
                  e.check.c_str(), e.check.empty() ? "" : ": ", e.detail.c_str(), e.old_state.c_str(),
                  e.new_state.c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, "%d op-backend pairs compared, %d regression(s), %zu change(s) in all\n", d.compared,
                d.regressions, d.entries.size());
  return out + line;
}

std::string diff_to_markdown(const ReportDiff& d, const std::string& old_name, const std::string& new_name) {
  std::string out = "### konform: " + std::string(d.regressions > 0 ? "regressions" : "no regression") + "\n\n`" +
                    old_name + "` → `" + new_name + "`: " + std::to_string(d.compared) +
                    " op-backend pairs compared, " + std::to_string(d.regressions) + " regression(s).\n";
  if (d.regressions > 0) {
    out += "\n| op | backend | what | before | after |\n|---|---|---|---|---|\n";
    for (const DiffEntry& e : d.entries)
      if (e.regression)
        out += "| " + e.op + " | " + e.backend + " | " + e.detail + " | " + e.old_state + " | " + e.new_state + " |\n";
  }
  std::map<std::string, int> others;
  for (const DiffEntry& e : d.entries)
    if (!e.regression) ++others[e.kind];
  if (!others.empty()) {
    out += "\nOther changes:";
    for (const auto& [kind, n] : others) out += " " + kind + " " + std::to_string(n) + ";";
    out.back() = '\n';
  }
  return out;
}

}  // namespace konform
