// Runs work in a child process, so a kernel that crashes or hangs becomes a
// finding instead of taking the harness down.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace konform {

// What the child can tell the parent while it works.
class ChildChannel {
 public:
  explicit ChildChannel(int fd) : fd_(fd) {}
  // Before each case: if the child dies, this is the case that killed it.
  void progress(int64_t index, const std::string& label);

 private:
  int fd_;
};

struct ChildOutcome {
  enum Status { ok, crashed, timeout, harness_error } status = ok;
  std::string payload;     // what the work returned (ok)
  std::string detail;      // "signal 11 (Segmentation fault)", the harness error's message, ...
  int64_t last_case = -1;  // the case that was running (crashed, timeout)
  std::string last_label;
};

// The longest wait run_isolated takes: 1e6 s (11.6 days). Longer ones, and
// infinite ones, would overflow the deadline and report a false hang.
inline constexpr double kMaxTimeoutSeconds = 1e6;

// Calls work(channel) in a forked child and waits at most timeout_s, which
// must be above 0 and at most kMaxTimeoutSeconds (else std::invalid_argument,
// before anything runs). The child's return value comes back as payload; an
// exception in the child is a harness_error with its message.
ChildOutcome run_isolated(const std::function<std::string(ChildChannel&)>& work, double timeout_s);

}  // namespace konform
