// Which parameters may name a shared jaxpr of JAX's prelude (`let name = { ... } in`): the
// parser reads a bare name there as the shared jaxpr, and the printer shares only jaxprs held
// there. Other parameters print their jaxprs inline and keep bare names as symbols, so that a
// symbol such as `axis_name=jaxpr` never turns into a jaxpr on reading back.
#ifndef AXE_SRC_IR_SHARED_JAXPRS_H_
#define AXE_SRC_IR_SHARED_JAXPRS_H_

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

namespace axe::ir::internal {

// jaxpr=, call_jaxpr=, cond_jaxpr=, body_jaxpr=, branches= ...: every key JAX's primitives
// hold jaxprs under (not name=).
inline bool HoldsJaxpr(absl::string_view key) {
  return key == "jaxpr" || key == "branches" || absl::EndsWith(key, "_jaxpr");
}

}  // namespace axe::ir::internal

#endif  // AXE_SRC_IR_SHARED_JAXPRS_H_
