#include "op_fuzzer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "konform/replay.hpp"
#include "konform/repro.hpp"
#include "konform/tolerance.hpp"

// libFuzzer reads these as extra coverage: one counter per (op, error bucket),
// so an input that brings a kernel closer to its limit than any before is kept
// and mutated further. Elsewhere they are plain memory.
__attribute__((used, section("__libfuzzer_extra_counters"))) static uint8_t g_error_counters[16 * 48];

namespace konform::fuzz {

namespace {

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, "1") == 0;
}

// 0: no error; 1..40: the error as a power of two of the limit, 2^-31 .. 2^8;
// 41..47: a refused call, and the guards' violations.
size_t error_bucket(const CaseVerdict& v) {
  for (const Finding& f : v.findings) {
    if (f.check == "no_write_out_of_bounds") return 41;
    if (f.check == "output_fully_written") return 42;
    if (f.check == "inputs_unchanged") return 43;
    if (f.check == "deterministic") return 44;
    if (f.check == "writes_nothing_on_error") return 45;
  }
  if (v.refused) return 46;
  if (v.worst_ratio <= 0) return 0;
  const int e = std::ilogb(v.worst_ratio);
  return static_cast<size_t>(std::min(40, std::max(1, e + 32)));
}

std::string hex(const uint8_t* data, size_t size) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < size; ++i) s += {digits[data[i] >> 4], digits[data[i] & 15]};
  return s;
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
  return h;
}

// The first time this kind of finding is seen in the directory: creates its
// marker and says so. Markers are files so that fork-mode children share them.
bool first_of_its_kind(const std::string& dir, const std::string& kind) {
  char name[32];
  std::snprintf(name, sizeof name, "/.kind-%016llx", static_cast<unsigned long long>(fnv1a(kind)));
  const int fd = open((dir + name).c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
  if (fd < 0) return false;
  (void)!write(fd, kind.data(), kind.size());
  close(fd);
  return true;
}

Reproducer reproducer_of(const FuzzCase& fc, const Backend& b, const std::string& family, const uint8_t* data,
                         size_t size) {
  Reproducer r;
  r.op = fc.op->name;
  r.c = fc.c;
  r.misalign = fc.misalign;
  r.backend = replay_backend(b);
  r.library = library_file(b.library);
  r.source = "fuzz";
  r.provenance = {{"fuzz_target", "konform_fuzz_" + family}, {"index", fc.index}, {"input_size", size}};
  if (size <= 65536) r.provenance["input_hex"] = hex(data, size);
  return r;
}

// KONFORM_FUZZ_MAX_BYTES: decimal digits only, 0 (no budget) to 1 TiB. strtoull
// alone read 8MB as 8, abc as no budget and -1 as 2^64 - 1.
size_t byte_budget(const char* v) {
  constexpr unsigned long long kMax = 1ull << 40;
  const std::string text(v);
  errno = 0;
  const unsigned long long n =
      text.find_first_not_of("0123456789") == std::string::npos ? std::strtoull(v, nullptr, 10) : kMax + 1;
  if (errno != 0 || n > kMax) {
    std::fprintf(stderr,
                 "konform fuzz: KONFORM_FUZZ_MAX_BYTES='%s' is not a byte count: expected decimal digits, "
                 "0 (no budget) to %llu\n",
                 v, kMax);
    std::exit(2);
  }
  return static_cast<size_t>(n);
}

}  // namespace

Settings Settings::from_environment() {
  Settings s;
  if (const char* v = std::getenv("KONFORM_FUZZ_BACKEND"); v != nullptr && *v) s.backend = v;
  if (const char* v = std::getenv("KONFORM_FUZZ_OP"); v != nullptr) s.only_op = v;
  if (const char* v = std::getenv("KONFORM_FUZZ_REPRO_DIR"); v != nullptr && *v) s.repro_dir = v;
  s.keep_going = env_flag("KONFORM_FUZZ_KEEP_GOING");
  s.pending = env_flag("KONFORM_FUZZ_PENDING");
  if (const char* v = std::getenv("KONFORM_FUZZ_MAX_BYTES"); v != nullptr && *v) s.max_bytes = byte_budget(v);
  return s;
}

OpFuzzer::OpFuzzer(const std::string& family, const Settings& settings)
    : family_(family), settings_(settings), ops_(family_ops(family)) {
  if (ops_.empty()) {
    std::fprintf(stderr, "konform fuzz: no ops in harness/ops/%s.cpp\n", family.c_str());
    std::exit(2);
  }
  if (!settings_.only_op.empty()) {
    bool known = false;
    for (const OpSpec* op : ops_) known |= op->name == settings_.only_op;
    if (!known) {
      std::fprintf(stderr, "konform fuzz: KONFORM_FUZZ_OP=%s is not an op of this target (", settings_.only_op.c_str());
      for (const OpSpec* op : ops_) std::fprintf(stderr, " %s", op->name.c_str());
      std::fprintf(stderr, " )\n");
      std::exit(2);
    }
  }
  try {
    backends_ = resolve_backends(settings_.backend);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "konform fuzz: backend %s: %s\n", settings_.backend.c_str(), e.what());
    std::exit(2);
  }
  // A backend that cannot run here (no GPU, say) has nothing to fuzz; saying
  // so beats a fuzzer that "finds" its abort on the first input.
  for (const Backend& b : backends_) {
    if (!b.load_failure.empty()) {
      std::fprintf(stderr, "konform fuzz: backend %s: %s %s\n", settings_.backend.c_str(), b.library.c_str(),
                   b.load_failure.c_str());
      std::exit(2);
    }
    if (!b.unavailable.empty()) {
      std::fprintf(stderr, "konform fuzz: backend %s cannot run here: %s\n", b.name.c_str(), b.unavailable.c_str());
      std::exit(2);
    }
  }
  try {
    require_some_symbol(backends_, ops_, settings_.backend, "this target's symbols");  // ci/fuzz: "unsupported"
  } catch (const BackendError& e) {
    std::fprintf(stderr, "konform fuzz: %s\n", e.what());
    std::exit(2);
  }
  std::fprintf(stderr, "konform fuzz: target %s, %zu op(s), backend %s (%zu), size budget %s\n", family.c_str(),
               ops_.size(), settings_.backend.c_str(), backends_.size(),
               settings_.max_bytes ? (std::to_string(settings_.max_bytes) + " input bytes").c_str() : "none");
}

void OpFuzzer::run(const uint8_t* data, size_t size) {
  const FuzzCase fc = decode_fuzz_input(ops_, data, size);
  const OpSpec& op = *fc.op;
  if (!settings_.only_op.empty() && op.name != settings_.only_op) return;
  if (settings_.max_bytes > 0) {  // the size budget: the largest edge cases are the sweep's to run
    size_t bytes = 0;
    for (const Arg& a : fc.c.args) bytes += a.value.bytes.size();
    if (bytes > settings_.max_bytes) return;
  }
  const size_t position = static_cast<size_t>(size == 0 ? 0 : data[0] % ops_.size());
  const Tolerance* tol = ToleranceTable::builtin().find(op.name, op.dtype);
  std::optional<Oracle> expected;  // once per input, however many backends (simd:all has six)
  for (const Backend& b : backends_) {
    void* fn = b.symbol(op.symbol);
    if (fn == nullptr) continue;  // unsupported here: not a finding
    std::string pending;
    if (settings_.pending && settings_.repro_dir != "-") {
      Reproducer r = reproducer_of(fc, b, family_, data, size);
      r.finding = Finding{};
      r.finding->check = "no_crash";
      r.finding->message = "the process died in this call (a crash, or killed at its time limit)";
      pending = write_reproducer(r, settings_.repro_dir);
    }
    if (!expected) expected = op.oracle(fc.c);
    const CaseVerdict v = judge_case(b, op, fn, fc.c, tol, CallOptions{fc.misalign, true}, &*expected);
    if (!pending.empty()) std::remove(pending.c_str());
    g_error_counters[(position % 16) * 48 + error_bucket(v)]++;
    if (!v.ok()) report(fc, b, v, data, size);
  }
}

void OpFuzzer::report(const FuzzCase& fc, const Backend& b, const CaseVerdict& v, const uint8_t* data, size_t size) {
  const Finding& f = v.findings.front();
  const std::string kind = fc.op->name + " " + f.check + " " + b.name;
  if (settings_.keep_going && settings_.repro_dir != "-" && !first_of_its_kind(settings_.repro_dir, kind)) return;
  std::string path;
  if (settings_.repro_dir != "-") {
    Reproducer r = reproducer_of(fc, b, family_, data, size);
    r.finding = f;
    path = write_reproducer(r, settings_.repro_dir);
  }
  std::fprintf(stderr, "\n==konform== FINDING  %s on %s: %s\n", fc.op->name.c_str(), b.name.c_str(), f.check.c_str());
  std::fprintf(stderr, "  %s\n  case: %s (index %lld, misalign %zu)\n", f.message.c_str(), fc.c.label.c_str(),
               static_cast<long long>(fc.index), fc.misalign);
  if (f.has_values)
    std::fprintf(stderr, "  %s%s: expected %.9g, got %.9g, error %.3g u, limit %.3g u\n", f.output.c_str(),
                 f.element.c_str(), f.expected, f.got, f.error, f.limit);
  if (!path.empty())
    std::fprintf(stderr, "  reproducer: %s\n  replay: %s\n", path.c_str(), repro_command(path, "", &b).c_str());
  std::fflush(stderr);
  std::abort();
}

void take_backend_flag(int* argc, char*** argv) {
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    const char* a = (*argv)[i];
    const char* value = nullptr;
    if (std::strncmp(a, "-backend=", 9) == 0) value = a + 9;
    else if (std::strncmp(a, "--backend=", 10) == 0) value = a + 10;
    if (value != nullptr) setenv("KONFORM_FUZZ_BACKEND", value, 1);
    else (*argv)[out++] = (*argv)[i];
  }
  *argc = out;
  (*argv)[out] = nullptr;
}

}  // namespace konform::fuzz
