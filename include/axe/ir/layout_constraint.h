// JAX's with_layout_constraint(x, layout) (spec jax-layout-format.md §6) as the primitive
// `layout_constraint`, printed as JAX prints it:
//
//   c:f32[4,8] = layout_constraint[
//     layout=Layout(major_to_minor=(0, 1), tiling=None, sub_byte_element_size_in_bits=0)
//   ] b
//
// It is the identity on values; under compilation (axe::jit) it pins the layout of the
// intermediate it wraps, so the cost model inserts a relayout where the producer's layout
// differs. Its rules: abstract evaluation checks the layout against the value's rank, the
// transpose applies the same constraint to the cotangent, and the vmap rule inserts the batch
// dimension as the slowest-varying one (major_to_minor (1, 0) batched at 0 -> (0, 2, 1)).
#ifndef AXE_IR_LAYOUT_CONSTRAINT_H_
#define AXE_IR_LAYOUT_CONSTRAINT_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "axe/ir/param.h"
#include "axe/ir/tracer.h"
#include "axe/sharding/format.h"
#include "axe/sharding/local_layout.h"

namespace axe::ir {

// with_layout_constraint(x, layout) while tracing. `layout` must be a concrete Layout: AUTO or
// None gives JAX's ValueError text
//   layouts passed to `with_layout_constraint` must be of type `Layout`. Got
//   [<class 'jax._src.layout.AutoLayout'>]
// and a rank that differs from x's:
//   One of with_layout_constraint arguments is incompatible with its layout annotation
//   Layout(major_to_minor=(0,), tiling=None, sub_byte_element_size_in_bits=0): Length of
//   major_to_minor and the rank of the value should match. Got major_to_minor=(0,) and
//   shape=(3, 4)
absl::StatusOr<Tracer> WithLayoutConstraint(const Tracer& x,
                                            const sharding::Format::LayoutChoice& layout);

// The equation parameter `layout=Layout(...)` and back. Errors: a missing or unreadable
// parameter (InvalidArgument naming it).
Param LayoutConstraintParam(const sharding::LocalLayout& layout);
absl::StatusOr<sharding::LocalLayout> LayoutOfConstraint(const Params& params);

// The rank check of abstract evaluation (the text above).
absl::Status CheckLayoutConstraintRank(const sharding::LocalLayout& layout,
                                       absl::Span<const int64_t> shape);

// Both checks of WithLayoutConstraint (a concrete Layout, of the value's rank) for a value of
// `shape`, traced or eager: the concrete layout, or JAX's ValueError texts above.
absl::StatusOr<sharding::LocalLayout> ConstraintLayout(const sharding::Format::LayoutChoice& layout,
                                                       absl::Span<const int64_t> shape);

// The vmap rule's layout: the batch dimension `batch_dim` (0 <= batch_dim <= rank) becomes
// the most major one.
sharding::LocalLayout BatchedConstraintLayout(const sharding::LocalLayout& layout,
                                              int64_t batch_dim);

// Registers the primitive's abstract-evaluation, transpose and batching rules on `prim` (the
// built-in `layout_constraint`; called with the other built-in rules).
class Primitive;
void RegisterLayoutConstraintRules(const Primitive& prim);

}  // namespace axe::ir

#endif  // AXE_IR_LAYOUT_CONSTRAINT_H_
