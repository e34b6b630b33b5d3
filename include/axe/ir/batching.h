// Vectorization of jaxprs (issue 12): jax.vmap through the primitives' batching rules.
//
//   VmapOptions o;                      // f(x, y) over 8 x's, y shared
//   o.in_axes = {0, std::nullopt};
//   o.axis_size = 8;
//   absl::StatusOr<ClosedJaxpr> v = Vmap(f, o);
//
// Each input with an axis is mapped along it (negative axes count from the end); all mapped
// axes must have one size. An equation none of whose inputs is batched is re-emitted as is;
// otherwise its primitive's batching rule (primitive.h) gives the batched outputs and where
// their batch dimension is. Outputs are moved to their out axis (an output that does not
// depend on a mapped input is broadcast). Rules: the elementwise primitives, select_n, the
// structural ones, dot_general, scan (carries batched), cond (batched branches for an unbatched
// index; every branch evaluated and select_n'd for a batched one, as JAX does), shard_map (None
// prepended to the specs of batched operands and outputs) and the collectives of its body;
// jit / closed_call bodies are inlined. Not batched: dynamic_slice / dynamic_update_slice with
// batched start indices (JAX turns them into gather/scatter, outside axe's set).
//
// Errors (InvalidArgument, JAX's texts): "vmap got inconsistent sizes for array axes to be
// mapped:\n  * one axis had size 3: axis 0 of args[0] of type f32[3];\n  * ...", "vmap was
// requested to map its argument along axis 2, which implies that its rank should be at least
// 3, but is only 1 (its shape is (3,))", "vmap must have at least one non-None value in
// in_axes or axis_size must be specified"; a primitive without a rule: Unimplemented
// "Batching rule for '{p}' not implemented".
#ifndef AXE_IR_BATCHING_H_
#define AXE_IR_BATCHING_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/ir/builder.h"
#include "axe/ir/jaxpr.h"
#include "axe/ir/primitive.h"

namespace axe::ir {

// The batched `jaxpr` traced into `builder`: `dims[i]` is where args[i]'s batch dimension is
// (nullopt: unbatched). Returns the outputs and their batch dimensions.
absl::StatusOr<BatchResult> BatchTrace(Builder& builder, const ClosedJaxpr& jaxpr,
                                       absl::Span<const Tracer> args,
                                       absl::Span<const std::optional<int64_t>> dims);

struct VmapOptions {
  std::vector<std::optional<int64_t>> in_axes;  // one per input (nullopt: not mapped); empty: 0
  std::vector<int64_t> out_axes;                // one per output; empty: 0 for every output
  // The mapped size: from axis_size, or read from arg_types (the batched arguments' types,
  // one per input, as jax.vmap reads it from its arguments); both may be given.
  std::optional<int64_t> axis_size;
  std::vector<ShapedArray> arg_types;
};

// The vmapped jaxpr: its inputs are `jaxpr`'s with the mapped size inserted at each in axis.
// An argument type that is not the input type with an axis inserted: InvalidArgument.
absl::StatusOr<ClosedJaxpr> Vmap(const ClosedJaxpr& jaxpr, VmapOptions options);

}  // namespace axe::ir

#endif  // AXE_IR_BATCHING_H_
