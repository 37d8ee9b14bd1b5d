#include "konform/fuzz_input.hpp"

#include <algorithm>
#include <stdexcept>

namespace konform {

int64_t fuzz_index_count(const OpSpec& op) { return std::max<int64_t>(op.edge_cases, 0) + 1024; }

FuzzCase decode_fuzz_input(const std::vector<const OpSpec*>& ops, const uint8_t* data, size_t size) {
  if (ops.empty()) throw std::logic_error("decode_fuzz_input: no ops");
  FuzzCase out;
  out.op = ops[size == 0 ? 0 : data[0] % ops.size()];
  Rng rng = size == 0 ? Rng::from_bytes(data, 0) : Rng::from_bytes(data + 1, size - 1);
  out.index = rng.range(0, fuzz_index_count(*out.op) - 1);
  out.misalign = rng.chance(0.5) ? 4 : 0;
  out.c = out.op->make_case(rng, out.index);
  return out;
}

std::vector<uint8_t> encode_sweep_case(size_t position, const OpSpec& op, uint64_t seed, int64_t index,
                                       size_t max_bytes) {
  if (index < 0 || index >= fuzz_index_count(op)) throw std::logic_error("encode_sweep_case: index out of range");
  std::vector<uint8_t> tape = {static_cast<uint8_t>(position)};
  Rng rng = Rng::recording(case_seed(seed, op.case_key(), index), &tape);
  rng.record_choice(0, fuzz_index_count(op) - 1, index);
  rng.record_chance(index % 2 == 1);  // the sweep misaligns every other case
  (void)op.make_case(rng, index);
  if (tape.size() > max_bytes) tape.resize(max_bytes);
  return tape;
}

}  // namespace konform
