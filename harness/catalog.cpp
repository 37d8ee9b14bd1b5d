#include <algorithm>
#include <cctype>
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

const ArgSpec* declared_arg(const OpSpec& op, const std::string& name) {
  // The family: the name with its trailing digits as '#' ("y12" -> "y#").
  size_t end = name.size();
  while (end > 0 && std::isdigit(static_cast<unsigned char>(name[end - 1]))) --end;
  const std::string family = end < name.size() && end > 0 ? name.substr(0, end) + "#" : "";
  for (const ArgSpec& a : op.args)
    if (a.name == name || (!family.empty() && a.name == family)) return &a;
  return nullptr;
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
