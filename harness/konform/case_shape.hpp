// A case read from a file, held to its op: argument names, accesses, element
// types, match rules and aliasing as the op declares them (OpSpec::args);
// parameter names and types as it declares them (OpSpec::params); the rest
// learned by sampling the op's generator: ranks; per rank which dimension
// equals which parameter (or half or twice it, or a constant); each
// tensor's element count as a product of parameters (or of a shape passed
// as numbered parameters, s0, s1, ...) times a constant. Sizes are learned
// from the cases the op accepts (its oracle's status is 0): an op that
// validates is also given cases it must refuse, whose sizes contradict
// their tensors on purpose. Where the samples cannot teach a
// tensor's count (too rare in them, or sized by a kind or another tensor's
// contents), the op declares it (OpSpec::declared_count), and the
// declaration replaces what was learned. A case read from a file (a
// reproducer, a fixture) is checked against it before any kernel or oracle
// sees it.
#pragma once

#include <string>
#include <utility>

#include "konform/case.hpp"
#include "konform/op.hpp"

namespace konform {

// "" when `c` has the structure of op's cases; otherwise what differs, e.g.
// "argument 'x': dimension 1 is 7, but every case of rmsnorm has it equal to
// parameter d (5)" or "argument 'x' has 5 elements, but d (31) x rows (3) =
// 93". A tensor whose size does not fit the parameters is accepted only in
// a case the op refuses (asked of its oracle in a child process): there a
// kernel must touch no buffer. Where no count was learned for an argument
// (Concat's y, Split's pieces), the oracle, in a child, gives each output's
// element count, and must not crash on the case.
std::string check_case_shape(const OpSpec& op, const Case& c);

// {"", ""} when every parameter of `c` is one op declares and holds a value
// of its type; otherwise {parameter, what is wrong}: an unknown name, a
// non-integer (NaN, 0.9, Infinity) where the op takes an integer, an
// integer beyond int32 where the op passes an int, a negative seed, a finite
// number beyond FLT_MAX where it passes a float.
std::pair<std::string, std::string> check_case_params(const OpSpec& op, const Case& c);

}  // namespace konform
