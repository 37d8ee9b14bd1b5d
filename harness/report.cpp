#include "konform/report.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <initializer_list>
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
  json j = {{"check", f.check},
            {"message", f.message},
            {"case", f.case_index},
            {"case_label", f.case_label},
            {"reproduce", f.reproduce}};
  if (!f.output.empty()) j["output"] = f.output;
  if (!f.element.empty()) j["element"] = f.element;
  if (f.has_values) {
    j["expected"] = number(f.expected);
    j["got"] = number(f.got);
    j["error"] = number(f.error);
    j["limit"] = number(f.limit);
  }
  if (!f.cause.empty()) j["cause"] = f.cause, j["elements"] = f.elements;
  if (!f.cause.empty() || f.cases != 1) j["cases"] = f.cases;
  if (!f.profile.empty()) j["profile"] = f.profile;
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
  if (j.contains("cause")) f.cause = field<std::string>(j, "cause");
  if (j.contains("cases")) f.cases = field<int64_t>(j, "cases");
  if (j.contains("elements")) f.elements = field<int64_t>(j, "elements");
  if (j.contains("profile")) f.profile = field<std::string>(j, "profile");
  return f;
}

// Checks a report's JSON against reports/report.schema.json, naming the
// place of each complaint ("results[3].findings[0]: missing 'got'"), so that
// nothing downstream reads an absent key or a value of the wrong type.
class Validator {
 public:
  [[noreturn]] static void fail(const std::string& where, const std::string& what) {
    throw ReportError(where + ": " + what);
  }
  static std::string at(const std::string& where, const char* key) { return where.empty() ? key : where + "." + key; }
  static std::string at(const std::string& where, size_t i) { return where + "[" + std::to_string(i) + "]"; }

  // An object with these keys (required ones first) and no others.
  static void object(const json& j, const std::string& where, std::initializer_list<const char*> required,
                     std::initializer_list<const char*> optional = {}) {
    if (!j.is_object()) fail(where.empty() ? "the report" : where, "expected an object, found " + type_of(j));
    for (const char* k : required)
      if (!j.contains(k)) fail(where.empty() ? "the report" : where, std::string("missing '") + k + "'");
    for (const auto& [key, v] : j.items()) {
      bool known = false;
      for (const char* k : required) known |= key == k;
      for (const char* k : optional) known |= key == k;
      if (!known) fail(where.empty() ? "the report" : where, "unknown field '" + key + "'");
    }
  }
  static const std::string& string(const json& j, const std::string& where, bool nonempty = false) {
    if (!j.is_string()) fail(where, "expected a string, found " + type_of(j));
    const auto& s = j.get_ref<const std::string&>();
    if (nonempty && s.empty()) fail(where, "empty");
    return s;
  }
  static int64_t integer(const json& j, const std::string& where, int64_t min) {
    if (!j.is_number_integer()) fail(where, "expected an integer, found " + type_of(j));
    if (j.is_number_unsigned() ? j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX) : false) return INT64_MAX;
    const int64_t v = j.get<int64_t>();
    if (v < min) fail(where, std::to_string(v) + " is below " + std::to_string(min));
    return v;
  }
  static void one_of(const json& j, const std::string& where, std::initializer_list<const char*> values) {
    const std::string& s = string(j, where);
    std::string list;
    for (const char* v : values) {
      if (s == v) return;
      list += (list.empty() ? "" : ", ") + std::string(v);
    }
    fail(where, "'" + s + "' is not one of " + list);
  }
  // A number, or "NaN", "Infinity", "-Infinity"; with nonnegative, >= 0 and not "-Infinity".
  static void number(const json& j, const std::string& where, bool nonnegative) {
    const auto v = json_to_number(j);
    if (!v) fail(where, "expected a number (or \"NaN\", \"Infinity\", \"-Infinity\"), found " + j.dump());
    if (nonnegative && *v < 0) fail(where, "expected a magnitude >= 0, found " + j.dump());
  }

  static void finding(const json& f, const std::string& where) {
    object(f, where, {"check", "message", "case", "case_label", "reproduce"},
           {"output", "element", "expected", "got", "error", "limit", "cause", "cases", "elements", "profile"});
    if (f.contains("profile")) one_of(f.at("profile"), at(where, "profile"), {"strict"});
    string(f.at("check"), at(where, "check"), true);
    string(f.at("message"), at(where, "message"));
    integer(f.at("case"), at(where, "case"), -1);
    string(f.at("case_label"), at(where, "case_label"));
    string(f.at("reproduce"), at(where, "reproduce"));
    if (f.contains("output")) string(f.at("output"), at(where, "output"), true);
    if (f.contains("element")) {
      string(f.at("element"), at(where, "element"));
      if (!f.contains("output")) fail(where, "missing 'output' (an element belongs to an output)");
    }
    if (f.contains("cause"))
      one_of(f.at("cause"), at(where, "cause"), {"nan", "inf", "flushed", "subnormal", "tail", "magnitude"});
    if (f.contains("cases")) integer(f.at("cases"), at(where, "cases"), 1);
    if (f.contains("elements")) integer(f.at("elements"), at(where, "elements"), 0);
    const char* values[] = {"expected", "got", "error", "limit"};
    bool any = false;
    for (const char* k : values) any |= f.contains(k);
    if (any)
      for (const char* k : values) {
        if (!f.contains(k))
          fail(where, std::string("missing '") + k + "' (expected, got, error and limit go together)");
        number(f.at(k), at(where, k), std::string(k) == "error" || std::string(k) == "limit");
      }
  }

  static void result(const json& r, const std::string& where) {
    object(r, where,
           {"op", "symbol", "dtype", "backend", "target", "verdict", "cases", "seconds", "tolerance", "metrics",
            "worst", "findings", "checks"},
           {"reason", "unsupported", "strict_verdict"});
    if (r.contains("strict_verdict"))
      one_of(r.at("strict_verdict"), at(where, "strict_verdict"), {"pass", "fail", "mistrusted"});
    string(r.at("op"), at(where, "op"), true);
    string(r.at("symbol"), at(where, "symbol"), true);
    one_of(r.at("dtype"), at(where, "dtype"), {"f32", "f16", "bf16", "i32"});
    string(r.at("backend"), at(where, "backend"), true);
    string(r.at("target"), at(where, "target"));
    one_of(r.at("verdict"), at(where, "verdict"),
           {"pass", "fail", "unsupported", "crashed", "timeout", "not_run", "mistrusted"});
    // not_run and mistrusted carry why, and only they do.
    const bool says_why = r.at("verdict") == "not_run" || r.at("verdict") == "mistrusted";
    if (says_why && !r.contains("reason"))
      fail(where, "missing 'reason' (a " + r.at("verdict").get<std::string>() + " result says why)");
    if (r.contains("reason")) {
      if (!says_why) fail(at(where, "reason"), "only a not_run or mistrusted result has a reason");
      string(r.at("reason"), at(where, "reason"), true);
    }
    integer(r.at("cases"), at(where, "cases"), 0);
    if (r.contains("unsupported")) {
      const std::string uw = at(where, "unsupported");
      object(r.at("unsupported"), uw, {"cases", "message"});
      integer(r.at("unsupported").at("cases"), at(uw, "cases"), 1);
      string(r.at("unsupported").at("message"), at(uw, "message"));
    }
    if (!r.at("seconds").is_number() || r.at("seconds").get<double>() < 0)
      fail(at(where, "seconds"), "expected a number >= 0, found " + r.at("seconds").dump());
    const json& tol = r.at("tolerance");
    const std::string tw = at(where, "tolerance");
    object(tol, tw, {"limit", "unit", "why"}, {"strict_limit"});
    if (tol.contains("strict_limit")) number(tol.at("strict_limit"), at(tw, "strict_limit"), true);
    number(tol.at("limit"), at(tw, "limit"), true);
    string(tol.at("unit"), at(tw, "unit"), true);
    string(tol.at("why"), at(tw, "why"));
    const json& m = r.at("metrics");
    const std::string mw = at(where, "metrics");
    // The mismatch counts: absent in reports written before they existed (read as 0).
    object(m, mw, {"elements", "max_r", "max_abs", "max_rel", "max_ulp", "nmse", "sq_err", "sq_ref"},
           {"nan_mismatches", "inf_mismatches", "flushed"});
    integer(m.at("elements"), at(mw, "elements"), 0);
    for (const char* k : {"nan_mismatches", "inf_mismatches", "flushed"})
      if (m.contains(k)) integer(m.at(k), at(mw, k), 0);
    for (const char* k : {"max_r", "max_abs", "max_rel", "max_ulp", "nmse", "sq_err", "sq_ref"})
      number(m.at(k), at(mw, k), true);
    if (!r.at("worst").is_null()) finding(r.at("worst"), at(where, "worst"));
    const json& findings = r.at("findings");
    if (!findings.is_array()) fail(at(where, "findings"), "expected an array, found " + type_of(findings));
    for (size_t i = 0; i < findings.size(); ++i) finding(findings[i], at(at(where, "findings"), i));
    const json& checks = r.at("checks");
    if (!checks.is_array()) fail(at(where, "checks"), "expected an array, found " + type_of(checks));
    for (size_t i = 0; i < checks.size(); ++i) {
      const std::string cw = at(at(where, "checks"), i);
      const json& c = checks[i];
      object(c, cw, {"name", "kind", "runs", "failures", "verdict"}, {"reason", "profile"});
      if (c.contains("profile")) one_of(c.at("profile"), at(cw, "profile"), {"strict"});
      string(c.at("name"), at(cw, "name"), true);
      one_of(c.at("kind"), at(cw, "kind"), {"sweep", "property"});
      integer(c.at("runs"), at(cw, "runs"), 0);
      integer(c.at("failures"), at(cw, "failures"), 0);
      one_of(c.at("verdict"), at(cw, "verdict"), {"pass", "fail", "not_run", "mistrusted"});
      if (c.at("verdict") == "mistrusted" && !c.contains("reason"))
        fail(cw, "missing 'reason' (a mistrusted check says why)");
      if (c.contains("reason")) {
        if (c.at("verdict") != "not_run" && c.at("verdict") != "mistrusted")
          fail(at(cw, "reason"), "only a not_run or mistrusted check has a reason");
        string(c.at("reason"), at(cw, "reason"), true);
      }
    }
  }

  static void report(const json& j) {
    object(
        j, "",
        {"schema", "created", "command", "seed", "cases_per_op", "machine", "build", "backends", "results", "summary"},
        {"subnormals", "profile", "exhaustive", "fail_fast"});
    if (j.contains("subnormals")) one_of(j.at("subnormals"), "subnormals", {"strict", "flush"});
    if (j.contains("exhaustive") && j.at("exhaustive") != true) fail("exhaustive", "expected true when present");
    if (j.contains("fail_fast") && j.at("fail_fast") != true) fail("fail_fast", "expected true when present");
    if (j.contains("profile")) one_of(j.at("profile"), "profile", {"default", "strict"});
    if (string(j.at("schema"), "schema") != "konform-report/1")
      fail("schema", "'" + j.at("schema").get<std::string>() + "' is not konform-report/1");
    string(j.at("created"), "created", true);
    string(j.at("command"), "command", true);
    if (!j.at("seed").is_number_unsigned() && !(j.at("seed").is_number_integer() && j.at("seed").get<int64_t>() >= 0))
      fail("seed", "expected an integer >= 0, found " + j.at("seed").dump());
    integer(j.at("cases_per_op"), "cases_per_op", 0);
    const json& m = j.at("machine");
    object(m, "machine", {"cpu", "cores", "hostname"}, {"os"});
    string(m.at("cpu"), "machine.cpu", true);
    integer(m.at("cores"), "machine.cores", 1);
    string(m.at("hostname"), "machine.hostname", true);
    if (m.contains("os")) string(m.at("os"), "machine.os");
    const json& b = j.at("build");
    object(b, "build", {"konform_version", "git", "compiler", "build_type", "flags"});
    for (const char* k : {"konform_version", "git", "compiler"}) string(b.at(k), at("build", k), true);
    for (const char* k : {"build_type", "flags"}) string(b.at(k), at("build", k));
    const json& backends = j.at("backends");
    if (!backends.is_array()) fail("backends", "expected an array, found " + type_of(backends));
    for (size_t i = 0; i < backends.size(); ++i) {
      const std::string bw = at(std::string("backends"), i);
      object(backends[i], bw, {"name", "kind", "library", "target"});
      string(backends[i].at("name"), at(bw, "name"), true);
      one_of(backends[i].at("kind"), at(bw, "kind"), {"builtin", "plugin"});
      string(backends[i].at("library"), at(bw, "library"), backends[i].at("kind") == "plugin");
      string(backends[i].at("target"), at(bw, "target"));
    }
    const json& results = j.at("results");
    if (!results.is_array()) fail("results", "expected an array, found " + type_of(results));
    for (size_t i = 0; i < results.size(); ++i) result(results[i], at(std::string("results"), i));
    const json& s = j.at("summary");
    // not_run, mistrusted: absent in reports written before the verdict existed (read as 0).
    object(s, "summary", {"results", "passed", "failed", "unsupported", "verdict"},
           {"not_run", "mistrusted", "strict_failed"});
    if (s.contains("strict_failed")) integer(s.at("strict_failed"), "summary.strict_failed", 0);
    for (const char* k : {"results", "passed", "failed", "unsupported"}) integer(s.at(k), at("summary", k), 0);
    for (const char* k : {"not_run", "mistrusted"})
      if (s.contains(k)) integer(s.at(k), at("summary", k), 0);
    one_of(s.at("verdict"), "summary.verdict", {"pass", "fail", "mistrusted", "not_run"});
  }

 private:
  static std::string type_of(const json& j) {
    return j.is_null() ? "null" : std::string(j.type_name()) + " " + j.dump();
  }
};

}  // namespace

void validate_report(const json& report) { Validator::report(report); }

json to_json(const OpResult& r) {
  json j = {{"op", r.op},         {"symbol", r.symbol},   {"dtype", r.dtype}, {"backend", r.backend},
            {"target", r.target}, {"verdict", r.verdict}, {"cases", r.cases}, {"seconds", r.seconds}};
  if (r.verdict == "not_run" || r.verdict == "mistrusted") j["reason"] = r.reason;
  if (r.unsupported_cases > 0) j["unsupported"] = {{"cases", r.unsupported_cases}, {"message", r.unsupported_message}};
  j["tolerance"] = {
      {"limit", number(r.limit)}, {"unit", "u = 2^-24 (f32) times the oracle's scale"}, {"why", r.limit_why}};
  if (r.strict_limit > 0) j["tolerance"]["strict_limit"] = number(r.strict_limit);
  // The verdict under --profile strict, measured on every run.
  if (r.verdict == "pass" || r.verdict == "fail" || r.verdict == "mistrusted")
    j["strict_verdict"] = r.verdict == "fail" || r.strict_failed ? "fail" : r.verdict;
  j["metrics"] = {{"elements", r.metrics.elements},
                  {"max_r", number(r.metrics.max_r)},
                  {"max_abs", number(r.metrics.max_abs)},
                  {"max_rel", number(r.metrics.max_rel)},
                  {"max_ulp", number(r.metrics.max_ulp)},
                  {"nmse", number(r.metrics.nmse())},
                  {"sq_err", number(r.metrics.sq_err)},
                  {"sq_ref", number(r.metrics.sq_ref)},
                  {"nan_mismatches", r.metrics.nan_mismatches},
                  {"inf_mismatches", r.metrics.inf_mismatches},
                  {"flushed", r.metrics.flushed}};
  j["worst"] = r.worst ? finding_json(*r.worst) : json(nullptr);
  j["findings"] = json::array();
  for (const auto& f : r.findings) j["findings"].push_back(finding_json(f));
  j["checks"] = json::array();
  for (const auto& c : r.checks) {
    const std::string verdict = c.runs == 0             ? "not_run"
                                : c.failures > 0        ? "fail"
                                : !c.mistrusted.empty() ? "mistrusted"
                                                        : "pass";
    j["checks"].push_back(
        {{"name", c.name}, {"kind", c.kind}, {"runs", c.runs}, {"failures", c.failures}, {"verdict", verdict}});
    if (verdict == "mistrusted") j["checks"].back()["reason"] = c.mistrusted;
    else if (!c.reason.empty()) j["checks"].back()["reason"] = c.reason;
    if (!c.profile.empty()) j["checks"].back()["profile"] = c.profile;
  }
  return j;
}

OpResult op_result_from_json(const json& j) {
  Validator::result(j, "result");
  OpResult r;
  r.op = field<std::string>(j, "op");
  r.symbol = field<std::string>(j, "symbol");
  r.dtype = field<std::string>(j, "dtype");
  r.backend = field<std::string>(j, "backend");
  r.target = field<std::string>(j, "target");
  r.verdict = field<std::string>(j, "verdict");
  if (j.contains("reason")) r.reason = field<std::string>(j, "reason");
  r.cases = field<int64_t>(j, "cases");
  if (j.contains("unsupported")) {
    r.unsupported_cases = field<int64_t>(j.at("unsupported"), "cases");
    r.unsupported_message = field<std::string>(j.at("unsupported"), "message");
  }
  r.seconds = field<double>(j, "seconds");
  const json& tol = j.at("tolerance");
  r.limit = read_number(tol.at("limit"));
  r.limit_why = field<std::string>(tol, "why");
  if (tol.contains("strict_limit")) r.strict_limit = read_number(tol.at("strict_limit"));
  r.strict_failed = j.contains("strict_verdict") && j.at("strict_verdict") == "fail" && r.verdict != "fail";
  const json& m = j.at("metrics");
  r.metrics.elements = field<int64_t>(m, "elements");
  r.metrics.max_r = read_number(m.at("max_r"));
  r.metrics.max_abs = read_number(m.at("max_abs"));
  r.metrics.max_rel = read_number(m.at("max_rel"));
  r.metrics.max_ulp = read_number(m.at("max_ulp"));
  r.metrics.sq_err = read_number(m.at("sq_err"));
  r.metrics.sq_ref = read_number(m.at("sq_ref"));
  if (m.contains("nan_mismatches")) r.metrics.nan_mismatches = field<int64_t>(m, "nan_mismatches");
  if (m.contains("inf_mismatches")) r.metrics.inf_mismatches = field<int64_t>(m, "inf_mismatches");
  if (m.contains("flushed")) r.metrics.flushed = field<int64_t>(m, "flushed");
  if (!j.at("worst").is_null()) r.worst = finding_from_json(j.at("worst"));
  for (const auto& f : j.at("findings")) r.findings.push_back(finding_from_json(f));
  for (const auto& c : j.at("checks")) {
    const std::string why = c.contains("reason") ? field<std::string>(c, "reason") : "";
    const bool mistrusted = c.at("verdict") == "mistrusted";
    r.checks.push_back({field<std::string>(c, "name"), field<std::string>(c, "kind"), field<int64_t>(c, "runs"),
                        field<int64_t>(c, "failures"), mistrusted ? "" : why,
                        c.contains("profile") ? field<std::string>(c, "profile") : "", mistrusted ? why : ""});
  }
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
  return {{"konform_version", kVersion},
          {"git", kGitDescribe},
          {"compiler", kCompiler},
          {"build_type", kBuildType},
          {"flags", kCxxFlags}};
}

const char* summary_verdict(int64_t failed, int64_t mistrusted, int64_t not_run) {
  return failed > 0 ? "fail" : mistrusted > 0 ? "mistrusted" : not_run > 0 ? "not_run" : "pass";
}

json spread_to_json(const std::map<std::string, OutputSpread>& spread) {
  json j = json::object();
  for (const auto& [name, s] : spread) {
    json distinct = json::array();
    for (double d : s.distinct) distinct.push_back(number(d));
    j[name] = {{"exact", s.exact},
               {"cases", s.cases},
               {"elements", s.elements},
               {"nonzero", s.nonzero},
               {"distinct", distinct}};
  }
  return j;
}

std::map<std::string, OutputSpread> spread_from_json(const json& j) {
  std::map<std::string, OutputSpread> out;
  for (const auto& [name, v] : j.items()) {
    OutputSpread& s = out[name];
    s.exact = field<bool>(v, "exact");
    s.cases = field<int64_t>(v, "cases");
    s.elements = field<int64_t>(v, "elements");
    s.nonzero = field<int64_t>(v, "nonzero");
    for (const auto& d : v.at("distinct")) s.distinct.push_back(read_number(d));
  }
  return out;
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
  j["subnormals"] = run.flush_subnormals ? "flush" : "strict";
  if (run.exhaustive) j["exhaustive"] = true;
  if (run.fail_fast) j["fail_fast"] = true;
  j["profile"] = run.profile;
  j["machine"] = machine_info();
  j["build"] = build_info();
  j["backends"] = run.backend_details;
  int64_t passed = 0, failed = 0, unsupported = 0, not_run = 0, mistrusted = 0, strict_failed = 0;
  j["results"] = json::array();
  for (const auto& r : results) {
    j["results"].push_back(to_json(r));
    if (r.verdict == "pass") ++passed;
    else if (r.verdict == "unsupported") ++unsupported;
    else if (r.verdict == "not_run") ++not_run;
    else if (r.verdict == "mistrusted") ++mistrusted;
    else ++failed;
    strict_failed += r.verdict == "fail" || ((r.verdict == "pass" || r.verdict == "mistrusted") && r.strict_failed);
  }
  // A run with anything mistrusted or not run never says pass: nothing silently passes.
  j["summary"] = {{"results", results.size()},
                  {"passed", passed},
                  {"failed", failed},
                  {"unsupported", unsupported},
                  {"mistrusted", mistrusted},
                  {"not_run", not_run},
                  {"verdict", summary_verdict(failed, mistrusted, not_run)},
                  {"strict_failed", strict_failed}};
  return j;
}

}  // namespace konform
