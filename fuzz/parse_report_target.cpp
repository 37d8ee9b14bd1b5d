// Reports read back (`konform check --report` files, and every op's result
// coming back from its isolated child): any bytes give results or an error
// with a message (std::runtime_error or nlohmann::json's own), never a crash,
// a hang or anything else.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "konform/report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return 0;
  try {
    const auto& results = j.contains("results") ? j.at("results") : nlohmann::json::array({j});
    if (!results.is_array()) return 0;
    for (const auto& one : results) {
      const konform::OpResult r = konform::op_result_from_json(one);
      (void)konform::to_json(r);
    }
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).empty()) std::abort();
  } catch (const nlohmann::json::exception&) {
  }
  return 0;
}
