// Clamp from the scalar backend that refuses a valid call it should serve:
// more than 100 elements returns TL_ERR_INVALID_ARGUMENT with its own words in
// tl_last_error. The finding must show that status and those words first
// (`plugin.refusal_shows_the_message`).
#include "impl/common/status.hpp"
#include "scalar/kernels.hpp"
#include "tinyllm/tensor.h"

extern "C" tl_status tl_clamp_f32(const float* x, float* y, int64_t n, float lo, float hi) {
  if (n > 100 && lo <= hi)
    return konform::impl::fail(TL_ERR_INVALID_ARGUMENT, "tl_clamp_f32: this library takes at most 100 elements");
  return konform::scalar::clamp_f32(x, y, n, lo, hi);
}
