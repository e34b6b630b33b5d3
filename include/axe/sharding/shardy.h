// Shardy's notation (the `sdy` MLIR dialect that XLA and JAX now use for shardings), read
// and printed as Shardy prints it, and converted to and from NamedSharding:
//
//   sdy.mesh @mesh = <["x"=2, "y"=2]>                 a mesh (device_ids=[...] when not iota)
//   #sdy.sharding<@mesh, [{"x"}, {}]>                 dim 0 split over x, dim 1 not split
//   #sdy.sharding<@mesh, [{"x", "y"}, {?}]>           x major, y minor; dim 1 open
//   #sdy.sharding<@mesh, [{"y":(1)2}], replicated={"x"}>   a sub-axis, explicit replication
//   #sdy.sharding<@mesh, [{}, {}], unreduced=max{"x"}>     partial values over x
//   #sdy.sharding<mesh<["x"=2], device_ids=[1, 0]>, [{"x"}]>   an inlined mesh
//
// A sub-axis "x":(m)k is the middle axis when x (size n) is reshaped to [m, k, n/(m*k)]. Open
// dimensions (`?`) and priorities (`p1`) steer propagation and do not change where elements
// are now; unreduced axes hold partial values (a sum, max or min still to be taken) and, for
// placement, replicate. Every sharding has a NamedSharding on a refined mesh (each axis split
// at the sub-axis boundaries used: "x" into "x_1_2" and "x_2_2"), from which its HLO and Axe
// forms and its device map follow; it has one on its own mesh when it uses no sub-axes and no
// unreduced axes.
#ifndef AXE_SHARDING_SHARDY_H_
#define AXE_SHARDING_SHARDY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/sharding/mesh.h"
#include "axe/sharding/named_sharding.h"

namespace axe::sharding {

// A mesh as Shardy writes it: named axes (any string Shardy allows that is also an
// identifier) and device ids; `<[], device_ids=[3]>` is the maximal mesh of device 3.
struct ShardyMesh {
  static constexpr size_t kMaxTextLength = size_t{1} << 20;

  std::string name;  // the symbol (without @); empty for an inlined mesh
  std::vector<MeshAxis> axes;
  std::vector<int64_t> device_ids;  // empty: iota

  // Reads `sdy.mesh @name = <[...]>`, `@name = <[...]>`, `<[...]>`, `#sdy.mesh<[...]>` and
  // `mesh<[...]>`. Errors name the character position; the axes and ids are validated as
  // Mesh::Create does (a maximal mesh may name any one device).
  static absl::StatusOr<ShardyMesh> Parse(absl::string_view text);
  // From a Mesh (device_ids omitted for the default order).
  static ShardyMesh FromMesh(const Mesh& mesh, std::string name);

  // The device of a maximal mesh (no axes, one listed id), if it is one.
  std::optional<int64_t> MaximalDevice() const;
  // Errors: a maximal mesh whose device is not 0 (that is SingleDeviceSharding(device=k)).
  absl::StatusOr<Mesh> ToMesh() const;

  // `<["x"=2, "y"=2]>` or `<["x"=2], device_ids=[1, 0]>` (the attribute).
  std::string AttrToString() const;
  // `sdy.mesh @mesh = <["x"=2, "y"=2]>` (requires a name).
  std::string ToString() const;

  friend bool operator==(const ShardyMesh&, const ShardyMesh&) = default;
};

struct ShardyAxisRef {
  std::string name;
  int64_t pre_size = 1;  // sub-axis: product of the sub-axes major to it
  int64_t size = 0;      // 0: the whole axis; otherwise the sub-axis size (> 1)

  bool is_sub_axis() const { return size != 0; }
  // `"x"` or `"x":(1)2`.
  std::string ToString() const;
  friend bool operator==(const ShardyAxisRef&, const ShardyAxisRef&) = default;
};

struct ShardyDimSharding {
  std::vector<ShardyAxisRef> axes;  // major first
  bool open = false;                // `?`
  std::optional<int64_t> priority;  // `p<n>`
  friend bool operator==(const ShardyDimSharding&, const ShardyDimSharding&) = default;
};

enum class ShardyReduction { kSum, kMax, kMin };

class ShardySharding {
 public:
  static constexpr size_t kMaxTextLength = size_t{1} << 20;
  static constexpr size_t kMaxDims = 64;
  static constexpr size_t kMaxAxisRefs = 256;

  // Reads `#sdy.sharding<...>` or the bare `<...>` of a sharding_per_value list. Errors name
  // the character position.
  static absl::StatusOr<ShardySharding> Parse(absl::string_view text);
  // Builds a sharding from its parts (validated against a mesh by Check, not here); an
  // empty `mesh_name` needs `inline_mesh`.
  static ShardySharding Make(std::string mesh_name, std::optional<ShardyMesh> inline_mesh,
                             std::vector<ShardyDimSharding> dims,
                             std::vector<ShardyAxisRef> replicated = {},
                             std::vector<ShardyAxisRef> unreduced = {},
                             ShardyReduction reduction = ShardyReduction::kSum);

  // The mesh reference (`@mesh` -> "mesh"), or the inlined mesh.
  const std::string& mesh_name() const { return mesh_name_; }
  const std::optional<ShardyMesh>& inline_mesh() const { return inline_mesh_; }
  const std::vector<ShardyDimSharding>& dims() const { return dims_; }
  const std::vector<ShardyAxisRef>& replicated() const { return replicated_; }
  const std::vector<ShardyAxisRef>& unreduced() const { return unreduced_; }
  ShardyReduction reduction() const { return reduction_; }

  // As Shardy prints it: #sdy.sharding<@mesh, [{"x"}, {}], replicated={"y"}>.
  std::string ToString() const;

  // The checks Shardy's verifier makes against the mesh (InvalidArgument): every axis name
  // exists; sub-axes have pre_size >= 1, size > 1 and pre_size * size dividing the axis; no
  // axis or sub-axis is used twice or overlaps another; a rank that differs from `rank` (when
  // given). The mesh is the inlined one when present, else `mesh` (required then).
  absl::Status Check(const std::optional<ShardyMesh>& mesh,
                     std::optional<size_t> rank = std::nullopt) const;

  friend bool operator==(const ShardySharding&, const ShardySharding&) = default;

 private:
  friend class ShardyParser;
  std::string mesh_name_;
  std::optional<ShardyMesh> inline_mesh_;
  std::vector<ShardyDimSharding> dims_;
  std::vector<ShardyAxisRef> replicated_;
  std::vector<ShardyAxisRef> unreduced_;
  ShardyReduction reduction_ = ShardyReduction::kSum;
};

// The sharding as a NamedSharding on its own mesh. FailedPrecondition "not expressible as a
// NamedSharding: ..." for sub-axes (JAX's PartitionSpec names whole mesh axes), unreduced
// axes, and a maximal mesh other than device 0; open dimensions and priorities are dropped
// (they do not move elements). Errors: Check's.
absl::StatusOr<NamedSharding> ShardyToNamedSharding(const ShardySharding& sharding,
                                                    const std::optional<ShardyMesh>& mesh);

// An equivalent NamedSharding on the refined mesh (axes split at the sub-axis boundaries
// the sharding uses, in default device order kept), placing every element as the sharding
// does; unreduced axes replicate. Errors: Check's, a maximal mesh other than device 0.
absl::StatusOr<NamedSharding> ShardyToRefinedNamedSharding(const ShardySharding& sharding,
                                                           const std::optional<ShardyMesh>& mesh);

// What JAX lowers a NamedSharding of rank `rank` to: closed dims, the spec's axes per dim,
// replication implicit, the mesh referenced as @mesh_name (empty: JAX's choice, see
// JaxMeshName).
ShardySharding NamedToShardySharding(const NamedSharding& sharding, size_t rank,
                                     absl::string_view mesh_name = "");

// The symbol JAX gives a mesh when it lowers a program: "mesh", or "empty_mesh" for the
// mesh with no axes.
std::string JaxMeshName(const Mesh& mesh);

}  // namespace axe::sharding

#endif  // AXE_SHARDING_SHARDY_H_
