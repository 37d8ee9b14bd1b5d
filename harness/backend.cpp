#include "konform/backend.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include "konform/op.hpp"
#include "tinyllm/dispatch.h"

namespace konform {

void* Backend::symbol(const std::string& s) const {
  auto it = symbols.find(s);
  return it == symbols.end() ? nullptr : it->second;
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

// The float instantiation of the oracle, as each op's declaration names it.
Backend scalar_backend() {
  Backend b;
  b.name = "scalar";
  b.kind = "builtin";
  for (const OpSpec& op : catalog())
    if (op.scalar != nullptr) b.symbols[op.symbol] = op.scalar;
  return b;
}

// libtl_kernels, linked in: its tl_* symbols dispatch to the forced target.
// The library is found through one of its functions, then every catalog
// symbol is looked up in it, as for a plugin.
Backend simd_backend() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&tl_simd_force_target), &info) == 0 || info.dli_fname == nullptr)
    throw BackendError("cannot locate libtl_kernels in this process");
  void* h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (h == nullptr) throw BackendError(std::string("cannot reopen ") + info.dli_fname + ": " + dlerror());
  Backend b;
  b.name = "simd";
  b.kind = "builtin";
  b.library = info.dli_fname;
  b.handle = std::shared_ptr<void>(h, [](void* p) { dlclose(p); });
  for (const OpSpec& op : catalog())
    if (void* s = dlsym(h, op.symbol.c_str())) b.symbols[op.symbol] = s;
  for (const char* extra : {"tl_simd_target_count", "tl_simd_target_name"})
    if (void* s = dlsym(h, extra)) b.symbols[extra] = s;
  b.force_target = dlsym(h, "tl_simd_force_target");
  return b;
}

bool is_file(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Every catalog symbol the library exports; the rest are unsupported there.
Backend plugin_backend(const std::string& path) {
  // A bare file name would make dlopen search the system paths: anchor it.
  const std::string anchored = path.find('/') == std::string::npos ? "./" + path : path;
  void* h = dlopen(anchored.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) throw BackendError("cannot load backend library '" + path + "': " + dlerror());
  Backend b;
  b.name = path;
  b.kind = "plugin";
  b.library = path;
  b.handle = std::shared_ptr<void>(h, [](void* p) { dlclose(p); });
  for (const OpSpec& op : catalog())
    if (void* s = dlsym(h, op.symbol.c_str())) b.symbols[op.symbol] = s;
  for (const char* extra : {"tl_simd_target_count", "tl_simd_target_name"})
    if (void* s = dlsym(h, extra)) b.symbols[extra] = s;
  b.force_target = dlsym(h, "tl_simd_force_target");
  return b;
}

std::vector<Backend> with_targets(const Backend& base, const std::string& target, const std::string& spec) {
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

std::vector<Backend> resolve_backends(const std::string& spec) {
  if (spec.empty()) throw BackendError("empty --backend value");
  if (spec == "scalar") return {scalar_backend()};
  if (spec == "simd") {
    Backend b = simd_backend();
    const auto targets = simd_targets(b);
    b.target = targets.empty() ? "" : targets.front();
    return {b};
  }
  if (spec.rfind("simd:", 0) == 0) return with_targets(simd_backend(), spec.substr(5), spec);
  if (is_file(spec)) {
    Backend b = plugin_backend(spec);
    if (b.force_target != nullptr) {
      const auto targets = simd_targets(b);
      if (!targets.empty()) b.target = targets.front();
    }
    return {b};
  }
  // LIB:TARGET for a plugin that exports the dispatch functions.
  const auto colon = spec.rfind(':');
  if (colon != std::string::npos && is_file(spec.substr(0, colon)))
    return with_targets(plugin_backend(spec.substr(0, colon)), spec.substr(colon + 1), spec);
  throw BackendError("unknown backend '" + spec +
                     "': expected scalar, simd, simd:TARGET, simd:all, or the path of a shared library");
}

}  // namespace konform
