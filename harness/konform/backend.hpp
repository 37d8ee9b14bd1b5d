// Backends: where the kernels under test come from. Every backend is a shared
// library that exports the C ABI, loaded by path: the built-in names
// (`scalar`, `simd`, `simd:TARGET`, `cuda`) only name a default path, and
// konform links none of them, so every symbol, probe and tl_last_error is
// read from the library under test.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace konform {

struct OpSpec;
struct DeviceRuntime;

// Bad --backend value, unloadable library, unknown target.
struct BackendError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Backend {
 public:
  std::string name;     // as the user wrote it, e.g. "simd:AVX2", "./libtheirs.so"
  std::string kind;     // "builtin" (a built-in name) or "plugin" (a path)
  std::string library;  // the shared library's path
  std::string target;   // the SIMD target in force, "" if the backend has none
  // Why its kernels cannot run on this machine, as its tl_backend_unavailable
  // said (tinyllm/backend.h); "" when they can. Nothing of an unavailable
  // backend is called: its ops are reported not_run.
  std::string unavailable;
  // Why loading it in a child failed: a constructor (or its
  // tl_backend_unavailable) crashed, ended the process or hung. Such a
  // library is never loaded into konform; each chosen op gets the finding
  // `library_loads`, and the run goes on. "" when it loaded.
  std::string load_failure;

  // The function exporting `symbol`, or nullptr: the op is unsupported here.
  void* symbol(const std::string& name) const;
  // The library's tl_last_error() on this thread; nullopt when it exports none.
  std::optional<std::string> last_error() const;
  // Makes this backend's target the one that runs (SIMD dispatch is
  // process-wide state); call before every batch of calls.
  void activate() const;

  // Set for a device backend (LIB:device): its kernels are the
  // device-pointer twins (tinyllm/cuda/*.h), filed in `symbols` under their
  // ops' host names, and this is how konform allocates and waits for them.
  std::shared_ptr<const DeviceRuntime> device_runtime;

  std::map<std::string, void*> symbols;
  void* force_target = nullptr;  // tl_simd_force_target, when the backend has it
  std::shared_ptr<void> handle;  // keeps a plugin loaded
};

// Resolves one --backend value into one backend, or several for
// "simd:all" / "LIB:all" (every target compiled in and supported here).
// A plugin is first loaded in a forked child, so that a constructor that
// crashes, exits or hangs is recorded in load_failure ("crashed while loading
// (signal N ...)") instead of taking konform with it; a library that loads
// is refused when it exports none of the catalog's symbols. A value that looks
// like a path (a '/', a .so name) and names no file says why, not "unknown".
// The library's tl_backend_unavailable, if it has one, is asked in that
// child too (a GPU runtime must not be initialised before konform forks).
// "LIB:device" (LIB a path or `cuda`) checks the library's device-pointer
// twins (tl_*_dev, tinyllm/cuda/*.h) instead of its host functions.
// A built-in name is a library loaded the same way: `scalar` libtl_scalar.so,
// `simd` libtl_kernels.so, `cuda` libtl_cuda.so. Each is found through
// $KONFORM_SCALAR_LIBRARY, $KONFORM_SIMD_LIBRARY or $KONFORM_CUDA_LIBRARY when
// set, else where this build put it, else next to the program; a missing one
// is named with where it was looked for, and a konform built without CUDA
// says so for `cuda`.
std::vector<Backend> resolve_backends(const std::string& spec);

// How long loading a library (its constructors, tl_backend_unavailable) may
// take: `seconds` (--timeout), at most 60 s.
void set_load_timeout(double seconds);

// Throws a BackendError unless some backend of `backends` exports the symbol
// of one of `ops`: "SPEC exports none of WHAT (tl_..., ...)". A plugin is
// held to the whole catalog ("konform's C ABI symbols"), a fuzz target to
// its own ops ("this target's symbols").
void require_some_symbol(const std::vector<Backend>& backends, const std::vector<const OpSpec*>& ops,
                         const std::string& spec, const std::string& what);

// The SIMD targets a backend can be forced to, best first (empty if none).
std::vector<std::string> simd_targets(const Backend& b);

}  // namespace konform
