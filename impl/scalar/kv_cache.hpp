// The `scalar` backend of tinyllm/kv_cache.h: the reference cache
// (reference/konform/reference/kv_cache.hpp) on float behind the C table.
#pragma once

#include "tinyllm/kv_cache.h"

namespace konform::scalar {

const tl_kv_cache_api* kv_cache_api_v1();

}  // namespace konform::scalar
