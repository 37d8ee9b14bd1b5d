// The fuzz target of one file of harness/ops/: CMake compiles this once per
// file, with KONFORM_FUZZ_FAMILY set to the file's stem. No code per op.
#include <cstddef>
#include <cstdint>

#include "op_fuzzer.hpp"

#ifndef KONFORM_FUZZ_FAMILY
#error "KONFORM_FUZZ_FAMILY names the harness/ops/ file this target fuzzes"
#endif

namespace {
konform::fuzz::OpFuzzer* g_fuzzer = nullptr;
}

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  konform::fuzz::take_backend_flag(argc, argv);
  g_fuzzer = new konform::fuzz::OpFuzzer(KONFORM_FUZZ_FAMILY, konform::fuzz::Settings::from_environment());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  g_fuzzer->run(data, size);
  return 0;
}
