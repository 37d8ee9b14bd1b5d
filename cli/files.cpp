#include "files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

namespace konform::cli {

namespace fs = std::filesystem;

OutputFile::OutputFile(const std::string& path, std::string what) : path_(path), what_(std::move(what)) {
  std::error_code ec;
  const std::string where = "cannot write the " + what_ + " to '" + path + "': ";
  if (fs::is_directory(path, ec)) throw std::runtime_error(where + "it is a directory");
  created_ = !fs::exists(path, ec);
  // "r+b" opens an existing file for writing without truncating it.
  f_ = std::fopen(path.c_str(), created_ ? "wb" : "r+b");
  if (f_ == nullptr) throw std::runtime_error(where + std::strerror(errno));
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)),
      what_(std::move(other.what_)),
      f_(std::exchange(other.f_, nullptr)),
      created_(other.created_) {}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    what_ = std::move(other.what_);
    f_ = std::exchange(other.f_, nullptr);
    created_ = other.created_;
  }
  return *this;
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::discard() {
  if (f_ == nullptr) return;  // written, or moved from
  std::fclose(std::exchange(f_, nullptr));
  std::error_code ec;
  if (created_) fs::remove(path_, ec);  // never filled: leave no empty file behind
}

void OutputFile::write(const std::string& text) {
  if (f_ == nullptr) return;
  std::FILE* f = std::exchange(f_, nullptr);
  // Only now are the old contents replaced; a device (/dev/stdout) has none.
  struct stat st {};
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fileno(f), 0) != 0) {
    const int err = errno;
    std::fclose(f);
    throw std::runtime_error("cannot write the " + what_ + " to '" + path_ + "': " + std::strerror(err));
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
  int err = ok ? 0 : errno;
  if (std::fclose(f) != 0 && ok) ok = false, err = errno;
  if (!ok) throw std::runtime_error("cannot write the " + what_ + " to '" + path_ + "': " + std::strerror(err));
  std::printf("%s: %s\n", what_.c_str(), path_.c_str());
}

void prepare_output_dir(const std::string& dir, const std::string& flag) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error(flag + ": cannot create '" + dir + "': " + ec.message());
  if (!fs::is_directory(dir, ec)) throw std::runtime_error(flag + ": '" + dir + "' is not a directory");
  std::string probe = (fs::path(dir) / ".konform-write-test-XXXXXX").string();
  const int fd = mkstemp(probe.data());
  if (fd < 0) throw std::runtime_error(flag + ": cannot create files in '" + dir + "': " + std::strerror(errno));
  close(fd);
  fs::remove(probe, ec);
}

}  // namespace konform::cli
