// XLA's HLO shardings, parsed and printed byte for byte as XLA's HloSharding::ToString
// writes them (xla/hlo/ir/hlo_sharding.cc, tile_assignment.cc):
//
//   {replicated}   {manual}   {maximal device=3}
//   {devices=[2,2]0,2,1,3}                          explicit tile assignment
//   {devices=[4,2]<=[8]}   {devices=[2,2]<=[2,2]T(1,0)}    iota tile assignments
//   {devices=[2,1,2]<=[4] last_tile_dim_replicate}
//   {devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}
//   {{replicated}, {devices=[2]0,1}}               tuple (", /*index=5*/" before element 5, ...)
//   {devices=[2]0,1 metadata={op_name="jit(f)/mul" source_file="f.py" source_line=3}}
//
// As in XLA, an iota's reshape dims and permutation are canonicalized on construction
// (size-1 dims dropped, runs that stay in order merged: `<=[2,2]T(0,1)` is `<=[4]`), so text
// XLA printed round-trips byte for byte. The op metadata XLA prints in dumps is kept as text
// (each entry's `key=value ...` list, values quoted strings or plain tokens) and printed back;
// it does not change where elements live; so are shard groups (`shard_as 1`, `shard_like 0`).
// {unknown} (the partitioner decides) has no device map; {unreduced} places like
// {replicated} but every device holds a partial value.
#ifndef AXE_SHARDING_HLO_SHARDING_H_
#define AXE_SHARDING_HLO_SHARDING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/sharding/device_map.h"
#include "axe/sharding/named_sharding.h"

namespace axe::sharding {

// A tile assignment: an array of device ids of shape `dims`, either listed or an iota
// (0..N-1 laid out over reshape_dims, transposed by perm, reshaped to dims).
class TileAssignment {
 public:
  // Errors: a dim < 1, too many devices, a device list of the wrong length, a device id
  // outside [0, Mesh::kMaxDevices) or listed twice.
  static absl::StatusOr<TileAssignment> Explicit(std::vector<int64_t> dims,
                                                 std::vector<int64_t> devices);
  // Errors: a dim < 1, products that differ, perm not a permutation of 0..k-1.
  static absl::StatusOr<TileAssignment> Iota(std::vector<int64_t> dims,
                                             std::vector<int64_t> reshape_dims,
                                             std::vector<int64_t> perm);

  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t num_elements() const;
  bool is_iota() const { return is_iota_; }
  // The canonical iota parts (empty for an explicit list).
  const std::vector<int64_t>& reshape_dims() const { return reshape_dims_; }
  const std::vector<int64_t>& perm() const { return perm_; }
  // The device at a row-major flat index in [0, num_elements()) (unchecked).
  int64_t DeviceAtFlat(int64_t flat) const;
  // The same devices in iota form: itself when it is an iota, the iota whose devices an
  // explicit list spells out when there is one (XLA's partitioner and JAX write that form),
  // nullopt otherwise.
  std::optional<TileAssignment> AsIota() const;
  // "devices=[2,2]0,2,1,3" or "devices=[2,2]<=[2,2]T(1,0)": as written (XLA prints an
  // explicit list as a list even when it is an iota).
  std::string ToString() const;

  // As XLA's TileAssignment::operator==: the same dims and the same device at every tile,
  // however each is spelled.
  friend bool operator==(const TileAssignment& a, const TileAssignment& b);

 private:
  std::vector<int64_t> dims_;
  bool is_iota_ = false;
  std::vector<int64_t> devices_;       // explicit
  std::vector<int64_t> reshape_dims_;  // iota (canonical)
  std::vector<int64_t> perm_;          // iota (canonical)
};

class HloSharding {
 public:
  enum class Kind { kReplicated, kManual, kMaximal, kTiled, kTuple, kUnknown, kUnreduced };
  // `shard_as N` / `shard_like N`: shardings of one group are made equal (as) or alike.
  struct ShardGroup {
    bool like = false;  // shard_like; shard_as otherwise
    int64_t id = 0;
    friend bool operator==(const ShardGroup&, const ShardGroup&) = default;
  };
  enum class SubgroupType { kManual, kReplicated, kMaximal, kUnreduced };

  static constexpr size_t kMaxTextLength = size_t{1} << 20;
  static constexpr size_t kMaxTupleElements = size_t{1} << 16;

  static HloSharding Replicated();
  static HloSharding Manual();
  static HloSharding Unknown();
  static HloSharding Unreduced();
  // Errors: a device id outside [0, Mesh::kMaxDevices).
  static absl::StatusOr<HloSharding> Maximal(int64_t device);
  static HloSharding Tuple(std::vector<HloSharding> elements);
  // Errors: last_tile_dim_replicate together with subgroup types; more subgroup dims than
  // tile dims; a device id that repeats.
  static absl::StatusOr<HloSharding> Tiled(TileAssignment tiles, bool last_tile_dim_replicate,
                                           std::vector<SubgroupType> subgroups = {});
  // Errors name the 0-based character position.
  static absl::StatusOr<HloSharding> Parse(absl::string_view text);

  Kind kind() const { return kind_; }
  const std::optional<TileAssignment>& tiles() const { return tiles_; }
  int64_t device() const { return device_; }  // kMaximal
  bool last_tile_dim_replicate() const { return last_tile_dim_replicate_; }
  const std::vector<SubgroupType>& subgroups() const { return subgroups_; }
  const std::vector<HloSharding>& elements() const { return elements_; }
  // The number of leading tile dims that split data dims (kTiled).
  size_t TiledDataRank() const;
  // The op metadata entries (`op_name="..." source_line=3`), in order; empty for none.
  const std::vector<std::string>& metadata() const { return metadata_; }
  const std::optional<ShardGroup>& shard_group() const { return shard_group_; }
  // A copy in shard group `group` (not for tuples). Errors: a negative id.
  absl::StatusOr<HloSharding> WithShardGroup(ShardGroup group) const;
  // A copy carrying `metadata` (not for tuples, whose elements carry their own). Errors: an
  // entry that is not a `key=value` list.
  absl::StatusOr<HloSharding> WithMetadata(std::vector<std::string> metadata) const;

  // As XLA prints it: an explicit device list stays a list (so dumps diff byte for byte).
  std::string ToString() const;
  // The same sharding with every explicit device list that is an iota in iota form (tuple
  // elements too): one spelling per sharding, the one XLA's partitioner and JAX emit.
  HloSharding Canonical() const;
  // Equal when they place the same devices (an iota equals its explicit spelling), as XLA.
  friend bool operator==(const HloSharding&, const HloSharding&) = default;

 private:
  void AppendSubgroups(std::string& out) const;
  std::string MetadataSuffix() const;
  // " shard_as 1" / " shard_like 0" then the metadata.
  std::string Suffix() const;

  Kind kind_ = Kind::kReplicated;
  std::optional<TileAssignment> tiles_;
  int64_t device_ = 0;
  bool last_tile_dim_replicate_ = false;
  std::vector<SubgroupType> subgroups_;
  std::vector<HloSharding> elements_;
  std::vector<std::string> metadata_;
  std::optional<ShardGroup> shard_group_;
};

// The HLO sharding JAX gives a NamedSharding on a value of rank `rank`
// (jax/_src/named_sharding.py: named_sharding_to_xla_hlo_sharding): the spec's axes in
// dimension order, then the unmentioned axes of size > 1 as one replicated subgroup dim; an
// iota tile assignment over the mesh axes; {replicated} when no axis of size > 1 is
// mentioned. Its device ids are LOGICAL: positions in the program's device assignment,
// which JAX takes from the mesh's device array (mesh.device_array(); the identity for the
// default order), so a mesh's device order never shows in the HLO text. Errors: rank < the
// spec's length, rank > kMaxNamedToHloRank.
inline constexpr size_t kMaxNamedToHloRank = 64;
absl::StatusOr<HloSharding> NamedToHloSharding(const NamedSharding& sharding, size_t rank);

// A device map in logical ids (an HLO sharding's) in device ids: entry d moves to
// assignment[d] (ids outside it stay), entries re-sorted and replica groups renumbered. An
// empty assignment is the identity.
std::vector<DeviceShard> ApplyDeviceAssignment(std::vector<DeviceShard> map,
                                               absl::Span<const int64_t> assignment);

// One more than the largest device id a sharding names (tuples: over their elements); 0 for
// {replicated} and {manual}, which name none.
int64_t DeviceCountNamed(const HloSharding& sharding);

// A device count given for an HLO sharding (0: derived from the sharding): InvalidArgument
// "num_devices -1 is negative" or "num_devices N is more than 65536" (Mesh::kMaxDevices).
absl::Status CheckNumDevices(int64_t num_devices);

// The device map of a non-tuple, non-manual HLO sharding on `shape` (XLA's tile boxes:
// ceil(d_i / t_i)-sized tiles clamped to the shape). Replicated shardings need the device
// count; when num_devices >= 1 every device id must be below it (0: not checked). Errors: a
// tuple or manual sharding, a rank that differs from the tiled data rank, num_devices < 1
// for {replicated} or above Mesh::kMaxDevices, a device id >= num_devices (XLA's words).
absl::StatusOr<std::vector<DeviceShard>> DevicesIndicesMap(const HloSharding& sharding,
                                                           absl::Span<const int64_t> shape,
                                                           int64_t num_devices);

}  // namespace axe::sharding

#endif  // AXE_SHARDING_HLO_SHARDING_H_
