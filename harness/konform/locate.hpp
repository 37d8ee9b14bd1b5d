// Where an op's check stopped, as a finding: the case (else the property)
// a child was in when it crashed, hung, faulted on a guard page or garbled
// its channel, with the line that replays it and, with --repro-dir, a
// reproducer file.
#pragma once

#include <functional>
#include <string>

#include "konform/backend.hpp"
#include "konform/check_op.hpp"
#include "konform/isolate.hpp"
#include "konform/op.hpp"
#include "konform/result.hpp"
#include "konform/sweep.hpp"

namespace konform {

// What a finding adds about its reproducer: "   (or: KONFORM repro PATH)",
// with --tolerances when the check used a table of its own. If the file
// cannot be written, the error is printed and noted instead: the finding
// stands either way.
std::string repro_note(const CheckOptions& options, const std::function<std::string()>& write);

// The finding of a child that stopped early: a fault the guard pages named,
// else a crash, a hang or a corrupted result channel, where it happened.
Finding stop_finding(const ChildOutcome& o, const Backend& b, const OpSpec& op, const CheckOptions& options,
                     const SweepOptions& sweep);

}  // namespace konform
