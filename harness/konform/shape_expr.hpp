// Declared shapes (ArgSpec::shape): a tensor's dimensions as expressions in
// the case's parameters, evaluated for one case.
//
//   shape  := item ("," item)*
//   item   := expr                    one dimension
//           | expr "..."              one or more leading dimensions whose product is expr
//                                     (flattened batch dimensions: Matmul's x as [B, S, K], B S = M)
//           | expr "for # <" expr     one dimension per index i below the bound, '#' replaced
//                                     by i ("x.(perm.#) for # < x.rank")
//           | family "[" expr "]"     a family's members: "s#[ndim]" is "s# for # < ndim",
//                                     s0, s1, ..., s{ndim-1} (as konform/c_call.hpp names arrays)
//   expr   := term (("+" | "-") term)*
//   term   := unary (("*" | "/") unary)*
//   unary  := "-" unary | number | "(" expr ")" | name | name "(" expr ")"
//
// A name is a parameter ("rows", "x.rank"); `name(expr)` is the parameter
// whose name is `name` followed by the value of expr ("s(ndim - 1)": the
// last of s0 .. s{ndim-1}; "x.(perm.2)"). Division is exact: a dimension
// that comes out fractional matches no tensor.
#pragma once

#include <string>
#include <vector>

#include "konform/case.hpp"

namespace konform {

// One item of a declared shape, evaluated in a case.
struct DeclaredDim {
  std::string text;      // as declared, '#' replaced by its index: "d", "x.(perm.1)"
  double value = 0;      // NaN where a parameter it reads is missing or the arithmetic fails
  bool leading = false;  // an "expr..." item: the product of one or more leading dimensions
};

struct DeclaredShape {
  std::vector<DeclaredDim> dims;
  // Why the shape could not be formed in this case ("" when it could): a
  // bound of "for # <" that is not a rank 0 .. kMaxDeclaredRank.
  std::string problem;
};

inline constexpr int kMaxDeclaredRank = 8;

// `shape` evaluated in c. Throws std::invalid_argument naming the fault
// when the text is not a shape (a test checks every declaration parses).
DeclaredShape evaluate_shape(const std::string& shape, const Case& c);

// "" when `shape` is a well-formed shape expression; otherwise what is wrong.
std::string shape_syntax_problem(const std::string& shape);

// What a tensor of shape `dims` fails of the declared shape d ("" when it
// fits): "rank 1, but ... [rows, d]" or "dimension 1 is 7, but ... d = 5".
// `who` names the declaration in the message ("elementwise_rmsnorm declares").
std::string shape_mismatch(const std::vector<int64_t>& dims, const DeclaredShape& d, const std::string& declared_text,
                           const std::string& who);

}  // namespace konform
