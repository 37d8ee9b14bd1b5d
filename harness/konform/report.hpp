// The JSON report of a run (schema: reports/report.schema.json), and the
// JSON form of one op's result, which also carries results out of the
// isolated child process.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "konform/result.hpp"

namespace konform {

// A report, or one result, that does not follow reports/report.schema.json;
// the message names the place: "results[3].findings[0]: missing 'got'".
struct ReportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

nlohmann::json to_json(const OpResult& r);
// Checks j against the schema's result first; throws ReportError naming the
// missing or mistyped field ("result.metrics: missing 'nmse'").
OpResult op_result_from_json(const nlohmann::json& j);
// Checks a whole report against the schema (every field the renderers read
// among them); throws ReportError naming the first place that differs.
void validate_report(const nlohmann::json& report);

struct RunInfo {
  std::string command;  // the command line as run
  uint64_t seed = 0;
  int64_t cases = 0;
  bool flush_subnormals = false;    // the subnormal policy: strict, or flush (--flush-subnormals)
  bool exhaustive = false;          // --exhaustive: the denser case-0 grids
  bool fail_fast = false;           // --fail-fast: each op stopped at its first failure
  std::string profile = "default";  // the profile whose checks decide the verdicts (--profile)
  std::vector<std::string> backends;
  std::vector<nlohmann::json> backend_details;  // name, kind, library, target
};

// The summary's verdict: fail on any failure, else mistrusted when any
// result is, else not_run when anything was not run, else pass.
const char* summary_verdict(int64_t failed, int64_t mistrusted, int64_t not_run);

// OpResult::spread as JSON and back: an isolated child sends it with its
// state (it is not in the report).
nlohmann::json spread_to_json(const std::map<std::string, OutputSpread>& spread);
std::map<std::string, OutputSpread> spread_from_json(const nlohmann::json& j);

nlohmann::json make_report(const RunInfo& run, const std::vector<OpResult>& results);

// The machine: CPU model, cores, OS; and the build: compiler, flags, version.
nlohmann::json machine_info();
nlohmann::json build_info();

}  // namespace konform
