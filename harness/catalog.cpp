#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <charconv>
#include <stdexcept>

#include "konform/op.hpp"

namespace konform {

std::vector<OpSpec> generated_catalog();  // catalog_list.cpp, written by CMake

const std::vector<OpSpec>& catalog() {
  static const std::vector<OpSpec> ops = [] {
    auto all = generated_catalog();
    std::stable_sort(all.begin(), all.end(), [](const OpSpec& a, const OpSpec& b) {
      return a.group != b.group ? a.group < b.group : a.name < b.name;
    });
    return all;
  }();
  return ops;
}

const OpSpec* find_op(const std::string& name) {
  for (const OpSpec& op : catalog())
    if (op.name == name) return &op;
  for (const OpSpec& op : catalog())
    if (!op.former_name.empty() && op.former_name == name) return &op;
  return nullptr;
}

namespace {

template <class Spec>
const Spec* declared(const std::vector<Spec>& specs, const std::string& name) {
  const std::string family = numbered_family(name);
  for (const Spec& s : specs)
    if (s.name == name || s.name == family) return &s;
  return nullptr;
}

// The shortest text that reads back as v (0.9, not 0.90000000000000002).
std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace

std::string numbered_family(const std::string& name) {
  std::string family;
  for (size_t i = 0; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) family += name[i];
    else if (i == 0 || !std::isdigit(static_cast<unsigned char>(name[i - 1]))) family += '#';
  }
  return family;
}

const ArgSpec* declared_arg(const OpSpec& op, const std::string& name) { return declared(op.args, name); }
const ParamSpec* declared_param(const OpSpec& op, const std::string& name) { return declared(op.params, name); }

const char* param_type_name(ParamType t) {
  switch (t) {
    case ParamType::i64: return "i64";
    case ParamType::i32: return "i32";
    case ParamType::u64: return "u64";
    case ParamType::f32: return "f32";
  }
  return "?";
}

std::string param_value_problem(ParamType t, double v) {
  if (t == ParamType::f32) {
    // Past FLT_MAX, a conversion to float is undefined behaviour.
    if (std::isfinite(v) && std::fabs(v) > FLT_MAX)
      return number(v) + " is beyond float's range (+-3.4028235e38; write Infinity for an infinity)";
    return "";
  }
  if (!(v == std::trunc(v)) || std::isinf(v)) return number(v) + " is not an integer";
  // hi is the first value past the type: exact in double for each.
  const double lo = t == ParamType::i32 ? -0x1p31 : t == ParamType::u64 ? 0 : -0x1p63;
  const double hi = t == ParamType::i32 ? 0x1p31 : t == ParamType::u64 ? 0x1p64 : 0x1p63;
  if (v < lo || v >= hi)
    return number(v) + " is out of range for " + param_type_name(t) +
           (t == ParamType::i32   ? " (-2147483648 .. 2147483647)"
            : t == ParamType::u64 ? " (0 .. 2^64 - 1)"
                                  : " (-2^63 .. 2^63 - 1)");
  return "";
}

DType arg_dtype(const OpSpec& op, const ArgSpec& arg) {
  if (arg.dtype == "T") return op.dtype;
  DType t;
  if (!parse_dtype(arg.dtype, &t))
    throw std::logic_error(op.name + ": argument '" + arg.name + "' has dtype '" + arg.dtype + "'");
  return t;
}

std::string former_name_note(const std::string& given, const OpSpec& op) {
  if (given == op.name) return "";
  return "op '" + given + "' is now '" + op.name + "'; the old name is accepted until konform " + kFormerNamesUntil;
}

}  // namespace konform
