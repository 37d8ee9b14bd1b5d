// A report as SARIF 2.1.0, the format code-scanning UIs read: one result per
// finding, its rule the check that found it, its location the op (a logical
// location) in the backend's library (the artifact).
#include <map>
#include <set>

#include "konform/render.hpp"
#include "konform/report.hpp"

namespace konform {

namespace {

using nlohmann::json;

std::string message_of(const json& f) {
  std::string text = f.at("message").get<std::string>();
  if (f.at("case").get<int64_t>() >= 0)
    text += " (case " + f.at("case").dump() + ": " + f.at("case_label").get<std::string>() + ")";
  if (f.contains("expected"))
    text += "; " + f.value("output", std::string()) + f.value("element", std::string()) + ": expected " +
            f.at("expected").dump() + ", got " + f.at("got").dump() + ", error " + f.at("error").dump() + " u, limit " +
            f.at("limit").dump() + " u";
  const std::string replay = f.at("reproduce");
  if (!replay.empty()) text += ". Replay: " + replay;
  return text;
}

// The op (a logical location) in the backend's library (the artifact).
json location_of(const std::string& op, const std::string& backend, const std::map<std::string, std::string>& library) {
  json location = {{"logicalLocations",
                    json::array({{{"name", op}, {"fullyQualifiedName", backend + "::" + op}, {"kind", "function"}}})}};
  const auto lib = library.find(backend);
  if (lib != library.end() && !lib->second.empty())
    location["physicalLocation"] = {{"artifactLocation", {{"uri", lib->second}}}};
  return location;
}

}  // namespace

std::string render_sarif(const json& report) {
  validate_report(report);                     // the whole report, before any output
  std::map<std::string, std::string> library;  // backend name -> its library's path
  for (const auto& b : report.at("backends")) library[b.at("name")] = b.at("library");

  std::set<std::string> rule_ids;
  json results = json::array();
  for (const auto& r : report.at("results")) {
    const std::string op = r.at("op"), backend = r.at("backend");
    for (const auto& f : r.at("findings")) {
      const std::string check = f.at("check");
      rule_ids.insert(check);
      const json location = location_of(op, backend, library);
      json properties = {{"op", op},
                         {"backend", backend},
                         {"symbol", r.at("symbol")},
                         {"verdict", r.at("verdict")},
                         {"case", f.at("case")},
                         {"reproduce", f.at("reproduce")}};
      results.push_back({{"ruleId", check},
                         {"level", "error"},
                         {"message", {{"text", message_of(f)}}},
                         {"locations", json::array({location})},
                         {"partialFingerprints", {{"konform/v1", backend + "/" + op + "/" + check}}},
                         {"properties", properties}});
    }
  }
  // A mistrusted check: no finding, but no pass either; a warning under a
  // rule of its own, so that it is never mistaken for a kernel's defect.
  for (const auto& r : report.at("results")) {
    const std::string op = r.at("op"), backend = r.at("backend");
    for (const auto& c : r.at("checks")) {
      if (c.at("verdict") != "mistrusted") continue;
      const std::string check = c.at("name");
      rule_ids.insert("mistrusted");
      const json location = location_of(op, backend, library);
      results.push_back({{"ruleId", "mistrusted"},
                         {"level", "warning"},
                         {"message", {{"text", check + " is mistrusted: " + c.at("reason").get<std::string>()}}},
                         {"locations", json::array({location})},
                         {"partialFingerprints", {{"konform/v1", backend + "/" + op + "/" + check + "/mistrusted"}}},
                         {"properties",
                          {{"op", op},
                           {"backend", backend},
                           {"symbol", r.at("symbol")},
                           {"verdict", r.at("verdict")},
                           {"check", check}}}});
    }
  }
  json rules = json::array();
  for (const auto& id : rule_ids)
    rules.push_back({{"id", id},
                     {"shortDescription",
                      {{"text", id == "mistrusted" ? "konform: a check whose data could not have caught a wrong kernel"
                                                   : "konform check " + id}}}});
  const json& build = report.at("build");
  json run = {
      {"tool",
       {{"driver",
         {{"name", "konform"},
          {"semanticVersion", build.at("konform_version")},
          {"version", build.at("konform_version").get<std::string>() + " (" + build.at("git").get<std::string>() + ")"},
          {"rules", rules}}}}},
      {"invocations", json::array({{{"commandLine", report.at("command")},
                                    {"executionSuccessful", true},
                                    {"endTimeUtc", report.at("created")}}})},
      {"results", results}};
  const json sarif = {
      {"$schema", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", json::array({run})}};
  return sarif.dump(2) + "\n";
}

}  // namespace konform
