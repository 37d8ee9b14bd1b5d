// The comparator: one output of a kernel against the oracle.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "konform/op.hpp"
#include "konform/tensor.hpp"

namespace konform {

// The metrics people know, over the elements where both sides are finite:
// max abs, max rel, max ULP (distance to the oracle rounded to the dtype) and
// NMSE (llama.cpp's test-backend-ops metric), plus our r.
struct Metrics {
  int64_t elements = 0;
  double max_abs = 0, max_rel = 0, max_ulp = 0, max_r = 0;
  double sq_err = 0, sq_ref = 0;  // NMSE = sq_err / sq_ref
  double nmse() const { return sq_ref > 0 ? sq_err / sq_ref : (sq_err > 0 ? INFINITY : 0); }
  void merge(const Metrics& m);
};

struct ElementVerdict {
  int64_t index = -1;   // flat index into the output
  double expected = 0, got = 0;
  double error = 0;     // r, or +Inf for a special-value mismatch, 0/1 for exact
  double limit = 0;
  bool ok = true;
  std::string why;      // for special values and exact outputs: what differed
};

struct Comparison {
  Metrics metrics;
  int64_t mismatches = 0;
  ElementVerdict worst;  // the largest error (a failing element if any)
};

// Tolerance rule: NaN matches only NaN; an infinite y* needs the same
// infinity; a y* beyond the dtype's range admits that infinity; otherwise
// |y - y*| <= limit * u * max(s, smallest normal). Elements the oracle marks
// `copied` must have the bits of the oracle's value instead.
Comparison compare_tolerance(const Tensor& got, const Expected& expected, double limit);
// Exact rule: the same bits as the oracle's value rounded to the dtype, or
// as its alternative's where it gives one.
Comparison compare_exact(const Tensor& got, const Expected& expected);

// The tolerance rule for quantities the harness derives in double from an
// output (a projection y @ r, a sum): as compare_tolerance, without first
// rounding `got` to the dtype.
Comparison compare_values(const std::vector<double>& got, const Expected& expected, double limit);

// What an op's verify hook (OpSpec::verify) found about one output by a
// cheaper route than the element-by-element oracle: `check` names the route
// (a finding's check, e.g. "freivalds_projection"), `quantity` says what the
// worst element's index counts (e.g. "row of y @ r"), `comparison` holds the
// quantities judged against the op's limit.
struct Verification {
  std::string check;
  std::string output;
  std::string quantity;
  std::vector<int64_t> shape;  // of the quantities, for the finding's index
  Comparison comparison;
  // "strict": a demand of the strict profile only (beyond the spec), always
  // measured and shown, failing the op only under --profile strict; "" default.
  std::string profile;
};

}  // namespace konform
