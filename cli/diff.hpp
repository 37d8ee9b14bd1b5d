// `konform diff OLD.json NEW.json`: what a change made worse, for a CI gate.
#pragma once

#include <string>
#include <vector>

namespace konform::cli {

// Exit status: 0 when nothing regressed, 1 on a regression (UsageError or a
// file's error otherwise, exit 2).
int diff(const std::vector<std::string>& args);

}  // namespace konform::cli
