// The main() of a konform benchmark: --konform_target=NAME forces a
// libtl_kernels target (after the bandwidth reference has fixed its own),
// the active target goes into the report's context, then Google Benchmark
// runs what `register_all` registered. Every bench with a RegisterAll()
// calls it (the BENCHMARK_MAIN ones take no --konform_target).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "bandwidth_ref.h"
#include "tinyllm/dispatch.h"

namespace konform::bench {

inline int BenchMain(int argc, char** argv, void (*register_all)()) {
  BestStream();  // fix the reference's target before anything is forced
  std::vector<char*> args;
  const char* flag = "--konform_target=";
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], flag, std::strlen(flag)) != 0) {
      args.push_back(argv[i]);
    } else if (tl_simd_force_target(argv[i] + std::strlen(flag)) != 0) {
      std::fprintf(stderr, "unknown or unsupported target: %s\n", argv[i] + std::strlen(flag));
      return 2;
    }
  }
  int count = static_cast<int>(args.size());
  benchmark::AddCustomContext("simd_target", tl_simd_active_target());
  register_all();
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace konform::bench
