#include "konform/isolate.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <sstream>
#include <stdexcept>

namespace konform {

namespace {

void write_all(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = write(fd, s.data() + done, s.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    done += static_cast<size_t>(n);
  }
}

// Messages are one line each: "C <index> <label>", "R <payload>", "E <error>".
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

}  // namespace

void ChildChannel::progress(int64_t index, const std::string& label) {
  write_all(fd_, "C " + std::to_string(index) + " " + one_line(label) + "\n");
}

ChildOutcome run_isolated(const std::function<std::string(ChildChannel&)>& work, double timeout_s) {
  if (!(timeout_s > 0 && timeout_s <= kMaxTimeoutSeconds))
    throw std::invalid_argument("timeout " + std::to_string(timeout_s) + " s is not above 0 and at most " +
                                std::to_string(static_cast<int64_t>(kMaxTimeoutSeconds)) + " s");
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::fflush(nullptr);  // nothing buffered may be printed twice
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    close(fds[0]);
    ChildChannel channel(fds[1]);
    int code = 0;
    try {
      write_all(fds[1], "R " + one_line(work(channel)) + "\n");
    } catch (const std::exception& e) {
      write_all(fds[1], "E " + one_line(e.what()) + "\n");
      code = 3;
    }
    std::fflush(nullptr);
    _exit(code);
  }
  close(fds[1]);

  ChildOutcome out;
  std::string buffer, error;
  bool have_payload = false, timed_out = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  auto handle_line = [&](const std::string& line) {
    if (line.rfind("C ", 0) == 0) {
      std::istringstream in(line.substr(2));
      in >> out.last_case;
      std::getline(in >> std::ws, out.last_label);
    } else if (line.rfind("R ", 0) == 0) {
      out.payload = line.substr(2);
      have_payload = true;
    } else if (line.rfind("E ", 0) == 0) {
      error = line.substr(2);
    }
  };
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    char chunk[65536];
    const ssize_t n = read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child closed its end: it has exited
    buffer.append(chunk, static_cast<size_t>(n));
    size_t nl;
    while ((nl = buffer.find('\n')) != std::string::npos) {
      handle_line(buffer.substr(0, nl));
      buffer.erase(0, nl + 1);
    }
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    out.status = ChildOutcome::timeout;
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", timeout_s);  // 600, 0.5, 1e+06
    out.detail = std::string("no result after ") + seconds + " s";
  } else if (WIFSIGNALED(status)) {
    out.status = ChildOutcome::crashed;
    out.detail = "signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  } else if (!error.empty()) {
    out.status = ChildOutcome::harness_error;
    out.detail = error;
  } else if (!have_payload || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    out.status = ChildOutcome::crashed;
    out.detail = "exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                 " before reporting a result";
  }
  return out;
}

}  // namespace konform
