// tl_last_error and the setter both backends use (the scalar backend links
// libtl_kernels for it).
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
