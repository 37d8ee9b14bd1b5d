#include "workers.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <vector>

#include "konform/fd_io.hpp"
#include "konform/progress.hpp"

namespace konform::cli {

namespace {

// A worker's messages to konform: a kind, the payload's length (8 bytes),
// the payload. konform's own processes write them; no plugin code shares
// the pipe (a task's kernels run in the task's children).
constexpr char kProgress = 'P', kResult = 'R', kError = 'E';

bool send(int fd, char kind, const std::string& payload) {
  const uint64_t size = payload.size();
  return write_all(fd, &kind, 1) && write_all(fd, &size, sizeof size) && write_all(fd, payload.data(), payload.size());
}

// Reads task numbers from `tasks` until it closes, runs each, sends back
// its outcome on `out`. Never returns.
[[noreturn]] void worker_main(int tasks, int out, pid_t konform, const std::function<std::string(size_t)>& run) {
  prctl(PR_SET_PDEATHSIG, SIGTERM);  // its handler kills the running child's group
  if (getppid() != konform) _exit(0);
  Progress progress([out](const std::string& text) { send(out, kProgress, text); }, isatty(STDERR_FILENO) != 0);
  uint64_t task;
  for (;;) {
    ssize_t n;
    while ((n = read(tasks, &task, sizeof task)) < 0 && errno == EINTR) {
    }
    if (n != static_cast<ssize_t>(sizeof task)) break;
    progress.begin_op();
    char kind = kResult;
    std::string payload;
    try {
      payload = run(static_cast<size_t>(task));
    } catch (const std::exception& e) {
      kind = kError;
      payload = e.what();
    }
    std::fflush(nullptr);
    if (!send(out, kind, payload)) break;
  }
  std::fflush(nullptr);
  _exit(0);
}

struct Worker {
  pid_t pid = -1;
  int tasks = -1, out = -1;
  std::optional<size_t> task;  // the one it runs
  std::string buffer;          // bytes read, not yet a whole message
  bool open = true;
};

// The whole messages at the front of w.buffer, removed from it.
std::vector<std::pair<char, std::string>> take_messages(Worker& w) {
  std::vector<std::pair<char, std::string>> out;
  constexpr size_t kHeader = 1 + sizeof(uint64_t);
  while (w.buffer.size() >= kHeader) {
    uint64_t size;
    std::memcpy(&size, w.buffer.data() + 1, sizeof size);
    if (w.buffer.size() - kHeader < size) break;
    out.emplace_back(w.buffer[0], w.buffer.substr(kHeader, size));
    w.buffer.erase(0, kHeader + size);
  }
  return out;
}

}  // namespace

void run_in_workers(size_t count, int jobs, const std::function<std::string(size_t)>& run,
                    const std::function<void(size_t)>& begin, const std::function<void(const std::string&)>& progress,
                    const std::function<void(size_t, const TaskOutcome&)>& done) {
  std::vector<Worker> workers(static_cast<size_t>(std::max(1, std::min<int>(jobs, static_cast<int>(count)))));
  std::fflush(nullptr);  // nothing buffered may be printed twice
  for (Worker& w : workers) {
    int tasks[2], out[2];
    if (pipe(tasks) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    if (pipe(out) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    const pid_t konform = getpid();
    w.pid = fork();
    if (w.pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (w.pid == 0) {
      close(tasks[1]);
      close(out[0]);
      for (const Worker& other : workers)  // the earlier workers' ends are not this one's
        if (&other != &w && other.pid > 0) {
          close(other.tasks);
          close(other.out);
        }
      worker_main(tasks[0], out[1], konform, run);
    }
    close(tasks[0]);
    close(out[1]);
    w.tasks = tasks[1];
    w.out = out[0];
  }

  std::map<size_t, TaskOutcome> finished;  // done, waiting for an earlier task
  size_t next_task = 0, next_done = 0;
  auto give = [&](Worker& w) {
    if (next_task >= count || !w.open) return;
    const uint64_t task = next_task;
    if (!write_all(w.tasks, &task, sizeof task)) return;
    w.task = next_task++;
    begin(*w.task);
  };
  auto finish = [&](size_t task, TaskOutcome outcome) {
    finished[task] = std::move(outcome);
    while (!finished.empty() && finished.begin()->first == next_done) {
      done(next_done, finished.begin()->second);
      finished.erase(finished.begin());
      ++next_done;
    }
  };
  for (Worker& w : workers) give(w);
  while (next_done < count) {
    std::vector<pollfd> fds;
    for (const Worker& w : workers) fds.push_back({w.open ? w.out : -1, POLLIN, 0});
    if (poll(fds.data(), fds.size(), 1000) < 0 && errno != EINTR)
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    for (size_t k = 0; k < workers.size(); ++k) {
      Worker& w = workers[k];
      if (!w.open || (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      char chunk[65536];
      const ssize_t n = read(w.out, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) w.buffer.append(chunk, static_cast<size_t>(n));
      for (auto& [kind, payload] : take_messages(w)) {
        if (kind == kProgress) {
          progress(payload);
          continue;
        }
        if (!w.task) continue;
        const size_t task = *w.task;
        w.task.reset();
        finish(task, kind == kResult ? TaskOutcome{payload, ""} : TaskOutcome{"", payload});
        give(w);
      }
      if (n == 0) {  // the worker is gone: its task is an error, the others take the rest
        w.open = false;
        if (w.task) {
          finish(*w.task, {"", "konform's worker process for this op ended without its result", true});
          w.task.reset();
        }
        bool any_open = false;
        for (const Worker& other : workers) any_open |= other.open;
        while (!any_open && next_task < count) finish(next_task++, {"", "no worker process left to run it", true});
      }
    }
  }
  for (Worker& w : workers) {
    close(w.tasks);  // the worker reads the end and exits
    close(w.out);
  }
  for (Worker& w : workers) {
    int status;
    while (waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

}  // namespace konform::cli
