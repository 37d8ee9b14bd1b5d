// Two JSON reports compared, for gating a change on what it made worse: new
// failures, checks that fail anew inside an op that already failed, ops that
// became unsupported, and error growth within the limit.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace konform {

// A report that is not a konform report, or not one that can be compared.
struct DiffError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct DiffOptions {
  // Error growth counts when the worst error, as a share of the op's limit,
  // is above `growth` times the old share and above `share` of the limit.
  double growth = 1.5;
  double share = 0.5;
};

// One change between the two reports, for one op on one backend.
struct DiffEntry {
  // new_failure, failing_check, newly_unsupported, newly_mistrusted, error_growth (regressions);
  // fixed, newly_not_run, only_in_old, only_in_new (reported, not regressions).
  std::string kind;
  std::string op, backend;
  std::string check;                 // the check concerned, "" for the op as a whole
  std::string old_state, new_state;  // verdicts, or shares of the limit ("0.41 of 8 u")
  std::string detail;                // one line for people
  bool regression = false;
};

struct ReportDiff {
  std::vector<DiffEntry> entries;
  int regressions = 0;
  int compared = 0;  // (op, backend) pairs present in both reports
};

// Throws DiffError naming `old_name` or `new_name` when a report is not a
// konform-report/1 object with a results array.
ReportDiff diff_reports(const nlohmann::json& old_report, const nlohmann::json& new_report, const DiffOptions& options,
                        const std::string& old_name, const std::string& new_name);

nlohmann::json diff_to_json(const ReportDiff& d, const DiffOptions& options, const std::string& old_name,
                            const std::string& new_name);
std::string diff_to_text(const ReportDiff& d);
// A summary for a pull-request comment: the regressions as a table, the rest counted.
std::string diff_to_markdown(const ReportDiff& d, const std::string& old_name, const std::string& new_name);

}  // namespace konform
