#include "konform/shape_expr.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>

namespace konform {

namespace {

using Lookup = std::function<double(const std::string&)>;

// Recursive descent over one expression, evaluating as it goes.
class Parser {
 public:
  Parser(const std::string& text, const Lookup& lookup) : s_(text), lookup_(lookup) {}

  double whole() {
    const double v = expr();
    skip();
    if (i_ != s_.size()) fail("unexpected '" + s_.substr(i_, 1) + "'");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument("shape expression '" + s_ + "': " + what + " at column " + std::to_string(i_ + 1));
  }
  void skip() {
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
  }
  bool eat(char ch) {
    skip();
    if (i_ < s_.size() && s_[i_] == ch) return ++i_, true;
    return false;
  }
  double expr() {
    double v = term();
    for (;;) {
      if (eat('+')) v += term();
      else if (eat('-')) v -= term();
      else return v;
    }
  }
  double term() {
    double v = unary();
    for (;;) {
      if (eat('*')) v *= unary();
      else if (eat('/')) {
        const double d = unary();
        v = d == 0 ? NAN : v / d;
      } else return v;
    }
  }
  double unary() {
    if (eat('-')) return -unary();
    if (eat('(')) {
      const double v = expr();
      if (!eat(')')) fail("missing ')'");
      return v;
    }
    skip();
    if (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
      double v = 0;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) v = v * 10 + (s_[i_++] - '0');
      return v;
    }
    if (i_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) {
      std::string name;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == '.'))
        name += s_[i_++];
      if (i_ < s_.size() && s_[i_] == '(') {  // a member: the name followed by the index's digits
        ++i_;
        const double index = expr();
        if (!eat(')')) fail("missing ')'");
        if (!(index >= 0 && index == std::trunc(index) && index < 1e9)) return NAN;
        return lookup_(name + std::to_string(static_cast<long long>(index)));
      }
      return lookup_(name);
    }
    fail(i_ < s_.size() ? "unexpected '" + s_.substr(i_, 1) + "'" : "an operand is missing");
  }

  const std::string& s_;
  const Lookup& lookup_;
  size_t i_ = 0;
};

// The items of a shape: its text split at the commas outside parentheses.
std::vector<std::string> items(const std::string& shape) {
  std::vector<std::string> out(1);
  int depth = 0;
  for (char ch : shape) {
    depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
    if (ch == ',' && depth == 0) out.emplace_back();
    else out.back() += ch;
  }
  for (std::string& s : out) {
    while (!s.empty() && s.front() == ' ') s.erase(s.begin());
    while (!s.empty() && s.back() == ' ') s.pop_back();
  }
  return out;
}

// "s#[ndim]" as "s# for # < ndim": a family's members, written as the call's
// array parameters are (konform/c_call.hpp); any other item as it is.
std::string expand_family(const std::string& item) {
  const size_t open = item.find('['), hash = item.find('#');
  if (open == std::string::npos || item.back() != ']' || hash == std::string::npos || hash > open) return item;
  for (size_t k = 0; k < open; ++k)
    if (!std::isalnum(static_cast<unsigned char>(item[k])) && item[k] != '_' && item[k] != '.' && item[k] != '#')
      return item;
  return item.substr(0, open) + " for # < " + item.substr(open + 1, item.size() - open - 2);
}

std::string replace_index(std::string text, int index) {
  std::string out;
  for (char ch : text) out += ch == '#' ? std::to_string(index) : std::string(1, ch);
  return out;
}

DeclaredShape evaluate(const std::string& shape, const Lookup& lookup) {
  if (shape.empty()) throw std::invalid_argument("shape expression is empty");
  DeclaredShape d;
  for (std::string item : items(shape)) {
    if (item.empty()) throw std::invalid_argument("shape expression '" + shape + "': an empty item");
    item = expand_family(item);
    const size_t loop = item.find(" for # <");
    if (loop != std::string::npos) {
      const std::string body = item.substr(0, loop);
      std::string bound_text = item.substr(loop + 8);
      while (!bound_text.empty() && bound_text.front() == ' ') bound_text.erase(bound_text.begin());
      if (body.find('#') == std::string::npos)
        throw std::invalid_argument("shape expression '" + shape + "': '" + body + "' does not use '#'");
      const double bound = Parser(bound_text, lookup).whole();
      // Every index's expression is parsed, so a fault shows whatever the bound.
      Parser(replace_index(body, 0), lookup).whole();
      if (!(bound >= 0 && bound <= kMaxDeclaredRank && bound == std::trunc(bound))) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", bound);
        d.problem = std::isnan(bound)
                        ? bound_text + " is missing or not a number"
                        : bound_text + " is " + buf + ", not a rank 0 .. " + std::to_string(kMaxDeclaredRank);
        return d;
      }
      for (int k = 0; k < bound; ++k) {
        const std::string text = replace_index(body, k);
        d.dims.push_back({text, Parser(text, lookup).whole()});
      }
      continue;
    }
    if (item.find('#') != std::string::npos)
      throw std::invalid_argument("shape expression '" + shape + "': '#' outside a 'for # <' item");
    const bool leading = item.size() > 3 && item.compare(item.size() - 3, 3, "...") == 0;
    const std::string text = leading ? item.substr(0, item.size() - 3) : item;
    d.dims.push_back({text, Parser(text, lookup).whole(), leading});
  }
  int leading = 0;
  for (const DeclaredDim& dim : d.dims) leading += dim.leading;
  if (leading > 1 || (leading == 1 && !d.dims.front().leading))
    throw std::invalid_argument("shape expression '" + shape + "': only the first item may be 'expr...'");
  return d;
}

std::string number(double v) {
  if (std::isnan(v)) return "missing or not a number";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

bool is_literal(const std::string& text) {
  for (char ch : text)
    if (!std::isdigit(static_cast<unsigned char>(ch))) return false;
  return !text.empty();
}

// "d = 5", "1", "rows (missing or not a number)".
std::string describe(const DeclaredDim& d) {
  if (is_literal(d.text)) return d.text;
  if (std::isnan(d.value)) return d.text + " (missing or not a number)";
  return d.text + " = " + number(d.value);
}

}  // namespace

DeclaredShape evaluate_shape(const std::string& shape, const Case& c) {
  return evaluate(shape, [&](const std::string& name) {
    auto it = c.params.find(name);
    return it == c.params.end() ? NAN : it->second;
  });
}

std::string shape_syntax_problem(const std::string& shape) {
  try {
    evaluate(shape, [](const std::string&) { return 1.0; });
    return "";
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

std::string shape_mismatch(const std::vector<int64_t>& dims, const DeclaredShape& d, const std::string& declared_text,
                           const std::string& who) {
  if (!d.problem.empty()) return who + " [" + declared_text + "], but " + d.problem;
  const size_t rank = dims.size(), items = d.dims.size();
  const bool leading = !d.dims.empty() && d.dims.front().leading;
  // The tensor's dimensions the first item covers: one, or with "..." every one the later items leave.
  const size_t first = leading ? (rank + 1 >= items ? rank + 1 - items : 0) : 1;
  if (leading ? (rank < items) : (rank != items))
    return "rank " + std::to_string(rank) + ", but " + who + " [" + declared_text + "]" +
           (leading ? " (rank " + std::to_string(items) + " or more)" : "");
  for (size_t k = 0; k < items; ++k) {
    const DeclaredDim& dim = d.dims[k];
    if (k == 0 && leading) {
      double product = 1;
      for (size_t j = 0; j < first; ++j) product *= static_cast<double>(dims[j]);
      if (product != dim.value)
        return (first == 1 ? "dimension 0 is " : "dimensions 0 .. " + std::to_string(first - 1) + " multiply to ") +
               number(product) + ", but " + who + " them " + describe(dim);
      continue;
    }
    const size_t at = leading ? k - 1 + first : k;
    if (static_cast<double>(dims[at]) != dim.value)
      return "dimension " + std::to_string(at) + " is " + std::to_string(dims[at]) + ", but " + who + " it " +
             describe(dim);
  }
  return "";
}

}  // namespace konform
