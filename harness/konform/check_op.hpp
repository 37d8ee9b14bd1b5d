// The check of one op on one backend: the sweep and the op's properties in
// child processes (isolate.hpp), resumed after a child that crashed, hung or
// corrupted its channel, that stop located as a finding with its replay line
// (and reproducer); a library that could not be loaded or cannot run here is
// a result of its own. `konform check` runs it for every op and backend.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "konform/backend.hpp"
#include "konform/op.hpp"
#include "konform/properties.hpp"
#include "konform/result.hpp"
#include "konform/sweep.hpp"

namespace konform {

// What a check reads of the run's options.
struct CheckOptions {
  SweepOptions sweep;                   // seed, cases, --case, subnormal policy, tolerance table and its file
  std::vector<std::string> properties;  // --property: these alone, and no sweep; empty: all of the op's
  bool no_properties = false;
  int64_t property_runs = 100;      // RapidCheck runs per property
  double timeout_s = 600;           // per op and backend
  bool timeout_given = false;       // --timeout given: it is also each case's and property's deadline
  bool verbose = false;             // each case named on standard error
  std::string repro_dir;            // a reproducer per finding written here, "" for none
  std::string profile = "default";  // "strict": the strict profile's checks fail the op too
  bool exhaustive = false;          // --exhaustive: the binary half ops' denser case-0 grid
};

// An empty result of `op` on `b`: what it is of, no verdict reached yet.
OpResult result_for(const Backend& b, const OpSpec& op);

// The properties of `op` the check runs, in catalog order: none with
// --no-properties or --case, else those chosen (all when none is).
std::vector<const Property*> chosen_properties(const OpSpec& op, const CheckOptions& options);

// One op on one backend, as the run's report has it: a library that could
// not be loaded (one finding, library_loads) or cannot run here (not_run),
// else the op checked in children. Throws a runtime_error for konform's own
// error (a case it cannot make, say).
OpResult run_task(const Backend& b, const OpSpec& op, const CheckOptions& options);

}  // namespace konform
