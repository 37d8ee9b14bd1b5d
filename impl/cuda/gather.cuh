// The embeddings' row gather for libtl_cuda, a template so that every file
// that gathers rows (elementwise.cu's f32 tables, pos.cu's f16 and bf16
// ones) can include it.
#pragma once

#include <cstdint>

namespace konform::cuda {

// out[t, :] = rows[ids[t] - first_id, :], where rows holds table rows
// first_id .. the largest id. Copied as bits (NaN payloads included).
// Word: uint32_t for f32 rows, uint16_t for f16 and bf16 ones.
template <class Word>
__global__ void gather_rows(const Word* rows, const int32_t* ids, int64_t first_id, Word* out, int64_t n, int64_t d) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n * d; k += stride) {
    const int64_t t = k / d, i = k % d;
    out[k] = rows[(static_cast<int64_t>(ids[t]) - first_id) * d + i];
  }
}

}  // namespace konform::cuda
