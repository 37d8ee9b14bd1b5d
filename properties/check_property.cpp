#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include <rapidcheck.h>

#include "konform/call.hpp"
#include "konform/properties.hpp"
#include "quiet_listener.hpp"

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

// At most `n` characters of s, and how much was left out.
std::string clipped(const std::string& s, size_t n) {
  return s.size() <= n ? s : s.substr(0, n) + "... (" + std::to_string(s.size()) + " characters)";
}

// RapidCheck's "FILE:LINE:\nRC_ASSERT(claim)\n\nExpands to:\nvalues" as one
// line: the claim, then what its two sides were ("got ..."). Anything else
// (RC_FAIL's words, an exception's message) on one line as it is.
std::string claim_of(const std::string& description) {
  std::string d = description;
  if (const auto eol = d.find('\n');
      eol != std::string::npos && eol > 0 && d[eol - 1] == ':' && d.find(' ') > eol)  // a "file:line:" first line
    d = d.substr(eol + 1);
  const std::string expands = "\n\nExpands to:\n";
  if (const auto at = d.find(expands); at != std::string::npos)
    d = d.substr(0, at) + "; got " + clipped(d.substr(at + expands.size()), 400);
  for (char& c : d)
    if (c == '\n') c = ' ';
  return d;
}

// One call of an op as people write it: its parameters and its tensors' shapes.
std::string call_text(const OpSpec& op, const Case& c) {
  std::ostringstream s;
  s << op.name << "(";
  const char* sep = "";
  for (const auto& [name, value] : c.params) {
    s << sep << name << " = " << value;
    sep = ", ";
  }
  for (const Arg& a : c.args) {
    s << sep << a.name << " " << shape_string(a.value.shape);
    sep = ", ";
  }
  s << ")";
  return s.str();
}

bool g_flush_subnormals = false;

}  // namespace

void set_flush_subnormals(bool flush) { g_flush_subnormals = flush; }
bool flush_subnormals() { return g_flush_subnormals; }

// Runs one property with an explicit seed and count, without RapidCheck's
// console output, so `konform check` and ctest both get the verdict as data.
// A companion op the backend lacks, or a case it answers with
// TL_ERR_UNSUPPORTED, sets the run aside rather than failing it.
PropertyOutcome check_property(const Property& p, const Backend& b, uint64_t seed, int max_success) {
  const int runs = std::max(1, static_cast<int>(std::ceil(max_success * p.run_share)));
  const auto [metadata, params] = rc_run(p.op, p.name, seed, runs);
  b.activate();
  std::string missing;      // the first companion symbol the backend lacks
  std::string unsupported;  // the library's words for the last case it did not implement
  int unsupported_runs = 0;
  const auto property = rc::detail::toProperty([&] {
    try {
      p.body(b);
    } catch (const MissingSymbol& e) {
      if (missing.empty()) missing = e.symbol;  // nothing to judge this run on
    } catch (const UnsupportedCase& e) {
      ++unsupported_runs;
      unsupported = e.message;
      RC_DISCARD("the library does not implement this case");
    }
  });
  QuietListener quiet;
  const auto result = rc::detail::checkProperty(property, metadata, params, quiet);

  PropertyOutcome out;
  out.unsupported = unsupported_runs;
  const std::string unsupported_words = unsupported.empty() ? "" : " (\"" + clipped(unsupported, 200) + "\")";
  if (result.template is<rc::detail::SuccessResult>()) {
    out.runs = result.template get<rc::detail::SuccessResult>().numSuccess;
    if (!missing.empty()) out.not_run = "needs " + missing + ", which " + b.name + " does not export";
    return out;
  }
  if (result.template is<rc::detail::GaveUpResult>() && unsupported_runs > 0) {
    out.not_run = b.name + " returned TL_ERR_UNSUPPORTED for every case it was given" + unsupported_words;
    return out;
  }
  out.passed = false;
  std::ostringstream msg;
  if (result.template is<rc::detail::FailureResult>()) {
    const auto& f = result.template get<rc::detail::FailureResult>();
    out.runs = f.numSuccess;
    msg << "falsified after " << f.numSuccess << " runs: " << claim_of(f.description);
    // The shrunk counterexample again, to see the calls it made: the last is
    // the one the claim is about.
    CallRecorder recorder;
    (void)rc::detail::checkProperty(property, metadata, params, quiet, {{metadata.id, f.reproduce}});
    if (!recorder.calls.empty()) {
      const auto& [op, c] = recorder.calls.back();
      msg << " | inputs: " << clipped(call_text(*op, c), 600);
    }
    // RapidCheck's picks that read as one value (a size, a mode); long
    // vectors are in the reproducer, not here.
    for (const auto& [type, value] : f.counterExample)
      if (value.size() <= 80) msg << " | " << type << " = " << value;
  } else {
    const auto& g = result.template get<rc::detail::GaveUpResult>();
    out.runs = g.numSuccess;
    msg << "gave up after " << g.numSuccess << " runs: " << g.description;
  }
  out.message = msg.str();
  return out;
}

}  // namespace konform
