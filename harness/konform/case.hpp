// One call of a kernel: its tensors, its scalar parameters and how each
// tensor is passed (read, written, or updated in place).
#pragma once

#include <cstdint>
#include <map>
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
  Tensor value;           // inputs: the data; outputs: the shape (contents ignored)
  Match match = Match::tolerance;
  std::string alias_of;   // an output sharing this input's buffer (y == x calls)
};

struct Case {
  std::string label;                      // shape and value classes, for people
  std::vector<Arg> args;
  std::map<std::string, double> params;   // eps, layout, sizes, ...

  const Arg& arg(const std::string& name) const;
  Arg& arg(const std::string& name);
  const Tensor& in(const std::string& name) const { return arg(name).value; }
  double param(const std::string& name) const;
  int64_t iparam(const std::string& name) const { return static_cast<int64_t>(param(name)); }
};

}  // namespace konform
