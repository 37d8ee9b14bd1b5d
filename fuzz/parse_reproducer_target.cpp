// The reproducer and fixture parser (konform/repro.hpp): any bytes give a
// reproducer or a ReproError that names the source, never a crash, a hang or
// another exception; and a reproducer written back reads back the same.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "konform/repro.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  konform::Reproducer r;
  try {
    r = konform::parse_reproducer(text, "fuzz-input");
  } catch (const konform::ReproError& e) {
    if (std::string(e.what()).rfind("fuzz-input", 0) != 0) std::abort();
    return 0;
  }
  const nlohmann::json once = konform::reproducer_to_json(r);
  const nlohmann::json twice = konform::reproducer_to_json(konform::reproducer_from_json(once, "round trip"));
  if (once != twice) std::abort();
  return 0;
}
