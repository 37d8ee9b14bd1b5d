// Several op checks at once: worker processes, forked before any check runs,
// each taking one task at a time (an op on a backend) and running it as
// konform would, its own children included. A hang then costs its deadline
// beside the other tasks, not after them.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace konform::cli {

struct TaskOutcome {
  std::string payload;  // what `run` returned
  std::string error;    // what `run` threw (konform's own error), or why the task was lost
  bool lost = false;    // its worker died before sending it (or none was left to run it)
};

// Runs tasks 0..count-1 on `jobs` workers. In a worker, `run(i)` makes task
// i's payload (a throw is the task's error); the worker's progress line
// (progress.hpp) is sent to konform as text. In konform, `begin(i)` is called when task i starts, `progress(text)`
// with each relayed text, and `done(i, outcome)` for each task in task order,
// as soon as it and every task before it are done. The workers die with
// konform (their children with them).
void run_in_workers(size_t count, int jobs, const std::function<std::string(size_t)>& run,
                    const std::function<void(size_t)>& begin, const std::function<void(const std::string&)>& progress,
                    const std::function<void(size_t, const TaskOutcome&)>& done);

}  // namespace konform::cli
