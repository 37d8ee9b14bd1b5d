#include "konform/locate.hpp"

#include <cstdio>
#include <exception>

#include "konform/progress.hpp"
#include "konform/replay.hpp"
#include "konform/repro_files.hpp"

namespace konform {

std::string repro_note(const CheckOptions& options, const std::function<std::string()>& write) {
  try {
    const std::string path = write();
    if (path.empty()) return "";
    return reproducer_note(path, options.sweep.tolerances_file);
  } catch (const std::exception& e) {
    clear_progress();
    std::fprintf(stderr, "konform: a finding's reproducer was not written (the finding stands): %s\n", e.what());
    return no_reproducer_note(e.what());
  }
}

namespace {

// The case (else the property) where a finding happened, and how to replay it
// (with --repro-dir, a reproducer written for it too).
void locate(Finding& f, int64_t index, const std::string& label, const Backend& b, const OpSpec& op,
            const CheckOptions& options, const SweepOptions& sweep) {
  f.case_index = index;
  f.case_label = label;
  if (index < 0) {
    if (label.rfind("property ", 0) == 0)
      f.reproduce = property_command(b, op.name, label.substr(9), sweep.seed, sweep.tolerances_file);
    return;
  }
  f.reproduce = replay_command(b, op.name, sweep.seed, index, sweep.tolerances_file);
  if (!options.repro_dir.empty())
    f.reproduce +=
        repro_note(options, [&] { return write_sweep_reproducer(options.repro_dir, b, op, sweep, index, f); });
}

}  // namespace

Finding stop_finding(const ChildOutcome& o, const Backend& b, const OpSpec& op, const CheckOptions& options,
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
  locate(f, index, label, b, op, options, sweep);
  return f;
}

}  // namespace konform
