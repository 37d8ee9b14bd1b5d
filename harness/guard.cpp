#include "konform/guard.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <new>
#include <stdexcept>

namespace konform {

namespace {

constexpr uint8_t kCanary = 0xA7;
constexpr size_t kFront = size_t{64} << 10;    // inaccessible before each buffer
constexpr size_t kMinBack = size_t{4} << 20;   // inaccessible after it, at least
constexpr size_t kHugeBody = size_t{8} << 20;  // bodies this large ask for huge pages
constexpr size_t kQuarantineCount = 400;       // buffers kept inaccessible after use
constexpr size_t kQuarantineBytes = size_t{2} << 30;

// The table describe_guard_hit reads, possibly from a signal handler on
// another thread: fixed slots, each published by its state last.
struct Region {
  std::atomic<int> state{0};  // 0 free, 1 in use, 2 given back
  uintptr_t map_begin = 0, body_begin = 0, data_begin = 0, data_end = 0, body_end = 0, map_end = 0;
  size_t resident = 0;  // bytes of the mapping that have held pages (a reused one may be bigger than its body)
  int64_t case_index = -1;
  bool output = false;
  char arg[48] = {};
};
constexpr int kSlots = 1024;  // buffers in use, the 400 in quarantine and the 64 spares
Region g_regions[kSlots];
std::atomic<int64_t> g_case{-1};
std::deque<int> g_quarantine;  // slots given back, oldest first
size_t g_quarantine_bytes = 0;
constexpr size_t kQuarantineResident = size_t{256} << 20;  // their pages stay mapped, inaccessible
size_t g_quarantine_resident = 0;
// Mappings out of quarantine, kept for reuse: their pages are warm, so a
// new buffer that fits costs one mprotect, not a mapping and page faults.
// The sweep's cases have random shapes, so a spare serves any buffer whose
// whole mapping (front guard, body, back guard) it can hold; its pages past
// the new body stay inaccessible and are part of the back guard. A spare
// keeps its slot, still "given back", until it is reused or unmapped: a
// thread that writes into it long after its call returned is named too.
struct Spare {
  uint8_t* map = nullptr;
  size_t map_bytes = 0, resident = 0;
  int slot = -1;  // its old buffer's entry in g_regions, state 2
};
std::deque<Spare> g_spares;
constexpr size_t kSpares = 64;

size_t page_size() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}
size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

int claim_slot() {
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (g_regions[i].state.load(std::memory_order_relaxed) == 0 &&
        g_regions[i].state.compare_exchange_strong(expected, -1))
      return i;  // -1: being filled, ignored by readers
  }
  throw std::runtime_error("more than 1024 guarded buffers at once");
}

// Out of quarantine into the spares; the oldest spare past kSpares is
// unmapped and its slot freed.
void release(int slot) {
  const Region& r = g_regions[slot];
  const size_t map_bytes = r.map_end - r.map_begin;
  g_quarantine_bytes -= map_bytes;
  g_quarantine_resident -= r.resident;
  g_spares.push_back({reinterpret_cast<uint8_t*>(r.map_begin), map_bytes, r.resident, slot});
  if (g_spares.size() > kSpares) {
    const Spare oldest = g_spares.front();
    g_spares.pop_front();
    g_regions[oldest.slot].state.store(0, std::memory_order_release);
    munmap(oldest.map, oldest.map_bytes);
  }
}

// The smallest spare mapping of at least map_bytes (and at most twice that:
// a huge one is not held for a small buffer), its first body_bytes after the
// front guard accessible again; one with map == nullptr if none fits.
Spare reuse(size_t map_bytes, size_t body_bytes) {
  auto best = g_spares.end();
  for (auto it = g_spares.begin(); it != g_spares.end(); ++it)
    if (it->map_bytes >= map_bytes && it->map_bytes <= 2 * map_bytes &&
        (best == g_spares.end() || it->map_bytes < best->map_bytes))
      best = it;
  if (best == g_spares.end()) return {};
  const Spare spare = *best;
  g_spares.erase(best);
  // Its old buffer stops being described before any of it is accessible
  // again: a fault there now belongs to the new buffer.
  g_regions[spare.slot].state.store(0, std::memory_order_release);
  if (mprotect(spare.map + kFront, body_bytes, PROT_READ | PROT_WRITE) == 0) return spare;
  munmap(spare.map, spare.map_bytes);
  return {};
}

// Signal-safe text building.
void append(char* out, size_t cap, const char* s) {
  size_t n = std::strlen(out);
  while (*s != '\0' && n + 1 < cap) out[n++] = *s++;
  out[n] = '\0';
}
void append_number(char* out, size_t cap, uint64_t v) {
  char digits[24];
  int n = 0;
  do digits[n++] = static_cast<char>('0' + v % 10);
  while ((v /= 10) != 0);
  char text[24];
  for (int i = 0; i < n; ++i) text[i] = digits[n - 1 - i];
  text[n] = '\0';
  append(out, cap, text);
}

}  // namespace

GuardedBuffer::GuardedBuffer(const std::string& arg, bool output, size_t bytes, size_t misalign, bool exact_end)
    : bytes_(bytes) {
  const size_t page = page_size();
  const size_t slack = exact_end ? 0 : (64 - (bytes + misalign) % 64) % 64;
  body_bytes_ = std::max(page, round_up(bytes + slack, page));
  const size_t back = std::max(round_up(bytes, page), kMinBack);
  map_bytes_ = kFront + body_bytes_ + back;
  const Spare spare = reuse(map_bytes_, body_bytes_);
  map_ = spare.map;
  size_t resident = body_bytes_;
  if (map_ != nullptr) {
    map_bytes_ = spare.map_bytes;
    resident = std::max(resident, spare.resident);
  } else {
    void* p = mmap(nullptr, map_bytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    map_ = static_cast<uint8_t*>(p);
    if (mprotect(map_ + kFront, body_bytes_, PROT_READ | PROT_WRITE) != 0) {
      munmap(map_, map_bytes_);
      throw std::bad_alloc();
    }
    // A large body in 2 MiB pages where the kernel gives them on request:
    // hundreds of pages to fill and to protect again, not a hundred thousand.
    if (body_bytes_ >= kHugeBody) madvise(map_ + kFront, body_bytes_, MADV_HUGEPAGE);
#ifdef MADV_POPULATE_WRITE
    // The body's pages in one call, not a fault per page as the copy in
    // touches them (a large tensor's thousands of faults cost more than
    // the copy itself in a virtual machine); where the kernel lacks it
    // (before Linux 5.14), the faults happen as before.
    madvise(map_ + kFront, body_bytes_, MADV_POPULATE_WRITE);
#endif
  }
  body_ = map_ + kFront;
  data_ = body_ + body_bytes_ - slack - bytes;
  // The canaries only: the data is copied in or poisoned by the caller.
  std::memset(body_, kCanary, static_cast<size_t>(data_ - body_));
  std::memset(data_ + bytes, kCanary, slack);
  slot_ = claim_slot();
  Region& r = g_regions[slot_];
  r.map_begin = reinterpret_cast<uintptr_t>(map_);
  r.body_begin = reinterpret_cast<uintptr_t>(body_);
  r.data_begin = reinterpret_cast<uintptr_t>(data_);
  r.data_end = r.data_begin + bytes;
  r.body_end = r.body_begin + body_bytes_;
  r.map_end = r.map_begin + map_bytes_;
  r.resident = resident;
  r.case_index = g_case.load(std::memory_order_relaxed);
  r.output = output;
  std::memset(r.arg, 0, sizeof r.arg);
  std::memcpy(r.arg, arg.data(), std::min(arg.size(), sizeof r.arg - 1));
  r.state.store(1, std::memory_order_release);
}

GuardedBuffer::~GuardedBuffer() {
  // Given back but kept inaccessible: a kernel's thread that writes after
  // its call returned faults here instead of corrupting the heap. Marked
  // given back first: a thread writing at the moment of the mprotect faults
  // at once, and must not find the region still in use (an unexplained crash).
  g_regions[slot_].state.store(2, std::memory_order_release);
  mprotect(body_, body_bytes_, PROT_NONE);
  g_quarantine.push_back(slot_);
  g_quarantine_bytes += map_bytes_;
  g_quarantine_resident += g_regions[slot_].resident;
  while (g_quarantine.size() > kQuarantineCount || g_quarantine_bytes > kQuarantineBytes ||
         g_quarantine_resident > kQuarantineResident) {
    release(g_quarantine.front());
    g_quarantine.pop_front();
  }
}

bool GuardedBuffer::canaries_intact() const {
  const uint8_t* end = body_ + body_bytes_;
  for (const uint8_t* p = body_; p < data_; ++p)
    if (*p != kCanary) return false;
  for (const uint8_t* p = data_ + bytes_; p < end; ++p)
    if (*p != kCanary) return false;
  return true;
}

void set_guard_case(int64_t index) { g_case.store(index, std::memory_order_relaxed); }

bool describe_guard_hit(const void* addr, MemoryAccess access, GuardHit* hit) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
  for (const Region& r : g_regions) {
    const int state = r.state.load(std::memory_order_acquire);
    if (state <= 0 || a < r.map_begin || a >= r.map_end) continue;
    const bool write = access == MemoryAccess::write || (access == MemoryAccess::unknown && r.output);
    std::memset(hit, 0, sizeof *hit);
    hit->case_index = r.case_index;
    append(hit->arg, sizeof hit->arg, r.arg);
    char* m = hit->message;
    const size_t cap = sizeof hit->message;
    append(m, cap, write ? "a write to '" : "a read of '");
    append(m, cap, r.arg);
    if (state == 2) {
      append(hit->check, sizeof hit->check, write ? "no_write_after_return" : "no_read_after_return");
      append(m, cap, "' after the call had returned (its buffer was already given back)");
      return true;
    }
    if (a >= r.body_begin && a < r.body_end) return false;  // accessible: not a guard fault
    append(hit->check, sizeof hit->check, write ? "no_write_out_of_bounds" : "no_read_out_of_bounds");
    if (a < r.body_begin) {
      append(m, cap, "' ");
      append_number(m, cap, r.data_begin - a);
      append(m, cap, " bytes before its start hit the guard page");
    } else {
      append(m, cap, "' ");
      append_number(m, cap, a - r.data_end + 1);
      append(m, cap, " bytes past its end hit the guard page");
    }
    return true;
  }
  return false;
}

}  // namespace konform
