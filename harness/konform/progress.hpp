// The progress line of `konform check` on standard error while its ops run:
// where the running op's child is, which op of how many (backend x op
// pairs), the time so far and an ETA from the ops done:
//
//   rmsnorm on scalar: case 212/300, 14 s  [3/172 ops, 1 min 03 s elapsed, ETA 5 min 10 s]
//
// On a terminal it is one line, redrawn in place with '\r' and erased before
// anything else is printed (clear_progress). Elsewhere, a CI log, it is a
// full line every 5 s while an op runs long, and never a '\r'.
#pragma once

#include <chrono>
#include <functional>
#include <cstdint>
#include <string>
#include <sys/types.h>

namespace konform {

class Progress {
 public:
  // Shown by this process until destroyed; `terminal`: stderr is one.
  Progress(int64_t ops, bool terminal);
  // A worker's (cli/workers.hpp): child_at hands its text ("Softmax on simd:
  // case 212/300, 14 s") to `relay` instead of drawing it, as often as it
  // would draw it (`terminal`: konform's stderr is one).
  Progress(std::function<void(const std::string&)> relay, bool terminal);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void begin_op();  // the next op starts
  void end_op();    // it is done: the ETA learns from it
  // From run_isolated's wait, about every 0.2 s: `what` ("rmsnorm on
  // scalar") at case `case_index` of `cases`, or doing `label` (case < 0).
  void child_at(const std::string& what, int64_t case_index, int64_t cases, const std::string& label);
  // A worker's relayed text, drawn as child_at draws its own (the worker
  // decided when: a log gets each, a terminal at most every 0.25 s).
  void note(const std::string& text);
  void clear();  // erases the line on a terminal

  // The progress line of this process, nullptr when none: a forked child
  // has none, so it never draws on or clears its parent's terminal.
  static Progress* shown();

 private:
  using Clock = std::chrono::steady_clock;
  std::string eta_text(Clock::time_point now) const;
  void draw(const std::string& text, Clock::time_point now);

  int64_t ops_, done_ = 0, begun_ = 0;
  bool terminal_;
  pid_t owner_;
  Clock::time_point start_, op_start_, last_end_, next_draw_;
  size_t drawn_ = 0;  // characters of the line on the terminal now
  std::function<void(const std::string&)> relay_;
};

// Erases this process's progress line, if it shows one: before anything
// else goes to the terminal.
void clear_progress();

}  // namespace konform
