// Pairwise summation in a fixed order: error grows with log2(n), not n, and the
// order depends only on n, so a row's result never depends on its batch.
#pragma once

#include <cstdint>

namespace konform::reference {

// Sum of f(i) for i in [begin, end), split in halves down to blocks of 8.
template <typename T, typename Term>
T pairwise_sum(int64_t begin, int64_t end, const Term& term) {
  if (end - begin <= 8) {
    T acc = T(0);
    for (int64_t i = begin; i < end; ++i) acc += term(i);
    return acc;
  }
  const int64_t mid = begin + (end - begin) / 2;
  return pairwise_sum<T>(begin, mid, term) + pairwise_sum<T>(mid, end, term);
}

}  // namespace konform::reference
