#include <algorithm>

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

std::string former_name_note(const std::string& given, const OpSpec& op) {
  if (given == op.name) return "";
  return "op '" + given + "' is now '" + op.name + "'; the old name is accepted until konform " + kFormerNamesUntil;
}

}  // namespace konform
