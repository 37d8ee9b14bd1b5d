#include "konform/case_shape.hpp"

#include <map>
#include <mutex>
#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>
#include <vector>

#include "konform/rng.hpp"

namespace konform {

namespace {

// A dimension's relation to the case: equal to a constant, or to a
// parameter times 1/2, 1 or 2.
// A parameter's value as a message shows it: an integer when it is one (a
// file may hold NaN or 1e300, which no integer type can take).
std::string number(double v) {
  if (std::isnan(v)) return "missing or NaN";
  if (std::fabs(v) < 9e15 && v == std::trunc(v)) return std::to_string(static_cast<long long>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

struct Relation {
  std::string param;  // "" for a constant
  double factor = 1;
  double constant = 0;
  bool operator<(const Relation& o) const {
    return std::tie(param, factor, constant) < std::tie(o.param, o.factor, o.constant);
  }
  double value(const Case& c) const {
    if (param.empty()) return constant;
    auto it = c.params.find(param);
    return it == c.params.end() ? NAN : it->second * factor;
  }
  std::string describe(const Case& c) const {
    if (param.empty()) return "the constant " + number(constant);
    const std::string p = "parameter " + param;
    const std::string v = " (" + number(value(c)) + ")";
    return (factor == 1 ? p : factor == 2 ? "twice " + p : "half " + p) + v;
  }
};

// Per rank, since some ops make tensors of several ranks: the relations that
// held in every sample of that rank.
struct RankShape {
  int samples = 0;
  std::vector<std::set<Relation>> dims;
};

struct ArgShape {
  std::set<Access> access;
  std::set<Match> match;
  std::set<DType> dtype;
  std::set<std::string> alias_of;
  std::map<size_t, RankShape> ranks;
  bool always = true;  // present in every sample
};

// Relations seen in fewer samples of a rank may be coincidences: not enforced.
constexpr int kEnoughSamples = 16;

using Shape = std::map<std::string, ArgShape>;

std::set<Relation> relations_of(int64_t dim, const Case& c) {
  std::set<Relation> r = {{"", 1, static_cast<double>(dim)}};
  for (const auto& [name, v] : c.params)
    for (double f : {0.5, 1.0, 2.0})
      if (v * f == static_cast<double>(dim)) r.insert({name, f, 0});
  return r;
}

Shape learn(const OpSpec& op) {
  constexpr int kSamples = 96;
  Shape s;
  for (int i = 0; i < kSamples; ++i) {
    Rng rng(case_seed(0x5EED, op.name, i));
    const Case c = op.make_case(rng, i);
    for (const Arg& a : c.args) {
      const bool first = !s.count(a.name);
      ArgShape& as = s[a.name];
      if (first) as.always = i == 0;
      as.access.insert(a.access);
      as.match.insert(a.match);
      as.dtype.insert(a.value.dtype);
      as.alias_of.insert(a.alias_of);
      RankShape& rs = as.ranks[a.value.shape.size()];
      if (rs.samples++ == 0) {
        for (int64_t d : a.value.shape) rs.dims.push_back(relations_of(d, c));
        continue;
      }
      for (size_t k = 0; k < rs.dims.size(); ++k) {
        const auto now = relations_of(a.value.shape[k], c);
        std::erase_if(rs.dims[k], [&](const Relation& r) { return !now.count(r); });
      }
    }
    for (auto& [name, as] : s) {
      bool here = false;
      for (const Arg& a : c.args) here |= a.name == name;
      if (!here) as.always = false;
    }
  }
  return s;
}

const Shape& shape_of(const OpSpec& op) {
  static std::mutex mutex;
  static std::map<std::string, Shape> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(op.name);
  if (it == cache.end()) it = cache.emplace(op.name, learn(op)).first;
  return it->second;
}

}  // namespace

std::string check_case_shape(const OpSpec& op, const Case& c) {
  const Shape& s = shape_of(op);
  std::set<std::string> seen;
  for (const Arg& a : c.args) {
    const std::string where = "argument '" + a.name + "'";
    auto it = s.find(a.name);
    if (it == s.end()) return "unknown " + where + " for " + op.name;
    if (!seen.insert(a.name).second) return where + " appears twice";
    const ArgShape& as = it->second;
    if (!as.access.count(a.access)) return where + ": this access is not one " + op.name + " uses for it";
    if (!as.match.count(a.match)) return where + ": this match rule is not the one " + op.name + " uses for it";
    if (!as.dtype.count(a.value.dtype)) return where + ": dtype " + std::string(dtype_name(a.value.dtype)) + " is not the op's";
    if (!as.alias_of.count(a.alias_of)) return where + ": " + op.name + " never aliases it to '" + a.alias_of + "'";
    // Ops that validate make cases whose sizes contradict their tensors on
    // purpose (the call must refuse them): their dimensions are theirs to judge.
    if (!op.status.empty()) continue;
    auto rank = as.ranks.find(a.value.shape.size());
    if (rank == as.ranks.end() || rank->second.samples < kEnoughSamples) continue;
    for (size_t k = 0; k < rank->second.dims.size(); ++k)
      for (const Relation& r : rank->second.dims[k])
        if (static_cast<double>(a.value.shape[k]) != r.value(c))
          return where + ": dimension " + std::to_string(k) + " is " + std::to_string(a.value.shape[k]) +
                 ", but every case of " + op.name + " has it equal to " + r.describe(c);
  }
  for (const auto& [name, as] : s)
    if (as.always && !seen.count(name)) return "missing argument '" + name + "' of " + op.name;
  for (const Arg& a : c.args)
    if (!a.alias_of.empty()) {
      if (!seen.count(a.alias_of)) return "argument '" + a.name + "' aliases '" + a.alias_of + "', which is not there";
      if (c.arg(a.alias_of).value.size_bytes() != a.value.size_bytes())
        return "argument '" + a.name + "' aliases '" + a.alias_of + "' of another size";
    }
  return "";
}

}  // namespace konform
