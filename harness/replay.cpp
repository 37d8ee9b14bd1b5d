#include "konform/replay.hpp"

#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <string_view>

#include "konform/backend.hpp"
#include "konform/values.hpp"

namespace konform {

namespace {

std::string& program_word() {
  static std::string word = "konform";
  return word;
}

// " --tolerances FILE", or "" for the built-in table.
std::string tolerances_option(const std::string& file) {
  return file.empty() ? "" : " --tolerances " + shell_word(absolute_path(file));
}

// "KONFORM check --backend B --op OP": how the lines that replay a case or a
// property begin.
std::string check_command(const Backend& b, const std::string& op) {
  return program_word() + " check --backend " + shell_word(replay_backend(b)) + " --op " + op;
}

// What a replay line adds about its reproducer file, and where it has none.
constexpr const char* kReproducerNote = "   (or: ";
constexpr const char* kNoReproducerNote = "   (no reproducer: ";

}  // namespace

std::string running_program() {
  std::string exe(4096, '\0');
  const ssize_t n = readlink("/proc/self/exe", exe.data(), exe.size() - 1);
  if (n <= 0) return "";
  exe.resize(static_cast<size_t>(n));
  return exe;
}

void set_replay_program(const std::string& path) { program_word() = shell_word(path); }

std::string shell_word(const std::string& word) {
  bool plain = !word.empty();
  for (char ch : word)
    plain &= std::isalnum(static_cast<unsigned char>(ch)) != 0 ||
             std::string_view("_-./:,+=@%").find(ch) != std::string_view::npos;
  if (plain) return word;
  std::string quoted = "'";
  for (char ch : word) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return quoted + "'";
}

std::string absolute_path(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

std::string replay_backend(const Backend& b) {
  if (b.kind != "plugin" || b.name.rfind(b.library, 0) != 0) return b.name;
  return absolute_path(b.library) + b.name.substr(b.library.size());  // the ":TARGET" of "LIB:TARGET"
}

std::string replay_command(const Backend& b, const std::string& op, uint64_t seed, int64_t index,
                           const std::string& tolerances_file) {
  return check_command(b, op) + " --seed " + std::to_string(seed) + " --case " + std::to_string(index) +
         tolerances_option(tolerances_file) + (exhaustive_grids() ? " --exhaustive" : "");
}

std::string property_command(const Backend& b, const std::string& op, const std::string& property, uint64_t seed,
                             const std::string& tolerances_file) {
  return check_command(b, op) + " --property " + property + " --seed " + std::to_string(seed) +
         tolerances_option(tolerances_file);
}

std::string property_replay(const Backend& b, const std::string& op, const std::string& property, uint64_t seed,
                            const std::string& tolerances_file, const std::string& profile,
                            const std::string& rapidcheck_reproduce) {
  return property_command(b, op, property, seed, tolerances_file) + (profile.empty() ? "" : " --profile strict") +
         (rapidcheck_reproduce.empty() ? "" : "   (RapidCheck: RC_PARAMS=\"reproduce=" + rapidcheck_reproduce + "\")");
}

std::string repro_command(const std::string& file, const std::string& tolerances_file, const Backend* backend) {
  return program_word() + " repro " + shell_word(absolute_path(file)) + tolerances_option(tolerances_file) +
         (backend == nullptr ? "" : " --backend " + shell_word(replay_backend(*backend)));
}

std::string reproducer_note(const std::string& file, const std::string& tolerances_file) {
  return std::string(kReproducerNote) + repro_command(file, tolerances_file) + ")";
}

std::string no_reproducer_note(const std::string& why) { return std::string(kNoReproducerNote) + why + ")"; }

bool has_reproducer_note(const std::string& reproduce) {
  return reproduce.find(kReproducerNote) != std::string::npos || reproduce.find(kNoReproducerNote) != std::string::npos;
}

std::string reproducer_path(const std::string& reproduce) {
  const size_t note = reproduce.find("(or: ");
  const std::string marker = " repro ";
  const size_t at = note == std::string::npos ? note : reproduce.find(marker, note);
  if (at == std::string::npos) return "";
  const size_t start = at + marker.size(), end = reproduce.find_first_of(" )", start);
  std::string path = reproduce.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (path.size() >= 2 && path.front() == '\'' && path.back() == '\'') path = path.substr(1, path.size() - 2);
  return path;
}

}  // namespace konform
