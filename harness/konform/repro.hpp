// Reproducer files: one case with its exact input bits, the backend it ran
// on and what failed there, as JSON (schema: reports/repro.schema.json).
// Every driver writes them (the fuzzers, `konform check --repro-dir` for the
// sweep and for RapidCheck's shrunk counterexamples) and `konform repro`
// replays them. A fixture is the same file without a finding.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "konform/case.hpp"
#include "konform/result.hpp"

namespace konform {

inline constexpr const char* kReproSchema = "konform-repro/1";

// A malformed reproducer: the message names the file and the field.
struct ReproError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The library file a backend was loaded from, as a reproducer records it,
// so that a replay can tell whether the library is still that file.
struct LibraryFile {
  std::string path;    // absolute
  std::string sha256;  // of its bytes: 64 lowercase hex digits, as sha256sum prints them
  int64_t bytes = 0;
};

// The file at `path` (made absolute), read and hashed once per process: the
// library as it was when konform first recorded it. Throws
// std::runtime_error naming the path when it cannot be read.
LibraryFile library_file(const std::string& path);

struct Reproducer {
  std::string op;       // the op's name now, whatever name the file used
  std::string op_note;  // former_name_note when the file used a former name
  Case c;               // inputs with their bits; outputs with their shape
  size_t misalign = 0;  // bytes past each buffer's 64-byte-aligned start
  std::string backend;  // the --backend value it was found on, from the root (replay_backend); "" for a fixture
  std::optional<LibraryFile> library;  // the backend's library there; none in a fixture or an older file
  std::string source = "fixture";      // fuzz | sweep | property | fixture
  std::optional<Finding> finding;      // what failed; none for a fixture
  nlohmann::json provenance = nlohmann::json::object();  // seed and case, fuzz input, property, ...
};

nlohmann::json reproducer_to_json(const Reproducer& r);
// Checks every field, then the case against its op's structure
// (check_case_shape); `source` names the file in errors.
Reproducer reproducer_from_json(const nlohmann::json& j, const std::string& source);
Reproducer parse_reproducer(const std::string& text, const std::string& source);
// A file read with read_file (its errors are std::runtime_error naming the path).
Reproducer read_reproducer_file(const std::string& path);

// A finding as reproducers hold it (check, message, output, element and, when
// known, expected, got, error and limit); the reader throws ReproError.
nlohmann::json finding_to_json(const Finding& f);
Finding finding_from_json(const nlohmann::json& j, const std::string& source);

// Writes r into `dir` (created if missing) as <op>-<check>-<hash>.json, the
// hash of its content, and returns the path.
std::string write_reproducer(const Reproducer& r, const std::string& dir);

}  // namespace konform
