// Timing and machine limits for the compute benchmarks (konform_linalg_bench,
// konform_attention_bench). The machine is shared and noisy, and noise only
// slows a run down: rates are the best of 7 rounds of >= 0.3 s batches (wall
// clock; TL_BENCH_QUICK=1 shortens them), the contenders taking turns within
// each round so they see the same machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
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
// ---------------------------------------------------------------- limits
// A pattern's limit is the best of several ways to move its bytes, each timed
// in the same rounds as the kernels read against it: the tuned streaming
// kernels of bandwidth_ref.h and the best peer. Each call moves the whole
// buffer `reps` times, on `threads` threads (disjoint parts; a peer threads
// itself).
struct Candidate {
  std::string name;
  std::function<void()> fn;
};
// Read: the OR stream (the elementwise benches' reference), the tuned float
// sum without and with software prefetch (1 KiB ahead), and OpenBLAS sgemv
// reading buf as an (n / 4096) x 4096 matrix where it is installed and 4096
// divides n.
std::vector<Candidate> read_candidates(const float* buf, size_t n, int threads, int reps = 1);
// Copy y = a: the OR stream's copy, the tuned copy with plain and with
// non-temporal stores, memcpy.
std::vector<Candidate> copy_candidates(const float* a, float* y, size_t n, int threads, int reps = 1);
// Read-modify-write y += 1 in place: the tuned loop (the OR stream's in-place
// copy beside it).
std::vector<Candidate> rmw_candidates(float* y, size_t n, int threads, int reps = 1);

// Copies of `bytes` that one round cycles through so that each call reads
// from memory: 256 MiB in all (eight times the 32 MiB L3 of a Zen 5 CCD; the
// L3 sysconf reports in a guest is the host's), at least one.
size_t copies_past_cache(double bytes);
// Each candidate of read_candidates over the copies (n floats each), a call
// reading the next copy in turn, as a kernel cycling through its own copies.
std::vector<Candidate> cycled_read_candidates(const std::vector<std::vector<float>>& copies, size_t n, int threads);

struct Rated {
  std::vector<double> kernels;     // work / s of each kernel
  std::vector<double> candidates;  // work / s of each candidate
  double limit = 0;                // the best candidate's
  std::string limit_name;          // and its name
};
// The kernels and the candidates in the same rounds of best_rates.
Rated rate_against(const std::vector<std::function<void()>>& kernels, const std::vector<Candidate>& refs, double work,
                   int rounds = 7, double seconds = 0);

// GB/s of the read limit of buf on `threads` threads (the best of
// read_candidates, timed alone).
double read_bandwidth(const std::vector<float>& buf, int threads);
// n values in [-scale/2, scale/2) from a fixed LCG.
std::vector<float> filled(size_t n, float scale);

}  // namespace konform::bench
