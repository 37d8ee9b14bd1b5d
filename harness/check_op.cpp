#include "konform/check_op.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <vector>

#include "konform/check_child.hpp"
#include "konform/isolate.hpp"
#include "konform/locate.hpp"
#include "konform/op_state.hpp"
#include "konform/replay.hpp"
#include "konform/repro_files.hpp"

namespace konform {

namespace {

bool selected(const std::vector<std::string>& chosen, const std::string& name) {
  if (chosen.empty()) return true;
  for (const auto& c : chosen)
    if (c == name) return true;
  return false;
}

}  // namespace

OpResult result_for(const Backend& b, const OpSpec& op) {
  OpResult r;
  r.op = op.name;
  r.symbol = op.symbol;
  r.dtype = std::string(dtype_name(op.dtype));
  r.backend = b.name;
  r.target = b.target;
  return r;
}

std::vector<const Property*> chosen_properties(const OpSpec& op, const CheckOptions& options) {
  std::vector<const Property*> out;
  if (options.no_properties || options.sweep.only_case >= 0) return out;
  for (const Property& p : properties())
    if (p.op == op.name && selected(options.properties, p.name)) out.push_back(&p);
  return out;
}

namespace {

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
OpResult check_op(const Backend& b, const OpSpec& op, const CheckOptions& options) {
  OpResult total = result_for(b, op);
  if (b.symbol(op.symbol) == nullptr) {
    total.verdict = "unsupported";
    return total;
  }
  const auto start = std::chrono::steady_clock::now();
  SweepOptions sweep = options.sweep;
  const auto [first, last] = case_range(sweep);
  const size_t property_count = chosen_properties(op, options).size();
  IsolateOptions io;
  io.timeout_s = options.timeout_s;
  io.what = op.name + " on " + b.name;
  io.total = last;
  io.limit_address_space = limit_address_space(b);
  OpState at;
  at.next_case = options.properties.empty() ? first : last;
  bool hung = false, crashed = false;
  int64_t fenced_read_case = -1;  // the case whose fenced call read past an input
  constexpr int kMaxHangs = 3, kMaxChildren = 100;
  for (int child = 1;; ++child) {
    sweep.resume_at = at.next_case;
    const size_t first_property = at.next_property;
    const ChildOutcome o = run_isolated(
        [&](ChildChannel& channel) { return check_op_child(b, op, options, sweep, first_property, channel); }, io);
    if (o.status == ChildOutcome::harness_error) throw std::runtime_error(op.name + " on " + b.name + ": " + o.detail);
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
      s.message =
          "processes the backend started were still running after the op's child had ended (konform killed them)";
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
    const Finding f = stop_finding(stopped, b, op, options, sweep);
    // A read past an input faults in the case's fenced call, or (far enough
    // past) in its judged calls too, when the case is run again: one finding.
    const bool read_fault = stopped.fault && stopped.fault->check == std::string("no_read_out_of_bounds") &&
                            stopped.fault->case_index == stopped.last_case;
    const bool read_again = read_fault && stopped.last_case == fenced_read_case;
    CheckSummary& c =
        total.check(f.check, f.check.rfind("no_", 0) == 0 || f.check == "result_channel_intact" ? "sweep" : "property");
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
    if (sweep.settled(total) || ((hung || crashed) && sweep.fail_fast)) {  // --fail-fast: no child after it
      for (size_t i = at.next_property; i < property_count; ++i)
        total.check(chosen_properties(op, options)[i]->name, "property").reason =
            "not run: --fail-fast, the op had failed before it";
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
  if (options.sweep.only_case < 0) total.settle_mistrusted();
  if (!options.repro_dir.empty())
    for (Finding& f : total.findings)
      if (f.case_index >= 0 && !has_reproducer_note(f.reproduce))
        f.reproduce += repro_note(
            options, [&] { return write_sweep_reproducer(options.repro_dir, b, op, sweep, f.case_index, f); });
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
OpResult load_failed(const Backend& b, const OpSpec& op, const CheckOptions& options) {
  OpResult r = result_for(b, op);
  Finding f;
  f.check = "library_loads";
  f.message = b.library + " " + b.load_failure;
  f.reproduce = replay_command(b, op.name, options.sweep.seed, 0, options.sweep.tolerances_file);
  CheckSummary& c = r.check(f.check, "sweep");
  c.runs = 1;
  c.failures = 1;
  r.fail(f);
  return r;
}

}  // namespace

OpResult run_task(const Backend& b, const OpSpec& op, const CheckOptions& options) {
  if (!b.load_failure.empty()) return load_failed(b, op, options);
  if (!b.unavailable.empty()) return not_run(b, op);
  OpResult checked = check_op(b, op, options);
  if (options.profile == "strict" && checked.strict_failed &&
      (checked.verdict == "pass" || checked.verdict == "mistrusted"))
    checked.verdict = "fail";  // --profile strict: the strict checks count
  return checked;
}

}  // namespace konform
