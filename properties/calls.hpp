// The six kernels called through a backend the way the sweep calls them
// (guarded buffers, poisoned outputs), with plain vectors in and out, so a
// property reads like the math it states.
#pragma once

#include <cstdint>
#include <vector>

#include "konform/backend.hpp"

namespace konform::calls {

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
