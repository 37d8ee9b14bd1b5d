// tinyllm/threads.h: the thread count, and the fork-join helper of parallel.h.
//
// A call's helper threads linger for kLinger after it, spinning for the next
// call's share, then end. Starting and joining a thread took about 50 us on
// the guests of docs/benchmarks.md, and a decode step makes hundreds of calls
// a few microseconds apart (the projections, the attention, the feed-forward);
// handing a lingering thread its share takes about a microsecond (waking a
// parked one costs as much as starting it, hence the spin). Past the
// linger no thread is left: an isolated child that waits for a backend's
// threads to end waits no longer than that, and a child forked within it
// drops the inherited helpers (they are not in the child) for its own.
#include "impl/simd/parallel.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <system_error>
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

constexpr auto kLinger = std::chrono::microseconds(100);

inline void Relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

// One call: worker w of `workers` runs tasks w, w + workers, ... (a static
// split, no queue), and the caller waits for `pending` helpers.
struct Job {
  const std::function<void(int64_t)>* body = nullptr;
  int64_t tasks = 0, workers = 0;
  std::atomic<int64_t> pending{0};
  std::exception_ptr failure;  // the first exception of any share, for the caller
  std::mutex failure_lock;

  void Run(int64_t w) noexcept {
    try {
      for (int64_t t = w; t < tasks; t += workers) (*body)(t);
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_lock);
      if (!failure) failure = std::current_exception();
    }
  }
};

// A helper thread's seat. state: kWaiting (its thread spins for a job),
// kAssigned (job set), kGone (no thread; a new one is started on demand).
// The helper leaves kWaiting for kGone, and the caller for kAssigned, by
// compare-and-swap: of a linger that runs out and a call that comes, one wins.
enum : int { kGone, kWaiting, kAssigned };
struct Seat {
  explicit Seat(int64_t w) : index(w) {}
  const int64_t index;  // the worker it is, 1-based (the caller is 0)
  std::atomic<int> state{kGone};
  Job* job = nullptr;
  std::thread thread;  // joinable until joined by the next start or the team's end
};

class Team {
 public:
  ~Team() {
    stop_.store(true, std::memory_order_release);
    for (auto& s : seats_)
      if (s->thread.joinable()) s->thread.join();
  }

  // False when another call holds the team (another application thread, or
  // a body that calls ParallelFor again): that call starts its own threads.
  bool TryEnter() { return !busy_.exchange(true, std::memory_order_acquire); }
  void Leave() { busy_.store(false, std::memory_order_release); }

  // Hands helper w (1-based) its share; false if no thread could be started
  // (the caller then runs the share: a throw here would leave the team held
  // and handed shares reading a job that is gone).
  bool Hand(int64_t w, Job& job) {
    try {
      while (static_cast<int64_t>(seats_.size()) < w)
        seats_.push_back(std::make_unique<Seat>(static_cast<int64_t>(seats_.size()) + 1));
    } catch (const std::bad_alloc&) {
      return false;
    }
    Seat& s = *seats_[static_cast<size_t>(w - 1)];
    s.job = &job;
    int expected = kWaiting;
    if (s.state.compare_exchange_strong(expected, kAssigned, std::memory_order_acq_rel)) return true;
    if (s.thread.joinable()) s.thread.join();  // its linger ran out: it has ended or is ending
    s.state.store(kAssigned, std::memory_order_relaxed);
    try {
      s.thread = std::thread([this, &s] { Serve(s); });
    } catch (const std::system_error&) {  // out of threads (a task limit): the caller runs the share
      s.state.store(kGone, std::memory_order_relaxed);
      return false;
    }
    return true;
  }

 private:
  void Serve(Seat& s) {
    for (;;) {
      Job& job = *s.job;
      job.Run(s.index);
      // Waiting before the count: once the caller sees 0 the seat is free
      // for its next call, and `job` (on the caller's stack) is not read again.
      s.state.store(kWaiting, std::memory_order_release);
      job.pending.fetch_sub(1, std::memory_order_acq_rel);
      const auto until = std::chrono::steady_clock::now() + kLinger;
      for (int spins = 0;; ++spins) {
        if (s.state.load(std::memory_order_acquire) == kAssigned) break;
        if ((spins & 63) == 0 && (stop_.load(std::memory_order_acquire) || std::chrono::steady_clock::now() > until)) {
          int expected = kWaiting;
          if (s.state.compare_exchange_strong(expected, kGone, std::memory_order_acq_rel)) return;
          break;  // a call came at the last moment
        }
        Relax();
      }
    }
  }

  std::atomic<bool> busy_{false}, stop_{false};
  std::vector<std::unique_ptr<Seat>> seats_;  // seats stay put while the vector grows
};

// The process's team. A forked child has none of its parent's threads: it
// drops the inherited team (leaked; its threads are not there to join) and
// starts its own.
std::atomic<Team*> g_team{nullptr};
std::once_flag g_team_once;

struct TeamOwner {
  ~TeamOwner() { delete g_team.exchange(nullptr); }
} g_team_owner;

Team& TheTeam() {
  std::call_once(g_team_once, [] {
    pthread_atfork(nullptr, nullptr, [] { g_team.store(new Team); });
    g_team.store(new Team);
  });
  return *g_team.load(std::memory_order_acquire);
}

// A call with its own threads, joined before it returns.
void RunWithOwnThreads(Job& job) {
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(job.workers - 1));
  int64_t w = 1;
  try {
    for (; w < job.workers; ++w) threads.emplace_back([&job, w] { job.Run(w); });
  } catch (const std::system_error&) {  // out of threads: the caller runs the rest
  }
  for (int64_t rest = w; rest < job.workers; ++rest) job.Run(rest);
  job.Run(0);
  for (auto& t : threads) t.join();
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
  Job job;
  job.body = &body;
  job.tasks = tasks;
  job.workers = workers;
  Team& team = TheTeam();
  if (team.TryEnter()) {
    std::vector<int64_t> unserved;  // shares no helper could take
    for (int64_t w = 1; w < workers; ++w) {
      job.pending.fetch_add(1, std::memory_order_relaxed);
      if (!team.Hand(w, job)) {
        job.pending.fetch_sub(1, std::memory_order_relaxed);
        unserved.push_back(w);
      }
    }
    job.Run(0);
    for (int64_t w : unserved) job.Run(w);
    // The helpers read body and job until they count down: wait for all.
    for (int spins = 0; job.pending.load(std::memory_order_acquire) != 0; ++spins)
      if (spins < 100000) Relax();
      else std::this_thread::yield();
    team.Leave();
  } else {
    RunWithOwnThreads(job);
  }
  if (job.failure) std::rethrow_exception(job.failure);
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
