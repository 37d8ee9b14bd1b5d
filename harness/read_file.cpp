#include "konform/read_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace konform {

namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (st.type() == fs::file_type::not_found) throw std::runtime_error("cannot read '" + path + "': no such file");
  if (ec) throw std::runtime_error("cannot read '" + path + "': " + ec.message());
  if (st.type() == fs::file_type::directory) throw std::runtime_error("'" + path + "' is a directory, not a file");
  if (st.type() != fs::file_type::regular) throw std::runtime_error("'" + path + "' is not a regular file");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) throw std::runtime_error("cannot read '" + path + "': " + std::strerror(errno));
  std::string text;
  char chunk[65536];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) text.append(chunk, n);
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (failed) throw std::runtime_error("cannot read '" + path + "': " + std::strerror(err));
  return text;
}

}  // namespace konform
