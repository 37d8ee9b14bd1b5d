#include "konform/case_shape.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "konform/isolate.hpp"
#include "konform/rng.hpp"

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

// A dimension's relation to the case: equal to a constant, or to a
// parameter times 1/2, 1 or 2.
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

// A factor of an element count, from the parameters: one parameter, or over
// a numbered family P0, P1, ... (a shape passed as parameters) the product
// of its members, of its first R members (R another parameter: a rank), or
// its last member.
struct Term {
  enum Kind { param, family_product, family_last, family_ranked } kind = param;
  std::string name;  // the parameter, or the family's prefix ("s", "x0.")
  std::string rank;  // family_ranked: the parameter that counts the members
  bool operator<(const Term& o) const { return std::tie(kind, name, rank) < std::tie(o.kind, o.name, o.rank); }

  // Members of family `prefix` in c: prefix + "0", prefix + "1", ... while present.
  static std::vector<double> members(const Case& c, const std::string& prefix) {
    std::vector<double> v;
    for (;;) {
      auto it = c.params.find(prefix + std::to_string(v.size()));
      if (it == c.params.end()) return v;
      v.push_back(it->second);
    }
  }
  double value(const Case& c) const {
    if (kind == param) {
      auto it = c.params.find(name);
      return it == c.params.end() ? NAN : it->second;
    }
    auto m = members(c, name);
    if (kind == family_last) return m.empty() ? NAN : m.back();
    if (kind == family_ranked) {
      auto r = c.params.find(rank);
      if (r == c.params.end() || !(r->second >= 0 && r->second <= static_cast<double>(m.size()))) return NAN;
      m.resize(static_cast<size_t>(r->second));
    }
    double p = 1;
    for (double d : m) p *= d;
    return p;
  }
  // The term's name in a message: "n", "s2", "the product of s0 .. s2".
  std::string describe(const Case& c) const {
    if (kind == param) return name;
    if (kind == family_ranked) return "the product of the first " + rank + " of " + name + "0, " + name + "1, ...";
    const size_t n = members(c, name).size();
    if (n == 0)
      return kind == family_last ? "the last of " + name + "0, " + name + "1, ... (none given)"
                                 : "1 (no " + name + "0)";
    const std::string last = name + std::to_string(n - 1);
    return kind == family_last || n == 1 ? last : "the product of " + name + "0 .. " + last;
  }
};

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

// An element count that held in every sample: ratio x the product of terms.
struct Count {
  std::vector<Term> terms;
  double ratio = 1;
  double value(const Case& c) const {
    double p = ratio;
    for (const Term& t : terms) p *= t.value(c);
    return p;
  }
  // "K x M = 4 x 8 = 32", "n = 100000", "0.5625 x k x rows = ...".
  std::string describe(const Case& c) const {
    std::vector<std::pair<std::string, std::string>> factors;
    if (ratio != 1 || terms.empty()) factors.push_back({ratio_text(), ratio_text()});
    for (const Term& t : terms) factors.push_back({t.describe(c), number(t.value(c))});
    return product_text(factors, value(c));
  }
  std::string ratio_text() const {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", ratio);
    return buf;
  }
};

// Per rank, since some ops make tensors of several ranks: the relations that
// held in every sample of that rank.
struct RankShape {
  int samples = 0;
  std::vector<std::set<Relation>> dims;
};

// What the samples show of one argument's size (the rest of it is declared:
// OpSpec::args).
struct ArgShape {
  std::set<size_t> all_ranks;         // in any sample, valid or not
  std::map<size_t, RankShape> ranks;  // in the samples the op accepts
  std::vector<Count> counts;          // element counts that held in every sample the op accepts
  int counted = 0;                    // samples the counts were learned from
  int present = 0;                    // samples it is in, valid or not
};

// Relations seen in fewer samples of a rank may be coincidences: not enforced.
constexpr int kEnoughSamples = 16;

struct Shape {
  std::map<std::string, ArgShape> args;
  // Numbered arguments (Concat's x0, x1, ..., Split's and Chunk's y0, y1, ...)
  // by numbered_family, for a number no sample reached (Chunk into 30 pieces,
  // y29). Their counts are not learned across numbers: declared or the
  // oracle's.
  std::map<std::string, ArgShape> numbered;
};

std::set<Relation> relations_of(int64_t dim, const Case& c) {
  std::set<Relation> r = {{"", 1, static_cast<double>(dim)}};
  for (const auto& [name, v] : c.params)
    for (double f : {0.5, 1.0, 2.0})
      if (v * f == static_cast<double>(dim)) r.insert({name, f, 0});
  return r;
}

bool same_count(double elements, double value) {
  return std::fabs(elements - value) <= 1e-9 * std::max(1.0, std::fabs(elements));
}

// Does the op accept the case (a zero status), by its oracle? Ops without a
// status accept every case they make.
bool accepted(const OpSpec& op, const Case& c) {
  const Oracle o = op.oracle(c);
  if (op.status.empty()) return true;
  auto it = o.find(op.status);
  return it != o.end() && !it->second.value.empty() && it->second.value[0] == 0;
}

// The element counts of argument `name` in `cases`: every product of up to
// three terms (four when there are few) times a ratio constant over them.
std::vector<Count> learn_counts(const std::string& name, const std::vector<Case>& cases) {
  std::set<Term> term_set;
  for (const Case& c : cases)
    for (const auto& [p, v] : c.params) {
      term_set.insert({Term::param, p});
      // The family prefix: the name up to its last run of digits, when that
      // run ends it ("s3" -> "s", "x0.2" -> "x0.").
      size_t e = p.size();
      while (e > 0 && std::isdigit(static_cast<unsigned char>(p[e - 1]))) --e;
      if (e < p.size() && e > 0) {
        term_set.insert({Term::family_product, p.substr(0, e)});
        term_set.insert({Term::family_last, p.substr(0, e)});
      }
    }
  const std::vector<Term> terms(term_set.begin(), term_set.end());
  // values[s][t]: term t in sample s; elements[s]
  std::vector<std::vector<double>> values;
  std::vector<double> elements;
  for (const Case& c : cases)
    for (const Arg& a : c.args)
      if (a.name == name) {
        std::vector<double> v;
        for (const Term& t : terms) v.push_back(t.value(c));
        values.push_back(std::move(v));
        elements.push_back(static_cast<double>(a.value.elements()));
      }
  std::vector<Count> out;
  auto test = [&](const std::vector<size_t>& pick) {
    double ratio = NAN;
    for (size_t s = 0; s < values.size(); ++s) {
      double p = 1;
      for (size_t t : pick) p *= values[s][t];
      if (std::isnan(p)) return;
      if (p == 0) {
        if (elements[s] != 0) return;
        continue;
      }
      if (std::isnan(ratio)) ratio = elements[s] / p;
      else if (!same_count(elements[s], ratio * p)) return;
    }
    if (std::isnan(ratio) || ratio <= 0) return;  // never determined, or always 0 elements
    Count c{{}, ratio};
    for (size_t t : pick) c.terms.push_back(terms[t]);
    out.push_back(std::move(c));
  };
  const size_t n = terms.size();
  const size_t most = n <= 14 ? 4 : 3;
  std::vector<size_t> pick;
  // Every subset of up to `most` terms, in increasing order.
  std::function<void(size_t)> walk = [&](size_t from) {
    test(pick);
    if (pick.size() == most) return;
    for (size_t t = from; t < n; ++t) {
      pick.push_back(t);
      walk(t + 1);
      pick.pop_back();
    }
  };
  walk(0);
  // Failing those, a shape of a rank given by another parameter: the product
  // of the first R members of a family (Softmax's x: d0 .. d{rank-1}).
  if (out.empty()) {
    std::set<std::string> families, ranks;
    for (const Term& t : terms)
      if (t.kind == Term::family_product) families.insert(t.name);
    for (const Term& t : terms)
      if (t.kind == Term::param) {
        bool small = true;
        for (const Case& c : cases) {
          auto it = c.params.find(t.name);
          small = small && it != c.params.end() && it->second >= 0 && it->second <= 8 &&
                  it->second == std::trunc(it->second);
        }
        if (small) ranks.insert(t.name);
      }
    for (const std::string& f : families)
      for (const std::string& r : ranks) {
        const Term ranked{Term::family_ranked, f, r};
        std::vector<double> v, e;
        for (const Case& c : cases)
          for (const Arg& a : c.args)
            if (a.name == name) v.push_back(ranked.value(c)), e.push_back(static_cast<double>(a.value.elements()));
        bool holds = !v.empty();
        for (size_t k = 0; k < v.size() && holds; ++k) holds = same_count(e[k], v[k]);
        if (holds) out.push_back({{ranked}, 1});
      }
  }
  // A constant count (the status's 1) needs no product that happens to match it.
  for (const Count& c : out)
    if (c.terms.empty()) return {c};
  return out;
}

Shape learn(const OpSpec& op) {
  constexpr int kSamples = 96;
  Shape s;
  std::vector<Case> valid;
  for (int i = 0; i < kSamples; ++i) {
    Rng rng(case_seed(0x5EED, op.case_key(), i));
    const Case c = op.make_case(rng, i);
    bool ok = false;
    try {
      ok = accepted(op, c);
    } catch (const std::exception&) {
      ok = false;  // not learned from; a case the generator made must not stop the reader
    }
    if (ok) valid.push_back(c);
    for (const Arg& a : c.args) {
      ArgShape& as = s.args[a.name];
      as.all_ranks.insert(a.value.shape.size());
      ++as.present;
      if (const std::string pat = numbered_family(a.name); pat != a.name) s.numbered[pat];  // no count across numbers
      if (!ok) continue;
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
  }
  for (auto& [name, as] : s.args) {
    for (const Case& c : valid)
      for (const Arg& a : c.args) as.counted += a.name == name;
    if (as.counted >= kEnoughSamples) as.counts = learn_counts(name, valid);
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

// The element count op declares for argument `name` in c, if any.
std::optional<Factors> declared(const OpSpec& op, const std::string& name, const Case& c) {
  if (!op.declared_count) return std::nullopt;
  return op.declared_count(name, c);
}

// "" when a's tensor has the size the case's parameters give it.
std::string size_problem(const OpSpec& op, const ArgShape& as, const Arg& a, const Case& c) {
  const std::string where = "argument '" + a.name + "'";
  const size_t rank = a.value.shape.size();
  // The rank an argument has in every case (rmsnorm's x: 2), once seen
  // often enough to tell. (Where the ranks vary, the element counts below
  // bound the tensor; the samples need not show every rank.)
  if (as.present >= kEnoughSamples && as.all_ranks.size() == 1 && !as.all_ranks.count(rank))
    return where + ": rank " + std::to_string(rank) + ", but " + op.name + "'s " + a.name + " always has rank " +
           std::to_string(*as.all_ranks.begin());
  // Dimension by dimension, for ops without a status only: an op that
  // validates broadcasts and reshapes, where a dimension that matched a
  // parameter in every sample may be a coincidence; its element counts
  // below are what keeps every access inside the buffers.
  auto r = as.ranks.find(rank);
  if (op.status.empty() && r != as.ranks.end() && r->second.samples >= kEnoughSamples)
    for (size_t k = 0; k < r->second.dims.size(); ++k)
      for (const Relation& rel : r->second.dims[k])
        if (static_cast<double>(a.value.shape[k]) != rel.value(c))
          return where + ": dimension " + std::to_string(k) + " is " + std::to_string(a.value.shape[k]) +
                 ", but every case of " + op.name + " has it equal to " + rel.describe(c);
  const double elements = static_cast<double>(a.value.elements());
  // A declared count replaces the learned ones: it holds where the samples were too few to learn from.
  if (const auto d = declared(op, a.name, c)) {
    double product = 1;
    std::vector<std::pair<std::string, std::string>> factors;
    for (const Factor& f : *d) product *= f.value, factors.push_back({f.name, number(f.value)});
    if (same_count(elements, product)) return "";
    return where + " has " + number(elements) + " elements, but " + op.name + " declares " +
           product_text(factors, product) + " for it";
  }
  for (const Count& n : as.counts)
    if (!same_count(elements, n.value(c)))
      return where + " has " + number(elements) + " elements, but " + n.describe(c);
  return "";
}

// The learned shape of argument `name`: its own, or for a number no sample
// reached, its numbered pattern's; null when the op has no such argument.
const ArgShape* shape_for(const Shape& s, const std::string& name) {
  if (auto it = s.args.find(name); it != s.args.end()) return &it->second;
  if (auto it = s.numbered.find(numbered_family(name)); it != s.numbered.end()) return &it->second;
  return nullptr;
}

}  // namespace

std::string check_case_shape(const OpSpec& op, const Case& c) {
  const Shape& s = shape_of(op);
  std::set<std::string> seen;
  // Names, accesses, element types, match rules and aliasing: as the op
  // declares its arguments (OpSpec::args).
  for (const Arg& a : c.args) {
    const std::string where = "argument '" + a.name + "'";
    const ArgSpec* spec = declared_arg(op, a.name);
    const ArgShape* found = shape_for(s, a.name);
    if (spec == nullptr || found == nullptr) return "unknown " + where + " for " + op.name;
    if (!seen.insert(a.name).second) return where + " appears twice";
    if (a.access != spec->access) return where + ": this access is not one " + op.name + " uses for it";
    if (std::find(spec->match.begin(), spec->match.end(), a.match) == spec->match.end())
      return where + ": this match rule is not the one " + op.name + " uses for it";
    if (a.value.dtype != arg_dtype(op, *spec))
      return where + ": dtype " + std::string(dtype_name(a.value.dtype)) + " is not the op's";
    if (!a.alias_of.empty() &&
        std::find(spec->may_alias.begin(), spec->may_alias.end(), a.alias_of) == spec->may_alias.end())
      return where + ": " + op.name + " never aliases it to '" + a.alias_of + "'";
    // An input numbered past every sample has no learned count to keep its
    // reads inside the buffer: only a declared one will do.
    if (found->present == 0 && a.access != Access::out && !declared(op, a.name, c))
      return where + ": no case of " + op.name + " has that many inputs, and it declares no size for this one";
  }
  for (const ArgSpec& spec : op.args)
    if (!spec.optional && spec.name.back() != '#' && !seen.count(spec.name))
      return "missing argument '" + spec.name + "' of " + op.name;
  for (const auto& [name, as] : s.args)
    if (declared(op, name, c) && !seen.count(name)) return "missing argument '" + name + "' of " + op.name;
  for (const Arg& a : c.args)
    if (!a.alias_of.empty()) {
      if (!seen.count(a.alias_of)) return "argument '" + a.name + "' aliases '" + a.alias_of + "', which is not there";
      if (c.arg(a.alias_of).value.size_bytes() != a.value.size_bytes())
        return "argument '" + a.name + "' aliases '" + a.alias_of + "' of another size";
    }
  // Every tensor has the size its parameters give it before anything reads
  // it, except in a case the op must refuse: there its status is the
  // verdict, and a kernel must not touch the buffers at all. Where no count
  // was learned or declared for an argument (Concat's y, Chunk's pieces),
  // the oracle says how many elements each output has, and must not crash
  // on the case. Sizes come after every dtype is known good: a declared
  // count may read another tensor (KvCache's k_new reads its script).
  std::string size;  // the first size that does not fit the parameters
  bool uncounted = false;
  for (const Arg& a : c.args) {
    const ArgShape& as = *shape_for(s, a.name);
    if (size.empty()) size = size_problem(op, as, a, c);
    uncounted |= as.counts.empty() && !declared(op, a.name, c) && !a.value.shape.empty();
  }
  if (size.empty() && !uncounted) return "";
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
