// An op's call built from its C function's type: the function's parameters,
// in order, are named arguments and parameters of the op's cases, and its
// result (a tl_status, an index) goes to a named i32 output. A `const
// int64_t*` parameter named "s#[ndim]" takes the numbered parameters s0 ..
// s{ndim-1} as an array (a shape passed as parameters; "x.#[x.rank]" for
// x.0 ..; "in#[3]" for in0 .. in2, a fixed length). A pointer named
// "bias?has_bias" is NULL unless parameter has_bias is present and non-zero;
// "b?!null_b" is NULL when null_b is (the caller's NULL for an optional
// input, or one it must refuse). From one line,
// `declare_c_call<decltype(tl_clamp_f32)>(op, {"x", "y", "n", "lo", "hi"})`,
// the op gets its invoke and a record of the C types (OpSpec::c_params,
// c_result) that Catalog.CallsMatchTheDeclaration holds to its declared
// arguments and parameters. Only the function's type is used: konform links
// no kernel.
#pragma once

#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "konform/op.hpp"

namespace konform {

namespace c_call_detail {

inline bool has_arg(const Case& c, const std::string& name) {
  for (const Arg& a : c.args)
    if (a.name == name) return true;
  return false;
}

// A pointer's name split at '?': the argument or array, and whether the
// condition after it lets the pointer through (true when there is none).
struct Conditional {
  std::string name;
  bool passed = true;
  Conditional(const Case& c, const std::string& text) : name(text.substr(0, text.find('?'))) {
    if (name.size() == text.size()) return;
    std::string cond = text.substr(name.size() + 1);
    const bool negated = !cond.empty() && cond[0] == '!';
    if (negated) cond.erase(0, 1);
    auto it = c.params.find(cond);
    passed = (it != c.params.end() && it->second != 0) != negated;
  }
};

// The value the C parameter of type P takes from the case.
template <class P>
P value(const KernelFn& fn, const Case& c, const Pointers& p, const char* name) {
  if constexpr (std::is_pointer_v<P>) {
    const Conditional arg(c, name);  // NULL: an optional argument not passed, or a condition that says so
    return arg.passed && has_arg(c, arg.name) ? fn.arg(static_cast<P>(p.get(arg.name))) : nullptr;
  } else if constexpr (std::is_same_v<P, float>) {
    return static_cast<float>(c.param(name));
  } else if constexpr (std::is_same_v<P, uint64_t>) {
    return static_cast<uint64_t>(c.param(name));  // a file's value is checked first (param_value_problem)
  } else if constexpr (std::is_enum_v<P>) {
    return static_cast<P>(c.iparam32(name));  // a C enum is an int
  } else {
    static_assert(std::is_integral_v<P> && std::is_signed_v<P> && (sizeof(P) == 4 || sizeof(P) == 8));
    if constexpr (sizeof(P) == 4) return c.iparam32(name);
    else return c.iparam(name);
  }
}

// The argument of one C parameter, built before the call and alive through it.
template <class P>
struct Slot {
  P v;
  Slot(const KernelFn& fn, const Case& c, const Pointers& p, const char* name) : v(value<P>(fn, c, p, name)) {}
  P get() const { return v; }
};

// "s#[ndim]": the parameters s0 .. s{ndim-1} as an int64_t array; NULL when
// it is empty (a rank-0 shape, which the ABI lets a caller pass as NULL).
template <>
struct Slot<const int64_t*> {
  std::vector<int64_t> a;
  bool passed = true;
  Slot(const KernelFn&, const Case& c, const Pointers&, const char* name) {  // parameters: host memory
    const Conditional arg(c, name);
    const std::string& n = arg.name;
    passed = arg.passed;
    const size_t hash = n.find("#["), close = n.size() - 1;
    if (hash == std::string::npos || n[close] != ']')
      throw std::logic_error("declare_c_call: an int64_t array is named like s#[ndim], not '" + n + "'");
    const std::string length = n.substr(hash + 2, close - hash - 2);
    const int64_t count = std::isdigit(static_cast<unsigned char>(length[0])) ? std::stoll(length) : c.iparam(length);
    for (int64_t k = 0; k < count; ++k) a.push_back(c.iparam(n.substr(0, hash) + std::to_string(k)));
  }
  const int64_t* get() const { return a.empty() || !passed ? nullptr : a.data(); }
};

// How a C parameter of type P is recorded in OpSpec::c_params.
template <class P>
CParam describe(const char* name) {
  using E = std::remove_cv_t<std::remove_pointer_t<P>>;
  if constexpr (std::is_pointer_v<P>) {
    const bool in = std::is_const_v<std::remove_pointer_t<P>>;
    return {name,
            std::is_same_v<E, float>      ? "f32"
            : std::is_same_v<E, int32_t>  ? "i32"
            : std::is_same_v<E, int64_t>  ? "i64"  // an array of parameters, s#[ndim]
            : std::is_same_v<E, uint16_t> ? "u16"  // f16 or bf16 bits
                                          : "u8",
            true, in};
  } else {
    return {name,
            std::is_same_v<P, float>      ? "f32"
            : std::is_same_v<P, uint64_t> ? "u64"
            : sizeof(P) == 4              ? "i32"  // int, int32_t, a C enum
                                          : "i64",
            false, true};
  }
}

template <class F>
struct Signature;
template <class R, class... P>
struct Signature<R(P...)> {
  static constexpr size_t arity = sizeof...(P);
  template <size_t... I>
  static void declare(OpSpec& op, const std::array<const char*, arity>& names, const char* result,
                      std::index_sequence<I...>) {
    static_assert(std::is_void_v<R> || std::is_same_v<R, int32_t> || std::is_enum_v<R>,
                  "a C function returns nothing, a tl_status or an int32_t");
    op.c_params = {describe<P>(names[I])...};
    op.c_result = std::is_void_v<R> ? "" : result;
    op.invoke = [names, result](const KernelFn& fn, const Case& c, const Pointers& p) {
      const std::tuple<Slot<P>...> slots{Slot<P>(fn, c, p, names[I])...};  // in order: reads may throw
      if constexpr (std::is_void_v<R>) fn.call<R(P...)>(std::get<I>(slots).get()...);
      else *p.i32(result) = static_cast<int32_t>(fn.call<R(P...)>(std::get<I>(slots).get()...));
    };
  }
};

}  // namespace c_call_detail

// Sets op.invoke, op.c_params and op.c_result from the C function type F,
// the names of its parameters in order, and the output its result goes to.
template <class F>
void declare_c_call(OpSpec& op, const std::array<const char*, c_call_detail::Signature<F>::arity>& names,
                    const char* result = "status") {
  c_call_detail::Signature<F>::declare(op, names, result,
                                       std::make_index_sequence<c_call_detail::Signature<F>::arity>{});
}

}  // namespace konform
