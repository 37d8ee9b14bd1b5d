// main() for a fuzz target built without libFuzzer (gcc, or any build with
// KONFORM_FUZZ=OFF): runs every file named on the command line, and every
// file in every directory named, through LLVMFuzzerTestOneInput once, so CI
// replays corpora and regressions with no fuzzing engine. Arguments that
// start with '-' (libFuzzer's flags) are ignored, -backend=B included after
// the target has taken it, except -min_inputs=N: fewer inputs than N fail.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

char g_current[4096] = "";

// A replay that dies names the input it died on.
void name_the_input(int sig) {
  const char* msg = "\nkonform replay: died on input ";
  (void)!write(2, msg, std::strlen(msg));
  (void)!write(2, g_current, std::strlen(g_current));
  (void)!write(2, "\n", 1);
  signal(sig, SIG_DFL);
  raise(sig);
}

std::vector<std::string> inputs_of(const std::string& arg) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  if (fs::is_directory(arg)) {
    for (const auto& e : fs::recursive_directory_iterator(arg))
      if (e.is_regular_file() && e.path().filename().string()[0] != '.') files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(arg);
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) signal(sig, name_the_input);
  size_t count = 0, at_least = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "-min_inputs=", 12) == 0) at_least = std::strtoul(argv[i] + 12, nullptr, 10);
    if (argv[i][0] == '-') continue;
    for (const std::string& path : inputs_of(argv[i])) {
      std::ifstream in(path, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "konform replay: cannot read %s\n", path.c_str());
        return 2;
      }
      const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      std::snprintf(g_current, sizeof g_current, "%s", path.c_str());
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      ++count;
    }
  }
  std::printf("konform replay: %zu input(s), no finding\n", count);
  if (count < at_least) {  // an empty corpus must not pass for a replayed one
    std::fprintf(stderr, "konform replay: expected at least %zu inputs\n", at_least);
    return 1;
  }
  return 0;
}
