#include "konform/case_shape.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "konform/isolate.hpp"
#include "konform/shape_expr.hpp"

namespace konform {

namespace {

// A parameter's value as a message shows it: an integer when it is one (a
// file may hold NaN or 1e300, which no integer type can take).
std::string number(double v) {
  if (std::isnan(v)) return "missing or NaN";
  if (std::fabs(v) < 9e15 && v == std::trunc(v)) return std::to_string(static_cast<long long>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// A product for messages, from its factors' names and values as text:
// "K x M = 4 x 8 = 32", "n = 100000" (one factor), "1" (none).
std::string product_text(const std::vector<std::pair<std::string, std::string>>& factors, double product) {
  if (factors.empty()) return number(product);
  std::string names, values;
  for (const auto& [name, value] : factors) {
    names += (names.empty() ? "" : " x ") + name;
    values += (values.empty() ? "" : " x ") + value;
  }
  if (factors.size() == 1) return names + " = " + number(product);
  return names + " = " + values + " = " + number(product);
}

// What the op's oracle makes of a case, asked in a child process: the case's
// tensors may be smaller than its parameters say, and an oracle that reads
// them anyway must not take the reader down.
struct OracleView {
  bool answered = false;                   // false: it crashed, hung or threw (detail says which)
  bool refused = false;                    // a non-zero status
  std::map<std::string, int64_t> outputs;  // elements of each output it computes
  std::string detail;
};

OracleView ask_oracle(const OpSpec& op, const Case& c) {
  const ChildOutcome o = run_isolated(
      [&](ChildChannel&) {
        const Oracle oracle = op.oracle(c);
        // One line (run_isolated's messages are lines): "accepted|refused name count ...".
        bool refused = false;
        if (!op.status.empty()) {
          auto it = oracle.find(op.status);
          refused = it != oracle.end() && !it->second.value.empty() && it->second.value[0] != 0;
        }
        std::string out = refused ? "refused" : "accepted";
        for (const auto& [name, e] : oracle) out += " " + name + " " + std::to_string(e.value.size());
        return out;
      },
      30);
  OracleView v;
  if (o.status != ChildOutcome::ok) {
    v.detail = o.status == ChildOutcome::timeout   ? "hung"
               : o.status == ChildOutcome::crashed ? "crashed: " + o.detail
                                                   : o.detail;
    return v;
  }
  v.answered = true;
  std::istringstream in(o.payload);
  std::string word, name;
  in >> word;
  v.refused = word == "refused";
  int64_t count = 0;
  while (in >> name >> count) v.outputs[name] = count;
  return v;
}

// The element count op declares in code for argument `name` in c (its
// shape is kShapeByCode), if any.
std::optional<Factors> declared(const OpSpec& op, const ArgSpec& spec, const std::string& name, const Case& c) {
  if (spec.shape != kShapeByCode || !op.declared_count) return std::nullopt;
  return op.declared_count(name, c);
}

// "" when a's tensor has the size its declared shape gives it in c.
std::string size_problem(const OpSpec& op, const ArgSpec& spec, const Arg& a, const Case& c) {
  const std::string where = "argument '" + a.name + "'";
  if (spec.shape == kShapeByOracle) return "";
  if (spec.shape == kShapeByCode) {
    const auto d = declared(op, spec, a.name, c);
    // An input the kernel reads needs a size (Concat's x6 needs its x6.rank,
    // Sdpa's mask a kind); an output without one is the oracle's to size.
    if (!d) return a.access == Access::out ? "" : where + ": " + op.name + " declares no size for it in this case";
    double product = 1;
    std::vector<std::pair<std::string, std::string>> factors;
    for (const Factor& f : *d) product *= f.value, factors.push_back({f.name, number(f.value)});
    const double elements = static_cast<double>(a.value.elements());
    if (std::fabs(elements - product) <= 1e-9 * std::max(1.0, std::fabs(elements))) return "";
    return where + " has " + number(elements) + " elements, but " + op.name + " declares " +
           product_text(factors, product) + " for it";
  }
  const std::string problem =
      shape_mismatch(a.value.shape, evaluate_shape(spec.shape, c), spec.shape, op.name + " declares");
  return problem.empty() ? "" : where + ": " + problem;
}

}  // namespace

std::string check_case_shape(const OpSpec& op, const Case& c) {
  std::set<std::string> seen;
  // Names, accesses, element types, match rules and aliasing: as the op
  // declares its arguments (OpSpec::args).
  for (const Arg& a : c.args) {
    const std::string where = "argument '" + a.name + "'";
    const ArgSpec* spec = declared_arg(op, a.name);
    if (spec == nullptr) return "unknown " + where + " for " + op.name;
    if (!seen.insert(a.name).second) return where + " appears twice";
    if (a.access != spec->access) return where + ": this access is not one " + op.name + " uses for it";
    if (std::find(spec->match.begin(), spec->match.end(), a.match) == spec->match.end())
      return where + ": this match rule is not the one " + op.name + " uses for it";
    if (a.value.dtype != arg_dtype(op, *spec))
      return where + ": dtype " + std::string(dtype_name(a.value.dtype)) + " is not the op's";
    if (!a.alias_of.empty() &&
        std::find(spec->may_alias.begin(), spec->may_alias.end(), a.alias_of) == spec->may_alias.end())
      return where + ": " + op.name + " never aliases it to '" + a.alias_of + "'";
  }
  for (const ArgSpec& spec : op.args) {
    if (spec.name.back() == '#' || seen.count(spec.name)) continue;
    if (!spec.optional || declared(op, spec, spec.name, c)) return "missing argument '" + spec.name + "' of " + op.name;
  }
  for (const Arg& a : c.args)
    if (!a.alias_of.empty()) {
      if (!seen.count(a.alias_of)) return "argument '" + a.name + "' aliases '" + a.alias_of + "', which is not there";
      if (c.arg(a.alias_of).value.size_bytes() != a.value.size_bytes())
        return "argument '" + a.name + "' aliases '" + a.alias_of + "' of another size";
    }
  // Every tensor has the shape its declaration gives it before anything
  // reads it, except in a case the op must refuse: there its status is the
  // verdict, and a kernel must not touch the buffers at all. Where the op
  // computes an output's size (a conv's y, Concat's y, Chunk's pieces), the
  // oracle says how many elements it has, and must not crash on the case.
  // Sizes come after every dtype is known good: a count declared in code
  // may read another tensor (KvCache's k_new reads its script).
  std::string size;  // the first size that does not fit the declaration
  bool computed = false;
  for (const Arg& a : c.args) {
    const ArgSpec& spec = *declared_arg(op, a.name);
    if (size.empty()) size = size_problem(op, spec, a, c);
    computed |= (spec.shape == kShapeByOracle || (spec.shape == kShapeByCode && !declared(op, spec, a.name, c))) &&
                !a.value.shape.empty();
  }
  if (size.empty() && !computed) return "";
  if (!size.empty() && op.status.empty()) return size;
  const OracleView o = ask_oracle(op, c);
  if (o.answered && o.refused) return "";
  if (!size.empty()) return size + " (and " + op.name + " does not refuse these parameters)";
  if (!o.answered)
    return "the oracle of " + op.name + " " + o.detail + " on this case: a tensor does not fit its parameters";
  for (const Arg& a : c.args) {
    auto it = o.outputs.find(a.name);
    if (a.access != Access::in && it != o.outputs.end() && it->second != a.value.elements())
      return "argument '" + a.name + "' has " + number(static_cast<double>(a.value.elements())) + " elements, but " +
             op.name + "'s oracle computes " + std::to_string(it->second) + " for these parameters";
  }
  return "";
}

std::pair<std::string, std::string> check_case_params(const OpSpec& op, const Case& c) {
  for (const auto& [name, v] : c.params) {
    const ParamSpec* p = declared_param(op, name);
    if (p == nullptr) {
      std::string names;
      for (const ParamSpec& d : op.params) names += (names.empty() ? "" : ", ") + d.name;
      return {name,
              "no parameter '" + name + "' in " + op.name + " (it takes " + (names.empty() ? "none" : names) + ")"};
    }
    if (std::string what = param_value_problem(p->type, v); !what.empty())
      return {name, what + ", and " + op.name + " passes '" + p->name + "' as " + param_type_name(p->type)};
  }
  if (op.params_problem) return op.params_problem(c);
  return {};
}

}  // namespace konform
