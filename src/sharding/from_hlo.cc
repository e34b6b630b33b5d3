#include "axe/sharding/from_hlo.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "not_expressible.h"

namespace axe::sharding {
namespace {

// The kinds of sharding that have no NamedSharding, with the reason.
absl::Status CheckConvertible(const HloSharding& hlo, size_t rank) {
  if (rank > kMaxNamedToHloRank) {  // before sizing anything by it
    return absl::InvalidArgumentError(
        absl::StrCat("the rank is ", rank, "; at most ", kMaxNamedToHloRank, " are supported"));
  }
  switch (hlo.kind()) {
    case HloSharding::Kind::kTuple:
      return internal::NotExpressibleAsNamedSharding(
          "a tuple sharding annotates several values; convert its elements");
    case HloSharding::Kind::kManual:
      return internal::NotExpressibleAsNamedSharding(
          "{manual} marks a value inside a manual (shard_map) region");
    case HloSharding::Kind::kUnknown:
      return internal::NotExpressibleAsNamedSharding(
          "{unknown} leaves the sharding to the partitioner");
    case HloSharding::Kind::kUnreduced:
      return internal::NotExpressibleAsNamedSharding("{unreduced} holds partial values");
    case HloSharding::Kind::kMaximal:
      return internal::NotExpressibleAsNamedSharding(
          absl::StrCat("{maximal device=", hlo.device(),
                       "} is SingleDeviceSharding(device=", hlo.device(), ")"));
    case HloSharding::Kind::kReplicated: return absl::OkStatus();
    case HloSharding::Kind::kTiled: break;
  }
  for (HloSharding::SubgroupType t : hlo.subgroups()) {
    if (t != HloSharding::SubgroupType::kReplicated) {
      return internal::NotExpressibleAsNamedSharding(
          "only replicated subgroups (last_tile_dims={replicated}) have one");
    }
  }
  if (hlo.TiledDataRank() != rank) {
    return absl::InvalidArgumentError(absl::StrCat("the sharding ", hlo.ToString(), " tiles ",
                                                   hlo.TiledDataRank(),
                                                   " dimensions, but the value has rank ", rank));
  }
  return absl::OkStatus();
}

std::string AxisName(size_t index) { return absl::StrCat("x", index); }

// Builds the spec from the mesh axes each data dimension takes (major first), leaving out
// trailing unsharded dimensions.
absl::StatusOr<PartitionSpec> SpecOf(const std::vector<std::vector<std::string>>& dims) {
  std::vector<PartitionSpec::Entry> entries(dims.begin(), dims.end());
  while (!entries.empty() && entries.back().empty()) entries.pop_back();
  return PartitionSpec::Create(std::move(entries));
}

// An iota tile assignment: walk its transposed dims and the tile dims together, splitting
// a transposed dim where a tile dim takes only its major part. Every factor becomes a mesh
// axis (ordered by reshape dim, then major to minor), so the mesh's default device order is
// the iota itself.
absl::StatusOr<NamedSharding> FromIota(const HloSharding& hlo, size_t rank) {
  const TileAssignment& tiles = *hlo.tiles();
  const std::vector<int64_t>& reshape = tiles.reshape_dims();
  const std::vector<int64_t>& perm = tiles.perm();
  // Factors of each reshape dim in major-to-minor order, and for each its tile dim.
  std::vector<std::vector<std::pair<int64_t, size_t>>> factors(reshape.size());
  size_t k = 0;  // current transposed dim
  int64_t left = k < perm.size() ? reshape[static_cast<size_t>(perm[0])] : 1;
  for (size_t t = 0; t < tiles.dims().size(); ++t) {
    int64_t need = tiles.dims()[t];
    while (need > 1) {
      if (k >= perm.size()) return absl::InternalError("tile dims exceed the iota's devices");
      const size_t source = static_cast<size_t>(perm[k]);
      if (left <= need && need % left == 0) {
        factors[source].emplace_back(left, t);
        need /= left;
        ++k;
        left = k < perm.size() ? reshape[static_cast<size_t>(perm[k])] : 1;
      } else if (left > need && left % need == 0) {
        factors[source].emplace_back(need, t);
        left /= need;
        need = 1;
      } else {
        return internal::NotExpressibleAsNamedSharding(absl::StrCat(
            "tile dim ", t, " (", tiles.dims()[t], " tiles) cuts the iota's reshape dim ", source,
            " (", reshape[source], ") unevenly"));
      }
    }
  }
  std::vector<MeshAxis> axes;
  for (const auto& source_factors : factors) {
    for (const auto& factor : source_factors) axes.push_back({AxisName(axes.size()), factor.first});
  }
  // A tile dim takes its factors in transposed (major-first) order: walk the transposed dims
  // again and hand each factor's axis name to its tile dim.
  std::vector<std::vector<std::string>> ordered(rank);
  {
    size_t next = 0;
    std::vector<std::vector<std::string>> names_by_source(reshape.size());
    for (size_t s = 0; s < reshape.size(); ++s) {
      for (size_t f = 0; f < factors[s].size(); ++f) {
        names_by_source[s].push_back(axes[next++].name);
      }
    }
    std::vector<size_t> used(reshape.size(), 0);
    for (size_t kk = 0; kk < perm.size(); ++kk) {
      const size_t s = static_cast<size_t>(perm[kk]);
      while (used[s] < factors[s].size()) {
        const size_t tile_dim = factors[s][used[s]].second;
        if (tile_dim < rank) ordered[tile_dim].push_back(names_by_source[s][used[s]]);
        ++used[s];
      }
    }
  }
  AXE_ASSIGN_OR_RETURN(Mesh mesh, Mesh::Create(std::move(axes)));
  AXE_ASSIGN_OR_RETURN(PartitionSpec spec, SpecOf(ordered));
  return NamedSharding::Create(std::move(mesh), std::move(spec));
}

// An explicit device list that is a permutation of 0..N-1: one mesh axis per tile dim of
// size > 1, the list as the mesh's device array.
absl::StatusOr<NamedSharding> FromDeviceList(const HloSharding& hlo, size_t rank) {
  const TileAssignment& tiles = *hlo.tiles();
  const int64_t n = tiles.num_elements();
  std::vector<int64_t> devices;
  std::vector<bool> seen(static_cast<size_t>(n), false);
  for (int64_t f = 0; f < n; ++f) {
    const int64_t d = tiles.DeviceAtFlat(f);
    if (d >= n) {
      return internal::NotExpressibleAsNamedSharding(
          absl::StrCat("the tile assignment names device ", d, " but has only ", n,
                       " tiles; a mesh numbers its devices 0..", n - 1));
    }
    seen[static_cast<size_t>(d)] = true;
    devices.push_back(d);
  }
  std::vector<MeshAxis> axes;
  std::vector<std::vector<std::string>> dims(rank);
  for (size_t t = 0; t < tiles.dims().size(); ++t) {
    if (tiles.dims()[t] == 1) continue;
    axes.push_back({AxisName(axes.size()), tiles.dims()[t]});
    if (t < rank) dims[t].push_back(axes.back().name);
  }
  bool identity = true;
  for (int64_t f = 0; f < n; ++f) identity = identity && devices[static_cast<size_t>(f)] == f;
  if (identity) devices.clear();
  AXE_ASSIGN_OR_RETURN(Mesh mesh, Mesh::Create(std::move(axes), std::move(devices)));
  AXE_ASSIGN_OR_RETURN(PartitionSpec spec, SpecOf(dims));
  return NamedSharding::Create(std::move(mesh), std::move(spec));
}

// Depth-first search over the specs on a mesh: dimension `dim` takes an ordered tuple of
// unused axes whose sizes multiply to its tile count. Each complete spec is checked against
// the target tile map.
class SpecSearch {
 public:
  SpecSearch(const Mesh& mesh, size_t rank, const TileMap& target)
      : mesh_(mesh), rank_(rank), target_(target), used_(mesh.rank(), false), dims_(rank) {}

  absl::StatusOr<std::optional<NamedSharding>> Run() {
    AXE_RETURN_IF_ERROR(Visit(0, target_.tiles_per_dim.empty() ? 1 : target_.tiles_per_dim[0]));
    return std::move(found_);
  }

 private:
  static constexpr int64_t kMaxNodes = 200000;

  absl::Status Visit(size_t dim, int64_t need) {
    if (found_ || ++nodes_ > kMaxNodes) return absl::OkStatus();
    if (dim == rank_) return Check();
    if (need == 1) {
      const int64_t next = dim + 1 < rank_ ? target_.tiles_per_dim[dim + 1] : 1;
      return Visit(dim + 1, next);
    }
    for (size_t j = 0; j < mesh_.rank(); ++j) {
      const int64_t size = mesh_.axes()[j].size;
      if (used_[j] || size == 1 || need % size != 0) continue;
      used_[j] = true;
      dims_[dim].push_back(mesh_.axes()[j].name);
      AXE_RETURN_IF_ERROR(Visit(dim, need / size));
      dims_[dim].pop_back();
      used_[j] = false;
    }
    return absl::OkStatus();
  }

  absl::Status Check() {
    AXE_ASSIGN_OR_RETURN(PartitionSpec spec, SpecOf(dims_));
    AXE_ASSIGN_OR_RETURN(NamedSharding candidate, NamedSharding::Create(mesh_, std::move(spec)));
    AXE_ASSIGN_OR_RETURN(HloSharding hlo, NamedToHloSharding(candidate, rank_));
    AXE_ASSIGN_OR_RETURN(TileMap map, TileMapOf(hlo, rank_, mesh_.num_devices()));
    if (map == target_) found_ = std::move(candidate);
    return absl::OkStatus();
  }

  const Mesh& mesh_;
  size_t rank_;
  const TileMap& target_;
  std::vector<bool> used_;
  std::vector<std::vector<std::string>> dims_;
  std::optional<NamedSharding> found_;
  int64_t nodes_ = 0;
};

}  // namespace

absl::StatusOr<NamedSharding> HloToNamedSharding(const HloSharding& hlo, size_t rank,
                                                 const Mesh& mesh) {
  AXE_RETURN_IF_ERROR(CheckConvertible(hlo, rank));
  if (hlo.kind() == HloSharding::Kind::kTiled &&
      hlo.tiles()->num_elements() != mesh.num_devices()) {
    return internal::NotExpressibleAsNamedSharding(
        absl::StrCat("the sharding uses ", hlo.tiles()->num_elements(), " devices, the mesh ",
                     mesh.ToString(), " has ", mesh.num_devices()));
  }
  AXE_ASSIGN_OR_RETURN(TileMap target, TileMapOf(hlo, rank, mesh.num_devices()));
  SpecSearch search(mesh, rank, target);
  AXE_ASSIGN_OR_RETURN(std::optional<NamedSharding> found, search.Run());
  if (!found) {
    return internal::NotExpressibleAsNamedSharding(
        absl::StrCat("no PartitionSpec over ", mesh.ToString(), " places the tiles of ",
                     hlo.ToString(), " on the same devices"));
  }
  return *std::move(found);
}

absl::StatusOr<NamedSharding> HloToNamedSharding(const HloSharding& hlo, size_t rank,
                                                 int64_t num_devices) {
  AXE_RETURN_IF_ERROR(CheckNumDevices(num_devices));
  AXE_RETURN_IF_ERROR(CheckConvertible(hlo, rank));
  if (hlo.kind() == HloSharding::Kind::kReplicated) {
    std::vector<MeshAxis> axes;
    if (num_devices > 1) axes.push_back({AxisName(0), num_devices});
    AXE_ASSIGN_OR_RETURN(Mesh mesh, Mesh::Create(std::move(axes)));
    return NamedSharding::Create(std::move(mesh), PartitionSpec());
  }
  // One answer whatever the spelling: an explicit list that is an iota is read as the iota,
  // and an iota whose tile dims cut its reshape dims unevenly is read as its device list.
  const HloSharding canonical = hlo.Canonical();
  if (canonical.tiles()->is_iota()) {
    absl::StatusOr<NamedSharding> from_iota = FromIota(canonical, rank);
    if (from_iota.ok() || from_iota.status().code() != absl::StatusCode::kFailedPrecondition) {
      return from_iota;
    }
  }
  return FromDeviceList(canonical, rank);
}

absl::StatusOr<TileMap> TileMapOf(const HloSharding& hlo, size_t rank, int64_t num_devices) {
  AXE_RETURN_IF_ERROR(CheckConvertible(hlo, rank));
  TileMap map;
  map.tiles_per_dim.assign(rank, 1);
  map.tile_of.assign(static_cast<size_t>(num_devices), std::vector<int64_t>(rank, -1));
  if (hlo.kind() == HloSharding::Kind::kReplicated) {
    for (auto& tile : map.tile_of) tile.assign(rank, 0);
    return map;
  }
  const TileAssignment& tiles = *hlo.tiles();
  for (size_t i = 0; i < rank; ++i) map.tiles_per_dim[i] = tiles.dims()[i];
  std::vector<int64_t> coord(tiles.dims().size(), 0);
  for (int64_t f = 0; f < tiles.num_elements(); ++f) {
    int64_t rest = f;
    for (size_t t = coord.size(); t-- > 0;) {
      coord[t] = rest % tiles.dims()[t];
      rest /= tiles.dims()[t];
    }
    const int64_t d = tiles.DeviceAtFlat(f);
    if (d >= num_devices) {
      return absl::InvalidArgumentError(
          absl::StrCat("device ", d, " > num_devices (", num_devices, ") in tile assignment"));
    }
    map.tile_of[static_cast<size_t>(d)].assign(coord.begin(), coord.begin() + rank);
  }
  return map;
}

}  // namespace axe::sharding
