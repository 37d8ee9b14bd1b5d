// A case read from a file (a reproducer, a fixture), held to its op before
// any kernel or oracle sees it: argument names, accesses, element types,
// match rules, aliasing and shapes as the op declares them (OpSpec::args,
// ArgSpec::shape), parameter names and types as it declares them
// (OpSpec::params).
#pragma once

#include <string>
#include <utility>

#include "konform/case.hpp"
#include "konform/op.hpp"

namespace konform {

// "" when `c` has the structure of op's cases; otherwise what differs, e.g.
// "argument 'x': dimension 1 is 7, but elementwise_rmsnorm declares it d =
// 5" or "argument 'x': rank 1, but elementwise_rmsnorm declares [rows, d]".
// A tensor whose shape does not fit the parameters is accepted only in a
// case the op refuses (asked of its oracle in a child process): there a
// kernel must touch no buffer. Where the op computes an output's size (a
// conv's y, Split's pieces), the oracle, in a child, gives its element
// count, and must not crash on the case.
std::string check_case_shape(const OpSpec& op, const Case& c);

// {"", ""} when every parameter of `c` is one op declares and holds a value
// of its type; otherwise {parameter, what is wrong}: an unknown name, a
// non-integer (NaN, 0.9, Infinity) where the op takes an integer, an
// integer beyond int32 where the op passes an int, a negative seed, a finite
// number beyond FLT_MAX where it passes a float.
std::pair<std::string, std::string> check_case_params(const OpSpec& op, const Case& c);

}  // namespace konform
