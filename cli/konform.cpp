// konform: the command line. It parses the arguments, runs the harness and
// prints: `list` shows the catalog; `check` runs every op of every backend
// against the oracle (check_op.hpp: each op in child processes of its own).
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include "args.hpp"
#include "diff.hpp"
#include "files.hpp"
#include "repro.hpp"
#include "workers.hpp"
#include "konform/backend.hpp"
#include "konform/check_op.hpp"
#include "konform/isolate.hpp"
#include "konform/op_state.hpp"
#include "konform/progress.hpp"
#include "konform/properties.hpp"
#include "konform/render.hpp"
#include "konform/replay.hpp"
#include "konform/report_diff.hpp"
#include "konform/report.hpp"
#include "konform/tolerance.hpp"
#include "konform/values.hpp"
#include "konform/version.hpp"

namespace konform::cli {
namespace {

// Renders a saved JSON report as JUnit XML and/or HTML. Both texts are made
// before either file is written, so a report that cannot be rendered leaves
// no half of the output behind.
int render(const std::vector<std::string>& args) {
  std::string input, junit, html, sarif;
  ArgReader in("render", args);
  while (in.next()) {
    if (in.arg() == "--junit") junit = in.single_value();
    else if (in.arg() == "--html") html = in.single_value();
    else if (in.arg() == "--sarif") sarif = in.single_value();
    else if (in.arg().rfind("--", 0) == 0) throw unknown_option("render", in.arg());
    else if (input.empty()) input = in.arg();
    else throw UsageError("render takes one report, got '" + input + "' and '" + in.arg() + "'");
  }
  if (input.empty()) throw UsageError("render needs the path of a JSON report");
  if (junit.empty() && html.empty() && sarif.empty())
    throw UsageError("render needs --junit FILE, --html FILE and/or --sarif FILE");
  check_distinct_paths({{"the report", input}, {"--junit", junit}, {"--html", html}, {"--sarif", sarif}});
  const std::string text = read_file(input);
  const auto report = nlohmann::json::parse(text, nullptr, false);
  if (report.is_discarded()) throw UsageError("'" + input + "' is not valid JSON");
  const auto schema = report.is_object() ? report.find("schema") : report.end();
  if (!report.is_object() || schema == report.end())
    throw UsageError("'" + input + "' is not a konform report (no \"schema\": \"konform-report/1\")");
  if (!schema->is_string() || schema->get<std::string>() != "konform-report/1")
    throw UsageError("'" + input + "' is not a konform report: its \"schema\" is " + schema->dump() +
                     ", not \"konform-report/1\"");
  std::string junit_text, html_text, sarif_text;
  try {
    if (!junit.empty()) junit_text = render_junit(report);
    if (!html.empty()) html_text = render_html(report);
    if (!sarif.empty()) sarif_text = render_sarif(report);
  } catch (const konform::ReportError& e) {
    throw UsageError("'" + input + "' does not follow the report schema: " + e.what());
  } catch (const nlohmann::json::exception& e) {
    throw UsageError("'" + input + "' does not follow the report schema: " + e.what());
  }
  OutputFile junit_file = junit.empty() ? OutputFile() : OutputFile(junit, "JUnit XML");
  OutputFile html_file = html.empty() ? OutputFile() : OutputFile(html, "HTML report");
  OutputFile sarif_file = sarif.empty() ? OutputFile() : OutputFile(sarif, "SARIF");
  junit_file.write(junit_text);
  html_file.write(html_text);
  sarif_file.write(sarif_text);
  return 0;
}

// What `konform list` shows of one op, as JSON (--format json) and as text.
nlohmann::json op_entry(const OpSpec& op) {
  nlohmann::json params = nlohmann::json::array();
  for (const ParamSpec& p : op.params)
    params.push_back(
        {{"name", p.name},
         {"type", param_type_name(p.type)},
         {"range", p.range},
         {"default", p.default_value.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.default_value)}});
  nlohmann::json props = nlohmann::json::array();
  for (const auto& p : properties())
    if (p.op == op.name) props.push_back(p.name);
  nlohmann::json args = nlohmann::json::array();
  for (const ArgSpec& a : op.args) {
    nlohmann::json match = nlohmann::json::array();
    for (Match m : a.match) match.push_back(m == Match::exact ? "exact" : "tolerance");
    args.push_back({{"name", a.name},
                    {"access", a.access == Access::in    ? "in"
                               : a.access == Access::out ? "out"
                                                         : "inout"},
                    {"dtype", a.dtype},
                    {"shape", a.shape},
                    {"match", match},
                    {"may_alias", a.may_alias},
                    {"optional", a.optional}});
  }
  nlohmann::json call = nullptr;  // null: the op's invoke is written by hand
  if (!op.c_params.empty()) {
    nlohmann::json names = nlohmann::json::array();
    for (const CParam& p : op.c_params) names.push_back(p.name);
    call = {{"params", names}, {"result", op.c_result.empty() ? nlohmann::json(nullptr) : nlohmann::json(op.c_result)}};
  }
  nlohmann::json tolerance = nullptr;  // null: exact, bit for bit
  if (const Tolerance* t = ToleranceTable::builtin().find(op.name, op.dtype))
    tolerance = {{"limit", t->limit}, {"text", t->text()}, {"why", t->why}};
  return {{"name", op.name},        {"family", op.group},
          {"symbol", op.symbol},    {"dtype", std::string(dtype_name(op.dtype))},
          {"summary", op.summary},  {"spec", op.spec},
          {"args", args},           {"params", params},
          {"call", call},           {"domain", op.domain},
          {"tolerance", tolerance}, {"verify", static_cast<bool>(op.verify)},
          {"properties", props}};
}

void print_op(const nlohmann::json& e) {
  std::cout << e["name"].get<std::string>() << "  (" << e["symbol"].get<std::string>() << ", "
            << e["dtype"].get<std::string>() << ", family " << e["family"].get<std::string>() << ")\n  "
            << e["summary"].get<std::string>() << "\n  spec: " << e["spec"].get<std::string>() << "\n";
  // "  args x in T [rows, d], y out T [rows, d] (may be x), status out i32 [1]": inputs' match
  // rules are not shown; a shape sized by the oracle or by the op's code says so.
  std::cout << "  args";
  for (size_t i = 0; i < e["args"].size(); ++i) {
    const auto& a = e["args"][i];
    std::cout << (i == 0 ? " " : ", ") << a["name"].get<std::string>() << " " << a["access"].get<std::string>() << " "
              << a["dtype"].get<std::string>();
    const std::string shape = a["shape"].get<std::string>();
    std::cout << (shape == kShapeByOracle ? " (sized by the oracle)"
                  : shape == kShapeByCode ? " (sized by the op's declared_count)"
                                          : " [" + shape + "]")
              << (a["optional"].get<bool>() ? " (optional)" : "");
    for (size_t k = 0; k < a["may_alias"].size(); ++k)
      std::cout << (k == 0 ? " (may be " : " or ") << a["may_alias"][k].get<std::string>()
                << (k + 1 == a["may_alias"].size() ? ")" : "");
  }
  std::cout << "\n";
  if (!e["call"].is_null()) {  // "  call tl_clamp_f32(x, y, n, lo, hi) -> status"
    std::cout << "  call " << e["symbol"].get<std::string>() << "(";
    for (size_t i = 0; i < e["call"]["params"].size(); ++i)
      std::cout << (i == 0 ? "" : ", ") << e["call"]["params"][i].get<std::string>();
    std::cout << ")" << (e["call"]["result"].is_null() ? "" : " -> " + e["call"]["result"].get<std::string>()) << "\n";
  }
  for (const auto& p : e["params"])
    std::cout << "  param " << p["name"].get<std::string>() << " " << p["type"].get<std::string>() << ": "
              << p["range"].get<std::string>()
              << (p["default"].is_null() ? "" : "; default " + p["default"].get<std::string>()) << "\n";
  std::cout << "  domain: " << e["domain"].get<std::string>() << "\n";
  if (e["tolerance"].is_null()) std::cout << "  tolerance: exact (bit for bit)\n";
  else
    std::cout << "  tolerance: " << e["tolerance"]["text"].get<std::string>() << " u  ("
              << e["tolerance"]["why"].get<std::string>() << ")\n";
  std::cout << "  properties:";
  for (const auto& p : e["properties"]) std::cout << " " << p.get<std::string>();
  std::cout << "\n\n";
}

bool contains_ignoring_case(const std::string& text, const std::string& part) {
  auto lower = [](std::string t) {
    for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return t;
  };
  return lower(text).find(lower(part)) != std::string::npos;
}

// konform list [PATTERN] [--family F] [--backend B] [--format text|json]:
// the catalog, or the ops whose name contains PATTERN (case ignored), of
// family F, exported by backend B.
int list(const std::vector<std::string>& args) {
  std::string pattern, family, backend, format = "text";
  bool tolerances = false;
  ArgReader in("list", args);
  while (in.next()) {
    if (in.arg() == "--family") family = in.single_value();
    else if (in.arg() == "--tolerances") in.once(), tolerances = true;
    else if (in.arg() == "--backend") backend = in.single_value();
    else if (in.arg() == "--format") format = in.single_value();
    else if (in.arg().rfind("--", 0) == 0) throw unknown_option("list", in.arg());
    else if (pattern.empty()) pattern = in.arg();
    else throw UsageError("list takes one PATTERN, got '" + pattern + "' and '" + in.arg() + "'");
  }
  if (format != "text" && format != "json") throw UsageError("--format takes text or json, not '" + format + "'");
  if (tolerances && format != "text")
    throw UsageError("--tolerances writes a tolerance table: --format does not apply");
  if (!family.empty()) check_family(family);
  std::vector<Backend> exporting;
  if (!backend.empty()) exporting = resolve_backends(backend);
  if (!exporting.empty() && !exporting.front().load_failure.empty())
    throw BackendError("--backend " + backend + ": " + exporting.front().library + " " +
                       exporting.front().load_failure + ", so what it exports is unknown");
  nlohmann::json entries = nlohmann::json::array();
  std::vector<const OpSpec*> chosen;
  for (const OpSpec& op : catalog()) {
    if (!pattern.empty() && !contains_ignoring_case(op.name, pattern)) continue;
    if (!family.empty() && op.group != family) continue;
    if (!exporting.empty() && exporting.front().symbol(op.symbol) == nullptr) continue;
    entries.push_back(op_entry(op));
    chosen.push_back(&op);
  }
  if (entries.empty() && !pattern.empty()) {
    std::vector<std::string> names;
    for (const OpSpec& op : catalog()) names.push_back(op.name);
    throw UsageError("no op matches '" + pattern + "'" + did_you_mean(pattern, names));
  }
  if (tolerances) {  // a table to start a --tolerances FILE from
    std::cout << ToleranceTable::text_of(chosen);
    return 0;
  }
  if (format == "json") {
    std::cout << entries.dump(2) << "\n";
    return 0;
  }
  for (const auto& e : entries) print_op(e);
  std::cout << entries.size() << " of " << catalog().size() << " ops\n";
  return 0;
}

// --version: konform's version and git revision, and which catalog it holds
// (a fingerprint of every op's name, symbol, dtype, parameters and limit).
int version() {
  uint64_t h = 1469598103934665603ull;  // FNV-1a, 64 bits
  auto mix = [&h](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  };
  for (const OpSpec& op : catalog()) mix(op_entry(op).dump());
  std::printf("konform %s (git %s)\ncatalog: %zu ops, %zu properties, fingerprint %016llx\n", kVersion, kGitDescribe,
              catalog().size(), properties().size(), static_cast<unsigned long long>(h));
  return 0;
}

// What the harness's check reads of the command line. The sweep judges with
// `custom`, the table --tolerances named (parsed by check), where there is one.
// "  max error 3.2 u of 8": over every element, a NaN or infinity mismatch
// shown as such (r measures only the finite ones); flushed elements counted.
void print_max_error(const OpResult& r) {
  const Metrics& m = r.metrics;
  const int64_t special = m.nan_mismatches + m.inf_mismatches;
  if (special > 0) {
    std::printf("  max error: %lld NaN and %lld infinity mismatch%s (finite max %.3g u of %.3g)",
                static_cast<long long>(m.nan_mismatches), static_cast<long long>(m.inf_mismatches),
                special == 1 ? "" : "es", m.max_r, r.limit);
  } else if (r.limit > 0) {
    std::printf("  max error %.3g u of %.3g", m.max_r, r.limit);
  }
  if (m.flushed > 0) std::printf("  %lld flushed subnormals passed", static_cast<long long>(m.flushed));
}

// op_width: the longest op name of the run, so the columns line up.
void print_result(const OpResult& r, int op_width) {
  if (r.verdict == "not_run") {
    std::printf("NOT RUN  %-*s %-16s %s\n", op_width, r.op.c_str(), r.backend.c_str(), r.reason.c_str());
    std::fflush(stdout);
    return;
  }
  const char* tag = r.verdict == "pass"          ? "PASS"
                    : r.verdict == "unsupported" ? "SKIP"
                    : r.verdict == "mistrusted"  ? "MISTRUSTED"
                                                 : "FAIL";
  std::printf("%s  %-*s %-16s", tag, op_width, r.op.c_str(), r.backend.c_str());
  if (r.verdict == "unsupported") {
    if (r.unsupported_cases > 0)
      std::printf(" unsupported: all %lld valid cases returned TL_ERR_UNSUPPORTED (\"%s\")\n",
                  static_cast<long long>(r.unsupported_cases), r.unsupported_message.c_str());
    else std::printf(" unsupported: the backend does not export %s\n", r.symbol.c_str());
    return;
  }
  std::printf(" %5lld cases", static_cast<long long>(r.cases));
  if (r.unsupported_cases > 0) std::printf(" (%lld unsupported)", static_cast<long long>(r.unsupported_cases));
  print_max_error(r);
  if (r.strict_limit > 0)
    std::printf(" (strict %.3g: %s)", r.strict_limit, r.strict_failed || r.verdict == "fail" ? "fails" : "holds");
  int props = 0;
  for (const auto& c : r.checks) props += c.kind == "property";
  std::printf("  %d properties  %.1fs\n", props, r.seconds);
  if (r.unsupported_cases > 0)
    std::printf("      %lld cases unsupported: \"%s\" (TL_ERR_UNSUPPORTED, not judged)\n",
                static_cast<long long>(r.unsupported_cases), r.unsupported_message.c_str());
  // A reason every op of a backend shares (no_read_out_of_bounds on a
  // device) is printed at its first op; the report has it on each.
  static std::set<std::string> said;
  for (const auto& c : r.checks) {
    if (!c.reason.empty() && said.insert(r.backend + '\n' + c.name + '\n' + c.reason).second)
      std::printf("      NOT RUN %s: %s\n", c.name.c_str(), c.reason.c_str());
    if (!c.mistrusted.empty() && c.failures == 0)
      std::printf("      MISTRUSTED %s: %s\n", c.name.c_str(), c.mistrusted.c_str());
  }
  for (const Finding& f : r.findings) {
    std::printf("      %s%s%s: %s\n", f.profile.empty() ? "" : "[strict profile] ", f.check.c_str(),
                f.cause.empty() ? "" : (" [" + f.cause + "]").c_str(), f.message.c_str());
    if (f.cases > 1 || !f.cause.empty())
      std::printf("        in %lld case%s%s\n", static_cast<long long>(f.cases), f.cases == 1 ? "" : "s",
                  f.cause.empty() ? "" : (", " + std::to_string(f.elements) + " elements").c_str());
    if (f.case_index >= 0)
      std::printf("        case %lld: %s\n", static_cast<long long>(f.case_index), f.case_label.c_str());
    if (f.has_values)
      std::printf("        %s%s: expected %.9g, got %.9g, error %.3g u, limit %.3g u\n", f.output.c_str(),
                  f.element.c_str(), f.expected, f.got, f.error, f.limit);
    if (!f.reproduce.empty()) std::printf("        replay: %s\n", f.reproduce.c_str());
  }
  std::fflush(stdout);
}

int check(const CheckArgs& a, const std::string& command_line) {
  // --baseline is read and checked before anything runs.
  nlohmann::json baseline;
  if (!a.baseline.empty()) {
    baseline = nlohmann::json::parse(read_file(a.baseline), nullptr, false);
    if (baseline.is_discarded()) throw UsageError("--baseline: '" + a.baseline + "' is not valid JSON");
    try {
      diff_reports(baseline, baseline, DiffOptions{}, a.baseline, a.baseline);
    } catch (const DiffError& e) {
      throw UsageError(std::string("--baseline: ") + e.what());
    }
  }
  CheckOptions options = a.check;
  set_flush_subnormals(options.sweep.flush_subnormals);  // the properties' policy too
  set_exhaustive_grids(options.exhaustive);              // forked children inherit it
  std::unique_ptr<ToleranceTable> custom;
  if (!options.sweep.tolerances_file.empty()) {
    custom = std::make_unique<ToleranceTable>(
        ToleranceTable::parse(read_file(options.sweep.tolerances_file), options.sweep.tolerances_file));
    for (const std::string& note : custom->notes()) warn_former_name(note);
  }
  if (custom) options.sweep.tolerances = custom.get();
  std::vector<const OpSpec*> ops;
  for (const auto& name : a.ops) {
    const OpSpec* op = find_op(name);
    if (op == nullptr) throw unknown_op(name);
    ops.push_back(op);
  }
  if (ops.empty())
    for (const OpSpec& op : catalog()) ops.push_back(&op);
  if (custom) custom->require_entries_for(ops);  // the whole table, before anything runs
  // Each --property must belong to a chosen op, or it would run nothing.
  for (const auto& p : options.properties) {
    std::string owners;
    bool chosen = false;
    for (const auto& q : properties()) {
      if (q.name != p) continue;
      owners += (owners.empty() ? "" : ", ") + q.op;
      chosen |= a.ops.empty() || std::find(a.ops.begin(), a.ops.end(), q.op) != a.ops.end();
    }
    if (owners.empty()) throw UsageError("unknown property '" + p + "' (konform list shows them per op)");
    if (!chosen) throw UsageError("property '" + p + "' belongs to " + owners + ", which no --op chooses");
  }
  int64_t property_count = 0;
  for (const OpSpec* op : ops) property_count += static_cast<int64_t>(chosen_properties(*op, options).size());
  if (options.sweep.cases == 0 && property_count == 0)
    throw UsageError("--cases 0 and no property of the chosen op(s) to run: nothing would be checked");

  std::vector<Backend> backends;
  RunInfo run;
  set_load_timeout(options.timeout_s);
  for (const auto& spec : a.backends)
    for (auto& b : resolve_backends(spec)) {
      for (const Backend& earlier : backends)  // simd:all and simd:AVX2, say: each result counted once
        if (earlier.name == b.name) throw UsageError("--backend " + spec + ": backend " + b.name + " is chosen twice");
      run.backend_details.push_back({{"name", b.name}, {"kind", b.kind}, {"library", b.library}, {"target", b.target}});
      backends.push_back(std::move(b));
    }
  // Every output can be written, before the run: a finding is never lost to an unwritable path.
  if (!options.repro_dir.empty()) prepare_output_dir(options.repro_dir, "--repro-dir");
  OutputFile report_file = a.report.empty() ? OutputFile() : OutputFile(a.report, "report");
  OutputFile junit_file = a.junit.empty() ? OutputFile() : OutputFile(a.junit, "JUnit XML");
  OutputFile html_file = a.html.empty() ? OutputFile() : OutputFile(a.html, "HTML report");
  OutputFile sarif_file = a.sarif.empty() ? OutputFile() : OutputFile(a.sarif, "SARIF");
  run.command = command_line;
  run.seed = options.sweep.seed;
  run.cases = options.sweep.cases;
  run.flush_subnormals = options.sweep.flush_subnormals;
  run.profile = options.profile;
  run.exhaustive = options.exhaustive;
  run.fail_fast = options.sweep.fail_fast;
  if (!a.quiet)
    std::printf(
        "konform check: %zu backend(s) x %zu op(s), seed %llu, %lld cases per op, subnormals %s, profile %s%s%s\n",
        backends.size(), ops.size(), static_cast<unsigned long long>(options.sweep.seed),
        static_cast<long long>(options.sweep.cases),
        options.sweep.flush_subnormals ? "flush (--flush-subnormals)" : "strict", options.profile.c_str(),
        options.exhaustive ? ", exhaustive grids" : "", options.sweep.fail_fast ? ", fail-fast" : "");

  std::vector<OpResult> results;
  bool harness_failed = false;
  int op_width = 10;
  for (const OpSpec* op : ops) op_width = std::max(op_width, static_cast<int>(op->name.size()));
  std::optional<Progress> progress;  // none under --quiet
  if (!a.quiet) progress.emplace(static_cast<int64_t>(backends.size() * ops.size()), isatty(STDERR_FILENO) != 0);
  std::vector<std::pair<const Backend*, const OpSpec*>> tasks;
  for (const Backend& b : backends)
    for (const OpSpec* op : ops) tasks.emplace_back(&b, op);
  // Each result as it comes, in task order; konform's own error in a child
  // (a case it cannot make, say) is reported and the run goes on.
  auto take = [&](std::optional<OpResult> r, const std::string& error) {
    if (progress) progress->end_op();
    if (!error.empty()) {
      clear_progress();
      std::fprintf(stderr, "konform: %s\n", error.c_str());
      harness_failed = true;
    }
    if (!r) return;
    results.push_back(std::move(*r));
    if (a.quiet && (results.back().verdict == "pass" || results.back().verdict == "unsupported")) return;
    clear_progress();
    print_result(results.back(), op_width);
  };
  if (a.jobs <= 1 || tasks.size() <= 1) {
    for (const auto& [b, op] : tasks) {
      if (progress) progress->begin_op();
      try {
        take(run_task(*b, *op, options), "");
      } catch (const std::runtime_error& e) {
        take(std::nullopt, e.what());
      }
    }
  } else {
    run_in_workers(
        tasks.size(), a.jobs,
        [&](size_t i) {
          OpState s;
          s.result = run_task(*tasks[i].first, *tasks[i].second, options);
          return state_json(s);
        },
        [&](size_t) {
          if (progress) progress->begin_op();
        },
        [&](const std::string& text) {
          if (progress) progress->note(text);
        },
        [&](size_t i, const TaskOutcome& o) {
          if (!o.error.empty())
            return take(std::nullopt,
                        o.lost ? tasks[i].second->name + " on " + tasks[i].first->name + ": " + o.error : o.error);
          std::optional<OpState> s = parse_state(o.payload);
          if (!s)
            return take(std::nullopt, tasks[i].second->name + " on " + tasks[i].first->name +
                                          ": konform's worker process sent a result it cannot read");
          take(std::move(s->result), "");
        });
  }
  progress.reset();  // the line erased before the summary
  const nlohmann::json report = make_report(run, results);
  const auto& s = report["summary"];
  // The files, then the summary line; a file that cannot be written is an
  // error (exit 2), but the run's findings are still printed and counted.
  std::string write_errors;
  auto write = [&](OutputFile& file, const std::function<std::string()>& text) {
    try {
      file.write(text(), !a.quiet);
    } catch (const std::exception& e) {
      write_errors += std::string("konform: ") + e.what() + "\n";
    }
  };
  write(report_file, [&] { return report.dump(2) + "\n"; });
  write(junit_file, [&] { return render_junit(report); });
  write(html_file, [&] { return render_html(report); });
  write(sarif_file, [&] { return render_sarif(report); });
  const long long not_run_count = s["not_run"].get<long long>(), mistrusted_count = s["mistrusted"].get<long long>();
  std::printf("%lld passed, %lld failed, %lld unsupported", s["passed"].get<long long>(), s["failed"].get<long long>(),
              s["unsupported"].get<long long>());
  if (mistrusted_count > 0) std::printf(", %lld mistrusted", mistrusted_count);
  if (not_run_count > 0) std::printf(", %lld not run", not_run_count);
  std::printf("\n");
  std::fputs(write_errors.c_str(), stderr);
  // Findings or mistrusted results first (1: neither is a pass, and neither
  // is this machine's doing); else anything not run (3): never exits 0.
  int status = s["failed"].get<int64_t>() > 0 || mistrusted_count > 0 ? 1 : not_run_count > 0 ? kExitNotRun : 0;
  if (!a.baseline.empty()) {  // --baseline: the run against an older report, a regression fails it
    const ReportDiff d = diff_reports(baseline, report, DiffOptions{}, a.baseline, "this run");
    std::printf("against %s:\n%s", a.baseline.c_str(), diff_to_text(d).c_str());
    if (d.regressions > 0) status = 1;
  }
  if (harness_failed || !write_errors.empty()) {
    if (status != 0)
      std::fprintf(stderr, "konform: exit status 2 for the error above; the run has %s (status %d)\n",
                   status == 1 ? "findings or mistrusted results" : "ops not run", status);
    return 2;
  }
  return status;
}

bool is_command(const std::string& s) {
  return s == "list" || s == "render" || s == "repro" || s == "check" || s == "diff";
}

// `konform COMMAND --help` (or -h): that command's usage.
bool wants_help(const std::vector<std::string>& args) {
  for (size_t i = 1; i < args.size(); ++i)
    if (args[i] == "--help" || args[i] == "-h") return true;
  return false;
}

int run(const std::vector<std::string>& args, const std::string& command_line) {
  try {
    if (!args.empty() && args[0] == "--version") return version();
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
      std::fputs(usage().c_str(), args.empty() ? stderr : stdout);
      return args.empty() ? 2 : 0;
    }
    if (!is_command(args[0]))
      throw UsageError("unknown command '" + args[0] + "'" +
                       did_you_mean(args[0], {"list", "check", "repro", "render", "diff"}));
    if (wants_help(args)) {
      std::fputs(usage(args[0]).c_str(), stdout);
      return 0;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "list") return list(rest);
    if (args[0] == "render") return render(rest);
    if (args[0] == "repro") return repro(rest);
    if (args[0] == "diff") return diff(rest);
    return check(parse_check(rest), command_line);
  } catch (const UsageError& e) {
    // The error alone, where it is seen, and where the options are.
    const std::string help = is_command(args[0]) ? "konform " + args[0] + " --help" : "konform --help";
    std::fprintf(stderr, "konform: %s\n(%s lists the options)\n", e.what(), help.c_str());
    return 2;
  } catch (const std::exception& e) {  // BackendError, TableError, ReproError, a file's error, ...
    std::fprintf(stderr, "konform: %s\n", e.what());
    return 2;
  }
}

}  // namespace
}  // namespace konform::cli

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // Replay lines start with this konform, so they work where it is not on PATH.
  std::string self = konform::running_program();
  if (self.empty() && argc > 0) self = std::strchr(argv[0], '/') ? konform::absolute_path(argv[0]) : argv[0];
  if (!self.empty()) konform::set_replay_program(self);
  std::string command_line = "konform";
  for (const auto& s : args) command_line += " " + s;
  // Tensors of up to 1 GiB from the heap, kept when freed: the next case's
  // tensors reuse their pages instead of mapping fresh ones and faulting on
  // each page (the sweep's large cases allocate hundreds of MiB per call).
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  konform::load_rapidcheck_quietly();
  konform::kill_children_on_signal();  // a cancelled run leaves no child and no temporary file
  const int status = konform::cli::run(args, command_line);
  // What was printed must have reached standard output: a full disk or a
  // closed pipe is an error, not a silent success.
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int err = errno;
  if (!flushed || std::ferror(stdout) != 0) {
    std::fprintf(stderr, "konform: cannot write standard output: %s%s\n",
                 err != 0 ? std::strerror(err) : "a write failed",
                 status == 1   ? " (the run has findings or mistrusted results: status 1)"
                 : status == 3 ? " (the run has ops not run: status 3)"
                               : "");
    return 2;
  }
  return status;
}
