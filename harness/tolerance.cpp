#include "konform/tolerance.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace konform {

extern const char* const kBuiltinTolerances;  // generated from reference/tolerances.tsv

namespace {

// Every field, empty ones included (a trailing empty field counts too).
std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
    fields.push_back(line.substr(start, tab - start));
  fields.push_back(line.substr(start));
  return fields;
}

// A finite, non-negative number, or an error naming where it was.
double parse_number(const std::string& text, const std::string& where) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !std::isfinite(v) || v < 0)
    throw TableError(where + ": '" + text + "' is not a finite non-negative number");
  return v;
}

}  // namespace

ToleranceTable ToleranceTable::parse(const std::string& text, const std::string& source) {
  ToleranceTable table;
  table.source_ = source;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::string where = source + ":" + std::to_string(number);
    const auto f = split_tabs(line);
    if (f.size() != 5)
      throw TableError(where + ": expected 5 tab-separated fields (op, dtype, limit, spec, why), found " +
                       std::to_string(f.size()));
    DType dtype;
    if (!parse_dtype(f[1], &dtype)) throw TableError(where + ": unknown dtype '" + f[1] + "'");
    Tolerance t;
    t.limit = parse_number(f[2], where + ": limit");
    t.spec_ceiling = f[3] == "-" ? 0.0 : parse_number(f[3], where + ": spec");
    t.why = f[4];
    if (f[0].empty()) throw TableError(where + ": empty op name");
    if (t.why.find_first_not_of(" \t") == std::string::npos)
      throw TableError(where + ": every limit needs its justification");
    if (t.spec_ceiling > 0 && t.limit * unit_roundoff(dtype) > t.spec_ceiling)
      throw TableError(where + ": limit " + f[2] + " u exceeds the spec's ceiling " + f[3]);
    if (!table.entries_.emplace(std::make_pair(f[0], dtype), t).second)
      throw TableError(where + ": a second entry for " + f[0] + " " + f[1]);
  }
  return table;
}

const ToleranceTable& ToleranceTable::builtin() {
  static const ToleranceTable table = parse(kBuiltinTolerances, "reference/tolerances.tsv");
  return table;
}

const Tolerance* ToleranceTable::find(const std::string& op, DType dtype) const {
  auto it = entries_.find({op, dtype});
  return it == entries_.end() ? nullptr : &it->second;
}

}  // namespace konform
