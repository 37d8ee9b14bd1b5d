#include <set>
#include <stdexcept>
#include <string>

#include "konform/properties.hpp"

namespace konform {

std::vector<Property> generated_properties();  // properties_list.cpp, written by CMake

namespace {

// The strict profile's properties: contracts beyond the spec, measured and
// reported on every run, failing it only under --profile strict
// (docs/tolerances.md#profiles). The spec asks batch invariance of rmsnorm
// alone (and this project's norm headers of every norm), so the Matmul's
// and the q8x matmuls' are strict; determinism across thread counts is asked by no one.
const std::set<std::string> kStrictProperties = {
    "matmul_rows_are_batch_invariant", "matmul_threads_do_not_change_bits", "conv_threads_do_not_change_bits",
    "q8x_rows_are_batch_invariant",    "q8x_threads_do_not_change_bits",
};

// A quarter of the runs for the strict matmul and convolution properties:
// each run calls a product past the library's threading threshold twice, or
// a batch and then each of its up to 260 rows alone, and together they took
// a seventh of the simd backend's default check. A thread split or a batch
// path that changes the bits changes them on most shapes of its path, and 25
// runs draw each path several times.
constexpr double kStrictRunShare = 0.25;

std::vector<Property> tagged() {
  std::vector<Property> all = generated_properties();
  std::set<std::string> seen;
  for (Property& p : all)
    if (kStrictProperties.count(p.name)) p.profile = "strict", p.run_share = kStrictRunShare, seen.insert(p.name);
  if (seen.size() != kStrictProperties.size())
    throw std::logic_error("properties/registry.cpp names a strict property that no file registers");
  return all;
}

}  // namespace

const std::vector<Property>& properties() {
  static const std::vector<Property> all = tagged();
  return all;
}

}  // namespace konform
