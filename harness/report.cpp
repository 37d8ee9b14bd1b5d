#include "konform/report.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <stdexcept>

#include "konform/json_number.hpp"
#include "konform/version.hpp"

namespace konform {

using nlohmann::json;

namespace {

json number(double v) { return json_number(v); }

double read_number(const json& j) {
  if (const auto n = json_to_number(j)) return *n;
  throw std::runtime_error("expected a number, 'NaN', 'Infinity' or '-Infinity', found " + j.dump());
}

json finding_json(const Finding& f) {
  json j = {{"check", f.check}, {"message", f.message}, {"case", f.case_index}, {"case_label", f.case_label},
            {"reproduce", f.reproduce}};
  if (!f.output.empty()) j["output"] = f.output;
  if (!f.element.empty()) j["element"] = f.element;
  if (f.has_values) {
    j["expected"] = number(f.expected);
    j["got"] = number(f.got);
    j["error"] = number(f.error);
    j["limit"] = number(f.limit);
  }
  return j;
}

template <typename T>
T field(const json& j, const char* name) {
  if (!j.contains(name)) throw std::runtime_error(std::string("missing field '") + name + "'");
  try {
    return j.at(name).get<T>();
  } catch (const json::exception&) {
    throw std::runtime_error(std::string("field '") + name + "' has the wrong type: " + j.at(name).dump());
  }
}

Finding finding_from_json(const json& j) {
  Finding f;
  f.check = field<std::string>(j, "check");
  f.message = field<std::string>(j, "message");
  f.case_index = field<int64_t>(j, "case");
  f.case_label = field<std::string>(j, "case_label");
  f.reproduce = field<std::string>(j, "reproduce");
  if (j.contains("output")) f.output = field<std::string>(j, "output");
  if (j.contains("element")) f.element = field<std::string>(j, "element");
  if (j.contains("expected")) {
    f.has_values = true;
    f.expected = read_number(j.at("expected"));
    f.got = read_number(j.at("got"));
    f.error = read_number(j.at("error"));
    f.limit = read_number(j.at("limit"));
  }
  return f;
}

}  // namespace

json to_json(const OpResult& r) {
  json j = {{"op", r.op},           {"symbol", r.symbol}, {"dtype", r.dtype},     {"backend", r.backend},
            {"target", r.target},   {"verdict", r.verdict}, {"cases", r.cases}, {"seconds", r.seconds}};
  j["tolerance"] = {{"limit", number(r.limit)}, {"unit", "u = 2^-24 (f32) times the oracle's scale"}, {"why", r.limit_why}};
  j["metrics"] = {{"elements", r.metrics.elements}, {"max_r", number(r.metrics.max_r)},
                  {"max_abs", number(r.metrics.max_abs)}, {"max_rel", number(r.metrics.max_rel)},
                  {"max_ulp", number(r.metrics.max_ulp)}, {"nmse", number(r.metrics.nmse())},
                  {"sq_err", number(r.metrics.sq_err)}, {"sq_ref", number(r.metrics.sq_ref)}};
  j["worst"] = r.worst ? finding_json(*r.worst) : json(nullptr);
  j["findings"] = json::array();
  for (const auto& f : r.findings) j["findings"].push_back(finding_json(f));
  j["checks"] = json::array();
  for (const auto& c : r.checks) {
    const std::string verdict = c.runs == 0 ? "not_run" : (c.failures ? "fail" : "pass");
    j["checks"].push_back({{"name", c.name}, {"kind", c.kind}, {"runs", c.runs}, {"failures", c.failures},
                           {"verdict", verdict}});
  }
  return j;
}

OpResult op_result_from_json(const json& j) {
  OpResult r;
  r.op = field<std::string>(j, "op");
  r.symbol = field<std::string>(j, "symbol");
  r.dtype = field<std::string>(j, "dtype");
  r.backend = field<std::string>(j, "backend");
  r.target = field<std::string>(j, "target");
  r.verdict = field<std::string>(j, "verdict");
  r.cases = field<int64_t>(j, "cases");
  r.seconds = field<double>(j, "seconds");
  const json& tol = j.at("tolerance");
  r.limit = read_number(tol.at("limit"));
  r.limit_why = field<std::string>(tol, "why");
  const json& m = j.at("metrics");
  r.metrics.elements = field<int64_t>(m, "elements");
  r.metrics.max_r = read_number(m.at("max_r"));
  r.metrics.max_abs = read_number(m.at("max_abs"));
  r.metrics.max_rel = read_number(m.at("max_rel"));
  r.metrics.max_ulp = read_number(m.at("max_ulp"));
  r.metrics.sq_err = read_number(m.at("sq_err"));
  r.metrics.sq_ref = read_number(m.at("sq_ref"));
  if (!j.at("worst").is_null()) r.worst = finding_from_json(j.at("worst"));
  for (const auto& f : j.at("findings")) r.findings.push_back(finding_from_json(f));
  for (const auto& c : j.at("checks"))
    r.checks.push_back({field<std::string>(c, "name"), field<std::string>(c, "kind"), field<int64_t>(c, "runs"),
                        field<int64_t>(c, "failures")});
  return r;
}

json machine_info() {
  json m;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      m["cpu"] = line.substr(line.find(':') + 2);
      break;
    }
  if (!m.contains("cpu")) m["cpu"] = "unknown";
  m["cores"] = sysconf(_SC_NPROCESSORS_ONLN);
  struct utsname u;
  if (uname(&u) == 0) m["os"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  char host[256] = {0};
  m["hostname"] = gethostname(host, sizeof host - 1) == 0 ? host : "unknown";
  return m;
}

json build_info() {
  return {{"konform_version", kVersion}, {"git", kGitDescribe}, {"compiler", kCompiler},
          {"build_type", kBuildType}, {"flags", kCxxFlags}};
}

json make_report(const RunInfo& run, const std::vector<OpResult>& results) {
  json j;
  j["schema"] = "konform-report/1";
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  j["created"] = stamp;
  j["command"] = run.command;
  j["seed"] = run.seed;
  j["cases_per_op"] = run.cases;
  j["machine"] = machine_info();
  j["build"] = build_info();
  j["backends"] = run.backend_details;
  int64_t passed = 0, failed = 0, unsupported = 0;
  j["results"] = json::array();
  for (const auto& r : results) {
    j["results"].push_back(to_json(r));
    if (r.verdict == "pass") ++passed;
    else if (r.verdict == "unsupported") ++unsupported;
    else ++failed;
  }
  j["summary"] = {{"results", results.size()}, {"passed", passed}, {"failed", failed}, {"unsupported", unsupported},
                  {"verdict", failed ? "fail" : "pass"}};
  return j;
}

}  // namespace konform
