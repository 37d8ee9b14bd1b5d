// The command line of `konform`: parsed and checked before anything runs.
#pragma once

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "konform/check_op.hpp"

namespace konform::cli {

// Bad usage: the message says which argument and why; exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The bounds of the numbers the command line takes.
inline constexpr int64_t kMaxCases = 1'000'000'000;     // --cases; --case is below it
inline constexpr int64_t kMaxPropertyRuns = 1'000'000;  // --property-runs

struct CheckArgs {
  std::vector<std::string> backends;
  std::vector<std::string> ops;  // empty: every op in the catalog
  // What the check itself reads: seed, cases, --case, --property,
  // --property-runs, --no-properties, --timeout, --verbose, --repro-dir,
  // --flush-subnormals, --profile and the --tolerances file (its table is
  // read and set by the command, after parsing).
  CheckOptions check;
  std::string report;    // JSON report path, "" for none
  std::string junit;     // JUnit XML path, "" for none
  std::string html;      // HTML page path, "" for none
  std::string sarif;     // SARIF 2.1.0 path, "" for none
  std::string baseline;  // --baseline: a report to diff the run against, "" for none
  int jobs = 1;          // ops checked at once (parse_check: the CPUs, at most 4, by default)
  bool quiet = false;    // only what failed or did not run, and the summary
};

CheckArgs parse_check(const std::vector<std::string>& args);

// check and repro: nothing failed, but a backend could not run something
// asked for (verdict not_run). Such a run never exits 0.
inline constexpr int kExitNotRun = 3;

// The usage text: every command's, or one command's ("check", "repro", ...).
std::string usage(const std::string& command = "");

// Walks a command's arguments. value() takes the option's value: it must be
// there and must not be another option; once() refuses an option given twice.
class ArgReader {
 public:
  ArgReader(std::string command, const std::vector<std::string>& args) : command_(std::move(command)), args_(args) {}
  bool next();  // moves to the next argument; false at the end
  const std::string& arg() const { return args_[i_]; }
  std::string value();  // the current option's value
  void once();          // the current option must not repeat
  std::string single_value() {
    once();
    return value();
  }

 private:
  std::string command_;
  const std::vector<std::string>& args_;
  size_t i_ = static_cast<size_t>(-1);
  std::set<std::string> seen_;
};

// " (did you mean 'X'?)" for the candidate closest to word (case ignored,
// a few edits at most), "" when none is close.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);
// The error for an option `command` does not take, with the closest option
// its usage text names.
UsageError unknown_option(const std::string& command, const std::string& flag);

// The error for an op the catalog lacks, with the closest op name.
UsageError unknown_op(const std::string& name);

// Numbers as the options take them: plain decimal digits, no sign, no
// spaces, no hex, within [min, max]; the message names the option.
int64_t parse_int(const std::string& flag, const std::string& value, int64_t min, int64_t max);
uint64_t parse_uint64(const std::string& flag, const std::string& value);
// Seconds: decimal digits with an optional fraction ("600", "0.5"), above 0
// and at most kMaxTimeoutSeconds. Shared by check and repro.
double parse_seconds(const std::string& flag, const std::string& value);

// Adds name to list, refusing an empty name and a repeat: "--op: empty name".
void add_name(const std::string& flag, const std::string& name, std::vector<std::string>* list);
// The same for each item of a comma-separated list.
void add_names(const std::string& flag, const std::string& value, std::vector<std::string>* list);

// A former op name (OpSpec::former_name) is the op's name now: warn_former_name
// prints the note to stderr; current_op_name returns the name now, and any
// name that is not a former one as it is.
void warn_former_name(const std::string& note);
// Throws a UsageError naming the families when `family` is none of the catalog's.
void check_family(const std::string& family);
std::string current_op_name(const std::string& name);

// Output paths (flag, path; empty paths skipped) must differ from each other
// and from the inputs, or one file would overwrite another.
void check_distinct_paths(const std::vector<std::pair<std::string, std::string>>& paths);

}  // namespace konform::cli
