// From a sharding and a local layout to an Axe layout with device iters (spec
// jax-layout-format.md §9).
//
//   l_i = d_i / Π_{b in spec_i} m_b
//   M   = xla::ToAxe(local shape l with the local XLA layout)   (domain must equal l)
//   (Mg, seps) = Group(M, l)
//   D   = concat over i of [(m_b, dev(b)) for b in spec_i] ++ Mg[seps[i] : seps[i+1]]
//   R   = [(m_a, dev(a)) for each mesh axis a the spec does not mention]
//   result = Canonicalize(D, R, 0)
//
// Mode kFlat: one device axis `gpuid` holding the MESH POSITION (equal to the device id for
// the default device order; otherwise device = mesh.DeviceAtPosition(gpuid)),
// dev(b) = M_b@gpuid. Mode kPerAxis: one device axis per mesh axis, named after it (kind
// device, so the layout's text ends with a `where x:device, ...` clause), dev(b) = 1@b.
//
//   ShardedToAxe({8, 8}, NamedSharding(Mesh('x': 2, 'y': 2), P('x',)), std::nullopt)
//   // S[(2,32):(2@gpuid,1)] + R[2:1@gpuid]
#ifndef AXE_SHARDING_TO_AXE_H_
#define AXE_SHARDING_TO_AXE_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/base/dtype.h"
#include "axe/layout/layout.h"
#include "axe/sharding/hlo_sharding.h"
#include "axe/sharding/named_sharding.h"
#include "axe/xla/layout.h"

namespace axe::sharding {

enum class DeviceAxisMode { kFlat, kPerAxis };

// `local_layout` is the XLA layout of every shard (none: row-major); `dtype` matters only
// for sub-byte tilings. Errors: CheckShape's; a dimension of size 0 (an Axe layout has at
// least one point); xla::ToAxe's; "not expressible: the local layout pads the shard" when
// the local layout's tiles pad the shard; a mesh axis whose name clashes with an axis of
// the memory layout (per_axis mode).
absl::StatusOr<axe::Layout> ShardedToAxe(absl::Span<const int64_t> global_shape,
                                         const NamedSharding& sharding,
                                         const std::optional<xla::Layout>& local_layout,
                                         DeviceAxisMode mode = DeviceAxisMode::kFlat,
                                         DType dtype = DType::kF32);

// An HLO sharding as an Axe layout on the device axis `gpuid` (= the device id): the tile
// assignment becomes per-dimension device iters (an iota through its reshape and transpose,
// an explicit list when it is affine in each tile dim), replicated subgroups become R,
// {maximal device=k} the offset k@gpuid, {replicated} R[num_devices:1@gpuid]. Errors
// (FailedPrecondition "not expressible: ..."): a tuple, manual or non-replicated subgroups,
// a dimension not divisible by its tile count (XLA pads), a device list that is not affine
// in a tile dim, tile dims that split an iota's reshape dims unevenly; and ShardedToAxe's
// local-layout errors.
absl::StatusOr<axe::Layout> HloShardingToAxe(absl::Span<const int64_t> global_shape,
                                             const HloSharding& sharding,
                                             const std::optional<xla::Layout>& local_layout,
                                             int64_t num_devices, DType dtype = DType::kF32);

}  // namespace axe::sharding

#endif  // AXE_SHARDING_TO_AXE_H_
