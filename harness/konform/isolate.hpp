// Runs work in a child process, so a kernel that crashes, hangs or scribbles
// becomes a finding instead of taking the harness down. docs/isolation.md
// describes the model: what the child can and cannot do to konform.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "konform/guard.hpp"

namespace konform {

struct ChildBoard;  // memory the child shares with the parent (isolate.cpp)

// What the child can tell the parent while it works.
class ChildChannel {
 public:
  ChildChannel(int fd, ChildBoard* board);
  // Before each piece of work (a case, a property): if the child dies or
  // hangs, this is what it was doing. deadline_s > 0 gives this piece its
  // own deadline (never past the child's timeout).
  void progress(int64_t index, const std::string& label, double deadline_s = 0);
  // A result so far, kept by the parent even if the child dies later
  // (ChildOutcome::checkpoints).
  void checkpoint(const std::string& payload);
  // Sends a framed message: "<kind> <length> <checksum>\n<payload>".
  void send(char kind, const std::string& payload);
  // Ends the child at once if its pipe to konform is gone or replaced (a
  // kernel that closed konform's descriptors): the parent then reports
  // the piece of work that did it.
  void require_intact();

 private:
  int fd_;
  ChildBoard* board_;
  uint64_t dev_ = 0, ino_ = 0;  // the pipe's identity
};

struct ChildOutcome {
  // corrupted: the child's messages were not what konform sends (something
  // in the child wrote over them); the run goes on, the child is killed.
  enum Status { ok, crashed, timeout, harness_error, corrupted } status = ok;
  std::string payload;                   // what the work returned (ok)
  std::vector<std::string> checkpoints;  // each intact, in the order sent
  std::string detail;                    // "signal 11 (Segmentation fault)", the harness error's message, ...
  int64_t last_case = -1;                // the case that was running (crashed, timeout, corrupted)
  std::string last_label;
  std::optional<GuardHit> fault;  // a crash the guard pages named (crashed)
  bool strays = false;            // processes the child started outlived it (they were killed)
};

// The longest wait run_isolated takes: 1e6 s (11.6 days). Longer ones, and
// infinite ones, would overflow the deadline and report a false hang.
inline constexpr double kMaxTimeoutSeconds = 1e6;

struct IsolateOptions {
  double timeout_s = 600;  // the child's whole life, the ceiling of every deadline
  // Names the child in the progress line (konform/progress.hpp) and on the
  // lines it prints ("Softmax on simd"); "" leaves it out of the progress
  // line. total: the number of cases.
  std::string what;
  int64_t total = 0;
  // Caps the child's address space (RLIMIT_AS) so that a huge allocation
  // fails instead of exhausting the machine. Off for backends whose runtime
  // reserves address space by the terabyte (CUDA), and under ASan.
  bool limit_address_space = false;
};

// Calls work(channel) in a forked child (its own process group, killed with
// konform) and waits at most timeout_s, which must be above 0 and at most
// kMaxTimeoutSeconds (else std::invalid_argument, before anything runs). The
// child's return value comes back as payload; an exception in the child is a
// harness_error with its message. What the child prints on its standard
// output and error is relayed to konform's standard error, each line marked
// as the child's.
ChildOutcome run_isolated(const std::function<std::string(ChildChannel&)>& work, const IsolateOptions& options);
ChildOutcome run_isolated(const std::function<std::string(ChildChannel&)>& work, double timeout_s);

// Installs konform's SIGTERM/SIGINT/SIGHUP handling: the running child's
// process group is killed and files registered with remove_on_signal are
// removed before konform ends with the signal.
// In a child of run_isolated: ends it at once as a crash that `hit`
// describes (a fault the child found itself, such as an error the device
// reported after a kernel); the parent reports hit's check and message.
// Outside a child it throws std::runtime_error with the message.
[[noreturn]] void end_child_with(const GuardHit& hit);

void kill_children_on_signal();
// A temporary file to remove if konform is killed (at most 8; "" clears).
void remove_on_signal(int slot, const std::string& path);

}  // namespace konform
