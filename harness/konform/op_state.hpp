// Where an op's check stands, as its children send it to konform (and
// konform's workers send a finished result): the result so far and the next
// piece of work. The text carries what a report leaves out (the judged valid
// cases, the outputs' spread), so that the parent can still judge the whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "konform/result.hpp"

namespace konform {

struct OpState {
  OpResult result;
  int64_t next_case = 0;
  size_t next_property = 0;
};

// One line of JSON, and back: nullopt when the text is no such state (a
// checksum held, so it was corrupted before it was sent).
std::string state_json(const OpState& s);
std::optional<OpState> parse_state(const std::string& text);

// Records f, keeping per check the finding of the earliest case: children
// report out of order when one resumes after another's crash.
void fail_earliest(OpResult& r, const Finding& f);

// Adds what one child found to the op's result.
void merge(OpResult& into, const OpResult& part);

}  // namespace konform
