// The thread count of tinyllm/threads.h and a fork-join helper for the
// kernels that split their work (Matmul and what is built on it). Plain C++,
// shared by every Highway target.
#pragma once

#include <cstdint>
#include <functional>

namespace konform::simd {

// The setting of tl_set_num_threads (or TL_NUM_THREADS), at least 1.
int ThreadCount();

// Runs body(t) for t in [0, tasks) on up to ThreadCount() threads (the
// caller's included) and returns when all are done. Tasks are independent;
// which thread runs which never changes a result. A task's exception stops
// its thread's share and reaches the caller once every share has stopped.
void ParallelFor(int64_t tasks, const std::function<void(int64_t)>& body);

}  // namespace konform::simd
