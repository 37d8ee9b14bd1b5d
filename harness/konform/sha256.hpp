// SHA-256 (FIPS 180-4), for telling whether a backend's library file is the
// one a reproducer was found on; `sha256sum FILE` gives the same digest.
#pragma once

#include <string>
#include <string_view>

namespace konform {

// The digest of `bytes` as 64 lowercase hex digits.
std::string sha256_hex(std::string_view bytes);

}  // namespace konform
