#include "scalar/kernels.hpp"

#include <vector>

#include "konform/reference/elementwise.hpp"

namespace konform::scalar {
namespace ref = konform::reference;

// rmsnorm allows y == x: the template finishes a row's sum before writing it.
void rmsnorm_f32(const float* x, const float* w, float* y, int64_t rows, int64_t d, float eps) {
  ref::rmsnorm<float>(x, w, y, rows, d, eps);
}

// In place: one token at a time through a copy, so both members of a pair are
// read before either is written.
void rope_f32(float* x, const int32_t* pos, int64_t T, int64_t H, int64_t D, int64_t d_rot, const float* inv_freq,
              float attn_scaling, int layout) {
  std::vector<float> token(static_cast<size_t>(H * D));
  for (int64_t t = 0; t < T; ++t) {
    float* xt = x + t * H * D;
    token.assign(xt, xt + H * D);
    ref::rope<float>(token.data(), xt, pos + t, 1, H, D, d_rot, inv_freq, attn_scaling, layout);
  }
}

void silu_mul_f32(const float* gate, const float* up, float* y, int64_t n) { ref::silu_mul<float>(gate, up, y, n); }

void embedding_f32(const float* table, const int32_t* ids, float* out, int64_t n, int64_t d) {
  ref::embedding<float>(table, ids, out, n, d);
}

// y == a is allowed: element i is read before it is written.
void add_f32(const float* a, const float* b, float* y, int64_t n) { ref::add<float>(a, b, y, n); }

int32_t argmax_f32(const float* x, int64_t n) { return ref::argmax(x, n); }

}  // namespace konform::scalar
