// The MISTRUSTED verdict (harness/konform/result.hpp): which sweeps' data
// could not have caught a wrong kernel, and how such a result reads in the
// report, its validation and `konform diff`. On synthetic results: the rule
// alone, every branch of it, with no backend.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "konform/report.hpp"
#include "konform/report_diff.hpp"
#include "konform/result.hpp"

namespace konform {
namespace {

// A result of `cases` judged cases of one op whose matches_oracle passed.
OpResult swept(int64_t cases) {
  OpResult r;
  r.op = "Relu";
  r.symbol = "tl_relu_f32";
  r.dtype = "f32";
  r.backend = "theirs";
  r.cases = cases;
  r.judged_valid_cases = cases;
  r.check("matches_oracle", "sweep").runs = cases;
  r.check("output_fully_written", "sweep").runs = cases;
  return r;
}

OutputSpread spread_of(const std::vector<double>& values, bool exact = false, int64_t cases = 1) {
  OutputSpread s;
  s.exact = exact;
  s.cases = cases;
  for (double v : values) s.add(v);
  return s;
}

TEST(Mistrusted, SpreadCountsZerosAndKeepsFewDistinctValues) {
  const OutputSpread s = spread_of({0.0, -0.0, NAN, -NAN, 1.0, 2.0, 3.0});
  EXPECT_EQ(s.elements, 7);
  EXPECT_EQ(s.nonzero, 5);                            // NaN is no zero
  EXPECT_EQ(s.distinct.size(), OutputSpread::kKept);  // 0 (either sign), NaN (any), 1; then full
  OutputSpread merged = spread_of({5.0});
  merged.merge(spread_of({5.0, 5.0}, false, 2));
  EXPECT_EQ(merged.cases, 3);
  EXPECT_EQ(merged.distinct.size(), 1u);
}

TEST(Mistrusted, VariedDataIsTrusted) {
  OpResult r = swept(10);
  r.spread["y"] = spread_of({0.0, 0.5, -1.25, 3.0}, false, 10);
  EXPECT_EQ(undiscriminating(r), "");
  r.settle_mistrusted();
  EXPECT_EQ(r.verdict, "pass");
  EXPECT_EQ(r.check("matches_oracle", "sweep").mistrusted, "");
}

TEST(Mistrusted, AllZeroExpectedValues) {
  OpResult r = swept(4);
  r.spread["y"] = spread_of({0.0, -0.0, 0.0}, false, 4);
  r.spread["index"] = spread_of({0.0}, true, 4);
  const std::string why = undiscriminating(r);
  EXPECT_NE(why.find("is zero: a kernel writing zeros would pass"), std::string::npos) << why;
  // Even one element: zero is what a kernel that computes nothing writes.
  OpResult one = swept(1);
  one.spread["y"] = spread_of({0.0});
  EXPECT_NE(undiscriminating(one), "");
}

TEST(Mistrusted, OneConstantNeedsEnoughElements) {
  OpResult r = swept(3);
  r.spread["y"] = spread_of({1.0, 1.0, 1.0}, false, 3);
  EXPECT_NE(undiscriminating(r).find("is 1: a kernel writing that constant would pass"), std::string::npos);
  // One element is no pattern: a wrong kernel would have to hit its value by chance.
  OpResult one = swept(1);
  one.spread["y"] = spread_of({0.73});
  EXPECT_EQ(undiscriminating(one), "");
}

TEST(Mistrusted, ConstantsAcrossOutputsCountTogether) {
  // An invariant flag always 1 beside varied data (KvCache's `stable`): trusted.
  OpResult r = swept(5);
  r.spread["stable"] = spread_of({1.0, 1.0, 1.0, 1.0, 1.0}, true, 5);
  r.spread["views"] = spread_of({0.25, -3.0, 7.5}, true, 5);
  EXPECT_EQ(undiscriminating(r), "");
}

TEST(Mistrusted, TooFewDistinctValuesOfAToleranceOutput) {
  OpResult r = swept(3);
  r.spread["y"] = spread_of({1.0, 0.0, 1.0, 0.0}, false, 3);  // softmax over rows of one
  const std::string why = undiscriminating(r);
  EXPECT_NE(why.find("the expected values of y over 3 cases (4 elements) take only 2 distinct values"),
            std::string::npos)
      << why;
  // Exact outputs (indices, copies) may take few values: not judged so.
  OpResult exact = swept(3);
  exact.spread["index"] = spread_of({1.0, 0.0, 1.0, 0.0}, true, 3);
  EXPECT_EQ(undiscriminating(exact), "");
}

TEST(Mistrusted, EveryCaseRefused) {
  OpResult r = swept(6);
  r.judged_valid_cases = 0;  // each case one the op must refuse: only the status compared
  EXPECT_NE(undiscriminating(r).find("one the op must refuse"), std::string::npos);
}

TEST(Mistrusted, EmptyOutputs) {
  OpResult r = swept(2);
  r.spread["y"] = spread_of({}, false, 2);
  EXPECT_NE(undiscriminating(r).find("was empty"), std::string::npos);
}

TEST(Mistrusted, NoSweepNoVerdictAboutItsData) {
  OpResult properties_only;  // --property alone: matches_oracle never ran
  properties_only.check("add_in_place", "property").runs = 100;
  EXPECT_EQ(undiscriminating(properties_only), "");
  OpResult verify_only = swept(5);  // outputs judged by the op's verify hook alone
  EXPECT_EQ(undiscriminating(verify_only), "");
}

TEST(Mistrusted, SettlingKeepsFailuresAndOtherVerdicts) {
  OpResult passed = swept(4);
  passed.spread["y"] = spread_of({0.0, 0.0}, false, 4);
  passed.settle_mistrusted();
  EXPECT_EQ(passed.verdict, "mistrusted");
  EXPECT_EQ(passed.reason, passed.check("matches_oracle", "sweep").mistrusted);
  EXPECT_NE(passed.reason, "");

  OpResult failed = swept(4);  // another check failed: the op fails, its oracle check is still mistrusted
  failed.spread["y"] = spread_of({0.0, 0.0}, false, 4);
  Finding f;
  f.check = "output_fully_written";
  f.message = "left unwritten";
  failed.check("output_fully_written", "sweep").failures = 1;
  failed.fail(f);
  failed.settle_mistrusted();
  EXPECT_EQ(failed.verdict, "fail");
  EXPECT_EQ(failed.reason, "");
  EXPECT_NE(failed.check("matches_oracle", "sweep").mistrusted, "");

  OpResult caught = swept(4);  // the oracle check failed: its data discriminated
  caught.spread["y"] = spread_of({0.0, 0.0}, false, 4);
  caught.check("matches_oracle", "sweep").failures = 1;
  caught.verdict = "fail";
  caught.settle_mistrusted();
  EXPECT_EQ(caught.check("matches_oracle", "sweep").mistrusted, "");

  OpResult crashed = swept(4);
  crashed.spread["y"] = spread_of({0.0}, false, 4);
  crashed.verdict = "crashed";
  crashed.settle_mistrusted();
  EXPECT_EQ(crashed.verdict, "crashed");
}

nlohmann::json report_of(const std::vector<OpResult>& results) {
  RunInfo run;
  run.command = "konform check --backend theirs";
  run.backend_details.push_back({{"name", "theirs"}, {"kind", "builtin"}, {"library", ""}, {"target", ""}});
  return make_report(run, results);
}

TEST(Mistrusted, InTheReportNeverAPass) {
  OpResult r = swept(4);
  r.spread["y"] = spread_of({0.0}, false, 4);
  r.settle_mistrusted();
  const nlohmann::json report = report_of({r, swept(2)});
  EXPECT_NO_THROW(validate_report(report));
  const auto& j = report["results"][0];
  EXPECT_EQ(j["verdict"], "mistrusted");
  EXPECT_EQ(j["reason"], r.reason);
  EXPECT_EQ(j["checks"][0]["verdict"], "mistrusted");
  EXPECT_EQ(j["checks"][0]["reason"], r.reason);
  EXPECT_EQ(report["summary"]["mistrusted"], 1);
  EXPECT_EQ(report["summary"]["passed"], 1);
  EXPECT_EQ(report["summary"]["verdict"], "mistrusted");
  // Back from JSON as it went (an isolated child's result travels so).
  const OpResult back = op_result_from_json(j);
  EXPECT_EQ(back.verdict, "mistrusted");
  EXPECT_EQ(back.reason, r.reason);
  EXPECT_EQ(back.checks.front().mistrusted, r.reason);
  EXPECT_EQ(back.checks.front().reason, "");
  // A failure outranks it in the summary.
  OpResult failed = swept(1);
  failed.verdict = "fail";
  Finding f;
  f.check = "matches_oracle";
  failed.findings.push_back(f);
  EXPECT_EQ(report_of({r, failed})["summary"]["verdict"], "fail");
}

TEST(Mistrusted, ReportRejectsAMistrustedResultWithoutItsReason) {
  OpResult r = swept(4);
  r.spread["y"] = spread_of({0.0}, false, 4);
  r.settle_mistrusted();
  nlohmann::json report = report_of({r});
  report["results"][0].erase("reason");
  EXPECT_THROW(validate_report(report), ReportError);
  report = report_of({r});
  report["results"][0]["checks"][0].erase("reason");
  EXPECT_THROW(validate_report(report), ReportError);
  report = report_of({swept(3)});
  report["results"][0]["reason"] = "all zero";  // a pass has no reason
  EXPECT_THROW(validate_report(report), ReportError);
}

TEST(Mistrusted, SpreadTravelsAsJson) {
  std::map<std::string, OutputSpread> spread;
  spread["y"] = spread_of({NAN, INFINITY, 2.0}, true, 3);
  const auto back = spread_from_json(nlohmann::json::parse(spread_to_json(spread).dump()));
  ASSERT_EQ(back.count("y"), 1u);
  EXPECT_TRUE(back.at("y").exact);
  EXPECT_EQ(back.at("y").cases, 3);
  EXPECT_EQ(back.at("y").nonzero, 3);
  ASSERT_EQ(back.at("y").distinct.size(), 3u);
  EXPECT_TRUE(std::isnan(back.at("y").distinct[0]));
  EXPECT_EQ(back.at("y").distinct[1], INFINITY);
}

TEST(Mistrusted, BecomingMistrustedIsARegression) {
  OpResult bad = swept(4);
  bad.spread["y"] = spread_of({0.0}, false, 4);
  bad.settle_mistrusted();
  const nlohmann::json good_report = report_of({swept(4)}), bad_report = report_of({bad});
  const ReportDiff worse = diff_reports(good_report, bad_report, DiffOptions{}, "old", "new");
  EXPECT_EQ(worse.regressions, 1);
  ASSERT_EQ(worse.entries.size(), 1u);
  EXPECT_EQ(worse.entries[0].kind, "newly_mistrusted");
  EXPECT_EQ(worse.entries[0].check, "matches_oracle");
  const ReportDiff same = diff_reports(bad_report, bad_report, DiffOptions{}, "old", "new");
  EXPECT_EQ(same.regressions, 0);
  const ReportDiff better = diff_reports(bad_report, good_report, DiffOptions{}, "old", "new");
  EXPECT_EQ(better.regressions, 0);
  ASSERT_EQ(better.entries.size(), 1u);
  EXPECT_EQ(better.entries[0].kind, "fixed");
}

}  // namespace
}  // namespace konform
