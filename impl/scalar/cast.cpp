#include "konform/reference/bf16.hpp"
#include "konform/reference/f16.hpp"
#include "scalar/kernels.hpp"

namespace konform::scalar {

// The oracle's conversions by bits (reference/konform/reference/f16.hpp,
// bf16.hpp), one element at a time.
void cast_f32_to_f16(const float* x, uint16_t* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = reference::f32_to_f16(x[i]);
}
void cast_f32_to_bf16(const float* x, uint16_t* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = reference::f32_to_bf16(x[i]);
}
void cast_f16_to_f32(const uint16_t* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = reference::f16_to_f32(x[i]);
}
void cast_bf16_to_f32(const uint16_t* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = reference::bf16_to_f32(x[i]);
}

}  // namespace konform::scalar
