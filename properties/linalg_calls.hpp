// The ops of tinyllm/linalg.h called through a backend the way the sweep calls
// them (guarded buffers, poisoned outputs, the catalog's argument names), with
// plain vectors in and out, for linalg_properties.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calls.hpp"
#include "ops/linalg_support.hpp"

namespace konform::calls::linalg {

using Floats = std::vector<float>;

// y = x @ w^T; x: [M, K], w: [N, K].
inline Floats matmul(const Backend& b, const Floats& x, const Floats& w, int64_t M, int64_t N, int64_t K) {
  return call_valid(
             b, "Matmul",
             {{{"M", double(M)}, {"N", double(N)}, {"K", double(K)}, {"big", 0.0}}, {{"x", flat(x)}, {"w", flat(w)}}})
      .f32("y");
}

inline Floats fused_norm_matmul(const Backend& b, const Floats& x, const Floats& g, const Floats& w, int64_t M,
                                int64_t N, int64_t K, float eps) {
  return call_valid(b, "FusedNormMatmul",
                    {{{"M", double(M)}, {"N", double(N)}, {"K", double(K)}, {"eps", double(eps)}},
                     {{"x", flat(x)}, {"norm_w", flat(g)}, {"w", flat(w)}}})
      .f32("y");
}

inline Floats fused_swiglu(const Backend& b, const Floats& x, const Floats& wg, const Floats& wu, int64_t M, int64_t D,
                           int64_t H) {
  return call_valid(b, "FusedSwiGlu",
                    {{{"M", double(M)}, {"D", double(D)}, {"H", double(H)}},
                     {{"x", flat(x)}, {"w_gate", flat(wg)}, {"w_up", flat(wu)}}})
      .f32("h");
}

// SwiGlu_FFN, GeGlu_FFN (gelu 0 erf, 1 tanh) or Glu_FFN.
inline Floats ffn(const Backend& b, const char* name, const Floats& x, const Floats& wg, const Floats& wu,
                  const Floats& wd, int64_t M, int64_t D, int64_t H, int gelu = 0) {
  return call_valid(b, name,
                    {{{"M", double(M)}, {"D", double(D)}, {"H", double(H)}, {"gelu", double(gelu)}},
                     {{"x", flat(x)}, {"w_gate", flat(wg)}, {"w_up", flat(wu)}, {"w_down", flat(wd)}}})
      .f32("y");
}

}  // namespace konform::calls::linalg
