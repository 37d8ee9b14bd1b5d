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

// Calls work(channel) in a forked child and waits at most timeout_s. The
// child's return value comes back as payload; an exception in the child is a
// harness_error with its message.
ChildOutcome run_isolated(const std::function<std::string(ChildChannel&)>& work, double timeout_s);

}  // namespace konform
