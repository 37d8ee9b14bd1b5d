// The fuzz target of one file of harness/ops/: compiled once and linked into
// every op target, each with a generated one-line file that names the stem
// of the file it fuzzes (fuzz/CMakeLists.txt). No code per op.
#include <cstddef>
#include <cstdint>

#include "op_fuzzer.hpp"

extern "C" const char konform_fuzz_family[];

namespace {
konform::fuzz::OpFuzzer* g_fuzzer = nullptr;
}

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  konform::fuzz::take_backend_flag(argc, argv);
  g_fuzzer = new konform::fuzz::OpFuzzer(konform_fuzz_family, konform::fuzz::Settings::from_environment());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  g_fuzzer->run(data, size);
  return 0;
}
