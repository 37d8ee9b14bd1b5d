// Timing and machine limits for the compute benchmarks (konform_linalg_bench,
// konform_attention_bench). The machine is shared and noisy, and noise only
// slows a run down: rates are the best of 7 rounds of >= 0.3 s batches (wall
// clock; TL_BENCH_QUICK=1 shortens them), the contenders taking turns within
// each round so they see the same machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace konform::bench {

double now();
// The best rate (work / s) of each contender over `rounds` rounds of batches
// of `seconds` (0: the default batch); a null function gets 0.
std::vector<double> best_rates(const std::vector<std::function<void()>>& fns, double work, int rounds = 7,
                               double seconds = 0);
// GFLOP/s of `threads` threads running independent FMA chains (AVX-512 or AVX2).
double fma_peak(int threads);
// One thread's FMA chains doing about `flops` floating-point operations per
// call (the widest of AVX-512 and AVX2): a contender for best_rates, so the
// peak is timed in the same rounds and batches as the kernel it is read
// against.
std::function<void()> fma_work(double flops);
// GB/s of `threads` threads reading disjoint parts of buf.
double read_bandwidth(const std::vector<float>& buf, int threads);
// n values in [-scale/2, scale/2) from a fixed LCG.
std::vector<float> filled(size_t n, float scale);

}  // namespace konform::bench
