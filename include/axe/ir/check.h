// check_jaxpr (spec ir-and-shard-map.md §1, §3; JAX's core.check_jaxpr): a jaxpr is well
// formed and well typed when
//   * every variable is bound once before it is read (JAX's "Variable 'b' not defined",
//     "Variable 'b' already bound");
//   * every equation's primitive accepts its operands: its abstract-evaluation rule, run inside
//     the manual axes in scope (a shard_map body sees its mesh's axes, check_vma as its param
//     says), succeeds, and the declared params have the declared forms;
//   * each output binder has the type the rule computes, weak types aside ("Value for variable
//     'b' inconsistently typed as f32[3] for let-binder of type f32[4]");
//   * nested jaxprs (params holding jaxprs) check too.
// Errors are InvalidArgument: JAX's message, then "\n\nin equation:\n\n<the equation>" when
// an equation is at fault (variable names as PrintJaxpr assigns them; continuation lines
// indented by 2, as JAX's check_jaxpr prints it).
#ifndef AXE_IR_CHECK_H_
#define AXE_IR_CHECK_H_

#include "absl/status/status.h"
#include "axe/ir/jaxpr.h"

namespace axe::ir {

absl::Status CheckJaxpr(const Jaxpr& jaxpr);
absl::Status CheckJaxpr(const ClosedJaxpr& jaxpr);

}  // namespace axe::ir

#endif  // AXE_IR_CHECK_H_
