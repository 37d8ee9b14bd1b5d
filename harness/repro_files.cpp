#include "konform/repro_files.hpp"

#include <rapidcheck.h>

#include "konform/call.hpp"
#include "konform/judge.hpp"
#include "konform/replay.hpp"
#include "konform/repro.hpp"
#include "konform/sweep.hpp"
#include "konform/tolerance.hpp"
#include "quiet_listener.hpp"

namespace konform {

std::string write_sweep_reproducer(const std::string& dir, const Backend& b, const OpSpec& op,
                                   const SweepOptions& sweep, int64_t index, const Finding& finding) {
  const uint64_t seed = sweep.seed;
  Reproducer r;
  r.op = op.name;
  r.c = sweep_case(op, seed, index);
  r.misalign = static_cast<size_t>(index % 2) * 4;  // as the sweep called it
  r.backend = replay_backend(b);
  r.library = library_file(b.library);
  r.source = "sweep";
  r.finding = finding;
  r.provenance = {
      {"seed", seed}, {"case", index}, {"command", replay_command(b, op.name, seed, index, sweep.tolerances_file)}};
  return write_reproducer(r, dir);
}

std::string write_property_reproducer(const std::string& dir, const Property& p, const Backend& b,
                                      const SweepOptions& sweep, int runs, const Finding& finding) {
  const uint64_t seed = sweep.seed;
  const auto [metadata, params] = rc_run(p.op, p.name, seed, runs);
  QuietListener quiet;
  b.activate();
  const auto property = rc::detail::toProperty([&] { p.body(b); });
  // The same seed and runs fail the same way: this run yields the shrink path.
  const auto first = rc::detail::checkProperty(property, metadata, params, quiet, {});
  if (!first.template is<rc::detail::FailureResult>()) return "";
  const auto& failure = first.template get<rc::detail::FailureResult>();

  CallRecorder recorder;
  (void)rc::detail::checkProperty(property, metadata, params, quiet, {{metadata.id, failure.reproduce}});
  if (recorder.calls.empty()) return "";
  // The call the property's claim was about: the first that fails on its own.
  const auto* chosen = &recorder.calls.back();
  for (const auto& call : recorder.calls) {
    const OpSpec& op = *call.first;
    void* fn = b.symbol(op.symbol);
    if (fn == nullptr) continue;
    const Tolerance* tol = sweep.tolerances->find(op.name, op.dtype);  // the check's table, else the built-in one
    if (tol == nullptr) tol = ToleranceTable::builtin().find(op.name, op.dtype);
    const CaseVerdict v = judge_case(b, op, fn, call.second, tol, CallOptions{0, true});
    if (!v.ok()) {
      chosen = &call;
      break;
    }
  }
  Reproducer r;
  r.op = chosen->first->name;
  r.c = chosen->second;
  r.c.label = "property " + p.name + ", RapidCheck's shrunk counterexample";
  r.backend = replay_backend(b);
  r.library = library_file(b.library);
  r.source = "property";
  r.finding = finding;
  r.provenance = {{"property", p.name},
                  {"seed", seed},
                  {"runs", runs},
                  {"calls_in_counterexample", recorder.calls.size()},
                  {"command", property_command(b, p.op, p.name, seed, sweep.tolerances_file)}};
  return write_reproducer(r, dir);
}

}  // namespace konform
