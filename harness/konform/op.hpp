// The op catalog: one declaration per op, read by every driver (the sweep,
// the properties, the fuzzers, the report).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "konform/case.hpp"
#include "konform/kernel_fn.hpp"
#include "konform/rng.hpp"

namespace konform {

// What the oracle says one output should be: the value and, per element, the
// scale s against which a correct computation in the target dtype loses
// precision (|y*| for elementwise results, the row's magnitudes for
// reductions). Values are double; exact outputs hold the exact value.
struct Expected {
  std::vector<double> value;
  std::vector<double> scale;
  // Optional: a second value per element that the output may match instead
  // of `value`. Exact outputs: where the spec allows two correctly rounded
  // results (AdaLN_Zero's h = x + gate * r, the product rounded or not: Mul
  // then Add, or one fused multiply-add), or two zeros (Pool's max of +0 and
  // -0). Tolerance outputs: an edge the spec leaves open (a padded conv tap
  // skipped rather than multiplied; LeakyRelu's alpha = 0 at -inf), judged
  // with the same scale. Empty: one.
  std::vector<double> alternative;
  // Tolerance-judged outputs only, optional: the elements that are copies of
  // an input inside a computed output (Rope's pass-through tail past
  // rot_dim), compared bit for bit as an exact output is. Empty: none.
  std::vector<bool> copied;
  // Tolerance-judged outputs only, optional: per element, the sum of |the
  // factor| that each flushable intermediate (one below 2 FLT_MIN)
  // multiplies on its way to the output (SwiGlu: up for act(gate), g up for
  // sigmoid(gate); act::flush_factor). Under --flush-subnormals alone
  // (Subnormals) each rounding may lose FLT_MIN at those intermediates
  // too, times this factor. Empty: no intermediate but the output itself.
  std::vector<double> flush_factor;
  // Exact outputs only, optional: the bit pattern each element must hold,
  // for copies (Transpose_f16, Permute_bf16, ...) whose input may hold NaNs
  // of any payload: the output must be the input's pattern, so a NaN
  // canonicalized or a signalling NaN quieted on the way is a finding (the
  // values alone let any NaN match any NaN). Empty: compared by value.
  std::vector<uint32_t> bits;
};
using Oracle = std::map<std::string, Expected>;

// Pointers to the guarded device-side buffers of one call, by argument name.
class Pointers {
 public:
  void set(const std::string& name, void* p) { ptr_[name] = p; }
  float* f32(const std::string& name) const { return static_cast<float*>(get(name)); }
  int32_t* i32(const std::string& name) const { return static_cast<int32_t*>(get(name)); }
  void* get(const std::string& name) const;

 private:
  std::map<std::string, void*> ptr_;
};

struct Verification;  // konform/compare.hpp

// One factor of an element count an op declares: what sizes it (a
// parameter's name, or words) and its value in the case.
struct Factor {
  std::string name;
  double value = NAN;
};
using Factors = std::vector<Factor>;

// Parameter `name` of c as a factor: NaN where the case lacks it (a file may).
inline Factor param_factor(const Case& c, const std::string& name) {
  auto it = c.params.find(name);
  return {name, it == c.params.end() ? NAN : it->second};
}

// The largest of the named parameters of c that it has, 0 when none is
// positive: an OpSpec::sum_length of ops whose longest sum is one of several
// dimensions (an FFN's D and H, attention's keys and head_dim).
inline int64_t largest_param(const Case& c, std::initializer_list<const char*> names) {
  double n = 0;
  for (const char* name : names)
    if (auto it = c.params.find(name); it != c.params.end() && it->second > n) n = it->second;
  return static_cast<int64_t>(n);
}

// One argument of an op's call, as data: what a case passes under that name.
// The reproducer reader holds a file's tensors to these (case_shape.cpp), and
// Catalog.ArgumentsAreDeclared holds every generated case to them.
struct ArgSpec {
  std::string name;  // "x"; "y#" for a numbered family (y0, y1, ...: Split's pieces)
  Access access = Access::in;
  // "T": the op's element type (OpSpec::dtype: f32, f16 or bf16),
  // or a fixed type whatever T is: "i32" (indices, a status), "u8" (blocks).
  std::string dtype = "T";
  // Its dimensions in the case's parameters: "rows, d", "s# for # < ndim",
  // "M..., K" (konform/shape_expr.hpp). Or kShapeByOracle, for an output
  // whose size the op computes (a conv's y, a concatenation): the oracle
  // gives its element count. Or kShapeByCode, for a tensor sized by a kind
  // or by another tensor's contents: OpSpec::declared_count gives its count.
  std::string shape;
  // How an output is judged; two where the op's cases differ (Pool: max
  // exact, average by tolerance). Inputs keep the default.
  std::vector<Match> match = {Match::tolerance};
  std::vector<std::string> may_alias = {};  // inputs an output may share its buffer with (y == x)
  bool optional = false;                    // a case may pass none (NULL: a conv's bias, Sdpa's mask)
};
inline constexpr const char* kShapeByOracle = "by the oracle";
inline constexpr const char* kShapeByCode = "by declared_count";
// The i32 output that receives a validating op's tl_status.
inline ArgSpec status_output() { return {"status", Access::out, "i32", "1", {Match::exact}}; }

// The limit of a tolerance-judged op for one dtype, with the error analysis
// it comes from: one line of a tolerance table (docs/tolerances.md). The
// built-in table is these rules of every op (ToleranceTable::builtin).
struct ToleranceRule {
  DType dtype = DType::f32;
  std::string limit;  // in units of roundoff: "16", "19+1n; strict 20" (n: the case's sum_length)
  std::string spec;   // the spec's own relative figure, a ceiling ("1e-6"), or "-" for none
  std::string why;    // the derivation: the budget of each rounding and function
};

// How a parameter reaches the C function (or, for one that only describes
// the case, such as a flag for a NULL argument, what it holds): so which
// values a reproducer may give it before a cast would be undefined.
enum class ParamType {
  i64,  // int64_t, or an integer describing the case
  i32,  // int or int32_t
  u64,  // uint64_t (a seed)
  f32,  // float: NaN and +-Inf allowed, finite values within float's range
};
const char* param_type_name(ParamType t);

// One parameter of an op's cases, as data (the scalars of the call and those
// that describe its tensors).
struct ParamSpec {
  std::string
      name;  // as cases and reproducers name it: "n", "eps"; "s#" for a numbered family (s0, s1, ...; numbered_family)
  ParamType type = ParamType::i64;
  std::string range;               // the values the op accepts, in words; the op must refuse others
  std::string default_value = "";  // the default the spec or the header names, "" where there is none
};

// One parameter of the op's C function, as declare_c_call records it
// (konform/c_call.hpp): the case's argument or parameter it takes, by name,
// and its C type.
struct CParam {
  std::string name;
  std::string type;  // a pointer's element type ("f32", "i32", "u8") or a scalar's ("i64", "i32", "u64", "f32")
  bool pointer = false;
  bool in = true;  // for a pointer: to const, an input
};

struct OpSpec {
  std::string name;  // unique ignoring case: "elementwise_rmsnorm", "RmsNorm"
  // The op's name before a rename, or "". It is still accepted, with a
  // deprecation note (former_name_note), until konform kFormerNamesUntil, and
  // the op's cases stay drawn under it (case_key), so a rename changes no case.
  std::string former_name;
  std::string group;   // the header it belongs to: "elementwise" for tinyllm/elementwise.h
  std::string symbol;  // the C ABI function: "tl_rmsnorm_f32"
  // Its device-pointer twin (tinyllm/cuda/*.h); "" for symbol + "_dev".
  std::string device_symbol;
  DType dtype = DType::f32;
  std::string summary;  // one line for `konform list`
  // Where the spec states the op: a file of docs/spec/, its numbered
  // section and the op's heading in it: "operations.txt 2. Normalization: RmsNorm".
  std::string spec;
  // Its parameters: every name its cases hold, typed; reproducers are held to them.
  std::vector<ParamSpec> params;
  std::string domain;  // the inputs the op is checked on, and why
  // Its arguments (the tensors of its cases), in no particular order.
  std::vector<ArgSpec> args;
  // The limits of its outputs judged against the oracle, per dtype; empty
  // when every output is compared bit for bit (gathers, indices, blocks).
  std::vector<ToleranceRule> tolerances;
  // For ops that validate their arguments: the name of the i32 output that
  // receives the returned tl_status. A non-zero status means the call must
  // have written nothing; the other outputs are then not compared.
  std::string status;

  // Case `index` of a sweep; deterministic in (rng state, index). Indices
  // below edge_cases walk the edge shapes, later ones are random.
  std::function<Case(Rng&, int64_t index)> make_case;
  int64_t edge_cases = 0;
  // Calls the kernel on the buffers of a case: every tensor through
  // fn.arg(), the call through fn.call<F>(), so that the same invoke calls
  // a host-pointer function and its device twin (konform/kernel_fn.hpp).
  std::function<void(const KernelFn& fn, const Case&, const Pointers&)> invoke;
  // The C function's parameters in order, where invoke is built from its
  // type (declare_c_call), and the i32 output its result goes to ("" for
  // void); empty where invoke is written by hand (pointer arrays, shapes).
  std::vector<CParam> c_params;
  std::string c_result;
  // The double oracle, from the case's inputs.
  std::function<Oracle(const Case&)> oracle;
  // Optional: checks of the outputs by a route cheaper than the oracle, for
  // cases too large for it (Matmul at 4096 x 11008: a random projection and
  // sampled elements instead of every dot product). Called on every case the
  // oracle does not refuse, with the call's outputs and the op's limit. An
  // output the oracle leaves out of its result is judged by these alone.
  std::function<std::vector<Verification>(const Case&, const std::map<std::string, Tensor>& outputs, double limit)>
      verify;
  // For the arguments whose shape is kShapeByCode: the element count `arg`
  // must have in case c, as the product of factors, where no shape
  // expression says it: a tensor sized by a kind (Sdpa's mask), by another
  // tensor's contents (KvCache's k_new), or one of a numbered family each
  // with its own shape parameters (Concat's x#). nullopt where `arg` has no
  // size in c: an input then may not be there, and an optional one with a
  // count must.
  std::function<std::optional<Factors>(const std::string& arg, const Case& c)> declared_count;
  // Optional: what makes a reproducer's params unable to describe any call of
  // this op ("" when nothing does), for relations between params that sizes
  // alone do not show (Concat's count against its inputs). The reader refuses
  // such files, naming the param returned first.
  std::function<std::pair<std::string, std::string>(const Case& c)> params_problem;
  // Optional: the number of terms of the longest float sum in case c (a row, a group, a softmax line), for limits that
  // grow with it (the default profile's any-order bound, Tolerance::at).
  std::function<int64_t(const Case& c)> sum_length;

  // The name the sweep's, the fuzzers' and the reproducer reader's cases are
  // seeded with (case_seed): the name the op was added under.
  const std::string& case_key() const { return former_name.empty() ? name : former_name; }
};

// The numbered family of an argument's or parameter's name: each run of
// digits as '#' ("y12" -> "y#", "x2.0" -> "x#.#"); the name itself when it
// has no digits.
std::string numbered_family(const std::string& name);
// The declared argument `name` is, by its own name or its numbered family's
// ("y3" is "y#"); nullptr when op declares none.
const ArgSpec* declared_arg(const OpSpec& op, const std::string& name);
// The declared parameter `name` is, by its own name or its numbered family's
// ("s3" is "s#", "x2.rank" is "x#.rank"); nullptr when op declares none.
const ParamSpec* declared_param(const OpSpec& op, const std::string& name);
// What makes `value` unfit for a parameter of type t ("" when it fits): a
// non-integer where an integer is passed, a number beyond the type.
std::string param_value_problem(ParamType t, double value);
// The element type of a declared argument in op: T resolved to op.dtype.
DType arg_dtype(const OpSpec& op, const ArgSpec& arg);

// The release that drops the former names of renamed ops.
inline constexpr const char* kFormerNamesUntil = "0.2.0";

// Every op, sorted by group then name. The list is generated at build time
// from harness/ops/*.cpp: each file defines `std::vector<OpSpec>
// konform::ops::<file stem>()`, so adding an op edits no shared list.
const std::vector<OpSpec>& catalog();
// The op of that name, or of that former name; nullptr when there is none.
const OpSpec* find_op(const std::string& name);
// When `given` is op's former name, the note that says so and names the op
// now ("op 'add' is now 'elementwise_add' ..."); "" otherwise.
std::string former_name_note(const std::string& given, const OpSpec& op);

}  // namespace konform
