// From an HLO sharding back to a NamedSharding, where one exists (the reverse of
// NamedToHloSharding).
//
// Two questions people ask of an HLO dump:
//
//  * "Which NamedSharding is this?" with no mesh at hand: HloToNamedSharding(hlo, rank)
//    builds the smallest mesh that expresses it. An iota tile assignment becomes a mesh in
//    default device order whose axes are the iota's reshape dims, split where a tile dim
//    takes only part of one; an explicit device list that is a permutation of 0..N-1
//    becomes a mesh with that device array, one axis per tile dim. Axes are named x0, x1,
//    ... in mesh order; trailing unsharded dimensions are left out of the spec.
//
//      HloToNamedSharding({devices=[2,1,2]<=[4] last_tile_dim_replicate}, 2)
//      // NamedSharding(mesh=Mesh('x0': 2, 'x1': 2), spec=P('x0',))
//      HloToNamedSharding({devices=[2,2]<=[2,2]T(1,0)}, 2)
//      // NamedSharding(mesh=Mesh('x0': 2, 'x1': 2), spec=P('x1', 'x0'))
//
//  * "Which spec on my mesh is this?": HloToNamedSharding(hlo, rank, mesh) searches the
//    specs over `mesh` for one whose devices hold the same tiles, so that
//    NamedToHloSharding followed by this is the identity (up to mesh axes of size 1, which
//    the HLO form cannot see, and trailing Nones).
//
// A sharding with no NamedSharding equivalent gives FailedPrecondition "not expressible as
// a NamedSharding: <reason>": tuples, {manual} and manual subgroups, {maximal device=k}
// (that is SingleDeviceSharding(device=k)), device lists that are not a permutation of
// 0..N-1, iota tilings whose tile dims cut the reshape dims unevenly, and (with a mesh)
// device counts that differ or no spec that matches.
#ifndef AXE_SHARDING_FROM_HLO_H_
#define AXE_SHARDING_FROM_HLO_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "axe/sharding/hlo_sharding.h"
#include "axe/sharding/mesh.h"
#include "axe/sharding/named_sharding.h"

namespace axe::sharding {

// `rank` is the rank of the value the sharding annotates (at most kMaxNamedToHloRank, else
// InvalidArgument); `num_devices` is needed only for {replicated} (the device count it
// replicates over; 0 = one device), and refused below 0 or above Mesh::kMaxDevices for every
// sharding (CheckNumDevices).
absl::StatusOr<NamedSharding> HloToNamedSharding(const HloSharding& hlo, size_t rank,
                                                 int64_t num_devices = 0);
absl::StatusOr<NamedSharding> HloToNamedSharding(const HloSharding& hlo, size_t rank,
                                                 const Mesh& mesh);

// For each device id in [0, N) the tile it holds (its coordinate in the first `rank` tile
// dims; all zeros for replicated), or -1s for a device the sharding does not use. The
// shape-free identity of a non-tuple, non-manual sharding: two shardings with equal tile
// counts per dimension and equal maps place every element identically. Errors: a tuple or
// manual sharding, a rank that differs from the tiled data rank, a device id >= N.
struct TileMap {
  std::vector<int64_t> tiles_per_dim;         // tile count of each data dimension
  std::vector<std::vector<int64_t>> tile_of;  // indexed by device id
  friend bool operator==(const TileMap&, const TileMap&) = default;
};
absl::StatusOr<TileMap> TileMapOf(const HloSharding& hlo, size_t rank, int64_t num_devices);

}  // namespace axe::sharding

#endif  // AXE_SHARDING_FROM_HLO_H_
