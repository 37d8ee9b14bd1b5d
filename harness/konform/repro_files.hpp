// `konform check --repro-dir DIR` (check_op): every finding of the sweep and
// of the properties also becomes a reproducer file that `konform repro`
// replays.
#pragma once

#include <cstdint>
#include <string>

#include "konform/backend.hpp"
#include "konform/op.hpp"
#include "konform/properties.hpp"
#include "konform/result.hpp"
#include "konform/sweep.hpp"

namespace konform {

// Case `index` of the sweep (sweep.seed), regenerated, with what failed on it.
// Returns the file's path.
std::string write_sweep_reproducer(const std::string& dir, const Backend& b, const OpSpec& op,
                                   const SweepOptions& sweep, int64_t index, const Finding& finding);

// For a property that failed with sweep.seed and this number of runs:
// replays RapidCheck's shrunk counterexample with the kernel calls recorded,
// and writes the call that fails against the oracle, judged with
// sweep.tolerances (else the last call), with the property's finding.
// Returns the path, or "" when the property made no kernel call.
std::string write_property_reproducer(const std::string& dir, const Property& p, const Backend& b,
                                      const SweepOptions& sweep, int runs, const Finding& finding);

}  // namespace konform
