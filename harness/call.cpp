#include "konform/call.hpp"
#include "konform/compare.hpp"

#include "konform/device.hpp"
#include "konform/guard.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>

#include "tinyllm/status.h"

namespace konform {

namespace {

constexpr uint32_t kPoison[2] = {0x7FA1B2C3u, 0xFF9D8E7Fu};  // NaNs no kernel computes

// Every byte of an output: whole words of the pattern, then its first bytes.
void poison(uint8_t* p, size_t bytes, uint32_t pattern) {
  size_t i = 0;
  for (; i + 4 <= bytes; i += 4) std::memcpy(p + i, &pattern, 4);
  if (i < bytes) std::memcpy(p + i, &pattern, bytes - i);  // p is null for an empty output
}

bool aliased_by_output(const Case& c, const std::string& name) {
  for (const Arg& a : c.args)
    if (a.alias_of == name) return true;
  return false;
}

struct Call {
  std::map<std::string, std::shared_ptr<GuardedBuffer>> buffers;
  Pointers pointers;
  std::unique_ptr<DeviceCall> device;  // a device backend's copies of the buffers
};

// Lays out the buffers of `c` for one call: inputs copied in, outputs
// poisoned, aliased outputs pointing into their input's buffer; with
// `fence_inputs`, the inputs no output aliases end exactly at their guard.
// With `inputs_of`, an earlier call at the same alignment that left its
// inputs as they were, those buffers serve again (a copy and two changes of
// protection less for each). For a device backend each buffer also gets its
// device copy.
Call prepare(const Backend& backend, const Case& c, size_t misalign, uint32_t pattern, bool fence_inputs = false,
             const Call* inputs_of = nullptr) {
  Call call;
  for (const Arg& a : c.args) {
    if (!a.alias_of.empty()) continue;
    const bool written = a.access != Access::in || aliased_by_output(c, a.name);
    if (!written && inputs_of != nullptr) {
      call.buffers[a.name] = inputs_of->buffers.at(a.name);
      call.pointers.set(a.name, call.buffers[a.name]->data());
      continue;
    }
    auto buf =
        std::make_shared<GuardedBuffer>(a.name, written, a.value.size_bytes(), misalign, fence_inputs && !written);
    if (a.access == Access::out) poison(buf->data(), buf->size(), pattern);
    else if (buf->size() > 0) std::memcpy(buf->data(), a.value.bytes.data(), buf->size());
    call.pointers.set(a.name, buf->data());
    call.buffers[a.name] = std::move(buf);
  }
  for (const Arg& a : c.args)
    if (!a.alias_of.empty()) call.pointers.set(a.name, call.buffers.at(a.alias_of)->data());
  if (backend.device_runtime != nullptr) {
    call.device = std::make_unique<DeviceCall>(*backend.device_runtime);
    for (const auto& [name, buf] : call.buffers) call.device->mirror(name, buf->data(), buf->size(), misalign);
  }
  return call;
}

// Calls the kernel on the call's buffers. On a device: then waits for the
// stream and copies the results over the host buffers, for the checks that
// follow to read; a write into the device's canaries is a violation here.
void run(const OpSpec& op, void* fn, const Case& c, Call& call, std::vector<Violation>* out) {
  op.invoke(KernelFn(fn, call.device.get()), c, call.pointers);
  if (call.device == nullptr) return;
  call.device->wait();
  for (const std::string& arg : call.device->copy_back())
    out->push_back(
        {"no_write_out_of_bounds", arg, -1, "a write landed in the canaries around '" + arg + "' on the device"});
}

bool is_output(const Arg& a) { return a.access != Access::in; }

// The arguments whose buffer holds a result: outputs, in-place inputs, and
// inputs that an output aliases.
const GuardedBuffer& result_buffer(const Call& call, const Arg& a) {
  return *call.buffers.at(a.alias_of.empty() ? a.name : a.alias_of);
}

// The status the call returned, for ops that validate (0 otherwise).
int32_t returned_status(const OpSpec& op, const Call& call) {
  if (op.status.empty()) return 0;
  int32_t s;
  std::memcpy(&s, call.buffers.at(op.status)->data(), 4);
  return s;
}

// The first byte where a and b differ, or -1; byte-wise, so tensors of any
// element size (u8 blocks too) are compared without reading past their end.
int64_t first_difference(const uint8_t* a, const uint8_t* b, size_t n) {
  if (n == 0 || std::memcmp(a, b, n) == 0) return -1;
  size_t i = 0;
  while (a[i] == b[i]) ++i;
  return static_cast<int64_t>(i);
}

int64_t element_at(const Arg& a, int64_t byte) { return byte / static_cast<int64_t>(dtype_size(a.value.dtype)); }

// A call that refused its arguments must leave every output as it was.
void check_wrote_nothing(const OpSpec& op, const Case& c, const Call& call, uint32_t pattern,
                         std::vector<Violation>* out) {
  for (const Arg& a : c.args) {
    if (a.access == Access::in || a.name == op.status) continue;
    const auto& buf = result_buffer(call, a);
    const Arg& source = a.alias_of.empty() ? a : c.arg(a.alias_of);
    std::vector<uint8_t> before(buf.size());
    if (a.access == Access::out && a.alias_of.empty()) poison(before.data(), before.size(), pattern);
    else if (!before.empty()) std::memcpy(before.data(), source.value.bytes.data(), before.size());
    const int64_t byte = first_difference(buf.data(), before.data(), buf.size());
    if (byte >= 0) {
      const int64_t k = element_at(a, byte);
      out->push_back({"writes_nothing_on_error", a.name, k,
                      "the call returned status " + std::to_string(returned_status(op, call)) + " but wrote '" +
                          a.name + "' at " + index_string(a.value.shape, k)});
    }
  }
}

void check_call(const OpSpec& op, const Case& c, const Call& call, uint32_t pattern, std::vector<Violation>* out) {
  const bool refused = returned_status(op, call) != 0;
  if (refused) check_wrote_nothing(op, c, call, pattern, out);
  for (const Arg& a : c.args) {
    const bool owns = a.alias_of.empty();
    if (owns && !call.buffers.at(a.name)->canaries_intact())
      out->push_back({"no_write_out_of_bounds", a.name, -1, "a write landed in the canaries around '" + a.name + "'"});
    if (a.access == Access::in && !aliased_by_output(c, a.name)) {
      const auto& buf = *call.buffers.at(a.name);
      const int64_t byte = first_difference(buf.data(), a.value.bytes.data(), buf.size());
      if (byte >= 0) {
        const int64_t k = element_at(a, byte);
        out->push_back(
            {"inputs_unchanged", a.name, k, "input '" + a.name + "' changed at " + index_string(a.value.shape, k)});
      }
    }
    if (a.access == Access::out && a.alias_of.empty() && !refused) {
      // Whole words still holding the poison (a byte alone could be written
      // with the poison's value; a word of it, practically never).
      const auto& buf = *call.buffers.at(a.name);
      for (int64_t w = 0; (w + 1) * 4 <= static_cast<int64_t>(buf.size()); ++w) {
        uint32_t bits;
        std::memcpy(&bits, buf.data() + 4 * w, 4);
        if (bits == pattern) {
          const int64_t k = element_at(a, 4 * w);
          out->push_back({"output_fully_written", a.name, k,
                          "output '" + a.name + "' left unwritten at " + index_string(a.value.shape, k)});
          break;
        }
      }
    }
  }
}

Tensor read_result(const Call& call, const Arg& a) {
  Tensor t = a.value;
  const auto& buf = result_buffer(call, a);
  if (buf.size() > 0) std::memcpy(t.bytes.data(), buf.data(), buf.size());
  return t;
}

// The second look: an output that changed since it was read after the call
// was written by something the call left running.
// On a device the results are copied back again: a kernel that ran on
// another stream than the call's may have written since.
void check_after_return(const Case& c, const Call& call, const std::map<std::string, Tensor>& read,
                        std::vector<Violation>* out) {
  if (call.device != nullptr) call.device->copy_back();
  for (const Arg& a : c.args) {
    if (!is_output(a)) continue;
    const auto& buf = result_buffer(call, a);
    const int64_t byte = first_difference(buf.data(), read.at(a.name).bytes.data(), buf.size());
    if (byte >= 0) {
      const int64_t k = element_at(a, byte);
      out->push_back({"no_write_after_return", a.name, k,
                      "'" + a.name + "' changed at " + index_string(a.value.shape, k) +
                          " after the call had returned and its result had been read"});
    }
  }
}

std::map<std::string, Tensor> read_results(const Case& c, const Call& call) {
  std::map<std::string, Tensor> outputs;
  for (const Arg& a : c.args)
    if (is_output(a)) outputs[a.name] = read_result(call, a);
  return outputs;
}

}  // namespace

void call_fenced(const Backend& backend, const OpSpec& op, void* fn, const Case& c) {
  if (backend.device_runtime != nullptr) return;  // device memory has no guard pages here
  backend.activate();
  Call call = prepare(backend, c, 0, kPoison[0], true);
  op.invoke(KernelFn(fn), c, call.pointers);
}

CallResult call_kernel(const Backend& backend, const OpSpec& op, void* fn, const Case& c, const CallOptions& options) {
  CallResult result;
  backend.activate();
  Call first = prepare(backend, c, options.misalign, kPoison[0]);
  run(op, fn, c, first, &result.violations);
  result.outputs = read_results(c, first);
  check_call(op, c, first, kPoison[0], &result.violations);
  if (!options.twice) {
    check_after_return(c, first, result.outputs, &result.violations);
    return result;
  }

  // The first call's input buffers serve again unless it was seen to touch
  // anything it should not have (its findings then stay its own).
  Call second = prepare(backend, c, options.misalign, kPoison[1], false, result.violations.empty() ? &first : nullptr);
  run(op, fn, c, second, &result.violations);
  const std::map<std::string, Tensor> again = read_results(c, second);
  check_call(op, c, second, kPoison[1], &result.violations);
  // A refused call left its outputs as they were (checked above): the poison
  // differs between the calls by design, so only the status is compared.
  const bool refused = returned_status(op, first) != 0;
  for (const Arg& a : c.args) {
    if (!is_output(a) || (refused && a.name != op.status)) continue;
    const Tensor& other = again.at(a.name);
    const int64_t k = first_value_difference(other, result.outputs[a.name]);  // a NaN matches any NaN
    if (k >= 0) {
      result.violations.push_back(
          {"deterministic", a.name, k,
           "a second identical call gave other bits in '" + a.name + "' at " + index_string(a.value.shape, k)});
    }
  }
  // The first call's buffers have waited through the second call.
  check_after_return(c, first, result.outputs, &result.violations);
  check_after_return(c, second, again, &result.violations);
  return result;
}

namespace {
thread_local CallRecorder* t_recorder = nullptr;
}  // namespace

CallRecorder::CallRecorder() : outer_(t_recorder) { t_recorder = this; }
CallRecorder::~CallRecorder() { t_recorder = outer_; }

std::map<std::string, Tensor> run_op(const Backend& backend, const OpSpec& op, const Case& c) {
  if (t_recorder != nullptr) t_recorder->calls.emplace_back(&op, c);
  void* fn = backend.symbol(op.symbol);
  if (fn == nullptr) throw MissingSymbol(backend.name, op.symbol);
  CallResult r = call_kernel(backend, op, fn, c, CallOptions{0, false});
  if (!r.violations.empty()) throw std::runtime_error(r.violations.front().check + ": " + r.violations.front().message);
  // Unsupported only where the oracle accepts the case: a bad case answered
  // with TL_ERR_UNSUPPORTED is a wrong status, for the property to see.
  if (!op.status.empty() && r.outputs.at(op.status).i32()[0] == TL_ERR_UNSUPPORTED &&
      op.oracle(c).at(op.status).value.at(0) == double(TL_OK))
    throw UnsupportedCase(op.name, backend.last_error().value_or(""));
  return std::move(r.outputs);
}

}  // namespace konform
