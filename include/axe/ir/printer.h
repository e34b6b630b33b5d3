// The text form of jaxprs (spec ir-and-shard-map.md §3.1), byte for byte as JAX prints it
// (`str(jax.make_jaxpr(f)(x))` with color off):
//
//   { lambda ; a:f32[]. let
//       b:bool[] = ge a 0.0:f32[]
//       ...
//       f:f32[] = cond[
//         branches=(
//           { lambda ; g:f32[] h:f32[] i:f32[]. let j:f32[] = sub i g in (j,) }
//           ...
//         )
//       ] e a c d
//     in (f,) }
//
// The layout is JAX's pretty printer: a group (the whole jaxpr, an equation's [params], a
// tuple of jaxprs, a list of binders) prints on one line when its own flat text fits in the
// rest of the 80-column line, else it breaks. Variables are named a, b, ..., z, ba, bb, ... in
// printing order, shared with nested jaxprs; a primitive may ask for its nested jaxpr's
// operands to be named like the equation's (jit does). Params print sorted by name after the
// primitive's `params_printed_first`, through its `printed_params` filter.
//
// A nested jaxpr used more than once (the same object: one shared_ptr) or with more than 10
// equations prints once before the jaxpr, as JAX's pp_toplevel_jaxpr does:
// `let g = { lambda ... } in` ... `jit[name=g jaxpr=g]`; variable names skip such names.
// Not modelled: source-info / name-stack annotations.
#ifndef AXE_IR_PRINTER_H_
#define AXE_IR_PRINTER_H_

#include <cstddef>
#include <string>
#include <vector>

#include "axe/ir/jaxpr.h"

namespace axe::ir {

std::string PrintJaxpr(const Jaxpr& jaxpr, size_t width = 80);
std::string PrintJaxpr(const ClosedJaxpr& jaxpr, size_t width = 80);
// The jaxpr on one line (as Python's str() of a jaxpr nested in a tuple param shows it).
std::string PrintJaxprOneLine(const Jaxpr& jaxpr);

// Equation `index` of `jaxpr` as JAX shows it in check_jaxpr's messages: named as in the
// whole printout (without the shared-jaxpr prelude, as JAX's check_jaxpr names them), laid out
// in `width` columns from column 0, continuation lines indented by 2.
std::string PrintEqn(const Jaxpr& jaxpr, size_t index, size_t width = 80);

// The name each variable of `jaxpr` has in check_jaxpr's messages (indexed by VarId; PrintJaxpr's
// names when nothing goes to a prelude): "_" for a drop var, "" for one never shown.
std::vector<std::string> PrintedVarNames(const Jaxpr& jaxpr);

// The n-th variable name (from 0): n in base 26 with digits a..z (0 -> a, 26 -> ba).
std::string VarName(size_t n);

}  // namespace axe::ir

#endif  // AXE_IR_PRINTER_H_
