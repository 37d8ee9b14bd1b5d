// A fuzzer's input bytes as a case of an op, with no code per op: byte 0
// picks the op among a target's ops, the rest drive the op's own case
// generator through Rng::from_bytes (the case index, the pointer alignment,
// then every decision make_case takes). The same bytes always give the same
// case, so a crash file replays with `konform repro --op NAME FILE`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "konform/case.hpp"
#include "konform/op.hpp"

namespace konform {

struct FuzzCase {
  const OpSpec* op = nullptr;
  int64_t index = 0;    // the make_case index: below edge_cases an edge shape
  size_t misalign = 0;  // bytes added to every buffer's aligned start (0 or 4)
  Case c;
};

// The case indices the decoder draws from: every edge case and 1024 more.
int64_t fuzz_index_count(const OpSpec& op);

// `ops` must not be empty; any bytes decode (an empty input too).
FuzzCase decode_fuzz_input(const std::vector<const OpSpec*>& ops, const uint8_t* data, size_t size);

// The bytes that decode (as ops[position]) to case `index` of the sweep with
// `seed`: seed corpora. Decisions are kept exactly; the bytes stop after
// max_bytes, where the decoder's own stream takes over the remaining values.
std::vector<uint8_t> encode_sweep_case(size_t position, const OpSpec& op, uint64_t seed, int64_t index,
                                       size_t max_bytes);

}  // namespace konform
