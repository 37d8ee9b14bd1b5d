// The ops of tinyllm/linalg.h called through a backend the way the sweep calls
// them (guarded buffers, poisoned outputs, the catalog's argument names), with
// plain vectors in and out, for linalg_properties.cpp.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "konform/call.hpp"
#include "konform/op.hpp"
#include "ops/linalg_support.hpp"

namespace konform::calls::linalg {

using Floats = std::vector<float>;

inline const OpSpec& op(const char* name) {
  const OpSpec* o = find_op(name);
  if (o == nullptr) throw std::logic_error(std::string("no op ") + name + " in the catalog");
  return *o;
}

// Runs `c` (its status argument added here) and returns output `out`; a
// status other than TL_OK is a property failure (these calls are valid).
inline Floats run(const Backend& b, const char* name, Case c, const char* out) {
  c.args.push_back(ops::linalg::status_arg());
  const auto got = run_op(b, op(name), c);
  const int32_t status = got.at("status").i32()[0];
  if (status != 0)
    throw std::runtime_error(std::string(name) + " refused valid arguments: status " + std::to_string(status));
  const Tensor& t = got.at(out);
  return Floats(t.f32(), t.f32() + t.elements());
}

// y = x @ w^T; x: [M, K], w: [N, K].
inline Floats matmul(const Backend& b, const Floats& x, const Floats& w, int64_t M, int64_t N, int64_t K) {
  Case c;
  c.params = {{"M", double(M)}, {"N", double(N)}, {"K", double(K)}, {"big", 0.0}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({M, K}, x)});
  c.args.push_back({"w", Access::in, Tensor::of_f32({N, K}, w)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {M, N})});
  return run(b, "Matmul", c, "y");
}

inline Floats fused_norm_matmul(const Backend& b, const Floats& x, const Floats& g, const Floats& w, int64_t M,
                                int64_t N, int64_t K, float eps) {
  Case c;
  c.params = {{"M", double(M)}, {"N", double(N)}, {"K", double(K)}, {"eps", double(eps)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({M, K}, x)});
  c.args.push_back({"norm_w", Access::in, Tensor::of_f32({K}, g)});
  c.args.push_back({"w", Access::in, Tensor::of_f32({N, K}, w)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {M, N})});
  return run(b, "FusedNormMatmul", c, "y");
}

inline Floats fused_swiglu(const Backend& b, const Floats& x, const Floats& wg, const Floats& wu, int64_t M, int64_t D,
                           int64_t H) {
  Case c;
  c.params = {{"M", double(M)}, {"D", double(D)}, {"H", double(H)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({M, D}, x)});
  c.args.push_back({"w_gate", Access::in, Tensor::of_f32({H, D}, wg)});
  c.args.push_back({"w_up", Access::in, Tensor::of_f32({H, D}, wu)});
  c.args.push_back({"h", Access::out, Tensor::zeros(DType::f32, {M, H})});
  return run(b, "FusedSwiGlu", c, "h");
}

// SwiGlu_FFN, GeGlu_FFN (gelu 0 erf, 1 tanh) or Glu_FFN.
inline Floats ffn(const Backend& b, const char* name, const Floats& x, const Floats& wg, const Floats& wu,
                  const Floats& wd, int64_t M, int64_t D, int64_t H, int gelu = 0) {
  Case c;
  c.params = {{"M", double(M)}, {"D", double(D)}, {"H", double(H)}, {"gelu", double(gelu)}};
  c.args.push_back({"x", Access::in, Tensor::of_f32({M, D}, x)});
  c.args.push_back({"w_gate", Access::in, Tensor::of_f32({H, D}, wg)});
  c.args.push_back({"w_up", Access::in, Tensor::of_f32({H, D}, wu)});
  c.args.push_back({"w_down", Access::in, Tensor::of_f32({D, H}, wd)});
  c.args.push_back({"y", Access::out, Tensor::zeros(DType::f32, {M, D})});
  return run(b, name, c, "y");
}

}  // namespace konform::calls::linalg
