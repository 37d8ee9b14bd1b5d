// libtl_kernels' fork-join helper (impl/simd/parallel.h): every task runs
// exactly once whatever the thread count; a share's exception reaches the
// caller and the next call still works; calls from a body and from two
// application threads at once complete; a forked child can split its own
// work; and the helper threads a call starts end shortly after it (an
// isolated child waits for a backend's threads to end before it reports).
#include "impl/simd/parallel.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tinyllm/threads.h"

namespace {

using konform::simd::ParallelFor;

// Sets the thread count for one test and restores it.
class Threads {
 public:
  explicit Threads(int n) : previous_(tl_set_num_threads(n)) {}
  ~Threads() { tl_set_num_threads(previous_); }

 private:
  int previous_;
};

int OwnThreads() {
  int n = 0;
  if (DIR* tasks = opendir("/proc/self/task")) {
    while (const dirent* e = readdir(tasks)) n += e->d_name[0] != '.';
    closedir(tasks);
  }
  return n;
}

// Runs `tasks` tasks and says whether each ran exactly once.
bool EachOnce(int64_t tasks) {
  std::vector<std::atomic<int>> runs(static_cast<size_t>(tasks));
  ParallelFor(tasks, [&](int64_t t) { runs[static_cast<size_t>(t)].fetch_add(1); });
  for (auto& r : runs)
    if (r.load() != 1) return false;
  return true;
}

TEST(Parallel, EveryTaskOnceAtEveryThreadCount) {
  for (int threads : {1, 2, 3, 5, 8}) {
    Threads scope(threads);
    for (int64_t tasks : {0, 1, 2, 3, 4, 7, 8, 9, 16, 100}) EXPECT_TRUE(EachOnce(tasks)) << threads << " threads";
    for (int call = 0; call < 200; ++call) ASSERT_TRUE(EachOnce(threads)) << "call " << call;  // back to back
  }
}

TEST(Parallel, AnExceptionOfAnyShareReachesTheCaller) {
  Threads scope(3);
  for (int64_t thrower : {0, 1, 2}) {
    std::atomic<int> ran{0};
    EXPECT_THROW(ParallelFor(9,
                             [&](int64_t t) {
                               ran.fetch_add(1);
                               if (t == thrower) throw std::runtime_error("task failed");
                             }),
                 std::runtime_error);
    EXPECT_LE(ran.load(), 9) << "a share stops at its exception; no task runs twice";
    EXPECT_TRUE(EachOnce(9)) << "the next call after a throw by task " << thrower;
  }
}

TEST(Parallel, CallsFromABodyComplete) {
  Threads scope(2);
  std::vector<std::atomic<int>> runs(16);
  ParallelFor(4, [&](int64_t outer) {
    ParallelFor(4, [&](int64_t inner) { runs[static_cast<size_t>(outer * 4 + inner)].fetch_add(1); });
  });
  for (auto& r : runs) EXPECT_EQ(r.load(), 1);
}

TEST(Parallel, TwoApplicationThreadsAtOnce) {
  Threads scope(2);
  std::atomic<bool> ok{true};
  auto caller = [&] {
    for (int call = 0; call < 300; ++call)
      if (!EachOnce(5)) ok = false;
  };
  std::thread a(caller), b(caller);
  a.join();
  b.join();
  EXPECT_TRUE(ok.load());
}

TEST(Parallel, AForkedChildSplitsItsOwnWork) {
  Threads scope(2);
  ASSERT_TRUE(EachOnce(8));  // the parent's helper lingers while it forks
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(20);  // a child that hangs on its parent's helpers fails, not blocks
    bool ok = true;
    for (int call = 0; call < 50; ++call) ok = ok && EachOnce(8);
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
}

TEST(Parallel, HelpersEndShortlyAfterTheCall) {
  const int before = OwnThreads();
  Threads scope(4);
  ASSERT_TRUE(EachOnce(4));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (OwnThreads() > before && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_LE(OwnThreads(), before);
}

}  // namespace
