#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>

#include <rapidcheck.h>

#include "konform/properties.hpp"

namespace konform {

void load_rapidcheck_quietly() {
  // RapidCheck prints its configuration on first use; konform passes seeds
  // explicitly, so that line is noise in every child process.
  std::fflush(stderr);
  const int saved = dup(2), null = open("/dev/null", O_WRONLY);
  if (saved >= 0 && null >= 0) dup2(null, 2);
  (void)rc::detail::configuration();
  std::fflush(stderr);
  if (saved >= 0) dup2(saved, 2), close(saved);
  if (null >= 0) close(null);
}

namespace {
bool g_flush_subnormals = false;
}  // namespace

void set_flush_subnormals(bool flush) { g_flush_subnormals = flush; }
bool flush_subnormals() { return g_flush_subnormals; }

// Runs one property with an explicit seed and count, without RapidCheck's
// console output, so `konform check` and ctest both get the verdict as data.
PropertyOutcome check_property(const Property& p, const Backend& b, uint64_t seed, int max_success) {
  rc::detail::TestMetadata metadata;
  metadata.id = p.op + "/" + p.name;
  metadata.description = p.name;
  rc::detail::TestParams params;
  params.seed = seed;
  params.maxSuccess = max_success;
  b.activate();
  const auto result = rc::detail::checkTestable([&] { p.body(b); }, metadata, params);

  PropertyOutcome out;
  if (result.template is<rc::detail::SuccessResult>()) {
    out.runs = result.template get<rc::detail::SuccessResult>().numSuccess;
    return out;
  }
  out.passed = false;
  std::ostringstream msg;
  if (result.template is<rc::detail::FailureResult>()) {
    const auto& f = result.template get<rc::detail::FailureResult>();
    out.runs = f.numSuccess;
    msg << "falsified after " << f.numSuccess << " runs: " << f.description;
    for (const auto& [type, value] : f.counterExample) msg << " | " << type << " = " << value;
  } else {
    const auto& g = result.template get<rc::detail::GaveUpResult>();
    out.runs = g.numSuccess;
    msg << "gave up after " << g.numSuccess << " runs: " << g.description;
  }
  out.message = msg.str();
  return out;
}

}  // namespace konform
