// The JSON report of a run (schema: reports/report.schema.json), and the
// JSON form of one op's result, which also carries results out of the
// isolated child process.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "konform/result.hpp"

namespace konform {

nlohmann::json to_json(const OpResult& r);
// Throws std::runtime_error naming the missing or mistyped field.
OpResult op_result_from_json(const nlohmann::json& j);

struct RunInfo {
  std::string command;  // the command line as run
  uint64_t seed = 0;
  int64_t cases = 0;
  std::vector<std::string> backends;
  std::vector<nlohmann::json> backend_details;  // name, kind, library, target
};

nlohmann::json make_report(const RunInfo& run, const std::vector<OpResult>& results);

// The machine: CPU model, cores, OS; and the build: compiler, flags, version.
nlohmann::json machine_info();
nlohmann::json build_info();

}  // namespace konform
