// tl_last_error and fail(), the setter the argument checks and kernels call.
// One source, compiled into each library that exports the C ABI
// (libtl_scalar, libtl_kernels, libtl_cuda, the adapters): each gets its own
// thread-local message, so konform reads the words of the library under test.
#include "impl/common/status.hpp"

namespace {
thread_local std::string last_error;
}

namespace konform::impl {

tl_status fail(tl_status status, std::string message) {
  last_error = std::move(message);
  return status;
}

}  // namespace konform::impl

extern "C" const char* tl_last_error(void) { return last_error.c_str(); }
