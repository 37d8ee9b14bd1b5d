// konform: the command line. `list` shows the catalog; `check` runs every op
// of every backend against the oracle, each op in its own child process.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
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
#include "repro_files.hpp"
#include "workers.hpp"
#include "konform/backend.hpp"
#include "konform/isolate.hpp"
#include "konform/judge.hpp"
#include "konform/progress.hpp"
#include "konform/properties.hpp"
#include "konform/render.hpp"
#include "konform/replay.hpp"
#include "konform/report_diff.hpp"
#include "konform/report.hpp"
#include "konform/sweep.hpp"
#include "konform/tolerance.hpp"
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
  for (const auto& p : op.params) params.push_back({{"name", p.name}, {"range", p.range}});
  nlohmann::json props = nlohmann::json::array();
  for (const auto& p : properties())
    if (p.op == op.name) props.push_back(p.name);
  nlohmann::json tolerance = nullptr;  // null: exact, bit for bit
  if (const Tolerance* t = ToleranceTable::builtin().find(op.name, op.dtype))
    tolerance = {{"limit", t->limit}, {"text", t->text()}, {"why", t->why}};
  return {{"name", op.name},       {"family", op.group},   {"symbol", op.symbol},
          {"dtype", std::string(dtype_name(op.dtype))}, {"summary", op.summary}, {"params", params},
          {"domain", op.domain},   {"tolerance", tolerance}, {"properties", props}};
}

void print_op(const nlohmann::json& e) {
  std::cout << e["name"].get<std::string>() << "  (" << e["symbol"].get<std::string>() << ", "
            << e["dtype"].get<std::string>() << ", family " << e["family"].get<std::string>() << ")\n  "
            << e["summary"].get<std::string>() << "\n";
  for (const auto& p : e["params"])
    std::cout << "  param " << p["name"].get<std::string>() << ": " << p["range"].get<std::string>() << "\n";
  std::cout << "  domain: " << e["domain"].get<std::string>() << "\n";
  if (e["tolerance"].is_null())
    std::cout << "  tolerance: exact (bit for bit)\n";
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
  ArgReader in("list", args);
  while (in.next()) {
    if (in.arg() == "--family") family = in.single_value();
    else if (in.arg() == "--backend") backend = in.single_value();
    else if (in.arg() == "--format") format = in.single_value();
    else if (in.arg().rfind("--", 0) == 0) throw unknown_option("list", in.arg());
    else if (pattern.empty()) pattern = in.arg();
    else throw UsageError("list takes one PATTERN, got '" + pattern + "' and '" + in.arg() + "'");
  }
  if (format != "text" && format != "json") throw UsageError("--format takes text or json, not '" + format + "'");
  std::vector<std::string> families;
  for (const OpSpec& op : catalog())
    if (std::find(families.begin(), families.end(), op.group) == families.end()) families.push_back(op.group);
  if (!family.empty() && std::find(families.begin(), families.end(), family) == families.end()) {
    std::string known;
    for (const auto& f : families) known += (known.empty() ? "" : ", ") + f;
    throw UsageError("unknown family '" + family + "'" + did_you_mean(family, families) + "; the families: " + known);
  }
  std::vector<Backend> exporting;
  if (!backend.empty()) exporting = resolve_backends(backend);
  if (!exporting.empty() && !exporting.front().load_failure.empty())
    throw BackendError("--backend " + backend + ": " + exporting.front().library + " " +
                       exporting.front().load_failure + ", so what it exports is unknown");
  nlohmann::json entries = nlohmann::json::array();
  for (const OpSpec& op : catalog()) {
    if (!pattern.empty() && !contains_ignoring_case(op.name, pattern)) continue;
    if (!family.empty() && op.group != family) continue;
    if (!exporting.empty() && exporting.front().symbol(op.symbol) == nullptr) continue;
    entries.push_back(op_entry(op));
  }
  if (entries.empty() && !pattern.empty()) {
    std::vector<std::string> names;
    for (const OpSpec& op : catalog()) names.push_back(op.name);
    throw UsageError("no op matches '" + pattern + "'" + did_you_mean(pattern, names));
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

bool selected(const std::vector<std::string>& chosen, const std::string& name) {
  if (chosen.empty()) return true;
  for (const auto& c : chosen)
    if (c == name) return true;
  return false;
}

// What a finding adds about its reproducer: "   (or: KONFORM repro PATH)",
// with --tolerances when the check used a table of its own. If the file
// cannot be written, the error is printed and noted instead: the finding
// stands either way.
std::string repro_note(const CheckArgs& a, const std::function<std::string()>& write) {
  try {
    const std::string path = write();
    if (path.empty()) return "";
    return "   (or: " + repro_command(path, a.tolerances) + ")";
  } catch (const std::exception& e) {
    clear_progress();
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

// The properties of `op` this run checks, in catalog order.
std::vector<const Property*> chosen_properties(const OpSpec& op, const CheckArgs& a) {
  std::vector<const Property*> out;
  if (a.no_properties || a.only_case >= 0) return out;
  for (const Property& p : properties())
    if (p.op == op.name && selected(a.properties, p.name)) out.push_back(&p);
  return out;
}

// A property's deadline: its runs of random cases, --timeout the ceiling.
double property_deadline(const CheckArgs& a) { return a.timeout_given ? a.timeout_s : std::min(a.timeout_s, 120.0); }

// A case's deadline: derived from its size, or --timeout itself where the
// user gave one (a slow backend, such as the CPU emulation of CUDA).
double case_deadline_of(const Case& c, const CheckArgs& a) {
  return a.timeout_given ? a.timeout_s : case_deadline(c, a.timeout_s);
}

// Where an op's check stands: its result so far and the next piece of work.
struct OpState {
  OpResult result;
  int64_t next_case = 0;
  size_t next_property = 0;
};

std::string state_json(const OpState& s) {
  const nlohmann::json j = {
      {"next_case", s.next_case},
      {"next_property", s.next_property},
      {"judged_valid_cases", s.result.judged_valid_cases},
      {"spread", spread_to_json(s.result.spread)},
      {"result", to_json(s.result)}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A state the child sent; nullopt when its text is no such state (the
// checksum held, so it was corrupted in the child before it was sent).
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

// In the child: the sweep from sweep.resume_at (but sweep.skip), then the
// properties from first_property, the state sent after each property and
// after a case at most every 0.1 s, so that a crash loses little.
std::string check_op_child(const Backend& b, const OpSpec& op, const CheckArgs& a, const SweepOptions& sweep,
                           size_t first_property, ChildChannel& channel) {
  OpState s;
  s.result = result_for(b, op);
  const auto [first, last] = case_range(sweep);
  s.next_case = a.properties.empty() ? std::max(first, sweep.resume_at) : last;  // --property alone: no sweep
  s.next_property = first_property;
  auto sent = std::chrono::steady_clock::now();
  auto send = [&] {
    channel.checkpoint(state_json(s));
    sent = std::chrono::steady_clock::now();
  };
  // A child after another stopped sends its state after every case: a
  // kernel that crashes at many cases then costs each case once, not the
  // cases since the last state again in every child.
  const bool after_a_stop = !sweep.skip.empty() || sweep.resume_at > first || !sweep.fence_inputs;
  if (s.next_case < last) {
    sweep_op(
        b, op, sweep, s.result,
        [&](int64_t i, const Case& c) {
          channel.progress(i, c.label, case_deadline_of(c, a));
          if (a.verbose) std::fprintf(stderr, "  %s %s case %lld: %s\n", b.name.c_str(), op.name.c_str(),
                                      static_cast<long long>(i), c.label.c_str());
        },
        [&](int64_t i, const std::string& failed) {
          if (a.verbose && !failed.empty())
            std::fprintf(stderr, "  FAIL %s %s case %lld: %s\n", b.name.c_str(), op.name.c_str(),
                         static_cast<long long>(i), failed.c_str());
          channel.require_intact();
          s.next_case = i + 1;
          if (after_a_stop || std::chrono::steady_clock::now() - sent > std::chrono::milliseconds(100)) send();
        });
    s.next_case = last;
  }
  const std::vector<const Property*> props = chosen_properties(op, a);
  for (; s.next_property < props.size(); ++s.next_property) {
    send();
    const Property& p = *props[s.next_property];
    channel.progress(-1, "property " + p.name, property_deadline(a));
    const PropertyOutcome o = check_property(p, b, a.seed, static_cast<int>(a.property_runs));
    CheckSummary& c = s.result.check(p.name, "property");
    if (!o.not_run.empty()) {  // a companion op the backend lacks: shown, neither passed nor failed
      c.reason = o.not_run;
      continue;
    }
    c.profile = p.profile;
    c.runs += o.runs + (o.passed ? 0 : 1);
    if (o.passed) continue;
    ++c.failures;
    Finding f;
    f.check = p.name;
    f.profile = p.profile;
    f.message = o.message;
    f.reproduce = property_command(b, op.name, p.name, sweep.seed, sweep.tolerances_file) + (p.profile.empty() ? "" : " --profile strict") +
                  (o.reproduce.empty() ? "" : "   (RapidCheck: RC_PARAMS=\"reproduce=" + o.reproduce + "\")");
    if (!a.repro_dir.empty())
      f.reproduce += repro_note(a, [&] {
        return write_property_reproducer(a.repro_dir, p, b, sweep, static_cast<int>(a.property_runs), f);
      });
    s.result.fail(f);
  }
  return state_json(s);
}

// Records f, keeping per check the finding of the earliest case: children
// report out of order when one resumes after another's crash.
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

// Adds what one child found to the op's result.
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

// The case (else the property) where a finding happened, and how to replay it
// (with --repro-dir, a reproducer written for it too).
void locate(Finding& f, int64_t index, const std::string& label, const Backend& b, const OpSpec& op,
            const CheckArgs& a, const SweepOptions& sweep) {
  f.case_index = index;
  f.case_label = label;
  if (index < 0) {
    if (label.rfind("property ", 0) == 0)
      f.reproduce = property_command(b, op.name, label.substr(9), sweep.seed, sweep.tolerances_file);
    return;
  }
  f.reproduce = replay_command(b, op.name, a.seed, index, sweep.tolerances_file);
  if (!a.repro_dir.empty())
    f.reproduce += repro_note(a, [&] { return write_sweep_reproducer(a.repro_dir, b, op, sweep, index, f); });
}

// The finding of a child that stopped early: a fault the guard pages named,
// else a crash, a hang or a corrupted result channel, where it happened.
Finding stop_finding(const ChildOutcome& o, const Backend& b, const OpSpec& op, const CheckArgs& a,
                     const SweepOptions& sweep) {
  Finding f;
  int64_t index = o.last_case;
  std::string label = o.last_label;
  if (o.fault) {
    f.check = o.fault->check;
    f.message = std::string(o.fault->message) + " (" + o.detail + ")";
    f.output = o.fault->arg;
    if (o.fault->case_index != index && o.fault->case_index >= 0) {
      index = o.fault->case_index;
      label = sweep_case(op, sweep.seed, index).label;
    }
  } else if (o.status == ChildOutcome::timeout) {
    f.check = "no_hang";
    f.message = "hung: " + o.detail;
  } else if (o.status == ChildOutcome::corrupted) {
    f.check = "result_channel_intact";
    f.message = o.detail;
  } else {
    f.check = "no_crash";
    f.message = "crashed: " + o.detail;
  }
  locate(f, index, label, b, op, a, sweep);
  return f;
}

// RLIMIT_AS in the children, except where a GPU runtime reserves address
// space by the terabyte.
bool limit_address_space(const Backend& b) {
  return b.name.find("cuda") == std::string::npos && b.library.find("cuda") == std::string::npos;
}

// Everything one op gets on one backend: the sweep, then its properties,
// in children. A child that crashes, hangs or corrupts its channel is one
// finding where it stopped; a fresh child goes on after that case or
// property, so the verdicts before and after it stand. After a read past an
// input in a case's fenced call, that case and the rest are judged without it.
OpResult check_op(const Backend& b, const OpSpec& op, const CheckArgs& a, const SweepOptions& options) {
  OpResult total = result_for(b, op);
  if (b.symbol(op.symbol) == nullptr) {
    total.verdict = "unsupported";
    return total;
  }
  const auto start = std::chrono::steady_clock::now();
  SweepOptions sweep = options;
  const auto [first, last] = case_range(sweep);
  const size_t property_count = chosen_properties(op, a).size();
  IsolateOptions io;
  io.timeout_s = a.timeout_s;
  io.what = op.name + " on " + b.name;
  io.total = last;
  io.limit_address_space = limit_address_space(b);
  OpState at;
  at.next_case = a.properties.empty() ? first : last;
  bool hung = false, crashed = false;
  int64_t fenced_read_case = -1;  // the case whose fenced call read past an input
  constexpr int kMaxHangs = 3, kMaxChildren = 100;
  for (int child = 1;; ++child) {
    sweep.resume_at = at.next_case;
    const size_t first_property = at.next_property;
    const ChildOutcome o = run_isolated(
        [&](ChildChannel& channel) { return check_op_child(b, op, a, sweep, first_property, channel); }, io);
    if (o.status == ChildOutcome::harness_error)
      throw std::runtime_error(op.name + " on " + b.name + ": " + o.detail);
    // The last state that arrived intact; a later one that is no state is
    // corruption too.
    bool garbled = false;
    std::vector<const std::string*> states;
    for (const auto& c : o.checkpoints) states.push_back(&c);
    if (o.status == ChildOutcome::ok) states.push_back(&o.payload);
    std::optional<OpState> reached;
    for (auto it = states.rbegin(); it != states.rend() && !reached; ++it) {
      reached = parse_state(**it);
      garbled |= !reached;
    }
    if (reached) {
      merge(total, reached->result);
      at.next_case = std::max(at.next_case, reached->next_case);
      at.next_property = std::max(at.next_property, reached->next_property);
    }
    if (o.strays && total.check("no_stray_processes", "sweep").failures == 0) {
      Finding s;
      s.check = "no_stray_processes";
      s.message = "processes the backend started were still running after the op's child had ended (konform killed them)";
      CheckSummary& sc = total.check(s.check, "sweep");
      ++sc.runs;
      ++sc.failures;
      total.fail(s);
    }
    if (o.status == ChildOutcome::ok && !garbled) break;
    ChildOutcome stopped = o;
    if (o.status == ChildOutcome::ok) {  // intact frames, text that is no state
      stopped.status = ChildOutcome::corrupted;
      stopped.detail = "the backend corrupted konform's result channel: a result that is not the one konform sent";
    }
    const Finding f = stop_finding(stopped, b, op, a, sweep);
    // A read past an input faults in the case's fenced call, or (far enough
    // past) in its judged calls too, when the case is run again: one finding.
    const bool read_fault = stopped.fault && stopped.fault->check == std::string("no_read_out_of_bounds") &&
                            stopped.fault->case_index == stopped.last_case;
    const bool read_again = read_fault && stopped.last_case == fenced_read_case;
    CheckSummary& c = total.check(f.check, f.check.rfind("no_", 0) == 0 || f.check == "result_channel_intact"
                                               ? "sweep" : "property");
    if (!read_again) {
      ++c.runs;
      ++c.failures;
      fail_earliest(total, f);
    }
    if (stopped.last_case < 0 && stopped.last_label.rfind("property ", 0) == 0) {
      CheckSummary& p = total.check(stopped.last_label.substr(9), "property");  // it ran, and did not pass
      ++p.runs;
      ++p.failures;
    }
    hung |= stopped.status == ChildOutcome::timeout;
    crashed |= stopped.status == ChildOutcome::crashed && !stopped.fault;
    // On from the piece after the one it stopped in.
    if (o.status == ChildOutcome::ok && at.next_case >= last && at.next_property >= property_count) break;
    if (read_fault && sweep.fence_inputs && stopped.last_case >= at.next_case) {
      sweep.fence_inputs = false;  // found: this case again, and the rest, judged without the fenced call
      fenced_read_case = stopped.last_case;
      at.next_case = stopped.last_case;
    } else if (stopped.last_case >= at.next_case) {
      sweep.skip.insert(stopped.last_case);
    } else if (at.next_case < last) {
      sweep.skip.insert(at.next_case);  // stopped between cases: skip the next one
    } else {
      ++at.next_property;
    }
    const int hangs = static_cast<int>(total.check("no_hang", "sweep").failures);
    if (hangs >= kMaxHangs || child >= kMaxChildren) {
      for (Finding& g : total.findings)
        if (g.check == f.check)
          g.message += hangs >= kMaxHangs ? "; after 3 hangs the op's remaining cases and properties were not run"
                                          : "; after 100 children the op's remaining cases and properties were not run";
      break;
    }
    int64_t next = at.next_case;
    while (next < last && sweep.skip.count(next) != 0) ++next;
    if (next >= last && at.next_property >= property_count) break;
  }
  total.settle_unsupported();
  if (hung) total.verdict = "timeout";
  else if (crashed) total.verdict = "crashed";
  // Could the sweep's data have caught a wrong kernel? (--case N replays one
  // case to reproduce a finding: not a sweep to judge so.)
  if (a.only_case < 0) total.settle_mistrusted();
  if (!a.repro_dir.empty())
    for (Finding& f : total.findings)
      if (f.case_index >= 0 && f.reproduce.find("   (or: ") == std::string::npos &&
          f.reproduce.find("(no reproducer") == std::string::npos)
        f.reproduce += repro_note(a, [&] { return write_sweep_reproducer(a.repro_dir, b, op, sweep, f.case_index, f); });
  total.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return total;
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

// What every chosen op gets on a library that could not be loaded (its
// constructor crashed, exited or hung in the child that loaded it first):
// one finding, library_loads, and nothing called. Its replay line loads it again.
OpResult load_failed(const Backend& b, const OpSpec& op, const CheckArgs& a, const SweepOptions& sweep) {
  OpResult r = result_for(b, op);
  Finding f;
  f.check = "library_loads";
  f.message = b.library + " " + b.load_failure;
  f.reproduce = replay_command(b, op.name, a.seed, 0, sweep.tolerances_file);
  CheckSummary& c = r.check(f.check, "sweep");
  c.runs = 1;
  c.failures = 1;
  r.fail(f);
  return r;
}

// One op on one backend, as the run's report has it: a library that could
// not be loaded or cannot run here, else the op checked in children. Throws
// a runtime_error for konform's own error.
OpResult run_task(const Backend& b, const OpSpec& op, const CheckArgs& a, const SweepOptions& sweep) {
  if (!b.load_failure.empty()) return load_failed(b, op, a, sweep);
  if (!b.unavailable.empty()) return not_run(b, op);
  OpResult checked = check_op(b, op, a, sweep);
  if (a.profile == "strict" && checked.strict_failed && (checked.verdict == "pass" || checked.verdict == "mistrusted"))
    checked.verdict = "fail";  // --profile strict: the strict checks count
  return checked;
}

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
    else
      std::printf(" unsupported: the backend does not export %s\n", r.symbol.c_str());
    return;
  }
  std::printf(" %5lld cases", static_cast<long long>(r.cases));
  if (r.unsupported_cases > 0) std::printf(" (%lld unsupported)", static_cast<long long>(r.unsupported_cases));
  print_max_error(r);
  if (r.strict_limit > 0) std::printf(" (strict %.3g: %s)", r.strict_limit, r.strict_failed || r.verdict == "fail" ? "fails" : "holds");
  int props = 0;
  for (const auto& c : r.checks) props += c.kind == "property";
  std::printf("  %d properties  %.1fs\n", props, r.seconds);
  if (r.unsupported_cases > 0)
    std::printf("      %lld cases unsupported: \"%s\" (TL_ERR_UNSUPPORTED, not judged)\n",
                static_cast<long long>(r.unsupported_cases), r.unsupported_message.c_str());
  for (const auto& c : r.checks) {
    if (!c.reason.empty()) std::printf("      NOT RUN %s: %s\n", c.name.c_str(), c.reason.c_str());
    if (!c.mistrusted.empty() && c.failures == 0)
      std::printf("      MISTRUSTED %s: %s\n", c.name.c_str(), c.mistrusted.c_str());
  }
  for (const Finding& f : r.findings) {
    std::printf("      %s%s%s: %s\n", f.profile.empty() ? "" : "[strict profile] ", f.check.c_str(),
                f.cause.empty() ? "" : (" [" + f.cause + "]").c_str(), f.message.c_str());
    if (f.cases > 1 || !f.cause.empty())
      std::printf("        in %lld case%s%s\n", static_cast<long long>(f.cases), f.cases == 1 ? "" : "s",
                  f.cause.empty() ? "" : (", " + std::to_string(f.elements) + " elements").c_str());
    if (f.case_index >= 0) std::printf("        case %lld: %s\n", static_cast<long long>(f.case_index), f.case_label.c_str());
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
  std::unique_ptr<ToleranceTable> custom;
  SweepOptions sweep;
  sweep.seed = a.seed;
  sweep.cases = a.cases;
  sweep.only_case = a.only_case;
  sweep.flush_subnormals = a.flush_subnormals;
  set_flush_subnormals(a.flush_subnormals);  // the properties' policy too
  if (!a.tolerances.empty()) {
    custom = std::make_unique<ToleranceTable>(ToleranceTable::parse(read_file(a.tolerances), a.tolerances));
    for (const std::string& note : custom->notes()) warn_former_name(note);
    sweep.tolerances = custom.get();
    sweep.tolerances_file = a.tolerances;
  }
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
  set_load_timeout(a.timeout_s);
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
  OutputFile sarif_file = a.sarif.empty() ? OutputFile() : OutputFile(a.sarif, "SARIF");
  run.command = command_line;
  run.seed = a.seed;
  run.cases = a.cases;
  run.flush_subnormals = a.flush_subnormals;
  run.profile = a.profile;
  if (!a.quiet)
    std::printf("konform check: %zu backend(s) x %zu op(s), seed %llu, %lld cases per op, subnormals %s, profile %s\n",
                backends.size(), ops.size(), static_cast<unsigned long long>(a.seed), static_cast<long long>(a.cases),
                a.flush_subnormals ? "flush (--flush-subnormals)" : "strict", a.profile.c_str());

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
        take(run_task(*b, *op, a, sweep), "");
      } catch (const std::runtime_error& e) {
        take(std::nullopt, e.what());
      }
    }
  } else {
    run_in_workers(
        tasks.size(), a.jobs,
        [&](size_t i) {
          OpState s;
          s.result = run_task(*tasks[i].first, *tasks[i].second, a, sweep);
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
            return take(std::nullopt, o.lost ? tasks[i].second->name + " on " + tasks[i].first->name + ": " + o.error
                                             : o.error);
          std::optional<OpState> s = parse_state(o.payload);
          if (!s) return take(std::nullopt, tasks[i].second->name + " on " + tasks[i].first->name +
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
