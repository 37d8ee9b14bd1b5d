// A case built from an op's declaration: a caller (a property) gives the
// parameters and the inputs' contents, and every tensor takes the shape the
// op declares for it (ArgSpec::shape), every output and the status made as
// the generator would make them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "konform/case.hpp"
#include "konform/op.hpp"

namespace konform {

// An input's contents, handed to declared_case, which takes them (moves, not
// copies: a braced list of inputs is copied element by element, and a large
// tensor should not be). So a CaseInputs makes one case; a second
// declared_case of it throws std::logic_error.
struct InputTensor {
  struct Slot {
    Tensor tensor;
    bool taken = false;
  };
  std::shared_ptr<Slot> slot;
  InputTensor(Tensor t) : slot(std::make_shared<Slot>(Slot{std::move(t)})) {}  // NOLINT: implicit, a Tensor is given
};

struct CaseInputs {
  std::map<std::string, double> params;
  // Inputs (and in-out arguments) by name, in any shape: each takes its
  // declared shape where the parameters give one with as many elements, and
  // keeps its own otherwise (a call the op must refuse).
  std::vector<std::pair<std::string, InputTensor>> inputs;
  // Outputs that share an input's buffer: {"y", "x"} for y == x ({"y", ""}: none).
  std::map<std::string, std::string> aliases = {};
  // Output shapes the caller gives instead of the declared ones.
  std::map<std::string, std::vector<int64_t>> output_shapes = {};
};

// Case c of `op`: c.params, the inputs, then every output the op declares,
// zeros of its declared shape. A dimension the parameters make negative,
// fractional or missing becomes 1, and a tensor past 2^26 elements has one
// element: in a call the op must refuse, the buffer exists and must not be
// touched. So has a declared output past 2^20 elements in a call the oracle
// refuses (the status it expects is not TL_OK). An output the oracle sizes (kShapeByOracle, or kShapeByCode with
// no count) takes the oracle's element count, one element where the oracle
// computes none (it refuses the call); a numbered family of outputs (Split's
// y#) is every member the oracle computes. Throws std::logic_error for a name
// the op does not declare, or an input of another element type.
Case declared_case(const OpSpec& op, CaseInputs in);

// A flat tensor of `values` (declared_case gives it its shape).
Tensor flat(const std::vector<float>& values);
Tensor flat(const std::vector<int32_t>& values);
Tensor flat(const std::vector<uint8_t>& values);

}  // namespace konform
