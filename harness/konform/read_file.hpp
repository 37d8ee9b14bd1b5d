// Reading a whole input file, checked: what every reader of the harness
// (reproducers, reports, tolerance tables) starts from.
#pragma once

#include <string>

namespace konform {

// The whole file, which must be a regular file read to its end. Throws
// std::runtime_error naming the path: "cannot read 'PATH': no such file",
// "'PATH' is a directory, not a file", "'PATH' is not a regular file", or
// the read error. (A directory opens as a stream on Linux and fails only on
// the first read, with the library's text and no path.)
std::string read_file(const std::string& path);

}  // namespace konform
