// Guarded buffers: every argument of a call in its own mapping, its end
// against inaccessible memory, so that a kernel's access out of bounds faults
// at the first bad byte; the fault is then named (argument, case, read or
// write) by describe_guard_hit, which a signal handler may call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace konform {

// One argument's memory for one call:
//   [64 KiB inaccessible][canaries][data][slack][inaccessible, as long as the
//   data and at least 4 MiB]
// The slack (< 64 bytes, canaries too) keeps the data's start at `misalign`
// past a 64-byte boundary; with exact_end the data's last byte is the last
// accessible one and misalign is ignored. A write into the canaries is seen
// by canaries_intact(); one further out faults. When the buffer is
// destroyed its memory stays reserved and inaccessible for a while (the
// last 400 buffers, 2 GiB at most, then up to 64 more kept for reuse), so
// that a late access faults too, and is named as one until the memory serves
// another buffer or is unmapped.
class GuardedBuffer {
 public:
  // `output`: the call writes it (an access of unknown kind near it is
  // taken for a write, near an input for a read).
  GuardedBuffer(const std::string& arg, bool output, size_t bytes, size_t misalign, bool exact_end = false);
  ~GuardedBuffer();
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  uint8_t* data() const { return data_; }
  size_t size() const { return bytes_; }
  bool canaries_intact() const;

 private:
  uint8_t* map_ = nullptr;
  size_t map_bytes_ = 0;
  uint8_t* body_ = nullptr;  // the accessible pages
  size_t body_bytes_ = 0;
  uint8_t* data_ = nullptr;
  size_t bytes_ = 0;
  int slot_ = -1;  // its entry in the table describe_guard_hit reads
};

// The sweep case whose calls are being made (-1: none), recorded with each
// buffer so that a late access names the call that handed the buffer out.
void set_guard_case(int64_t index);

// What a fault in guarded memory was. Fixed-size text: filled in a handler.
struct GuardHit {
  char check[40];  // no_write_out_of_bounds, no_read_out_of_bounds, no_write_after_return, no_read_after_return
  char arg[48];
  int64_t case_index;
  char message[240];
};

enum class MemoryAccess { unknown, read, write };

// Whether `addr` lies in a guard zone or in a buffer already given back; if
// so fills `hit`. Async-signal-safe: no allocation, no locks.
bool describe_guard_hit(const void* addr, MemoryAccess access, GuardHit* hit);

}  // namespace konform
