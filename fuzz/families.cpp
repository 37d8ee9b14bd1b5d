#include <stdexcept>

#include "konform/op.hpp"
#include "op_fuzzer.hpp"

namespace konform::fuzz {

std::vector<const OpSpec*> family_ops(const std::string& family) {
  extern const std::vector<std::pair<std::string, std::vector<OpSpec> (*)()>> kFamilies;
  std::vector<const OpSpec*> ops;
  for (const auto& [name, declare] : kFamilies) {
    if (name != family) continue;
    for (const OpSpec& op : declare()) {
      const OpSpec* in_catalog = find_op(op.name);
      if (in_catalog == nullptr) throw std::logic_error("op " + op.name + " of " + family + " is not in the catalog");
      ops.push_back(in_catalog);
    }
  }
  return ops;
}

const std::vector<std::string>& family_names() {
  extern const std::vector<std::pair<std::string, std::vector<OpSpec> (*)()>> kFamilies;
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& f : kFamilies) n.push_back(f.first);
    return n;
  }();
  return names;
}

}  // namespace konform::fuzz
