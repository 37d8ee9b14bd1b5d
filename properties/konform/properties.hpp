// The properties of the spec's test catalog, as RapidCheck bodies that run
// against any backend: ctest runs them on every built-in backend, and
// `konform check` runs them on whatever it checks, plugins included.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "konform/backend.hpp"

namespace konform {

struct Property {
  std::string name;  // as in the spec's catalog, e.g. "rmsnorm_eps_is_inside_the_root"
  std::string op;    // the op it exercises; hand_example appears once per op
  std::string kind;  // unit | boundary | property (the catalog's KIND)
  // Uses *rc::gen::... for its inputs and RC_ASSERT for its claims.
  std::function<void(const Backend&)> body;
  std::string profile =
      "";  // "strict": a contract beyond the spec, counted only under --profile strict (docs/tolerances.md#profiles)
  // The share of a check's property runs (--property-runs) this property
  // takes, at least one: below 1 for those whose every run makes hundreds
  // of calls or calls past a library's threading threshold.
  double run_share = 1.0;
};

const std::vector<Property>& properties();

struct PropertyOutcome {
  bool passed = true;
  int runs = 0;           // successful runs before the verdict
  std::string message;    // the failure and its shrunk counterexample
  std::string reproduce;  // RapidCheck's reproduce token
  // Why the property could not be judged on this backend, "" when it was:
  // a companion op it calls that the library does not export ("needs
  // tl_dequantize_q8_0_f32, which B does not export"), or a library that
  // returned TL_ERR_UNSUPPORTED for every case it was given. Not a failure.
  std::string not_run;
  int unsupported = 0;  // runs set aside: the library returned TL_ERR_UNSUPPORTED
};

// Loads RapidCheck's configuration without its banner; call once at start.
void load_rapidcheck_quietly();

PropertyOutcome check_property(const Property& p, const Backend& b, uint64_t seed, int max_success);

// The subnormal policy of the properties (--flush-subnormals, set before they
// run): when on, their element checks (props::near, props::same_bits) also
// admit a zero for a subnormal and an absolute floor of FLT_MIN, as the
// comparator does (docs/tolerances.md, "Subnormals"). Off by default.
void set_flush_subnormals(bool flush);
bool flush_subnormals();

}  // namespace konform
