// One guarded call of a kernel: every tensor in its own buffer between guard
// zones, outputs poisoned, the call made twice, and everything the call must
// not do checked afterwards.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "konform/backend.hpp"
#include "konform/op.hpp"

namespace konform {

// Something a call did that no correct kernel does.
struct Violation {
  std::string check;  // output_fully_written, no_write_out_of_bounds, inputs_unchanged, deterministic
  std::string arg;
  int64_t element = -1;  // flat index, -1 for the guard zones
  std::string message;
};

struct CallResult {
  std::map<std::string, Tensor> outputs;  // out and inout arguments after the first call
  std::vector<Violation> violations;
};

struct CallOptions {
  // Bytes added to each buffer's 64-byte-aligned start: 0, or a multiple of
  // 4 that leaves the pointer element-aligned but not vector-aligned.
  size_t misalign = 0;
  // A second call with other poison, whose outputs must match the first bit
  // for bit. Properties that only need the values may turn it off.
  bool twice = true;
};

// Calls `fn` (the backend's symbol for `op`) on case `c`.
CallResult call_kernel(const Backend& backend, const OpSpec& op, void* fn, const Case& c, const CallOptions& options);

// Calls `fn` once on case `c` with each input that no output aliases fenced:
// its last byte against unmapped memory as long as the input (64 KiB at
// least), so that a read past its end faults, which the isolation reports.
// Nothing else is checked: the sweep makes this call before the checked
// ones, and after a fault here judges the cases without it.
void call_fenced(const Backend& backend, const OpSpec& op, void* fn, const Case& c);

// What run_op throws when the backend does not export the op's symbol: a
// property that calls a companion op (Dequantize for Quantize) cannot run
// on a library that implements only the op under test. Not a finding.
struct MissingSymbol : std::runtime_error {
  std::string symbol;
  MissingSymbol(const std::string& backend, const std::string& sym)
      : std::runtime_error(backend + " does not export " + sym), symbol(sym) {}
};

// What run_op throws when the call returned TL_ERR_UNSUPPORTED for a case
// the oracle accepts: the library does not implement that case (one Pool
// kind, say). Not a finding; `message` is the library's tl_last_error.
struct UnsupportedCase : std::runtime_error {
  std::string message;
  UnsupportedCase(const std::string& op, const std::string& why)
      : std::runtime_error(op + " returned TL_ERR_UNSUPPORTED" + (why.empty() ? "" : ": " + why)), message(why) {}
};

// Convenience for properties: the outputs of one guarded call; throws
// std::runtime_error naming the violation if there was one, MissingSymbol
// if the backend does not export the op, UnsupportedCase as said there.
std::map<std::string, Tensor> run_op(const Backend& backend, const OpSpec& op, const Case& c);

// While one is alive, run_op keeps a copy of every case it is given on this
// thread: how a property's shrunk counterexample becomes a reproducer.
class CallRecorder {
 public:
  CallRecorder();
  ~CallRecorder();
  CallRecorder(const CallRecorder&) = delete;
  CallRecorder& operator=(const CallRecorder&) = delete;
  std::vector<std::pair<const OpSpec*, Case>> calls;

 private:
  CallRecorder* outer_;
};

}  // namespace konform
