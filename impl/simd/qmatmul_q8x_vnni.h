// The q8x matmuls' AVX-512 VNNI path (qmatmul_q8x_vnni.cpp): plain C++,
// called from the AVX3 target of qmatmul_q8x.cpp where the CPU has VNNI.
#pragma once

#include <cstdint>

namespace konform::simd {

// Whether this CPU has AVX-512 VNNI (with BW, VL and F16C).
bool HasAvx512Vnni();

// Columns [n0, n1) of y for every row (format 0 Q8_0, 1 Q4_0, 2 Q4_K; xq
// the rows' x blocks as impl/common/q8x.hpp lays them out).
void Q8xColumnsVnni(int format, const void* xq, const uint8_t* w, float* y, int64_t M, int64_t N, int64_t K, int64_t n0,
                    int64_t n1);

}  // namespace konform::simd
