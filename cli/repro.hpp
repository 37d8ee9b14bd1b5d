// `konform repro`: replays a reproducer file, or a fuzz target's raw input,
// on a backend and says whether it still fails, with expected, got, the
// error and its limit.
#pragma once

#include <string>
#include <vector>

namespace konform::cli {

int repro(const std::vector<std::string>& args);  // usage in args.cpp

}  // namespace konform::cli
