// Reads jaxpr text: what PrintJaxpr prints and what JAX prints (a paste of
// `print(jax.make_jaxpr(f)(x))`, shard_map's params included:
// `mesh=Mesh('x': 4, axis_types=(Auto,))`, `in_specs=(P('x',),)`, `check_vma=True`, ...).
//
//   absl::StatusOr<ClosedJaxpr> j = ParseJaxpr("{ lambda ; a:f32[8]. let b:f32[8] = sin a in (b,)
//   }");
//
// Variables are resolved by name within each jaxpr (a nested jaxpr has its own names, as
// jit's body reuses its operands' names); the binders' types are taken as written (weak types
// are not in the text: every parsed type is strong). Parameters are read as Python-like values
// (param.h); a primitive may restore parameters JAX's printer leaves out (broadcast_in_dim's
// shape from its binder). The result is canonical (jaxpr.h), so
// ParseJaxpr(PrintJaxpr(j)) == j for every canonical j without weak types; type checking is
// a separate step (CheckJaxpr).
//
// JAX's shared-jaxpr prelude (`let g = { lambda ... } in`, items possibly using later ones) is
// read: each `jaxpr=g` (any jaxpr-holding parameter, tuples included) is the one shared
// ClosedJaxpr. A name undefined, defined twice or using itself is an error; a prelude that
// would inline to more than Builder::kMaxEqns equations is refused.
//
// Errors (InvalidArgument) name the 1-based line and column: "line 3, column 14: expected
// ':' after the variable name, found '='", "line 2, column 14: unknown primitive 'foo'"
// (a primitive must be registered, built-in or Primitive::Define'd), "unknown variable 'q'",
// "Variable 'b' already bound". Input is bounded: ParseOptions::max_length characters and
// max_depth levels of nested jaxprs and parameter values.
#ifndef AXE_IR_PARSER_H_
#define AXE_IR_PARSER_H_

#include <cstddef>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/ir/jaxpr.h"

namespace axe::ir {

struct ParseOptions {
  size_t max_length = size_t{1} << 24;
  int max_depth = 64;
};

absl::StatusOr<ClosedJaxpr> ParseJaxpr(absl::string_view text, ParseOptions options = {});

}  // namespace axe::ir

#endif  // AXE_IR_PARSER_H_
