// From an Axe layout with device iters back to a sharding (the reverse of spec
// jax-layout-format.md §9): the mesh, the PartitionSpec and the local layout of every shard.
//
// The layout is grouped by the global shape (Group). It is expressible when
//  - every iter is on the memory axis `m` or on device axes: `gpuid` alone (flat mode: gpuid
//    is the MESH POSITION, as ShardedToAxe writes it) or axes of kind device (per_axis mode:
//    one axis per mesh axis, each used by one iter of stride 1);
//  - each dimension's block is a run of device iters followed by memory iters (a device iter
//    after a memory iter is a cyclic distribution, not a block sharding);
//  - the device iters of all dimensions plus R tile the mesh exactly once in row-major order:
//    in flat mode each is a run of consecutive mesh axes (positions k·M_last, k < the run's
//    device count); together they cover every axis of size > 1 once;
//  - the offset is zero (a flat layout with no device iters and the offset k@gpuid is
//    SingleDeviceSharding(device=k));
//  - the memory part passes xla::FromAxe over the shard shape.
// Otherwise FailedPrecondition "not expressible: <reason>", naming the dimension or the iter.
//
// Without a mesh the answer's mesh is invented: flat mode: one axis per device iter (after
// grouping), ordered by decreasing stride (row-major over gpuid), named after what it does:
// `d<i>` for the first device iter of dimension i, `d<i>_<k>` for its k-th further one,
// `r<k>` for the k-th replica iter (in R's canonical order); default device order. per_axis
// mode: the layout's device axes, in name order. With a mesh the answer uses it (any device
// order); mesh axes of size 1 never appear in the spec (they do not change the device map).
//
//   ShardingFromAxe(*axe::Layout::Parse("S[(2,32):(2@gpuid,1)] + R[2:1@gpuid]"), {8, 8},
//                   *Mesh::Parse("x=2,y=2"));
//   // NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x',)), local {1,0}
#ifndef AXE_SHARDING_FROM_AXE_H_
#define AXE_SHARDING_FROM_AXE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/layout.h"
#include "axe/sharding/local_layout.h"
#include "axe/sharding/mesh.h"
#include "axe/sharding/sharding.h"
#include "axe/xla/layout.h"

namespace axe::sharding {

struct ShardingOfLayout {
  Sharding sharding;  // a NamedSharding, or a SingleDeviceSharding (see above)
  std::vector<int64_t> shard_shape;
  xla::Layout local_xla;  // the local layout (E = 0, memory space 0)
  // The same as a JAX Layout; tiling None when the local layout has no tiles.
  LocalLayout local_layout;
};

// Errors: FailedPrecondition "not expressible: ..." (see above); InvalidArgument for a
// global shape whose size differs from the layout's (Group's message) or a negative size.
absl::StatusOr<ShardingOfLayout> ShardingFromAxe(const axe::Layout& layout,
                                                 absl::Span<const int64_t> global_shape,
                                                 const std::optional<Mesh>& mesh = std::nullopt);

}  // namespace axe::sharding

#endif  // AXE_SHARDING_FROM_AXE_H_
