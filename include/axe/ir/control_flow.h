// User-level control flow (spec ir-and-shard-map.md §6): trace branch and loop bodies,
// check their output types the way jax.lax.cond / jax.lax.scan do (variance sets included),
// and bind the cond / scan primitives.
//
//   Cond(pred, {"true_fun", f}, {"false_fun", g}, {x})   // lax.cond(pred, f, g, x)
//   Scan({"body", step}, {c0, c1}, {xs}, length)         // lax.scan(step, (c0, c1), xs)
//
// Branch outputs must have equal types including V (no union is taken; the predicate's V is
// not added): otherwise JAX's "cond branches must have equal output types but they differ."
// with a pcast hint for each branch whose output lacks axes the other's has. A scan's carry
// out must have the carry in's types: otherwise "scan body function carry input and carry
// output must have equal types, but they differ:" with a hint for each component whose output
// V strictly contains its input V.
#ifndef AXE_IR_CONTROL_FLOW_H_
#define AXE_IR_CONTROL_FLOW_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/ir/builder.h"
#include "axe/ir/tracer.h"

namespace axe::ir {

using TracedFunction = std::function<absl::StatusOr<std::vector<Tracer>>(
    Builder& builder, absl::Span<const Tracer> args)>;

struct NamedFunction {
  std::string info;  // how messages show the function (JAX: its source info)
  TracedFunction fn;
};

// `pred` is a bool or int32 scalar; operands go to both branches. Binds
// convert_element_type (for a bool predicate) and cond[branches=(false, true)].
absl::StatusOr<std::vector<Tracer>> Cond(const Tracer& pred, const NamedFunction& true_fun,
                                         const NamedFunction& false_fun,
                                         absl::Span<const Tracer> operands);

// body(carry..., x...) -> (carry..., y...), run `length` times over the leading axis of each
// xs; `carry_name` is the body's first parameter name as JAX's messages show it.
absl::StatusOr<std::vector<Tracer>> Scan(const TracedFunction& body, absl::Span<const Tracer> init,
                                         absl::Span<const Tracer> xs, int64_t length,
                                         std::string carry_name = "carry");

}  // namespace axe::ir

#endif  // AXE_IR_CONTROL_FLOW_H_
