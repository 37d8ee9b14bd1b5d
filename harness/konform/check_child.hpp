// What runs in an op's child (check_op.hpp): its share of the sweep and of
// the properties, its state sent to konform as it goes (op_state.hpp).
#pragma once

#include <cstddef>
#include <string>

#include "konform/backend.hpp"
#include "konform/check_op.hpp"
#include "konform/isolate.hpp"
#include "konform/op.hpp"
#include "konform/sweep.hpp"

namespace konform {

// The sweep from sweep.resume_at (but sweep.skip), then the
// properties from first_property, the state sent after each property and
// after a case at most every 0.1 s, so that a crash loses little.
// Returns the last state (state_json).
std::string check_op_child(const Backend& b, const OpSpec& op, const CheckOptions& options, const SweepOptions& sweep,
                           size_t first_property, ChildChannel& channel);

}  // namespace konform
