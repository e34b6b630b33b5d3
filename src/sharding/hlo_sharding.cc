#include "axe/sharding/hlo_sharding.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/sharding/mesh.h"
#include "device_ids.h"

namespace axe::sharding {

HloSharding HloSharding::Replicated() { return HloSharding(); }

HloSharding HloSharding::Manual() {
  HloSharding s;
  s.kind_ = Kind::kManual;
  return s;
}

HloSharding HloSharding::Unknown() {
  HloSharding s;
  s.kind_ = Kind::kUnknown;
  return s;
}

HloSharding HloSharding::Unreduced() {
  HloSharding s;
  s.kind_ = Kind::kUnreduced;
  return s;
}

absl::StatusOr<HloSharding> HloSharding::WithShardGroup(ShardGroup group) const {
  if (kind_ == Kind::kTuple) {
    return absl::InvalidArgumentError("a tuple sharding has no shard group (its elements do)");
  }
  if (group.id < 0) {
    return absl::InvalidArgumentError(absl::StrCat("shard group id ", group.id, " is negative"));
  }
  HloSharding out = *this;
  out.shard_group_ = group;
  return out;
}

std::string HloSharding::Suffix() const {
  std::string out;
  if (shard_group_) {
    absl::StrAppend(&out, shard_group_->like ? " shard_like " : " shard_as ", shard_group_->id);
  }
  return out + MetadataSuffix();
}

absl::StatusOr<HloSharding> HloSharding::Maximal(int64_t device) {
  AXE_RETURN_IF_ERROR(CheckDeviceId(device));
  HloSharding s;
  s.kind_ = Kind::kMaximal;
  s.device_ = device;
  return s;
}

HloSharding HloSharding::Tuple(std::vector<HloSharding> elements) {
  HloSharding s;
  s.kind_ = Kind::kTuple;
  s.elements_ = std::move(elements);
  return s;
}

absl::StatusOr<HloSharding> HloSharding::Tiled(TileAssignment tiles, bool last_tile_dim_replicate,
                                               std::vector<SubgroupType> subgroups) {
  if (last_tile_dim_replicate && !subgroups.empty()) {
    return absl::InvalidArgumentError(
        "last_tile_dim_replicate and last_tile_dims cannot both be given");
  }
  const size_t extra = subgroups.size() + (last_tile_dim_replicate ? 1 : 0);
  if (extra > tiles.dims().size()) {
    return absl::InvalidArgumentError(absl::StrCat("the tile assignment has ", tiles.dims().size(),
                                                   " dims but ", extra, " are subgroup dims"));
  }
  std::set<int64_t> seen;
  for (int64_t f = 0; f < tiles.num_elements(); ++f) {
    const int64_t d = tiles.DeviceAtFlat(f);
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("device ", d, " is negative in tile assignment"));
    }
    if (!seen.insert(d).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("device ", d, " is not unique in tile assignment"));
    }
  }
  HloSharding s;
  s.kind_ = Kind::kTiled;
  s.tiles_ = std::move(tiles);
  s.last_tile_dim_replicate_ = last_tile_dim_replicate;
  s.subgroups_ = std::move(subgroups);
  return s;
}

size_t HloSharding::TiledDataRank() const {
  if (!tiles_) return 0;
  return tiles_->dims().size() - subgroups_.size() - (last_tile_dim_replicate_ ? 1 : 0);
}

namespace {

absl::string_view SubgroupName(HloSharding::SubgroupType t) {
  switch (t) {
    case HloSharding::SubgroupType::kManual: return "manual";
    case HloSharding::SubgroupType::kReplicated: return "replicated";
    case HloSharding::SubgroupType::kMaximal: return "maximal";
    case HloSharding::SubgroupType::kUnreduced: return "unreduced";
  }
  return "error_type.";
}

}  // namespace

HloSharding HloSharding::Canonical() const {
  HloSharding out = *this;
  for (HloSharding& e : out.elements_) e = e.Canonical();
  if (out.tiles_) {
    if (std::optional<TileAssignment> iota = out.tiles_->AsIota()) out.tiles_ = *std::move(iota);
  }
  return out;
}

std::string HloSharding::ToString() const {
  switch (kind_) {
    case Kind::kReplicated: return absl::StrCat("{replicated", Suffix(), "}");
    case Kind::kManual: return absl::StrCat("{manual", Suffix(), "}");
    case Kind::kUnknown: return absl::StrCat("{unknown", Suffix(), "}");
    case Kind::kUnreduced: return absl::StrCat("{unreduced", Suffix(), "}");
    case Kind::kMaximal: return absl::StrCat("{maximal device=", device_, Suffix(), "}");
    case Kind::kTuple: {
      std::string out = "{";
      for (size_t i = 0; i < elements_.size(); ++i) {
        if (i > 0) out += i % 5 == 0 ? absl::StrCat(", /*index=", i, "*/") : ", ";
        out += elements_[i].ToString();
      }
      return out + "}";
    }
    case Kind::kTiled: break;
  }
  std::string out = absl::StrCat("{", tiles_->ToString());
  if (last_tile_dim_replicate_) out += " last_tile_dim_replicate";
  AppendSubgroups(out);
  return out + Suffix() + "}";
}

void HloSharding::AppendSubgroups(std::string& out) const {
  if (!subgroups_.empty()) {
    out += " last_tile_dims={";
    for (size_t i = 0; i < subgroups_.size(); ++i) {
      absl::StrAppend(&out, i > 0 ? ", " : "", SubgroupName(subgroups_[i]));
    }
    out += "}";
  }
}

std::string HloSharding::MetadataSuffix() const {
  if (metadata_.empty()) return "";
  if (metadata_.size() == 1) return absl::StrCat(" metadata={", metadata_[0], "}");
  std::string out = " metadata={";
  for (size_t i = 0; i < metadata_.size(); ++i) {
    absl::StrAppend(&out, i > 0 ? ", " : "", "{", metadata_[i], "}");
  }
  return out + "}";
}

std::vector<DeviceShard> ApplyDeviceAssignment(std::vector<DeviceShard> map,
                                               absl::Span<const int64_t> assignment) {
  if (assignment.empty()) return map;
  for (DeviceShard& s : map) {
    if (s.device >= 0 && static_cast<size_t>(s.device) < assignment.size()) {
      s.device = assignment[static_cast<size_t>(s.device)];
    }
  }
  AssignReplicaGroups(map);
  return map;
}

int64_t DeviceCountNamed(const HloSharding& sharding) {
  switch (sharding.kind()) {
    case HloSharding::Kind::kReplicated:
    case HloSharding::Kind::kManual:
    case HloSharding::Kind::kUnknown:
    case HloSharding::Kind::kUnreduced: return 0;
    case HloSharding::Kind::kMaximal: return sharding.device() + 1;
    case HloSharding::Kind::kTiled: {
      int64_t count = 0;
      for (int64_t f = 0; f < sharding.tiles()->num_elements(); ++f) {
        count = std::max(count, sharding.tiles()->DeviceAtFlat(f) + 1);
      }
      return count;
    }
    case HloSharding::Kind::kTuple: {
      int64_t count = 0;
      for (const HloSharding& e : sharding.elements()) count = std::max(count, DeviceCountNamed(e));
      return count;
    }
  }
  return 0;
}

absl::StatusOr<HloSharding> NamedToHloSharding(const NamedSharding& sharding, size_t rank) {
  if (rank > kMaxNamedToHloRank) {  // before sizing anything by it
    return absl::InvalidArgumentError(absl::StrCat("num_dimensions is ", rank, "; at most ",
                                                   kMaxNamedToHloRank, " are supported"));
  }
  AXE_RETURN_IF_ERROR(sharding.CheckShape(std::vector<int64_t>(rank, 0)));
  const Mesh& mesh = sharding.mesh();
  std::vector<int64_t> tile_dims(rank, 1);
  std::vector<int64_t> perm;  // mesh axes in tile order
  for (size_t i = 0; i < rank; ++i) {
    for (size_t j : sharding.DimAxes(i)) {
      tile_dims[i] *= mesh.axes()[j].size;
      perm.push_back(static_cast<int64_t>(j));
    }
  }
  int64_t replicated = 1;
  for (size_t j : sharding.ReplicatedAxes()) {
    if (mesh.axes()[j].size == 1) continue;
    replicated *= mesh.axes()[j].size;
    perm.push_back(static_cast<int64_t>(j));
  }
  if (sharding.IsFullyReplicated()) return HloSharding::Replicated();
  const bool partial = replicated > 1;
  if (partial) tile_dims.push_back(replicated);
  // Size-1 axes are left out of the permutation above only when unmentioned; add them so
  // that it covers every mesh axis (they do not move any device).
  for (size_t j = 0; j < mesh.rank(); ++j) {
    if (std::find(perm.begin(), perm.end(), static_cast<int64_t>(j)) == perm.end()) {
      perm.push_back(static_cast<int64_t>(j));
    }
  }
  // JAX numbers the devices of a compiled program by their position in its device
  // assignment, which for a NamedSharding is the mesh's device array: the tile assignment is
  // an iota over the mesh axes whatever the device order.
  std::vector<int64_t> mesh_dims;
  for (const MeshAxis& a : mesh.axes()) mesh_dims.push_back(a.size);
  absl::StatusOr<TileAssignment> tiles = TileAssignment::Iota(tile_dims, mesh_dims, perm);
  if (!tiles.ok()) return tiles.status();
  return HloSharding::Tiled(*std::move(tiles), partial);
}

namespace {

// XLA's check of a device id against the device count (0: not given, no check).
absl::Status CheckAgainstCount(int64_t device, int64_t num_devices) {
  if (num_devices > 0 && device >= num_devices) {
    return absl::InvalidArgumentError(
        absl::StrCat("device ", device, " > num_devices (", num_devices, ") in tile assignment"));
  }
  return absl::OkStatus();
}

// min(a * b, limit) for a, b >= 0 (a product too large for int64 exceeds limit).
int64_t ClampedProduct(int64_t a, int64_t b, int64_t limit) {
  std::optional<int64_t> p = CheckedMul(a, b);
  return p && *p < limit ? *p : limit;
}

// The tile boxes of a tiled sharding, checked against the device count.
absl::StatusOr<std::vector<DeviceShard>> TiledMap(const HloSharding& sharding,
                                                  absl::Span<const int64_t> shape,
                                                  int64_t num_devices) {
  const TileAssignment& tiles = *sharding.tiles();
  const size_t rank = sharding.TiledDataRank();
  if (rank != shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Number of tile assignment dimensions (excluding subgroups) is different than the input "
        "rank. sharding=",
        sharding.ToString(), ", input rank=", shape.size()));
  }
  const std::vector<int64_t>& dims = tiles.dims();
  std::vector<DeviceShard> map;
  for (int64_t f = 0; f < tiles.num_elements(); ++f) {
    DeviceShard shard;
    shard.device = tiles.DeviceAtFlat(f);
    AXE_RETURN_IF_ERROR(CheckAgainstCount(shard.device, num_devices));
    int64_t rest = f;
    std::vector<int64_t> index(dims.size());
    for (size_t k = dims.size(); k-- > 0;) {
      index[k] = rest % dims[k];
      rest /= dims[k];
    }
    for (size_t i = 0; i < rank; ++i) {
      const int64_t tile = CeilDiv(shape[i], dims[i]);  // shape >= 0, dims >= 1
      shard.index.push_back(Interval{ClampedProduct(tile, index[i], shape[i]),
                                     ClampedProduct(tile, index[i] + 1, shape[i])});
    }
    map.push_back(std::move(shard));
  }
  AssignReplicaGroups(map);
  return map;
}

}  // namespace

absl::Status CheckNumDevices(int64_t num_devices) {
  if (num_devices < 0) {
    return absl::InvalidArgumentError(absl::StrCat("num_devices ", num_devices, " is negative"));
  }
  if (num_devices > Mesh::kMaxDevices) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_devices ", num_devices, " is more than ", Mesh::kMaxDevices));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<DeviceShard>> DevicesIndicesMap(const HloSharding& sharding,
                                                           absl::Span<const int64_t> shape,
                                                           int64_t num_devices) {
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("dimension ", i, " has the negative size ", shape[i]));
    }
  }
  AXE_RETURN_IF_ERROR(CheckNumDevices(num_devices));
  std::vector<Interval> whole;
  for (int64_t d : shape) whole.push_back(Interval{0, d});
  std::vector<DeviceShard> map;
  switch (sharding.kind()) {
    case HloSharding::Kind::kTuple:
    case HloSharding::Kind::kManual:
    case HloSharding::Kind::kUnknown:
      return absl::InvalidArgumentError(
          absl::StrCat("the sharding ", sharding.ToString(), " has no device map for one array"));
    case HloSharding::Kind::kMaximal:
      AXE_RETURN_IF_ERROR(CheckAgainstCount(sharding.device(), num_devices));
      map.push_back({sharding.device(), whole, 0});
      return map;
    case HloSharding::Kind::kReplicated:
    case HloSharding::Kind::kUnreduced:  // every device holds (a partial value of) everything
      if (num_devices < 1) {
        return absl::InvalidArgumentError("{replicated} needs the number of devices (>= 1)");
      }
      for (int64_t d = 0; d < num_devices; ++d) map.push_back({d, whole, 0});
      return map;
    case HloSharding::Kind::kTiled: break;
  }
  return TiledMap(sharding, shape, num_devices);
}

}  // namespace axe::sharding
