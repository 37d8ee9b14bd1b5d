// The comparator: one output of a kernel against the oracle.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "konform/op.hpp"
#include "konform/tensor.hpp"

namespace konform {

// The metrics people know, over the elements where both sides are finite:
// max abs, max rel, max ULP (distance to the oracle rounded to the dtype) and
// NMSE (llama.cpp's test-backend-ops metric), plus our r. The elements r
// cannot measure are counted beside it: NaN and infinity mismatches, and
// (--flush-subnormals) the elements passed only because a subnormal was
// flushed to zero.
struct Metrics {
  int64_t elements = 0;
  double max_abs = 0, max_rel = 0, max_ulp = 0, max_r = 0;
  double sq_err = 0, sq_ref = 0;  // NMSE = sq_err / sq_ref
  int64_t nan_mismatches = 0, inf_mismatches = 0, flushed = 0;
  double nmse() const { return sq_ref > 0 ? sq_err / sq_ref : (sq_err > 0 ? INFINITY : 0); }
  void merge(const Metrics& m);
};

// What a failing element is about, so that one defect cannot hide another
// behind a larger error: each cause is its own finding. In order of
// precedence: a NaN on either side; an infinity on either side; a result
// that differs only because a subnormal was flushed to zero (FTZ/DAZ);
// a subnormal on either side; the tail (a scale below 2^-24 of the output's
// largest: the far tail of a function, sigmoid at x < -17); else magnitude.
enum class Cause { nan, inf, flushed, subnormal, tail, magnitude };
const char* cause_name(Cause c);

struct ElementVerdict {
  int64_t index = -1;  // flat index into the output
  double expected = 0, got = 0;
  double error = 0;  // r, or +Inf for a special-value mismatch, 0/1 for exact
  double limit = 0;
  bool ok = true;
  std::string why;                 // for special values and exact outputs: what differed
  Cause cause = Cause::magnitude;  // a failing element's class
};

// The failing elements of one cause: how many, and the worst of them.
struct CauseTally {
  int64_t mismatches = 0;
  ElementVerdict worst;
};

struct Comparison {
  Metrics metrics;
  int64_t mismatches = 0;
  ElementVerdict worst;                // the largest error (a failing element if any)
  std::map<Cause, CauseTally> causes;  // the failing elements by cause
  // Counts v, keeps it as the worst (overall and of its cause) if it is.
  void add(const ElementVerdict& v);
};

// The subnormal policy of a comparison. Strict (the default, the spec's
// numbers): the absolute floor is the subnormal spacing. With `flush`
// (--flush-subnormals), an element that fails only because a subnormal input
// or result was flushed to zero passes and is counted (Metrics::flushed);
// without it, such an element fails with cause `flushed`. An element is
// "flushed" when it passes with a floor of FLT_MIN per rounding (at least
// one, even for a limit of 0), at the output or at the intermediates the
// oracle names (Expected::flush_factor: times the factor each multiplies), against
// the oracle, or against `daz`: the oracle of the same case with its
// subnormal inputs read as zeros (DAZ).
struct Subnormals {
  bool flush = false;
  bool judge = false;             // classify flushes at all (a second look at failing elements)
  const Expected* daz = nullptr;  // may be null: no input was subnormal
};

// Tolerance rule: NaN matches NaN, whatever the sign and payload of either;
// an infinite y* needs the same infinity; a y* beyond the dtype's range
// admits that infinity; otherwise |y - y*| <= limit * u * max(s, smallest
// normal). Where the oracle gives an `alternative`, an element may match it
// instead (an edge the spec leaves open). Elements the oracle marks `copied`
// must have the bits of the oracle's value instead (any NaN for a NaN).
Comparison compare_tolerance(const Tensor& got, const Expected& expected, double limit,
                             const Subnormals& subnormals = {});
// Exact rule: the same bits as the oracle's value rounded to the dtype, or
// as its alternative's where it gives one; any NaN matches a NaN.
Comparison compare_exact(const Tensor& got, const Expected& expected, const Subnormals& subnormals = {});

// The tolerance rule for quantities the harness derives in double from an
// output (a projection y @ r, a sum): as compare_tolerance, without first
// rounding `got` to the dtype; judged in units of the dtype t's roundoff
// (the output's: a half matmul's limit is in u_f16 or u_bf16).
Comparison compare_values(const std::vector<double>& got, const Expected& expected, double limit, DType t = DType::f32);

// The first element where two outputs of one call differ, NaN matching any
// NaN (f32), bits elsewhere; -1 when none does. For the deterministic guard.
int64_t first_value_difference(const Tensor& a, const Tensor& b);

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
