// The command line of `konform`: parsed and checked before anything runs.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace konform::cli {

// Bad usage: the message says which argument and why; exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CheckArgs {
  std::vector<std::string> backends;
  std::vector<std::string> ops;        // empty: every op in the catalog
  std::vector<std::string> properties; // empty: every property of the chosen ops
  uint64_t seed = 1;
  int64_t cases = 300;
  int64_t only_case = -1;
  int64_t property_runs = 100;
  bool no_properties = false;
  std::string report;                  // JSON report path, "" for none
  std::string junit;                   // JUnit XML path, "" for none
  std::string html;                    // HTML page path, "" for none
  std::string repro_dir;               // write a reproducer per finding here, "" for none
  std::string tolerances;              // a tolerance table to use instead of the built-in one
  double timeout_s = 600;              // per op and backend
  bool verbose = false;
};

CheckArgs parse_check(const std::vector<std::string>& args);
const char* usage();

}  // namespace konform::cli
