// RapidCheck as konform drives it: a property's test identity, seed and run
// count, and a listener that prints nothing (konform reports verdicts itself).
#pragma once

#include <cstdint>
#include <string>

#include <rapidcheck.h>

namespace konform {

struct QuietListener : rc::detail::TestListener {
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

struct RcRun {
  rc::detail::TestMetadata metadata;
  rc::detail::TestParams params;
};

// The same (op, name, seed, runs) checks the same cases: a failure found by
// one run is found again by a run set up the same way.
inline RcRun rc_run(const std::string& op, const std::string& name, uint64_t seed, int runs) {
  RcRun r;
  r.metadata.id = op + "/" + name;
  r.metadata.description = name;
  r.params.seed = seed;
  r.params.maxSuccess = runs;
  return r;
}

}  // namespace konform
