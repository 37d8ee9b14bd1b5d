#include "repro_files.hpp"

#include <rapidcheck.h>

#include "konform/call.hpp"
#include "konform/judge.hpp"
#include "konform/repro.hpp"
#include "konform/sweep.hpp"
#include "konform/tolerance.hpp"

namespace konform::cli {

namespace {

// RapidCheck's listener interface, silenced: konform reports verdicts itself.
struct Quiet : rc::detail::TestListener {
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

}  // namespace

std::string write_sweep_reproducer(const std::string& dir, const Backend& b, const OpSpec& op, uint64_t seed,
                                   int64_t index, const Finding& finding) {
  Reproducer r;
  r.op = op.name;
  r.c = sweep_case(op, seed, index);
  r.misalign = static_cast<size_t>(index % 2) * 4;  // as the sweep called it
  r.backend = b.name;
  r.source = "sweep";
  r.finding = finding;
  r.provenance = {{"seed", seed}, {"case", index}, {"command", replay_command(b.name, op.name, seed, index)}};
  return write_reproducer(r, dir);
}

std::string write_property_reproducer(const std::string& dir, const Property& p, const Backend& b, uint64_t seed,
                                      int runs, const Finding& finding) {
  rc::detail::TestMetadata metadata;
  metadata.id = p.op + "/" + p.name;
  metadata.description = p.name;
  rc::detail::TestParams params;
  params.seed = seed;
  params.maxSuccess = runs;
  Quiet quiet;
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
    const CaseVerdict v = judge_case(b, op, fn, call.second, ToleranceTable::builtin().find(op.name, op.dtype),
                                     CallOptions{0, true});
    if (!v.ok()) {
      chosen = &call;
      break;
    }
  }
  Reproducer r;
  r.op = chosen->first->name;
  r.c = chosen->second;
  r.c.label = "property " + p.name + ", RapidCheck's shrunk counterexample";
  r.backend = b.name;
  r.source = "property";
  r.finding = finding;
  r.provenance = {{"property", p.name},
                  {"seed", seed},
                  {"runs", runs},
                  {"calls_in_counterexample", recorder.calls.size()},
                  {"command", "konform check --backend " + b.name + " --op " + p.op + " --property " + p.name +
                                  " --seed " + std::to_string(seed)}};
  return write_reproducer(r, dir);
}

}  // namespace konform::cli
