// A seeded generator whose stream is the same on every machine and compiler:
// SplitMix64, and floats built from bits (no <random> distributions, which
// differ between standard libraries).
//
// The same object also serves the fuzzers, so every case generator written
// against this API is fuzzed with no code of its own:
//  - from_bytes(): each decision (range, chance, unit, pick) reads the next
//    few bytes of a fuzzer's input, so a mutated byte changes one decision;
//    when the bytes run out, a stream seeded by their hash takes over.
//  - recording(): a seeded generator that also writes the bytes from which
//    from_bytes() makes the same decisions (seed corpora from the sweep).
// A seeded Rng's stream is unchanged by either mode.
#pragma once

#include <cstdint>
#include <cstring>
#include <iterator>
#include <string_view>
#include <vector>

namespace konform {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  // Decisions read from data[0, size) first; the bytes must outlive the Rng.
  static Rng from_bytes(const uint8_t* data, size_t size) {
    uint64_t h = 0xCBF29CE484222325ull ^ size;  // FNV-1a: the tail depends on every byte
    for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 0x100000001B3ull;
    Rng r(h);
    r.in_ = data;
    r.left_ = size;
    return r;
  }
  // Seeded as Rng(seed), appending to *tape the bytes that replay its decisions.
  static Rng recording(uint64_t seed, std::vector<uint8_t>* tape) {
    Rng r(seed);
    r.tape_ = tape;
    return r;
  }

  uint64_t next() {
    if (in_ != nullptr) return take(8);
    const uint64_t z = mix();
    put(z, 8);
    return z;
  }
  // Uniform in [lo, hi], inclusive.
  int64_t range(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    if (in_ != nullptr) return lo + static_cast<int64_t>(span == 0 ? take(8) : take(bytes_for(span)) % span);
    const uint64_t v = span == 0 ? mix() : mix() % span;
    put(v, bytes_for(span));
    return lo + static_cast<int64_t>(v);
  }
  // Uniform in [0, 1) with 53 random bits: the top 53 of seven bytes when
  // read from bytes, so a recorded draw replays exactly.
  double unit() {
    if (in_ != nullptr) return static_cast<double>(take(7) >> 3) * 0x1p-53;
    const uint64_t bits = mix() >> 11;
    put(bits << 3, 7);
    return static_cast<double>(bits) * 0x1p-53;
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
  // One byte per decision when read from bytes.
  bool chance(double p) {
    if (in_ != nullptr) return (static_cast<double>(take(1)) + 0.5) * 0x1p-8 < p;
    const bool yes = static_cast<double>(mix() >> 11) * 0x1p-53 < p;
    put(yes ? 0 : 255, 1);
    return yes;
  }
  template <typename C>
  const auto& pick(const C& options) {
    return options[static_cast<size_t>(range(0, static_cast<int64_t>(std::size(options)) - 1))];
  }

  // For value generators (fill_values): true when decisions come from bytes,
  // then raw32() is the next 4 bytes as they are (a float's bits, say).
  bool reads_bytes() const { return in_ != nullptr; }
  uint32_t raw32() { return static_cast<uint32_t>(take(4)); }
  // Recording: the 4 bytes from which raw32() replays `bits`.
  void record32(uint32_t bits) { put(bits, 4); }
  // Recording: the bytes that make range(lo, hi) return `value` on replay,
  // without drawing from the stream (an encoder's own choices).
  void record_choice(int64_t lo, int64_t hi, int64_t value) {
    put(static_cast<uint64_t>(value - lo), bytes_for(static_cast<uint64_t>(hi - lo) + 1));
  }
  void record_chance(bool yes) { put(yes ? 0 : 255, 1); }
  bool records() const { return tape_ != nullptr; }
  // Recording: runs f(*this) with its draws kept off the tape (a value
  // recorded whole with record32 rather than draw by draw).
  template <typename F>
  auto off_tape(F&& f) {
    std::vector<uint8_t>* const tape = tape_;
    tape_ = nullptr;
    auto result = f(*this);
    tape_ = tape;
    return result;
  }

  // Bytes one range() of `span` values reads: enough to cover the span.
  static int bytes_for(uint64_t span) {
    int k = 1;
    while (k < 8 && (span - 1) >> (8 * k) != 0) ++k;
    return k;
  }

 private:
  uint64_t mix() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // k little-endian bytes of the input; the hash-seeded stream once it ends.
  uint64_t take(int k) {
    uint64_t v = 0;
    if (left_ >= static_cast<size_t>(k)) {
      for (int i = 0; i < k; ++i) v |= static_cast<uint64_t>(in_[i]) << (8 * i);
      in_ += k;
      left_ -= static_cast<size_t>(k);
      return v;
    }
    left_ = 0;
    return k == 8 ? mix() : mix() & ((uint64_t{1} << (8 * k)) - 1);
  }
  void put(uint64_t v, int k) {
    if (tape_ == nullptr) return;
    for (int i = 0; i < k; ++i) tape_->push_back(static_cast<uint8_t>(v >> (8 * i)));
  }

  uint64_t state_;
  const uint8_t* in_ = nullptr;  // from_bytes: the bytes not read yet
  size_t left_ = 0;
  std::vector<uint8_t>* tape_ = nullptr;  // recording: where the bytes go
};

// The seed of one case: a function of the run's seed, the op and the index
// only, so `--case N` replays case N alone.
uint64_t case_seed(uint64_t run_seed, std::string_view op, int64_t index);

}  // namespace konform
