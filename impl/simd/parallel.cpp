// tinyllm/threads.h: the thread count, and the fork-join helper of parallel.h.
// Threads are started per call and joined before it returns: a kernel that
// is worth splitting runs for milliseconds, against tens of microseconds to
// start a thread, and nothing outlives the call (no pool to leak or fork).
#include "impl/simd/parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

#include "tinyllm/threads.h"

namespace konform::simd {
namespace {

std::atomic<int> g_threads{0};  // 0: the default, not read yet

int DefaultThreads() {
  const char* env = std::getenv("TL_NUM_THREADS");
  if (env == nullptr) return 1;
  char* end = nullptr;
  const long n = std::strtol(env, &end, 10);
  return end != env && *end == '\0' && n >= 1 && n <= 1024 ? static_cast<int>(n) : 1;
}

}  // namespace

int ThreadCount() {
  int n = g_threads.load(std::memory_order_relaxed);
  if (n <= 0) {
    n = DefaultThreads();
    g_threads.store(n, std::memory_order_relaxed);
  }
  return n;
}

void ParallelFor(int64_t tasks, const std::function<void(int64_t)>& body) {
  const int64_t workers = std::min<int64_t>(ThreadCount(), tasks);
  if (workers <= 1) {
    for (int64_t t = 0; t < tasks; ++t) body(t);
    return;
  }
  // Worker w runs tasks w, w + workers, ...: a static split, no queue.
  auto run = [&](int64_t w) {
    for (int64_t t = w; t < tasks; t += workers) body(t);
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(workers - 1));
  for (int64_t w = 1; w < workers; ++w) threads.emplace_back(run, w);
  run(0);
  for (auto& t : threads) t.join();
}

}  // namespace konform::simd

extern "C" {

int tl_set_num_threads(int n) {
  const int previous = konform::simd::ThreadCount();
  konform::simd::g_threads.store(n >= 1 ? n : 0, std::memory_order_relaxed);  // 0: read the default again
  return previous;
}

int tl_get_num_threads(void) { return konform::simd::ThreadCount(); }

}  // extern "C"
