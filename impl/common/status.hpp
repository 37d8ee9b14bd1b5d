// Setting the thread's last error (status.cpp): shared by every backend library.
#pragma once

#include <string>

#include "tinyllm/status.h"

namespace konform::impl {

// Records `message` for tl_last_error() and returns `status`, so a kernel
// can write `return fail(TL_ERR_SHAPE, "...")`.
tl_status fail(tl_status status, std::string message);

}  // namespace konform::impl
