// One call of a kernel: its tensors, its scalar parameters and how each
// tensor is passed (read, written, or updated in place).
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "konform/tensor.hpp"

namespace konform {

enum class Access {
  in,     // read only: must be unchanged after the call
  out,    // written: poisoned before the call, every element must be written
  inout,  // updated in place by the ABI (RoPE's x)
};

// How an output is judged against the oracle.
enum class Match {
  tolerance,  // error in units of roundoff against the oracle's scale
  exact,      // same bits (gathers, copies, indices)
};

struct Arg {
  std::string name;
  Access access = Access::in;
  Tensor value;  // inputs: the data; outputs: the shape (contents ignored)
  Match match = Match::tolerance;
  std::string alias_of;  // an output sharing this input's buffer (y == x calls)
};

struct Case {
  std::string label;  // shape and value classes, for people
  std::vector<Arg> args;
  std::map<std::string, double> params;  // eps, layout, sizes, ...

  const Arg& arg(const std::string& name) const;
  Arg& arg(const std::string& name);
  const Tensor& in(const std::string& name) const { return arg(name).value; }
  double param(const std::string& name) const;
  // An integer parameter (a size, a flag, an enum). A case read from a file
  // may hold NaN, 0.9 or 1e300 there, which no integer type can take:
  // std::invalid_argument then, never a cast with undefined behaviour. The
  // reproducer reader refuses such files first (check_case_params).
  int64_t iparam(const std::string& name) const {
    if (reads != nullptr) reads->integer.insert(name);
    return integer_param(name, INT64_MIN, INT64_MAX);
  }
  // One the ABI takes as a C int or int32_t (a layout, an approximation):
  // 4294967297 must not become 1.
  int32_t iparam32(const std::string& name) const {
    if (reads != nullptr) reads->integer.insert(name), reads->int32.insert(name);
    return static_cast<int32_t>(integer_param(name, INT32_MIN, INT32_MAX));
  }

  // While set (on this thread), iparam and iparam32 note the names they
  // read: how Catalog.ParamsAreDeclared holds each op's declared parameter
  // types (OpSpec::params) to the way its oracle reads them.
  struct ParamReads {
    std::set<std::string> integer, int32;
  };
  static inline thread_local ParamReads* reads = nullptr;

 private:
  int64_t integer_param(const std::string& name, int64_t lo, int64_t hi) const {
    const double v = param(name);
    // hi + 1 is exact in double for int32 and is 2^63 for int64, where hi itself is not.
    if (!(v >= static_cast<double>(lo) && v < static_cast<double>(hi) + 1) || v != std::trunc(v))
      throw std::invalid_argument("parameter '" + name + "' is " +
                                  (std::isnan(v) ? std::string("NaN") : std::to_string(v)) + ", not an integer in " +
                                  std::to_string(lo) + " .. " + std::to_string(hi));
    return static_cast<int64_t>(v);
  }
};

}  // namespace konform
