// Linear primitives (spec ir-and-shard-map.md §1, §8): JAX's deflinear2 and the transpose
// rules of the collectives.
//
// DefLinear2(prim, transpose) registers `transpose` and the JVP of a primitive linear in all
// its operands: the primal output is prim(primals), the tangent prim(tangents) (symbolic
// zeros materialized with ZerosLike; all-zero tangents give a symbolic zero).
//
// The collectives' transposes (src/ir/family_collectives.cc, registered by Builtins()):
//
//   pvary(axes)               -> psum_invariant(axes)          (AllReduce)
//   psum_invariant(axes)      -> pvary(axes)                   (none)
//   psum(axes), check_vma off -> psum(axes)                    (AllReduce)
//   all_gather(d, tiled)      -> reduce_scatter(d, tiled)      (ReduceScatter)
//   reduce_scatter(d, tiled)  -> all_gather(d, tiled)          (AllGather)
//   all_gather_invariant      -> pvary + dynamic_slice at axis_index * size (+ squeeze)
//   all_to_all(split, concat) -> all_to_all(concat, split)     (AllToAll)
//   ppermute(perm)            -> ppermute(inverse perm)        (CollectivePermute)
//
// The transposes are bound in the builder's current AxisEnv (a shard_map body's).
#ifndef AXE_IR_LINEAR_H_
#define AXE_IR_LINEAR_H_

#include "absl/status/statusor.h"
#include "axe/ir/builder.h"
#include "axe/ir/primitive.h"

namespace axe::ir {

void DefLinear2(const Primitive& prim, TransposeRule transpose);

// broadcast_in_dim of the literal 0 to `aval`'s shape and dtype (pvary'd to its variance set
// inside a shard_map with check_vma).
absl::StatusOr<Tracer> ZerosLike(Builder& builder, const ShapedArray& aval);

}  // namespace axe::ir

#endif  // AXE_IR_LINEAR_H_
