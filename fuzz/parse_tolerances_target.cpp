// The tolerance table's parser (reference/tolerances.tsv, --tolerances FILE):
// any bytes give a table or a TableError that names the source, never a
// crash, a hang or another exception.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "konform/tolerance.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const konform::ToleranceTable table = konform::ToleranceTable::parse(text, "fuzz-input");
    (void)table.find("elementwise_rmsnorm", konform::DType::f32);
  } catch (const konform::TableError& e) {
    if (std::string(e.what()).rfind("fuzz-input:", 0) != 0) std::abort();  // the message must say where
  }
  return 0;
}
