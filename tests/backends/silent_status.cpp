// A tl_last_error that never has words: the scalar backend linked with this
// instead of its status.cpp refuses bad calls correctly but says nothing, so
// a refusal property that reads the library under test must fail on it
// (`plugin.builtin_name_reads_its_own_message`).
#include "impl/common/status.hpp"

namespace konform::impl {

tl_status fail(tl_status status, std::string) { return status; }

}  // namespace konform::impl

extern "C" const char* tl_last_error(void) { return ""; }
