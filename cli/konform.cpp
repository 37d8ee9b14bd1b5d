// konform: the command line. `list` shows the catalog; `check` runs every op
// of every backend against the oracle, each op in its own child process.
#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>

#include "args.hpp"
#include "files.hpp"
#include "repro.hpp"
#include "repro_files.hpp"
#include "konform/backend.hpp"
#include "konform/isolate.hpp"
#include "konform/properties.hpp"
#include "konform/render.hpp"
#include "konform/report.hpp"
#include "konform/sweep.hpp"
#include "konform/tolerance.hpp"

namespace konform::cli {
namespace {

// Renders a saved JSON report as JUnit XML and/or HTML. Both texts are made
// before either file is written, so a report that cannot be rendered leaves
// no half of the output behind.
int render(const std::vector<std::string>& args) {
  std::string input, junit, html;
  ArgReader in("render", args);
  while (in.next()) {
    if (in.arg() == "--junit") junit = in.single_value();
    else if (in.arg() == "--html") html = in.single_value();
    else if (in.arg().rfind("--", 0) == 0) throw UsageError("unknown option '" + in.arg() + "'");
    else if (input.empty()) input = in.arg();
    else throw UsageError("render takes one report, got '" + input + "' and '" + in.arg() + "'");
  }
  if (input.empty()) throw UsageError("render needs the path of a JSON report");
  if (junit.empty() && html.empty()) throw UsageError("render needs --junit FILE and/or --html FILE");
  check_distinct_paths({{"the report", input}, {"--junit", junit}, {"--html", html}});
  const std::string text = read_file(input);
  const auto report = nlohmann::json::parse(text, nullptr, false);
  if (report.is_discarded()) throw UsageError("'" + input + "' is not valid JSON");
  const auto schema = report.is_object() ? report.find("schema") : report.end();
  if (!report.is_object() || schema == report.end())
    throw UsageError("'" + input + "' is not a konform report (no \"schema\": \"konform-report/1\")");
  if (!schema->is_string() || schema->get<std::string>() != "konform-report/1")
    throw UsageError("'" + input + "' is not a konform report: its \"schema\" is " + schema->dump() +
                     ", not \"konform-report/1\"");
  std::string junit_text, html_text;
  try {
    if (!junit.empty()) junit_text = render_junit(report);
    if (!html.empty()) html_text = render_html(report);
  } catch (const konform::ReportError& e) {
    throw UsageError("'" + input + "' does not follow the report schema: " + e.what());
  } catch (const nlohmann::json::exception& e) {
    throw UsageError("'" + input + "' does not follow the report schema: " + e.what());
  }
  OutputFile junit_file = junit.empty() ? OutputFile() : OutputFile(junit, "JUnit XML");
  OutputFile html_file = html.empty() ? OutputFile() : OutputFile(html, "HTML report");
  junit_file.write(junit_text);
  html_file.write(html_text);
  return 0;
}

int list() {
  for (const OpSpec& op : catalog()) {
    std::cout << op.name << "  (" << op.symbol << ", " << dtype_name(op.dtype) << ")\n  " << op.summary << "\n";
    for (const auto& p : op.params) std::cout << "  param " << p.name << ": " << p.range << "\n";
    std::cout << "  domain: " << op.domain << "\n";
    if (const Tolerance* t = ToleranceTable::builtin().find(op.name, op.dtype))
      std::cout << "  tolerance: " << t->text() << " u  (" << t->why << ")\n";
    else
      std::cout << "  tolerance: exact (bit for bit)\n";
    std::cout << "  properties:";
    for (const auto& p : properties())
      if (p.op == op.name) std::cout << " " << p.name;
    std::cout << "\n\n";
  }
  return 0;
}

bool selected(const std::vector<std::string>& chosen, const std::string& name) {
  if (chosen.empty()) return true;
  for (const auto& c : chosen)
    if (c == name) return true;
  return false;
}

// What a finding adds about its reproducer: "   (or: konform repro PATH)",
// with --tolerances when the check used a table of its own. If the file
// cannot be written, the error is printed and noted instead: the finding
// stands either way.
std::string repro_note(const CheckArgs& a, const std::function<std::string()>& write) {
  try {
    const std::string path = write();
    if (path.empty()) return "";
    return "   (or: konform repro " + shell_word(path) +
           (a.tolerances.empty() ? "" : " --tolerances " + shell_word(a.tolerances)) + ")";
  } catch (const std::exception& e) {
    std::fprintf(stderr, "konform: a finding's reproducer was not written (the finding stands): %s\n", e.what());
    return std::string("   (no reproducer: ") + e.what() + ")";
  }
}

// An empty result of `op` on `b`: what it is of, no verdict reached yet.
OpResult result_for(const Backend& b, const OpSpec& op) {
  OpResult r;
  r.op = op.name;
  r.symbol = op.symbol;
  r.dtype = std::string(dtype_name(op.dtype));
  r.backend = b.name;
  r.target = b.target;
  return r;
}

// Everything one op gets on one backend: the sweep, then its properties.
OpResult check_op(const Backend& b, const OpSpec& op, const CheckArgs& a, const SweepOptions& sweep,
                  ChildChannel& channel) {
  OpResult r = result_for(b, op);
  const auto start = std::chrono::steady_clock::now();
  const bool sweep_wanted = a.properties.empty();  // --property alone runs just that property
  if (sweep_wanted) {
    sweep_op(b, op, sweep, r, [&](int64_t i, const std::string& label) {
      channel.progress(i, label);
      if (a.verbose) std::fprintf(stderr, "  %s %s case %lld: %s\n", b.name.c_str(), op.name.c_str(),
                                  static_cast<long long>(i), label.c_str());
    });
  } else if (b.symbol(op.symbol) == nullptr) {
    r.verdict = "unsupported";
  }
  if (!a.repro_dir.empty())
    for (Finding& f : r.findings)
      if (f.case_index >= 0)
        f.reproduce +=
            repro_note(a, [&] { return write_sweep_reproducer(a.repro_dir, b, op, sweep, f.case_index, f); });
  if (r.verdict != "unsupported" && !a.no_properties && a.only_case < 0) {
    for (const Property& p : properties()) {
      if (p.op != op.name || !selected(a.properties, p.name)) continue;
      channel.progress(-1, "property " + p.name);
      const PropertyOutcome o = check_property(p, b, a.seed, static_cast<int>(a.property_runs));
      CheckSummary& c = r.check(p.name, "property");
      c.profile = p.profile;
      c.runs += o.runs + (o.passed ? 0 : 1);
      if (o.passed) continue;
      ++c.failures;
      Finding f;
      f.check = p.name;
      f.profile = p.profile;
      f.message = o.message;
      f.reproduce = property_command(b.name, op.name, p.name, sweep) + (p.profile.empty() ? "" : " --profile strict") +
                    (o.reproduce.empty() ? "" : "   (RapidCheck: RC_PARAMS=\"reproduce=" + o.reproduce + "\")");
      if (!a.repro_dir.empty())
        f.reproduce += repro_note(a, [&] {
          return write_property_reproducer(a.repro_dir, p, b, sweep, static_cast<int>(a.property_runs), f);
        });
      r.fail(f);
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

// Where a child stopped on a finding: the sweep case it was running and how
// to replay it (with --repro-dir, a reproducer written for it too).
void locate(Finding& f, const ChildOutcome& o, const Backend& b, const OpSpec& op, const CheckArgs& a,
            const SweepOptions& sweep) {
  f.case_index = o.last_case;
  f.case_label = o.last_label;
  if (o.last_case < 0) return;
  f.reproduce = replay_command(b.name, op.name, a.seed, o.last_case, sweep.tolerances_file);
  if (!a.repro_dir.empty())
    f.reproduce += repro_note(a, [&] { return write_sweep_reproducer(a.repro_dir, b, op, sweep, o.last_case, f); });
}

// The result of a child that died or hung, with the case it was running.
OpResult died(const Backend& b, const OpSpec& op, const ChildOutcome& o, const CheckArgs& a,
              const SweepOptions& sweep) {
  OpResult r = result_for(b, op);
  Finding f;
  f.check = o.status == ChildOutcome::timeout ? "no_hang" : "no_crash";
  f.message = (o.status == ChildOutcome::timeout ? "hung: " : "crashed: ") + o.detail;
  locate(f, o, b, op, a, sweep);
  if (o.last_case < 0 && o.last_label.rfind("property ", 0) == 0)
    f.reproduce = property_command(b.name, op.name, o.last_label.substr(9), sweep);
  r.fail(f);
  r.verdict = o.status == ChildOutcome::timeout ? "timeout" : "crashed";
  CheckSummary& c = r.check(f.check, "sweep");
  c.runs = c.failures = 1;
  return r;
}

// The sweep's cases again, in a child of their own, each input's end against
// unmapped memory (sweep_reads): a crash there is a read past an input's end,
// the check no_read_out_of_bounds, added to the op's result.
void check_reads(const Backend& b, const OpSpec& op, const CheckArgs& a, const SweepOptions& sweep, OpResult& r) {
  if (r.verdict == "unsupported" || !a.properties.empty()) return;  // (--property alone: no sweep)
  const ChildOutcome o = run_isolated(
      [&](ChildChannel& channel) {
        return std::to_string(sweep_reads(b, op, sweep, [&](int64_t i, const std::string& label) {
          channel.progress(i, label);
        }));
      },
      a.timeout_s);
  CheckSummary& c = r.check("no_read_out_of_bounds", "sweep");
  if (o.status == ChildOutcome::ok) {
    c.runs += std::stoll(o.payload);
    return;
  }
  if (o.status == ChildOutcome::harness_error) throw std::runtime_error(op.name + " on " + b.name + ": " + o.detail);
  c.runs += std::max<int64_t>(o.last_case, 0) + 1;
  ++c.failures;
  Finding f;
  f.check = "no_read_out_of_bounds";
  f.message = (o.status == ChildOutcome::timeout ? "hung" : "crashed: " + o.detail) +
              ", called with each input's end against unmapped memory: a read past the end of an input";
  locate(f, o, b, op, a, sweep);
  r.fail(f);
}

// What an op gets on a backend that cannot run here: not_run with the
// backend's reason, nothing called. An op the library does not export is
// still unsupported: that holds on any machine.
OpResult not_run(const Backend& b, const OpSpec& op) {
  OpResult r = result_for(b, op);
  r.verdict = b.symbol(op.symbol) == nullptr ? "unsupported" : "not_run";
  if (r.verdict == "not_run") r.reason = b.unavailable;
  return r;
}

// op_width: the longest op name of the run, so the columns line up.
void print_result(const OpResult& r, int op_width) {
  if (r.verdict == "not_run") {
    std::printf("NOT RUN  %-*s %-16s %s\n", op_width, r.op.c_str(), r.backend.c_str(), r.reason.c_str());
    std::fflush(stdout);
    return;
  }
  const char* tag = r.verdict == "pass" ? "PASS" : r.verdict == "unsupported" ? "SKIP" : "FAIL";
  std::printf("%s  %-*s %-16s", tag, op_width, r.op.c_str(), r.backend.c_str());
  if (r.verdict == "unsupported") {
    std::printf(" unsupported: the backend does not export %s\n", r.symbol.c_str());
    return;
  }
  std::printf(" %5lld cases", static_cast<long long>(r.cases));
  // The limit of the case that erred most (a limit may grow with the case's sums).
  if (r.limit > 0) std::printf("  max error %.3g u of %.3g", r.metrics.max_r, r.worst && r.worst->limit > 0 ? r.worst->limit : r.limit);
  if (r.strict_limit > 0) std::printf(" (strict %.3g: %s)", r.strict_limit, r.strict_failed || r.verdict == "fail" ? "fails" : "holds");
  int props = 0;
  for (const auto& c : r.checks) props += c.kind == "property";
  std::printf("  %d properties  %.1fs\n", props, r.seconds);
  for (const Finding& f : r.findings) {
    std::printf("      %s%s: %s\n", f.profile.empty() ? "" : "[strict profile] ", f.check.c_str(), f.message.c_str());
    if (f.case_index >= 0) std::printf("        case %lld: %s\n", static_cast<long long>(f.case_index), f.case_label.c_str());
    if (f.has_values)
      std::printf("        %s%s: expected %.9g, got %.9g, error %.3g u, limit %.3g u\n", f.output.c_str(),
                  f.element.c_str(), f.expected, f.got, f.error, f.limit);
    if (!f.reproduce.empty()) std::printf("        replay: %s\n", f.reproduce.c_str());
  }
  std::fflush(stdout);
}

int check(const CheckArgs& a, const std::string& command_line) {
  std::unique_ptr<ToleranceTable> custom;
  SweepOptions sweep;
  sweep.seed = a.seed;
  sweep.cases = a.cases;
  sweep.only_case = a.only_case;
  if (!a.tolerances.empty()) {
    custom = std::make_unique<ToleranceTable>(ToleranceTable::parse(read_file(a.tolerances), a.tolerances));
    sweep.tolerances = custom.get();
    sweep.tolerances_file = a.tolerances;
  }
  std::vector<const OpSpec*> ops;
  for (const auto& name : a.ops) {
    const OpSpec* op = find_op(name);
    if (op == nullptr) throw UsageError("unknown op '" + name + "' (konform list shows them all)");
    ops.push_back(op);
  }
  if (ops.empty())
    for (const OpSpec& op : catalog()) ops.push_back(&op);
  // Each --property must belong to a chosen op, or it would run nothing.
  for (const auto& p : a.properties) {
    std::string owners;
    bool chosen = false;
    for (const auto& q : properties()) {
      if (q.name != p) continue;
      owners += (owners.empty() ? "" : ", ") + q.op;
      chosen |= selected(a.ops, q.op);
    }
    if (owners.empty()) throw UsageError("unknown property '" + p + "' (konform list shows them per op)");
    if (!chosen) throw UsageError("property '" + p + "' belongs to " + owners + ", which no --op chooses");
  }
  int64_t property_count = 0;
  if (!a.no_properties && a.only_case < 0)
    for (const OpSpec* op : ops)
      for (const auto& p : properties()) property_count += p.op == op->name && selected(a.properties, p.name);
  if (a.cases == 0 && property_count == 0)
    throw UsageError("--cases 0 and no property of the chosen op(s) to run: nothing would be checked");

  std::vector<Backend> backends;
  RunInfo run;
  for (const auto& spec : a.backends)
    for (auto& b : resolve_backends(spec)) {
      for (const Backend& earlier : backends)  // simd:all and simd:AVX2, say: each result counted once
        if (earlier.name == b.name) throw UsageError("--backend " + spec + ": backend " + b.name + " is chosen twice");
      run.backend_details.push_back(
          {{"name", b.name}, {"kind", b.kind}, {"library", b.library}, {"target", b.target}});
      backends.push_back(std::move(b));
    }
  // Every output can be written, before the run: a finding is never lost to an unwritable path.
  if (!a.repro_dir.empty()) prepare_output_dir(a.repro_dir, "--repro-dir");
  OutputFile report_file = a.report.empty() ? OutputFile() : OutputFile(a.report, "report");
  OutputFile junit_file = a.junit.empty() ? OutputFile() : OutputFile(a.junit, "JUnit XML");
  OutputFile html_file = a.html.empty() ? OutputFile() : OutputFile(a.html, "HTML report");
  run.command = command_line;
  run.seed = a.seed;
  run.cases = a.cases;
  run.profile = a.profile;
  std::printf("konform check: %zu backend(s) x %zu op(s), seed %llu, %lld cases per op\n", backends.size(), ops.size(),
              static_cast<unsigned long long>(a.seed), static_cast<long long>(a.cases));

  std::vector<OpResult> results;
  bool harness_failed = false;
  int op_width = 10;
  for (const OpSpec* op : ops) op_width = std::max(op_width, static_cast<int>(op->name.size()));
  for (const Backend& b : backends) {
    for (const OpSpec* op : ops) {
      if (!b.unavailable.empty()) {
        results.push_back(not_run(b, *op));
        print_result(results.back(), op_width);
        continue;
      }
      const ChildOutcome o = run_isolated(
          [&](ChildChannel& channel) { return to_json(check_op(b, *op, a, sweep, channel)).dump(); }, a.timeout_s);
      if (o.status == ChildOutcome::harness_error) {
        std::fprintf(stderr, "konform: %s on %s: %s\n", op->name.c_str(), b.name.c_str(), o.detail.c_str());
        harness_failed = true;
        continue;
      }
      results.push_back(o.status == ChildOutcome::ok ? op_result_from_json(nlohmann::json::parse(o.payload))
                                                     : died(b, *op, o, a, sweep));
      if (o.status == ChildOutcome::ok) check_reads(b, *op, a, sweep, results.back());
      if (a.profile == "strict" && results.back().strict_failed && results.back().verdict == "pass")
        results.back().verdict = "fail";  // --profile strict: the strict checks count
      print_result(results.back(), op_width);
    }
  }
  const nlohmann::json report = make_report(run, results);
  const auto& s = report["summary"];
  // The files, then the summary line; a file that cannot be written is an
  // error (exit 2), but the run's findings are still printed and counted.
  std::string write_errors;
  auto write = [&](OutputFile& file, const std::function<std::string()>& text) {
    try {
      file.write(text());
    } catch (const std::exception& e) {
      write_errors += std::string("konform: ") + e.what() + "\n";
    }
  };
  write(report_file, [&] { return report.dump(2) + "\n"; });
  write(junit_file, [&] { return render_junit(report); });
  write(html_file, [&] { return render_html(report); });
  const long long not_run_count = s["not_run"].get<long long>();
  std::printf("%lld passed, %lld failed, %lld unsupported", s["passed"].get<long long>(), s["failed"].get<long long>(),
              s["unsupported"].get<long long>());
  if (not_run_count > 0) std::printf(", %lld not run", not_run_count);
  std::printf("\n");
  std::fputs(write_errors.c_str(), stderr);
  // Findings first (1); else anything not run (3): such a run never exits 0.
  const int status = s["failed"].get<int64_t>() > 0 ? 1 : not_run_count > 0 ? kExitNotRun : 0;
  if (harness_failed || !write_errors.empty()) {
    if (status != 0)
      std::fprintf(stderr, "konform: exit status 2 for the error above; the run has %s (status %d)\n",
                   status == 1 ? "findings" : "ops not run", status);
    return 2;
  }
  return status;
}

bool is_command(const std::string& s) { return s == "list" || s == "render" || s == "repro" || s == "check"; }

// `konform COMMAND --help` (or -h): that command's usage.
bool wants_help(const std::vector<std::string>& args) {
  for (size_t i = 1; i < args.size(); ++i)
    if (args[i] == "--help" || args[i] == "-h") return true;
  return false;
}

int run(const std::vector<std::string>& args, const std::string& command_line) {
  try {
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
      std::fputs(usage().c_str(), args.empty() ? stderr : stdout);
      return args.empty() ? 2 : 0;
    }
    if (!is_command(args[0])) throw UsageError("unknown command '" + args[0] + "'");
    if (wants_help(args)) {
      std::fputs(usage(args[0]).c_str(), stdout);
      return 0;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "list") {
      if (!rest.empty()) throw UsageError("list takes no arguments");
      return list();
    }
    if (args[0] == "render") return render(rest);
    if (args[0] == "repro") return repro(rest);
    return check(parse_check(rest), command_line);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "konform: %s\n\n%s", e.what(), usage(is_command(args[0]) ? args[0] : "").c_str());
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
  std::string command_line = "konform";
  for (const auto& s : args) command_line += " " + s;
  konform::load_rapidcheck_quietly();
  const int status = konform::cli::run(args, command_line);
  // What was printed must have reached standard output: a full disk or a
  // closed pipe is an error, not a silent success.
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int err = errno;
  if (!flushed || std::ferror(stdout) != 0) {
    std::fprintf(stderr, "konform: cannot write standard output: %s%s\n",
                 err != 0 ? std::strerror(err) : "a write failed",
                 status == 1   ? " (the run has findings: status 1)"
                 : status == 3 ? " (the run has ops not run: status 3)"
                               : "");
    return 2;
  }
  return status;
}
