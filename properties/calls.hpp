// The six kernels called through a backend the way the sweep calls them
// (guarded buffers, poisoned outputs), with plain vectors in and out, so a
// property reads like the math it states.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "konform/backend.hpp"
#include "konform/declared_case.hpp"

namespace konform::calls {

// The op of that name; throws std::logic_error when the catalog has none.
const OpSpec& op(const std::string& name);
// Whether backend b exports op `name`'s symbol.
bool exports(const Backend& b, const std::string& name);

// One guarded call (run_op) of op `name` on a case built from its
// declaration (declared_case): the parameters and inputs given, every other
// tensor as declared.
struct Outcome {
  Case c;                             // the case as called
  std::map<std::string, Tensor> out;  // its outputs
  int32_t status = 0;                 // the op's status output; 0 for an op without one
  std::vector<float> f32(const std::string& name) const;
  std::vector<int32_t> i32(const std::string& name) const;
  std::vector<uint8_t> u8(const std::string& name) const;
};
Outcome call(const Backend& b, const std::string& name, CaseInputs in);
// call() of arguments the op must accept: a status other than TL_OK throws
// std::runtime_error, a property failure.
Outcome call_valid(const Backend& b, const std::string& name, CaseInputs in);

std::vector<float> rmsnorm(const Backend& b, const std::vector<float>& x, const std::vector<float>& w, int64_t rows,
                           int64_t d, float eps, bool in_place = false);
std::vector<float> rope(const Backend& b, const std::vector<float>& x, const std::vector<int32_t>& pos, int64_t T,
                        int64_t H, int64_t D, int64_t d_rot, const std::vector<float>& inv_freq, float attn_scaling,
                        int layout);
std::vector<float> silu_mul(const Backend& b, const std::vector<float>& gate, const std::vector<float>& up);
std::vector<float> embedding(const Backend& b, const std::vector<float>& table, int64_t V,
                             const std::vector<int32_t>& ids, int64_t d);
std::vector<float> add(const Backend& b, const std::vector<float>& a, const std::vector<float>& bv,
                       bool in_place = false);
int32_t argmax(const Backend& b, const std::vector<float>& x);

}  // namespace konform::calls
