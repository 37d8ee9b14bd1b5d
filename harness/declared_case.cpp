#include "konform/declared_case.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <utility>

#include "konform/shape_expr.hpp"
#include "tinyllm/status.h"

namespace konform {

namespace {

constexpr auto kMaxElements = static_cast<double>(kMaxCaseElements);
// Outputs past this many elements are made full size only for a call the
// oracle accepts: a refused call must not write anywhere, which one element
// shows as well as 2^26 would, without allocating and poisoning them.
constexpr double kLargeOutput = double(1 << 20);

// The declared dims of `spec` in c, or nothing where it declares none.
std::optional<DeclaredShape> declared_dims(const ArgSpec& spec, const Case& c) {
  if (spec.shape == kShapeByOracle || spec.shape == kShapeByCode) return std::nullopt;
  DeclaredShape d = evaluate_shape(spec.shape, c);
  if (!d.problem.empty()) return std::nullopt;
  return d;
}

// A buffer's shape from declared dims: each a non-negative integer, or 1.
// A flattened "M..." item is one dimension.
std::vector<int64_t> buffer_shape(const DeclaredShape& d) {
  std::vector<int64_t> shape;
  double count = 1;
  for (const DeclaredDim& dim : d.dims) {
    const bool fits = dim.value >= 0 && dim.value == std::trunc(dim.value) && dim.value <= kMaxElements;
    shape.push_back(fits ? static_cast<int64_t>(dim.value) : 1);
    count *= static_cast<double>(shape.back());
  }
  if (count > kMaxElements) shape.assign(shape.size(), 1);
  return shape;
}

double elements(const std::vector<int64_t>& shape) {
  double n = 1;
  for (int64_t s : shape) n *= static_cast<double>(s);
  return n;
}

}  // namespace

Tensor flat(const std::vector<float>& values) { return Tensor::of_f32({static_cast<int64_t>(values.size())}, values); }
Tensor flat(const std::vector<int32_t>& values) {
  return Tensor::of_i32({static_cast<int64_t>(values.size())}, values);
}
Tensor flat(const std::vector<uint8_t>& values) { return Tensor::of_u8({static_cast<int64_t>(values.size())}, values); }

Case declared_case(const OpSpec& op, CaseInputs in) {
  Case c;
  c.params = in.params;
  for (auto& [name, input] : in.inputs) {
    if (input.slot->taken) throw std::logic_error(op.name + " input '" + name + "' was already taken by a case");
    Tensor& given = input.slot->tensor;
    const ArgSpec* spec = declared_arg(op, name);
    if (spec == nullptr || spec->access == Access::out)
      throw std::logic_error(op.name + " has no input '" + name + "'");
    if (given.dtype != arg_dtype(op, *spec))
      throw std::logic_error(op.name + " input '" + name + "': " + std::string(dtype_name(given.dtype)) +
                             ", declared " + std::string(dtype_name(arg_dtype(op, *spec))));
    Tensor t = std::move(given);
    input.slot->taken = true;
    if (const auto d = declared_dims(*spec, c)) {
      const auto shape = buffer_shape(*d);
      if (elements(shape) == static_cast<double>(t.elements())) t.shape = shape;
    }
    c.args.push_back({name, spec->access, std::move(t), spec->match.front()});
  }
  for (const auto& [name, shape] : in.output_shapes)
    if (const ArgSpec* spec = declared_arg(op, name); spec == nullptr || spec->access != Access::out)
      throw std::logic_error(op.name + " has no output '" + name + "'");
  for (const auto& [out, input] : in.aliases) {
    if (input.empty()) continue;
    const ArgSpec* spec = declared_arg(op, out);
    if (spec == nullptr || std::find(spec->may_alias.begin(), spec->may_alias.end(), input) == spec->may_alias.end())
      throw std::logic_error(op.name + " never aliases '" + out + "' to '" + input + "'");
    bool given = false;
    for (const Arg& a : c.args) given |= a.name == input;
    if (!given) throw std::logic_error(op.name + ": '" + out + "' aliases '" + input + "', which is not given");
  }
  // Outputs: given, aliased, declared, or sized by the oracle (asked once, if at all).
  std::optional<Oracle> oracle;
  auto ask_oracle = [&]() -> const Oracle& {
    if (!oracle) try {
        oracle = op.oracle(c);
      } catch (const std::exception&) {
        oracle = Oracle{};  // a case it cannot judge: one-element buffers
      }
    return *oracle;
  };
  auto oracle_count = [&](const std::string& name) -> std::optional<int64_t> {
    const Oracle& o = ask_oracle();
    auto it = o.find(name);
    if (it == o.end()) return std::nullopt;
    return static_cast<int64_t>(it->second.value.size());
  };
  auto refused = [&]() {
    if (op.status.empty()) return false;
    const Oracle& o = ask_oracle();
    auto it = o.find(op.status);
    return it != o.end() && !it->second.value.empty() && it->second.value[0] != TL_OK;
  };
  auto add_output = [&](const ArgSpec& spec, const std::string& name) {
    std::vector<int64_t> shape = {1};
    auto alias = in.aliases.find(name);
    if (alias != in.aliases.end() && alias->second.empty()) alias = in.aliases.end();
    if (auto it = in.output_shapes.find(name); it != in.output_shapes.end()) shape = it->second;
    else if (alias != in.aliases.end()) shape = c.arg(alias->second).value.shape;  // its buffer is the input's
    else if (const auto d = declared_dims(spec, c)) {
      shape = buffer_shape(*d);
      if (elements(shape) > kLargeOutput && refused()) shape = {1};
    } else if (const auto n = oracle_count(name)) shape = {*n};
    c.args.push_back({name, Access::out, Tensor::zeros(arg_dtype(op, spec), shape), spec.match.front(),
                      alias == in.aliases.end() ? "" : alias->second});
  };
  for (const ArgSpec& spec : op.args) {
    if (spec.access != Access::out) continue;
    if (spec.name.back() != '#') {
      add_output(spec, spec.name);
      continue;
    }
    // A numbered family: the members given, or those the oracle computes.
    const std::string prefix = spec.name.substr(0, spec.name.size() - 1);
    for (int k = 0;; ++k) {
      const std::string name = prefix + std::to_string(k);
      if (!in.output_shapes.count(name) && !oracle_count(name)) break;
      add_output(spec, name);
    }
  }
  return c;
}

}  // namespace konform
