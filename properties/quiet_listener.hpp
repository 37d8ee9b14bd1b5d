// RapidCheck's listener interface, silenced: konform reports verdicts itself.
#pragma once

#include <rapidcheck.h>

namespace konform {

struct QuietListener : rc::detail::TestListener {
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

}  // namespace konform
