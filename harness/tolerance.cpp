#include "konform/tolerance.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "konform/op.hpp"

namespace konform {

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

// A number as the table writes it: decimal digits, an optional fraction and
// an optional exponent (16, 0.5, 1e-6). strtod alone would also take hex
// (0x10), inf, nan, a sign and leading blanks.
bool is_decimal(const std::string& t) {
  size_t i = 0, digits = 0;
  const auto run = [&] {
    size_t n = 0;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) ++n;
    return n;
  };
  digits += run();
  if (i < t.size() && t[i] == '.') {
    ++i;
    digits += run();
  }
  if (digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (run() == 0) return false;
  }
  return i == t.size();
}

// A finite, non-negative decimal number, or an error naming where it was.
double parse_number(const std::string& text, const std::string& where) {
  errno = 0;
  const double v = is_decimal(text) ? std::strtod(text.c_str(), nullptr) : NAN;
  if (errno != 0 || !std::isfinite(v))
    throw TableError(where + ": '" + text + "' is not a finite non-negative number in decimal (e.g. 16, 0.5, 1e-6)");
  return v;
}

// The limit field: `A`, `A+Bn` (B u per term of the case's longest sum;
// `A+n` for B = 1), either followed by `; strict S`, the strict profile's
// fixed limit.
void parse_limit(const std::string& text, const std::string& where, Tolerance& t) {
  const std::string strict_mark = "; strict ";
  const size_t mark = text.find(strict_mark);
  const std::string def = text.substr(0, mark);
  const size_t plus = def.rfind('+');
  if (def.empty() || def.back() != 'n' || plus == std::string::npos) {
    t.limit = parse_number(def, where);  // a fixed limit ('+' only inside an exponent, 1.6e+1)
  } else {
    t.limit = parse_number(def.substr(0, plus), where);
    const std::string term = def.substr(plus + 1, def.size() - plus - 2);  // B, without the n
    t.per_term = term.empty() ? 1.0 : parse_number(term, where);
  }
  t.strict = mark == std::string::npos ? t.limit : parse_number(text.substr(mark + strict_mark.size()), where);
  // Strict only narrows: its limit stays within the default's for every sum of one term or more.
  if (t.strict > t.limit + t.per_term)
    throw TableError(where + ": '" + text +
                     "': the strict profile's limit is above the default's; strict only narrows");
}

constexpr const char* kBom = "\xEF\xBB\xBF";

// An op or dtype field: no blanks around it, no byte order mark inside (a
// name that only looks right would fail later, far from this line).
void check_name(const std::string& text, const std::string& where) {
  if (text.empty()) return;  // an empty op is its own error, an empty dtype an unknown one
  if (text.find(kBom) != std::string::npos)
    throw TableError(where + " '" + text +
                     "' contains a byte order mark (U+FEFF); only the file's first bytes may be one");
  if (std::isspace(static_cast<unsigned char>(text.front())) || std::isspace(static_cast<unsigned char>(text.back())))
    throw TableError(where + " '" + text + "' has leading or trailing blanks");
}

// Whether the op's outputs are judged against a limit: it declares one.
// Ops whose outputs are all exact (gathers, indices, quantized blocks) are
// compared bit for bit and never read the table (a catalog test holds the
// declarations to the cases: Catalog.ToleranceRulesMatchTheOutputs).
bool judged_by_tolerance(const OpSpec& op) { return !op.tolerances.empty(); }

}  // namespace

ToleranceTable ToleranceTable::parse(const std::string& text, const std::string& source) {
  ToleranceTable table;
  table.source_ = source;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    // A byte order mark is taken at the very start of the file only, as the
    // JSON readers take one.
    if (number == 1 && line.rfind(kBom, 0) == 0) line.erase(0, 3);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::string where = source + ":" + std::to_string(number);
    const auto f = split_tabs(line);
    if (f.size() != 5)
      throw TableError(where + ": expected 5 tab-separated fields (op, dtype, limit, spec, why), found " +
                       std::to_string(f.size()));
    if (f[0].empty()) throw TableError(where + ": empty op name");
    check_name(f[0], where + ": op name");
    check_name(f[1], where + ": dtype");
    DType dtype;
    if (!parse_dtype(f[1], &dtype)) throw TableError(where + ": unknown dtype '" + f[1] + "'");
    const OpSpec* op = find_op(f[0]);
    if (op == nullptr)
      throw TableError(where + ": no op '" + f[0] +
                       "' in the catalog (`konform list` names them; names are case-sensitive)");
    if (op->dtype != dtype)
      throw TableError(where + ": " + f[0] + " has no " + f[1] + " variant (its dtype is " +
                       std::string(dtype_name(op->dtype)) + ")");
    if (!judged_by_tolerance(*op))
      throw TableError(where + ": " + f[0] +
                       " is compared bit for bit, not against a limit: an entry for it would never be used");
    Tolerance t;
    parse_limit(f[2], where + ": limit", t);
    if (t.per_term > 0 && !op->sum_length)
      throw TableError(where + ": limit '" + f[2] + "' grows with the sum's length, but " + f[0] +
                       " declares no sum length (OpSpec::sum_length)");
    // '-': no ceiling. A written ceiling must be positive: 0 would read as
    // "no error at all" but used to switch the check off.
    if (f[3] != "-") {
      t.spec_ceiling = parse_number(f[3], where + ": spec");
      if (t.spec_ceiling == 0)
        throw TableError(where +
                         ": spec: a ceiling of 0 admits no error at all; write '-' when the spec gives no figure");
    }
    t.why = f[4];
    if (t.why.find_first_not_of(" \t") == std::string::npos)
      throw TableError(where + ": every limit needs its justification");
    // A limit that grows with n is capped at the ceiling instead (Tolerance::at).
    if (t.spec_ceiling > 0 && t.limit * unit_roundoff(dtype) > t.spec_ceiling)
      throw TableError(where + ": limit " + f[2] + " u exceeds the spec's ceiling " + f[3]);
    if (!table.entries_.emplace(std::make_pair(op->name, dtype), t).second)
      throw TableError(where + ": a second entry for " + op->name + " " + f[1]);
    if (const std::string note = former_name_note(f[0], *op); !note.empty())
      table.notes_.push_back(where + ": " + note);
  }
  return table;
}

double Tolerance::at(int64_t n, double unit_roundoff) const {
  const double grown = limit + per_term * static_cast<double>(n);
  return spec_ceiling > 0 ? std::fmin(grown, spec_ceiling / unit_roundoff) : grown;
}

std::string Tolerance::text() const {
  const auto num = [](double v) {
    std::ostringstream o;
    o << v;
    return o.str();
  };
  std::string t = num(limit);
  if (per_term > 0) t += "+" + (per_term == 1 ? std::string() : num(per_term)) + "n";
  if (strict != limit || per_term > 0) t += "; strict " + num(strict);
  return t;
}

std::string ToleranceTable::text_of(const std::vector<const OpSpec*>& ops) {
  std::string text =
      "# konform's built-in tolerance table: the limits the ops declare (OpSpec::tolerances in harness/ops/),\n"
      "# as `konform list --tolerances` writes them. A table given with --tolerances FILE has this format.\n"
      "#\n"
      "# limit: the largest error r = |y - y*| / (u * max(s, smallest normal)) a correct kernel may show, in units\n"
      "# of the dtype's roundoff u (2^-24 for f32), s the scale the oracle returns with y*. A number, or A+Bn:\n"
      "# growing by B u per term of the case's longest sum (the default profile's any-order bound); `; strict S`\n"
      "# is the strict profile's fixed limit. spec: the spec's own relative figure, a ceiling, or '-'. why: the\n"
      "# error analysis, with the function budgets of docs/tolerances.md#function-budgets. Exact outputs need no\n"
      "# line.\n"
      "#\n"
      "# op\tdtype\tlimit\tspec\twhy\n";
  for (const OpSpec* op : ops)
    for (const ToleranceRule& r : op->tolerances)
      text += op->name + "\t" + std::string(dtype_name(r.dtype)) + "\t" + r.limit + "\t" + r.spec + "\t" + r.why + "\n";
  return text;
}

const ToleranceTable& ToleranceTable::builtin() {
  static const ToleranceTable table = [] {
    std::vector<const OpSpec*> ops;
    for (const OpSpec& op : catalog()) ops.push_back(&op);
    return parse(text_of(ops), "the built-in table (konform list --tolerances)");
  }();
  return table;
}

const Tolerance* ToleranceTable::find(const std::string& op, DType dtype) const {
  const OpSpec* spec = find_op(op);
  auto it = entries_.find({spec != nullptr ? spec->name : op, dtype});
  return it == entries_.end() ? nullptr : &it->second;
}

void ToleranceTable::require_entries_for(const std::vector<const OpSpec*>& ops) const {
  std::string missing;
  int count = 0;
  for (const OpSpec* op : ops) {
    if (find(op->name, op->dtype) != nullptr || !judged_by_tolerance(*op)) continue;
    missing += (count++ == 0 ? "" : ", ") + op->name + " " + std::string(dtype_name(op->dtype));
  }
  if (count == 0) return;
  throw TableError("the tolerance table " + source_ + " has no entry for " + missing + " (" + std::to_string(count) +
                   " of the chosen ops" + (entries_.empty() ? "; the table has no entries at all" : "") +
                   "): every op judged against a limit needs one");
}

}  // namespace konform
