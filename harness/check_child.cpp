#include "konform/check_child.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "konform/locate.hpp"
#include "konform/op_state.hpp"
#include "konform/properties.hpp"
#include "konform/replay.hpp"
#include "konform/repro_files.hpp"

namespace konform {

namespace {

// A property's deadline: its runs of random cases, --timeout the ceiling.
double property_deadline(const CheckOptions& options) {
  return options.timeout_given ? options.timeout_s : std::min(options.timeout_s, 120.0);
}

// A case's deadline: derived from its size, or --timeout itself where the
// user gave one (a slow backend, such as the CPU emulation of CUDA).
double case_deadline_of(const Case& c, const CheckOptions& options) {
  return options.timeout_given ? options.timeout_s : case_deadline(c, options.timeout_s);
}

}  // namespace

std::string check_op_child(const Backend& b, const OpSpec& op, const CheckOptions& options, const SweepOptions& sweep,
                           size_t first_property, ChildChannel& channel) {
  OpState s;
  s.result = result_for(b, op);
  const auto [first, last] = case_range(sweep);
  s.next_case = options.properties.empty() ? std::max(first, sweep.resume_at) : last;  // --property alone: no sweep
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
          channel.progress(i, c.label, case_deadline_of(c, options));
          if (options.verbose)
            std::fprintf(stderr, "  %s %s case %lld: %s\n", b.name.c_str(), op.name.c_str(), static_cast<long long>(i),
                         c.label.c_str());
        },
        [&](int64_t i, const std::string& failed) {
          if (options.verbose && !failed.empty())
            std::fprintf(stderr, "  FAIL %s %s case %lld: %s\n", b.name.c_str(), op.name.c_str(),
                         static_cast<long long>(i), failed.c_str());
          channel.require_intact();
          s.next_case = i + 1;
          if (after_a_stop || std::chrono::steady_clock::now() - sent > std::chrono::milliseconds(100)) send();
        });
    s.next_case = last;
  }
  const std::vector<const Property*> props = chosen_properties(op, options);
  for (; s.next_property < props.size(); ++s.next_property) {
    const Property& p = *props[s.next_property];
    if (sweep.settled(s.result)) {  // --fail-fast: shown, neither passed nor failed
      s.result.check(p.name, "property").reason = "not run: --fail-fast, the op had failed before it";
      continue;
    }
    send();
    channel.progress(-1, "property " + p.name, property_deadline(options));
    const PropertyOutcome o = check_property(p, b, sweep.seed, static_cast<int>(options.property_runs));
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
    f.reproduce = property_replay(b, op.name, p.name, sweep.seed, sweep.tolerances_file, p.profile, o.reproduce);
    if (!options.repro_dir.empty())
      f.reproduce += repro_note(options, [&] {
        return write_property_reproducer(options.repro_dir, p, b, sweep, static_cast<int>(options.property_runs), f);
      });
    s.result.fail(f);
  }
  return state_json(s);
}

}  // namespace konform
