// The structure of the cases an op's generator makes, learned by sampling it:
// argument names, accesses, match rules, dtypes and aliases, and per rank
// which dimension equals which parameter (or half or twice it, or a
// constant; not for ops that validate, whose invalid-argument cases break
// these on purpose). A case read from a file (a reproducer, a fixture) is
// checked against it before any kernel sees it, with no code per op.
// Parameters the kernel needs and the file lacks surface as the case's own
// error.
#pragma once

#include <string>

#include "konform/case.hpp"
#include "konform/op.hpp"

namespace konform {

// "" when `c` has the structure of op's cases; otherwise what differs, e.g.
// "argument 'x': dimension 1 is 7, but every case of rmsnorm has it equal to
// parameter d (5)".
std::string check_case_shape(const OpSpec& op, const Case& c);

}  // namespace konform
