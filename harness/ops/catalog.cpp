#include "konform/op.hpp"
#include "ops/ops.hpp"

namespace konform {

const std::vector<OpSpec>& catalog() {
  static const std::vector<OpSpec> ops = {
      ops::rmsnorm(), ops::rope(), ops::silu_mul(), ops::embedding(), ops::add(), ops::argmax(),
  };
  return ops;
}

const OpSpec* find_op(const std::string& name) {
  for (const OpSpec& op : catalog())
    if (op.name == name) return &op;
  return nullptr;
}

}  // namespace konform
