#include "konform/backend.hpp"

#include <dlfcn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "konform/device.hpp"
#include "konform/isolate.hpp"
#include "konform/op.hpp"
#include "konform/replay.hpp"

namespace konform {

void* Backend::symbol(const std::string& s) const {
  auto it = symbols.find(s);
  return it == symbols.end() ? nullptr : it->second;
}

std::optional<std::string> Backend::last_error() const {
  using LastErrorFn = const char* (*)();
  auto f = reinterpret_cast<LastErrorFn>(symbol("tl_last_error"));
  if (f == nullptr) return std::nullopt;
  const char* message = f();
  return std::string(message == nullptr ? "" : message);
}

using ForceFn = int (*)(const char*);
using CountFn = int (*)();
using NameFn = const char* (*)(int);

void Backend::activate() const {
  if (force_target == nullptr) return;
  if (reinterpret_cast<ForceFn>(force_target)(target.c_str()) != 0)
    throw BackendError(name + ": the library refused SIMD target '" + target + "'");
}

namespace {

bool is_file(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// A --backend value that can only mean a library: a path, or a .so name.
bool looks_like_path(const std::string& spec) {
  return spec.find('/') != std::string::npos || spec.ends_with(".so") || spec.find(".so.") != std::string::npos;
}

// Why `path` cannot be a plugin before dlopen is even tried, or "".
std::string not_a_library_file(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return errno == ENOENT ? "no such file" : std::strerror(errno);
  if (S_ISDIR(st.st_mode)) return "is a directory";
  if (!S_ISREG(st.st_mode)) return "is not a regular file";
  return "";
}

// How every backend library is opened. konform links no kernel library, so
// a library's calls to its own exported functions (an Argmax along an axis
// calling its own tl_argmax_f32) and its tl_last_error bind to its own
// definitions: nothing earlier in the global scope defines a tl_* symbol.
constexpr int kPluginFlags = RTLD_NOW | RTLD_LOCAL;

// A reason as one printable line of at most 300 characters: it goes to the
// console, the report and JUnit's XML attributes.
std::string one_line(const std::string& why) {
  std::string out;
  for (char c : why.substr(0, 300)) out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
  if (why.size() > 300) out += "...";
  return out.empty() ? "(no reason given)" : out;
}

double g_load_timeout_s = 60;  // set_load_timeout

// What loading a library in a child found.
struct LoadProbe {
  std::string unavailable;  // its tl_backend_unavailable's reason, "" if it can run here
  std::string failure;      // a constructor (or the probe) crashed, exited or hung: why; "" if it loaded
};

// A library's constructors run inside dlopen: one that crashes, exits or
// hangs would take konform with it. Loading it first in a child turns that
// into a finding. (The constructors run again in this process afterwards.)
// The child also asks the library's tl_backend_unavailable, so that a GPU
// runtime it starts is never inherited by the children that run kernels.
// A file dlopen refuses (not a library, a missing dependency) is an error in
// the invocation, thrown as a BackendError.
LoadProbe probe_load(const std::string& path, const std::string& anchored) {
  const double kLoadTimeoutS = g_load_timeout_s;
  const char* kProbe = "tl_backend_unavailable";
  const ChildOutcome out = run_isolated(
      [&](ChildChannel& channel) -> std::string {
        const rlimit no_core{0, 0};
        setrlimit(RLIMIT_CORE, &no_core);  // a crash here is reported, not dumped
        void* h = dlopen(anchored.c_str(), kPluginFlags);
        if (h == nullptr) throw BackendError(dlerror());
        using ProbeFn = const char* (*)();
        auto probe = reinterpret_cast<ProbeFn>(dlsym(h, kProbe));
        if (probe == nullptr) return "+";
        channel.progress(-1, kProbe);
        const char* why = probe();
        return why == nullptr ? std::string("+") : "-" + std::string(why);
      },
      kLoadTimeoutS);
  const bool in_probe = out.last_label == kProbe;
  const std::string stage = in_probe ? std::string(" in ") + kProbe : " while loading";
  switch (out.status) {
    case ChildOutcome::ok: return {out.payload.rfind('-', 0) == 0 ? one_line(out.payload.substr(1)) : "", ""};
    case ChildOutcome::harness_error: throw BackendError("cannot load backend library '" + path + "': " + out.detail);
    case ChildOutcome::timeout:
      return {"", "did not finish" + (in_probe ? stage : std::string(" loading")) + " within " +
                      out.detail.substr(out.detail.find("after ") + 6) +
                      (in_probe ? "" : " (a constructor that hangs?)")};
    case ChildOutcome::crashed:
    case ChildOutcome::corrupted: break;
  }
  if (out.detail.rfind("signal", 0) == 0) return {"", "crashed" + stage + " (" + out.detail + ")"};
  return {"",
          "ended the process" + stage + " (" + out.detail + ")" + (in_probe ? "" : ": a constructor that calls exit?")};
}

// The name of op's kernel in a host or a device library.
std::string kernel_symbol(const OpSpec& op, bool device) {
  if (!device) return op.symbol;
  return op.device_symbol.empty() ? op.symbol + "_dev" : op.device_symbol;
}

// Every catalog symbol the library exports; the rest are unsupported there.
// With `device`, their device-pointer twins, filed under the host names.
Backend plugin_backend(const std::string& path, bool device = false) {
  if (const std::string why = not_a_library_file(path); !why.empty())
    throw BackendError("cannot load backend library '" + path + "': " + why);
  // A bare file name would make dlopen search the system paths: anchor it.
  const std::string anchored = path.find('/') == std::string::npos ? "./" + path : path;
  const LoadProbe probe = probe_load(path, anchored);
  Backend b;
  b.name = path;
  b.kind = "plugin";
  b.library = path;
  if (!probe.failure.empty()) {  // never loaded here: every chosen op gets the finding
    b.load_failure = one_line(probe.failure);
    return b;
  }
  void* h = dlopen(anchored.c_str(), kPluginFlags);
  if (h == nullptr) throw BackendError("cannot load backend library '" + path + "': " + dlerror());
  b.unavailable = probe.unavailable;
  b.handle = std::shared_ptr<void>(h, [](void* p) { dlclose(p); });
  std::vector<const OpSpec*> all;
  for (const OpSpec& op : catalog()) {
    all.push_back(&op);
    if (void* s = dlsym(h, kernel_symbol(op, device).c_str())) b.symbols[op.symbol] = s;
  }
  if (device) {
    if (b.symbols.empty()) {
      const bool host =
          std::any_of(all.begin(), all.end(), [&](const OpSpec* op) { return dlsym(h, op->symbol.c_str()); });
      throw BackendError(path + " exports none of konform's device-pointer symbols (tl_add_f32_dev, ...; see " +
                         "include/tinyllm/cuda/*.h)" +
                         (host ? ": it exports host-pointer ones, check it without :device" : ""));
    }
    std::string why;
    b.device_runtime = load_device_runtime(h, path, &why);
    if (b.device_runtime == nullptr && b.unavailable.empty()) b.unavailable = one_line(why);
  }
  require_some_symbol({b}, all, path, "konform's C ABI symbols");
  for (const char* extra : {"tl_simd_target_count", "tl_simd_target_name", "tl_last_error"})
    if (void* s = dlsym(h, extra)) b.symbols[extra] = s;
  b.force_target = dlsym(h, "tl_simd_force_target");
  return b;
}

#ifndef KONFORM_CUDA_LIBRARY
#define KONFORM_CUDA_LIBRARY nullptr
#endif

// A built-in backend: its name, the environment variable that overrides its
// library and the path this build gave it (nullptr: not built).
struct Builtin {
  const char* name;
  const char* env;
  const char* built;
};
constexpr Builtin kBuiltins[] = {{"scalar", "KONFORM_SCALAR_LIBRARY", KONFORM_SCALAR_LIBRARY},
                                 {"simd", "KONFORM_SIMD_LIBRARY", KONFORM_SIMD_LIBRARY},
                                 {"cuda", "KONFORM_CUDA_LIBRARY", KONFORM_CUDA_LIBRARY}};

// The directory of the running program, "" if unknown.
std::string program_dir() {
  const std::string exe = running_program();
  const size_t slash = exe.rfind('/');
  return slash == std::string::npos ? "" : exe.substr(0, slash);
}

#ifndef KONFORM_INSTALL_LIBDIR
#define KONFORM_INSTALL_LIBDIR "lib"
#endif

// Where the library of a built-in name is: $KONFORM_<NAME>_LIBRARY when set,
// else an installed konform's own (bin/../lib), else where this build put
// it, else the same file name next to the program (a build tree or bundle
// moved as a whole). Says which it tried if none.
std::string builtin_library(const Builtin& builtin) {
  if (const char* v = std::getenv(builtin.env); v != nullptr && *v != '\0') return v;
  if (builtin.built == nullptr)
    throw BackendError(std::string("backend '") + builtin.name +
                       "' is not built into this konform: it was configured without CUDA (no nvcc found, or "
                       "-DKONFORM_CUDA=OFF); see docs/cuda.md, or set " +
                       builtin.env + " to a library's path");
  const std::string built = builtin.built;
  const std::string file = built.substr(built.rfind('/') + 1);
  const std::string dir = program_dir();
  if (!dir.empty() && is_file(dir + "/../" KONFORM_INSTALL_LIBDIR "/" + file))
    return dir + "/../" KONFORM_INSTALL_LIBDIR "/" + file;
  if (is_file(built)) return built;
  if (!dir.empty() && is_file(dir + "/" + file)) return dir + "/" + file;
  throw BackendError(std::string("backend '") + builtin.name + "': its library " + file + " is missing: not at " +
                     built + " (where this build put it) nor next to this program; rebuild it, or set " + builtin.env +
                     " to its path");
}

// A built-in name's library, loaded as any plugin is (the probe included),
// under that name. Its default SIMD target is its best.
Backend builtin_backend(const Builtin& builtin) {
  Backend b = plugin_backend(builtin_library(builtin));
  b.name = builtin.name;
  b.kind = "builtin";
  return b;
}

const Builtin* find_builtin(const std::string& name) {
  for (const Builtin& b : kBuiltins)
    if (name == b.name) return &b;
  return nullptr;
}

// The best target of a backend that has targets to choose from.
Backend with_default_target(Backend b) {
  if (b.force_target != nullptr) {
    const auto targets = simd_targets(b);
    if (!targets.empty()) b.target = targets.front();
  }
  return b;
}

std::vector<Backend> with_targets(const Backend& base, const std::string& target, const std::string& spec) {
  if (!base.load_failure.empty()) return {base};  // its targets are unknown: the load is the finding
  const auto targets = simd_targets(base);
  if (targets.empty() || base.force_target == nullptr)
    throw BackendError("backend '" + spec + "': '" + base.name + "' exports no SIMD targets to choose from");
  std::vector<std::string> chosen;
  if (target == "all") {
    chosen = targets;
  } else {
    for (const auto& t : targets)
      if (t == target) chosen = {t};
    if (chosen.empty()) {
      std::string list;
      for (const auto& t : targets) list += (list.empty() ? "" : ", ") + t;
      throw BackendError("backend '" + spec + "': target '" + target + "' is not available here (available: " + list +
                         ")");
    }
  }
  std::vector<Backend> out;
  for (const auto& t : chosen) {
    Backend b = base;
    b.target = t;
    b.name = base.name + ":" + t;
    out.push_back(b);
  }
  return out;
}

}  // namespace

std::vector<std::string> simd_targets(const Backend& b) {
  std::vector<std::string> out;
  auto count = reinterpret_cast<CountFn>(b.symbol("tl_simd_target_count"));
  auto name = reinterpret_cast<NameFn>(b.symbol("tl_simd_target_name"));
  if (count == nullptr || name == nullptr) return out;
  for (int i = 0, n = count(); i < n; ++i)
    if (const char* s = name(i)) out.emplace_back(s);
  return out;
}

void require_some_symbol(const std::vector<Backend>& backends, const std::vector<const OpSpec*>& ops,
                         const std::string& spec, const std::string& what) {
  for (const Backend& b : backends)
    for (const OpSpec* op : ops)
      if (b.symbol(op->symbol) != nullptr) return;
  std::string some;
  for (size_t i = 0; i < ops.size() && i < 3; ++i) some += (i ? ", " : "") + ops[i]->symbol;
  if (ops.size() > 3) some += ", ... " + std::to_string(ops.size()) + " in all";
  throw BackendError(spec + " exports none of " + what + " (" + some + "; see include/tinyllm/*.h)");
}

namespace {

// "LIB:device": LIB's device-pointer twins.
std::vector<Backend> device_backends(const std::string& spec) {
  const std::string lib = spec.substr(0, spec.size() - std::string(":device").size());
  const Builtin* builtin = find_builtin(lib);
  std::string path = lib;
  if (builtin != nullptr) path = builtin_library(*builtin);
  else if (!is_file(lib) && looks_like_path(lib))
    throw BackendError("cannot load backend library '" + lib + "': " + not_a_library_file(lib));
  else if (!is_file(lib))
    throw BackendError("unknown backend '" + spec +
                       "': LIB:device takes cuda or the path of a shared library exporting the device-pointer ABI "
                       "(include/tinyllm/cuda/*.h)");
  Backend b = plugin_backend(path, true);
  b.name = spec;
  b.kind = builtin != nullptr ? "builtin" : "plugin";
  return {b};
}

}  // namespace

std::vector<Backend> resolve_backends(const std::string& spec) {
  if (spec.empty()) throw BackendError("empty --backend value");
  if (spec.ends_with(":device")) return device_backends(spec);
  if (const Builtin* builtin = find_builtin(spec)) return {with_default_target(builtin_backend(*builtin))};
  if (spec.rfind("simd:", 0) == 0) return with_targets(builtin_backend(*find_builtin("simd")), spec.substr(5), spec);
  if (is_file(spec)) return {with_default_target(plugin_backend(spec))};
  // LIB:TARGET for a plugin that exports the dispatch functions.
  const auto colon = spec.rfind(':');
  if (colon != std::string::npos && is_file(spec.substr(0, colon)))
    return with_targets(plugin_backend(spec.substr(0, colon)), spec.substr(colon + 1), spec);
  // A path that names no library: say what is there instead, not "unknown".
  if (looks_like_path(spec)) {
    const bool with_target = colon != std::string::npos && looks_like_path(spec.substr(0, colon)) &&
                             !looks_like_path(spec.substr(colon + 1));
    const std::string path = with_target ? spec.substr(0, colon) : spec;
    throw BackendError("cannot load backend library '" + path + "': " + not_a_library_file(path));
  }
  throw BackendError("unknown backend '" + spec +
                     "': expected scalar, simd, simd:TARGET, simd:all, cuda, or the path of a shared library");
}

void set_load_timeout(double seconds) { g_load_timeout_s = std::min(seconds, 60.0); }

}  // namespace konform
