// konform_fuzz_seeds DIR: the seed corpus of every op target, written to
// DIR/<target>/: the sweep's cases (every edge case, then random ones)
// recorded as the bytes the target decodes back into them, so fuzzing starts
// from what `konform check` covers and mutates from there.
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "konform/fuzz_input.hpp"
#include "op_fuzzer.hpp"

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: konform_fuzz_seeds DIR [RANDOM_CASES_PER_OP]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const long random_cases = argc == 3 ? std::strtol(argv[2], nullptr, 10) : 16;
  constexpr size_t kMaxBytes = 4096;  // libFuzzer's default -max_len: the rest comes from the decoder's stream
  mkdir(dir.c_str(), 0777);
  size_t files = 0;
  for (const std::string& family : konform::fuzz::family_names()) {
    const std::string out = dir + "/" + family;
    mkdir(out.c_str(), 0777);
    const auto ops = konform::fuzz::family_ops(family);
    for (size_t position = 0; position < ops.size(); ++position) {
      const konform::OpSpec& op = *ops[position];
      for (int64_t index = 0; index < op.edge_cases + random_cases; ++index) {
        const auto bytes = konform::encode_sweep_case(position, op, 1, index, kMaxBytes);
        const std::string path = out + "/" + op.name + "-" + std::to_string(index);
        std::ofstream f(path, std::ios::binary);
        f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        if (!f) {
          std::fprintf(stderr, "konform_fuzz_seeds: cannot write %s\n", path.c_str());
          return 1;
        }
        ++files;
      }
    }
  }
  std::printf("konform_fuzz_seeds: %zu seed inputs in %s\n", files, dir.c_str());
  return 0;
}
