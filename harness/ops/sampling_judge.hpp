// The judge of a drawn token (check `draw_matches_oracle` of the Sample ops,
// harness/ops/sampling.cpp), one row at a time, for the properties that
// compare two draws (properties/sampling_properties.cpp).
#pragma once

#include <cstdint>

#include "konform/case.hpp"
#include "konform/compare.hpp"

namespace konform::ops {

// Row `row` of a Sample case c (its method, settings and seed; its logits
// given widened to float as row_logits, vocab of them): the verdict on
// `token`, its error the distance of the row's u from the token's interval
// in units of 2^-24 s, over the kept sets a correct float kernel may
// produce; ok when within `limit` (the op's tolerance).
ElementVerdict judge_draw(const Case& c, const float* row_logits, int64_t row, int32_t token, double limit);

}  // namespace konform::ops
