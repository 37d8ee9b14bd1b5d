// Guarded buffers: faults near a buffer are named, and a buffer given back
// stays named as given back while its memory is quarantined or kept for
// reuse, so a kernel's thread that writes long after its call returned is a
// finding, not an unexplained crash.
#include "konform/guard.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace konform {
namespace {

std::string check_at(const void* addr) {
  GuardHit hit;
  if (!describe_guard_hit(addr, MemoryAccess::write, &hit)) return "";
  return hit.check;
}

TEST(Guard, OutOfBoundsAndAfterReturnAreNamed) {
  set_guard_case(7);
  auto b = std::make_unique<GuardedBuffer>("y", true, 100, 0, true);
  uint8_t* data = b->data();
  EXPECT_EQ(check_at(data), "") << "inside the buffer: not a guard fault";
  EXPECT_EQ(check_at(data + 100), "no_write_out_of_bounds");
  EXPECT_EQ(check_at(data - 4097), "no_write_out_of_bounds");
  b.reset();
  EXPECT_EQ(check_at(data), "no_write_after_return");
  GuardHit hit;
  ASSERT_TRUE(describe_guard_hit(data, MemoryAccess::write, &hit));
  EXPECT_EQ(hit.case_index, 7);
  EXPECT_EQ(std::string(hit.arg), "y");
  set_guard_case(-1);
}

// Past the quarantine (400 buffers) a mapping is kept as a spare for reuse;
// until a buffer of its size takes it, a write into it is still named.
TEST(Guard, ASpareIsStillNamedAsGivenBack) {
  auto big = std::make_unique<GuardedBuffer>("k_cache", true, size_t{64} << 20, 0);
  uint8_t* data = big->data();
  big.reset();
  for (int i = 0; i < 450; ++i) GuardedBuffer small("x", false, 16, 0);  // too small to take the big spare
  EXPECT_EQ(check_at(data), "no_write_after_return") << "out of quarantine, kept as a spare";
  // A buffer that reuses the mapping is described as itself, not as the old one.
  auto reuse = std::make_unique<GuardedBuffer>("v", false, size_t{64} << 20, 0);
  GuardHit hit;
  if (describe_guard_hit(reuse->data() + (size_t{64} << 20), MemoryAccess::read, &hit))
    EXPECT_EQ(std::string(hit.arg), "v");
}

}  // namespace
}  // namespace konform
