#include "axe/layout/mesh.h"

#include "absl/strings/str_cat.h"
#include "algebra_internal.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/layout/group.h"
#include "axe/layout/tile.h"

namespace axe {

absl::Span<const AxisCatalogEntry> MeshAxisNames() {
  static constexpr AxisCatalogEntry kNames[] = {{"gpuid", AxisKind::kDevice},
                                                {"gpuid_x", AxisKind::kDevice},
                                                {"gpuid_y", AxisKind::kDevice},
                                                {"pid", AxisKind::kDevice}};
  return kNames;
}

namespace {

absl::StatusOr<DeviceMesh> Numbered(std::vector<int64_t> shape, Axis axis, bool row_major) {
  if (shape.empty()) return absl::InvalidArgumentError("device mesh: the shape is empty");
  if (axis.is_memory()) {
    return absl::InvalidArgumentError(
        absl::StrCat("device mesh: axis ", axis.name(), " is a memory axis"));
  }
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    const size_t k = row_major ? shape.size() - 1 - i : i;
    if (shape[k] < 1) {
      return absl::InvalidArgumentError(absl::StrCat("device mesh ", FormatTuple(shape),
                                                     ": dimension ", k, " has size ", shape[k]));
    }
    strides[k] = s;
    std::optional<int64_t> next = CheckedMul(s, shape[k]);
    if (!next) return absl::InvalidArgumentError("device mesh: too many devices");
    s = *next;
  }
  return DeviceMesh{std::move(shape), std::move(strides), axis};
}

// Every mesh dimension named by `sharding` exists and is named once.
absl::Status CheckSharding(const DeviceMesh& mesh, const std::vector<std::vector<int>>& sharding) {
  AXE_RETURN_IF_ERROR(mesh.ToLayout().status());
  std::vector<bool> used(mesh.shape.size(), false);
  for (size_t d = 0; d < sharding.size(); ++d) {
    for (int k : sharding[d]) {
      if (k < 0 || static_cast<size_t>(k) >= mesh.shape.size() || used[static_cast<size_t>(k)]) {
        return absl::InvalidArgumentError(
            absl::StrCat("mesh sharding: tensor dimension ", d, ": mesh dimension ", k,
                         " is out of range or used twice (mesh ", FormatTuple(mesh.shape), ")"));
      }
      used[static_cast<size_t>(k)] = true;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<DeviceMesh> DeviceMesh::RowMajor(std::vector<int64_t> shape, Axis axis) {
  return Numbered(std::move(shape), axis, true);
}

absl::StatusOr<DeviceMesh> DeviceMesh::ColumnMajor(std::vector<int64_t> shape, Axis axis) {
  return Numbered(std::move(shape), axis, false);
}

absl::StatusOr<Layout> DeviceMesh::ToLayout() const {
  if (shape.size() != strides.size() || shape.empty()) {
    return absl::InvalidArgumentError(
        "device mesh: shape and strides must have the same, non-zero rank");
  }
  std::vector<Iter> iters;
  for (size_t k = 0; k < shape.size(); ++k) iters.push_back(Iter{shape[k], strides[k], axis});
  return Layout::Create(std::move(iters));
}

absl::StatusOr<Layout> ShardOverMesh(const Layout& local, absl::Span<const int64_t> local_shape,
                                     const DeviceMesh& mesh,
                                     const std::vector<std::vector<int>>& sharding) {
  AXE_RETURN_IF_ERROR(CheckSharding(mesh, sharding));
  if (sharding.size() != local_shape.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("shard over mesh: ", sharding.size(), " sharding entries for the local shape ",
                     FormatTuple(local_shape), " of rank ", local_shape.size()));
  }
  if (local.uses(mesh.axis)) {
    return absl::InvalidArgumentError(
        absl::StrCat("shard over mesh: the local layout ", local.ToString(),
                     " uses the mesh's device axis ", mesh.axis.name()));
  }
  std::vector<bool> used(mesh.shape.size(), false);
  std::vector<Iter> shard, replica;
  std::vector<int64_t> outer_shape;
  for (size_t d = 0; d < sharding.size(); ++d) {
    int64_t extent = 1;
    for (int k : sharding[d]) {
      used[static_cast<size_t>(k)] = true;
      shard.push_back(Iter{mesh.shape[static_cast<size_t>(k)], mesh.strides[static_cast<size_t>(k)],
                           mesh.axis});
      extent *= mesh.shape[static_cast<size_t>(k)];  // bounded by the mesh's device count
    }
    if (sharding[d].empty()) shard.push_back(Iter{1, 1, mesh.axis});
    outer_shape.push_back(extent);
  }
  for (size_t k = 0; k < mesh.shape.size(); ++k) {
    if (!used[k] && mesh.shape[k] > 1)
      replica.push_back(Iter{mesh.shape[k], mesh.strides[k], mesh.axis});
  }
  AXE_ASSIGN_OR_RETURN(Layout outer, Layout::Create(std::move(shard), std::move(replica)));
  AXE_ASSIGN_OR_RETURN(Layout tiled, Tile(outer, outer_shape, local, local_shape));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, TiledShape(outer_shape, local_shape));
  AXE_ASSIGN_OR_RETURN(Grouped grouped, Group(tiled, shape));  // a tile groups by its natural shape
  return grouped.layout;
}

absl::StatusOr<Layout> MeshShardedLayout(absl::Span<const int64_t> global_shape,
                                         const DeviceMesh& mesh,
                                         const std::vector<std::vector<int>>& sharding) {
  if (sharding.size() != global_shape.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("mesh sharding: ", sharding.size(), " sharding entries for the shape ",
                     FormatTuple(global_shape), " of rank ", global_shape.size()));
  }
  AXE_RETURN_IF_ERROR(CheckSharding(mesh, sharding));
  std::vector<int64_t> local_shape;
  for (size_t d = 0; d < global_shape.size(); ++d) {
    int64_t parts = 1;
    for (int k : sharding[d]) {
      parts *= mesh.shape[static_cast<size_t>(
          k)];  // distinct mesh dimensions: bounded by the device count
    }
    if (global_shape[d] < 1 || parts < 1 || global_shape[d] % parts != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("mesh sharding: dimension ", d, " of ", FormatTuple(global_shape), " (",
                       global_shape[d], ") is not divisible into ", parts, " shards"));
    }
    local_shape.push_back(global_shape[d] / parts);
  }
  AXE_ASSIGN_OR_RETURN(Layout local, Layout::RowMajor(local_shape));
  return ShardOverMesh(local, local_shape, mesh, sharding);
}

}  // namespace axe
