// Tracing shard_map with device-variance typing (spec ir-and-shard-map.md §4-5):
//
//   ShardMapSpec spec{mesh, {P('x')}, {P()}};      // check_vma on by default
//   absl::StatusOr<std::vector<Tracer>> out = ShardMap(
//       {x}, spec, [](Builder& body, absl::Span<const Tracer> xs) -> ... {
//         AXE_ASSIGN_OR_RETURN(Tracer s, Psum(xs[0], {"x"}));
//         return std::vector<Tracer>{s};
//       });
//
// The body is traced into its own jaxpr: each argument is divided along the mesh axes its
// in_spec names and varies over them (V = those axes, plus what it varied over outside); the
// body runs inside an AxisEnv of the mesh's axes. Each output is then pvary'd up to the axes
// its out_spec names, and every mesh axis the out_spec does not name must be out of its V —
// otherwise JAX's "out_specs which require replication" error. With check_vma = false every
// value is invariant and nothing is inserted or checked. The result is one shard_map equation
// in the enclosing builder, with the params JAX prints (check_vma, in_specs, jaxpr, mesh,
// newly_manual_axes, out_specs).
//
// The user-level functions below insert pvary where JAX's "auto pcast" does: an n-ary
// primitive's operands are pvary'd up to the union of their variance sets (literals included),
// a collective's operand up to the axes it acts over. primitives.h's functions bind without
// insertion (so a mismatch is reported with JAX's "requires varying manual axes" text).
#ifndef AXE_IR_SHARD_MAP_H_
#define AXE_IR_SHARD_MAP_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/ir/builder.h"
#include "axe/ir/primitive.h"
#include "axe/ir/tracer.h"
#include "axe/sharding/mesh.h"
#include "axe/sharding/partition_spec.h"

namespace axe::ir {

struct ShardMapSpec {
  sharding::Mesh mesh;
  std::vector<sharding::PartitionSpec> in_specs;   // one per argument
  std::vector<sharding::PartitionSpec> out_specs;  // one per result
  bool check_vma = true;
  std::string function_name = "body";  // the '{f}' of JAX's messages
};

// The spec a shard_map equation was bound with (its mesh, in_specs, out_specs and check_vma
// parameters). Errors: a missing or malformed parameter (naming it).
absl::StatusOr<ShardMapSpec> ShardMapSpecOfParams(const Params& params);

using ShardMapBody = std::function<absl::StatusOr<std::vector<Tracer>>(
    Builder& body, absl::Span<const Tracer> args)>;

// Errors (InvalidArgument): JAX's non-divisible-arguments and out_specs-replication texts,
// spec/argument count mismatches, whatever the body returns.
absl::StatusOr<std::vector<Tracer>> ShardMap(absl::Span<const Tracer> args,
                                             const ShardMapSpec& spec, const ShardMapBody& body);

// Binds an ordinary n-ary primitive after pvary'ing its operands to a common variance set.
absl::StatusOr<std::vector<Tracer>> BindWithAutoPvary(const Primitive& prim,
                                                      absl::Span<const Tracer> args,
                                                      Params params = {});
// psum (psum_invariant under check_vma, psum with it off): axes the operand does not vary
// over are pvary'd first, so psum(psum(x, 'i'), 'i') type-checks.
absl::StatusOr<Tracer> Psum(const Tracer& x, std::vector<std::string> axes);
// pcast(x, axes, to='varying').
absl::StatusOr<Tracer> PcastVarying(const Tracer& x, std::vector<std::string> axes);
// all_gather(x, axes, axis=dim, tiled); `to_invariant` gives all_gather_invariant. The
// operand is pvary'd to the axes first.
absl::StatusOr<Tracer> AllGather(const Tracer& x, std::vector<std::string> axes, int64_t dim,
                                 bool tiled, bool to_invariant = false);

}  // namespace axe::ir

#endif  // AXE_IR_SHARD_MAP_H_
