// tinyllm/dispatch.h on Highway: list the targets compiled into this library
// that the CPU supports, force one, and report the one that runs.
//
// Forcing goes through hwy::SetSupportedTargetsForTest, which is process-wide
// state inside libhwy: it also affects any other Highway code in the process,
// and is not meant to be called while kernels run on other threads. In 1.0.3
// it also resets the cached dispatch choice (checked: forcing each target in
// turn, then resetting, runs each one and then the best again).

#include <strings.h>

#include <cstdint>
#include <mutex>
#include <vector>

#include "hwy/targets.h"
#include "impl/simd/simd_internal.h"
#include "tinyllm/dispatch.h"

namespace {

std::mutex g_mutex;

// The compiled-and-supported targets, best first, read once before any
// forcing (a forced mask would shrink the list to the forced target).
const std::vector<int64_t>& Targets() {
  static const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  return targets;
}

}  // namespace

extern "C" {

int tl_simd_target_count(void) { return static_cast<int>(Targets().size()); }

const char* tl_simd_target_name(int index) {
  const auto& targets = Targets();
  if (index < 0 || static_cast<size_t>(index) >= targets.size()) return nullptr;
  return hwy::TargetName(targets[static_cast<size_t>(index)]);
}

int tl_simd_force_target(const char* name) {
  const auto& targets = Targets();
  std::lock_guard<std::mutex> lock(g_mutex);
  if (name == nullptr || name[0] == '\0') {
    hwy::SetSupportedTargetsForTest(0);  // back to what the CPU supports
    return 0;
  }
  for (int64_t target : targets) {
    if (strcasecmp(name, hwy::TargetName(target)) == 0) {
      hwy::SetSupportedTargetsForTest(target);
      return 0;
    }
  }
  return -1;
}

const char* tl_simd_active_target(void) { return hwy::TargetName(konform::simd::DispatchedTarget()); }

}  // extern "C"
