// konform_limits_bench: the bandwidth limits every benchmark is read against,
// per cache level and access pattern, on 1 and 2 threads. For each level (a
// buffer per thread of 16 KiB: L1, 512 KiB: L2, 8 MiB: L3, 256 MiB: DRAM)
// and pattern (read, copy, read-modify-write) it times every candidate of
// bench/peaks.hpp in the same rounds and prints each one's GB/s, the best
// (the limit) and the share of it the OR stream reaches (the reference of
// the elementwise benches, bench/bandwidth_ref.h).
//
// Usage: konform_limits_bench [read|copy|rmw ...]; TL_BENCH_QUICK=1 shortens
// the batches; KONFORM_BENCH_JSON=path writes the figures as JSON.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench/json_report.hpp"
#include "bench/peaks.hpp"
#include "hwy/aligned_allocator.h"

namespace {

using namespace konform::bench;

struct Level {
  const char* name;
  size_t bytes_per_thread;
};
constexpr Level kLevels[] = {{"L1", 16 << 10}, {"L2", 512 << 10}, {"L3", 8 << 20}, {"DRAM", size_t(256) << 20}};

void run(const std::string& pattern, const Level& level, int threads) {
  const size_t n = level.bytes_per_thread / 4 * size_t(threads);
  auto a = hwy::AllocateAligned<float>(n), y = hwy::AllocateAligned<float>(n);
  const auto init = filled(n, 1.0f);
  std::memcpy(a.get(), init.data(), n * 4);
  std::memcpy(y.get(), init.data(), n * 4);
  // Passes per call: at least 64 MiB a call, so a thread's start is noise.
  const int reps = int(std::max<size_t>(1, (size_t(64) << 20) / (n * 4)));
  std::vector<Candidate> c;
  double bytes = double(n) * 4 * reps;
  if (pattern == "read") {
    c = read_candidates(a.get(), n, threads, reps);
  } else if (pattern == "copy") {
    c = copy_candidates(a.get(), y.get(), n, threads, reps);
    bytes *= 2;
  } else {
    c = rmw_candidates(y.get(), n, threads, reps);
    bytes *= 2;
  }
  const auto r = rate_against({}, c, bytes);
  const std::string shape =
      std::string(level.name) + " " + std::to_string(level.bytes_per_thread >> 10) + " KiB/thread";
  std::printf("%-5s %-4s %d thr |", pattern.c_str(), level.name, threads);
  for (size_t i = 0; i < c.size(); ++i) {
    std::printf(" %s %.1f", c[i].name.c_str(), r.candidates[i] / 1e9);
    record("limit_candidate:" + c[i].name, pattern + " " + shape, threads, r.candidates[i] / 1e9, "GB/s", r.limit_name,
           r.limit / 1e9);
  }
  std::printf(" | limit %.1f GB/s (%s); OR stream %.0f %%\n", r.limit / 1e9, r.limit_name.c_str(),
              100 * r.candidates[0] / r.limit);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> patterns;
  for (int i = 1; i < argc; ++i) patterns.emplace_back(argv[i]);
  if (patterns.empty()) patterns = {"read", "copy", "rmw"};
  for (const auto& p : patterns) {
    if (p != "read" && p != "copy" && p != "rmw") {
      std::fprintf(stderr, "unknown pattern %s (read, copy, rmw)\n", p.c_str());
      return 2;
    }
    for (const auto& level : kLevels)
      for (int threads : {1, 2}) run(p, level, threads);
  }
  return 0;
}
