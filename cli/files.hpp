// The files the command line reads and writes, each checked: an input must
// be a regular file read to its end, an output must be writable before the
// run starts and fully written (flushed and closed) after it. Errors name
// the path; they are std::runtime_error (exit status 2).
#pragma once

#include <cstdio>
#include <string>

#include "konform/read_file.hpp"

namespace konform::cli {

// Inputs: konform::read_file (konform/read_file.hpp).
using konform::read_file;

// An output file, opened for writing when constructed so that an unwritable
// path stops the run before it starts: a temporary file beside it
// (PATH.konform-XXXXXX), renamed over PATH by write() when complete. An
// existing file keeps its contents until then (a run that stops early, even
// killed, loses no old report and leaves no half-written one); a temporary
// file never filled is removed again, also when konform is killed by a
// signal it can catch. A device or pipe (/dev/stdout) is written in place.
// write() writes the text, closes the file and checks every step. `what`
// names it: "JUnit XML".
class OutputFile {
 public:
  OutputFile() = default;  // none: write() does nothing
  OutputFile(const std::string& path, std::string what);
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&& other) noexcept;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();
  // Writes text, closes, and prints "WHAT: PATH" on success unless told not to.
  void write(const std::string& text, bool announce = true);

 private:
  void discard();  // closes an unwritten file, removing its temporary file
  void forget_temp();

  std::string path_, what_, temp_;
  std::FILE* f_ = nullptr;
  int slot_ = -1;  // its temporary file's slot for konform::remove_on_signal
};

// Creates dir if missing and checks that a file can be created in it, so
// that a finding's reproducer is not lost after a long run.
void prepare_output_dir(const std::string& dir, const std::string& flag);

}  // namespace konform::cli
