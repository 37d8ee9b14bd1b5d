#include "files.hpp"

#include "konform/isolate.hpp"

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

namespace {
int g_next_slot = 0;  // remove_on_signal's slots, one per output file of the run
}  // namespace

OutputFile::OutputFile(const std::string& path, std::string what) : path_(path), what_(std::move(what)) {
  std::error_code ec;
  const std::string where = "cannot write the " + what_ + " to '" + path + "': ";
  if (fs::is_directory(path, ec)) throw std::runtime_error(where + "it is a directory");
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec)) {
    // A device (/dev/stdout) or a pipe: written in place, it has nothing to lose.
    f_ = std::fopen(path.c_str(), "wb");
    if (f_ == nullptr) throw std::runtime_error(where + std::strerror(errno));
    return;
  }
  // A temporary file beside it, renamed over it when complete: a run that
  // stops early (killed, say) leaves the old file whole and no half of a new one.
  std::string temp = path + ".konform-XXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0) throw std::runtime_error(where + std::strerror(errno));
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);  // as fopen would have made it, not mkstemp's 0600
  f_ = fdopen(fd, "wb");
  if (f_ == nullptr) {
    const int err = errno;
    close(fd);
    fs::remove(temp, ec);
    throw std::runtime_error(where + std::strerror(err));
  }
  temp_ = temp;
  slot_ = g_next_slot++;
  konform::remove_on_signal(slot_, temp_);
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)),
      what_(std::move(other.what_)),
      temp_(std::move(other.temp_)),
      f_(std::exchange(other.f_, nullptr)),
      slot_(std::exchange(other.slot_, -1)) {}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    what_ = std::move(other.what_);
    temp_ = std::move(other.temp_);
    f_ = std::exchange(other.f_, nullptr);
    slot_ = std::exchange(other.slot_, -1);
  }
  return *this;
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::forget_temp() {
  if (slot_ >= 0) konform::remove_on_signal(slot_, "");
  slot_ = -1;
  temp_.clear();
}

void OutputFile::discard() {
  if (f_ == nullptr) return;  // written, or moved from
  std::fclose(std::exchange(f_, nullptr));
  std::error_code ec;
  if (!temp_.empty()) fs::remove(temp_, ec);  // never filled: leave nothing behind
  forget_temp();
}

void OutputFile::write(const std::string& text, bool announce) {
  if (f_ == nullptr) return;
  std::FILE* f = std::exchange(f_, nullptr);
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
  int err = ok ? 0 : errno;
  if (std::fclose(f) != 0 && ok) ok = false, err = errno;
  if (ok && !temp_.empty() && std::rename(temp_.c_str(), path_.c_str()) != 0) ok = false, err = errno;
  if (!ok) {
    std::error_code ec;
    if (!temp_.empty()) fs::remove(temp_, ec);
    forget_temp();
    throw std::runtime_error("cannot write the " + what_ + " to '" + path_ + "': " + std::strerror(err));
  }
  forget_temp();
  if (announce) std::printf("%s: %s\n", what_.c_str(), path_.c_str());
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
