// Transposition of linear jaxprs (spec ir-and-shard-map.md §8): JAX's backward pass.
//
//   absl::StatusOr<ClosedJaxpr> t = LinearTranspose(f, {true});   // f linear in its input
//
// The result takes the non-linear inputs of `f` (in order) followed by one cotangent per
// output of `f`, and returns one cotangent per linear input. Equations that do not depend on
// a linear input are re-emitted forward; the others are transposed in reverse order with
// their primitives' transpose rules (cotangents of a variable used several times are added).
// A linear input whose cotangent is a symbolic zero gets explicit zeros.
//
// Built-in transpose rules so far: add, sub, neg, mul (one linear operand), div (linear
// numerator), convert_element_type,
// reduce_sum, broadcast_in_dim (no size-1 expansion), the collectives (linear.h) and shard_map
// (in_specs and out_specs swap; with check_vma = false the defensive division outside and psum
// inside of §8 are added). Other primitives report the §1 "Transpose rule ... not implemented".
#ifndef AXE_IR_TRANSPOSE_H_
#define AXE_IR_TRANSPOSE_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/ir/builder.h"
#include "axe/ir/jaxpr.h"

namespace axe::ir {

absl::StatusOr<ClosedJaxpr> LinearTranspose(const ClosedJaxpr& jaxpr,
                                            const std::vector<bool>& linear);

// The backward pass inside `builder`: `inputs[i]` is the value of invar i (nullopt for a linear
// input), `consts` the constvars' values, `cts` one cotangent per output (nullopt = zero).
// Returns one cotangent per input (nullopt for non-linear inputs and symbolic zeros).
absl::StatusOr<std::vector<std::optional<Tracer>>> BackwardPass(
    Builder& builder, const Jaxpr& jaxpr, absl::Span<const Tracer> consts,
    absl::Span<const std::optional<Tracer>> inputs, absl::Span<const std::optional<Tracer>> cts);

}  // namespace axe::ir

#endif  // AXE_IR_TRANSPOSE_H_
