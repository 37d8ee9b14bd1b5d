// Backends: where the kernels under test come from. Built in (`scalar`,
// `simd`, `simd:TARGET`, `cuda` when built) or any shared library that
// exports the C ABI.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace konform {

struct OpSpec;

// Bad --backend value, unloadable library, unknown target.
struct BackendError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Backend {
 public:
  std::string name;     // as the user wrote it, e.g. "simd:AVX2", "./libtheirs.so"
  std::string kind;     // "builtin" or "plugin"
  std::string library;  // the shared library's path (plugins, simd, cuda)
  std::string target;   // the SIMD target in force, "" if the backend has none
  // Why its kernels cannot run on this machine, as its tl_backend_unavailable
  // said (tinyllm/backend.h); "" when they can. Nothing of an unavailable
  // backend is called: its ops are reported not_run.
  std::string unavailable;

  // The function exporting `symbol`, or nullptr: the op is unsupported here.
  void* symbol(const std::string& name) const;
  // Makes this backend's target the one that runs (SIMD dispatch is
  // process-wide state); call before every batch of calls.
  void activate() const;

  std::map<std::string, void*> symbols;
  void* force_target = nullptr;  // tl_simd_force_target, when the backend has it
  std::shared_ptr<void> handle;  // keeps a plugin loaded
};

// Resolves one --backend value into one backend, or several for
// "simd:all" / "LIB:all" (every target compiled in and supported here).
// A plugin is first loaded in a forked child, so that a constructor that
// crashes is reported ("PATH crashed while loading (signal N ...)"), and is
// refused when it exports none of the catalog's symbols. A value that looks
// like a path (a '/', a .so name) and names no file says why, not "unknown".
// The library's tl_backend_unavailable, if it has one, is asked in that
// child too (a GPU runtime must not be initialised before konform forks).
// `cuda` is libtl_cuda.so, found where the build put it; a konform built
// without it says so.
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
