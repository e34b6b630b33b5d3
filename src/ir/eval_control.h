// Equations the SPMD interpreter runs itself rather than through an impl rule (internal to
// src/ir): calls, cond, scan, shard_map and the collectives.
#ifndef AXE_SRC_IR_EVAL_CONTROL_H_
#define AXE_SRC_IR_EVAL_CONTROL_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval_spmd.h"

namespace axe::ir::internal {

using SpmdResult = absl::StatusOr<std::vector<Replicas>>;

// nullopt for an ordinary equation (the caller runs its impl rule).
std::optional<SpmdResult> EvalSpecial(const Eqn& eqn, const std::vector<Replicas>& in,
                                      absl::Span<const ShapedArray> out_avals,
                                      const SpmdScope& scope);

// The collectives and axis_index (nullopt for any other primitive).
std::optional<SpmdResult> EvalCollective(const Eqn& eqn, const std::vector<Replicas>& in,
                                         absl::Span<const ShapedArray> out_avals,
                                         const SpmdScope& scope);

// A while equation (family_while.cc); nullopt for any other primitive.
std::optional<SpmdResult> EvalWhileSpecial(const Eqn& eqn, const std::vector<Replicas>& in,
                                           const SpmdScope& scope);

// The closed jaxpr held by parameter `name`.
absl::StatusOr<const ClosedJaxpr*> JaxprParam(const Eqn& eqn, absl::string_view name);

}  // namespace axe::ir::internal

#endif  // AXE_SRC_IR_EVAL_CONTROL_H_
