// Whole writes to a file descriptor, for konform's own pipes (a child's
// result channel, a worker's messages to konform).
#pragma once

#include <cstddef>

namespace konform {

// Writes all `size` bytes, again after EINTR and after a short write. False
// when a write fails (a closed pipe, a closed descriptor) or writes nothing.
bool write_all(int fd, const void* data, size_t size);

}  // namespace konform
