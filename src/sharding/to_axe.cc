#include "axe/sharding/to_axe.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/layout/canonical.h"
#include "axe/layout/group.h"
#include "axe/sharding/device_map.h"
#include "axe/xla/shape.h"
#include "axe/xla/to_axe.h"
#include "group_by_shape.h"

namespace axe::sharding {
namespace {

// The memory layout of one shard, grouped by the local shape.
absl::StatusOr<Grouped> LocalMemory(const std::vector<int64_t>& local,
                                    const std::optional<xla::Layout>& local_layout, DType dtype) {
  for (size_t i = 0; i < local.size(); ++i) {
    if (local[i] == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("dimension ", i, " has size 0: an Axe layout needs at least one element"));
    }
  }
  std::vector<int64_t> m2m(local.size());
  for (size_t i = 0; i < local.size(); ++i) m2m[i] = static_cast<int64_t>(local.size() - 1 - i);
  xla::Layout layout = local_layout ? *local_layout : xla::Layout(std::move(m2m));
  xla::Shape shape = xla::Shape::Array(dtype, local, {}, std::move(layout));
  AXE_ASSIGN_OR_RETURN(xla::AxeForm form, xla::ToAxe(shape));
  if (form.padded()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "not expressible: the local layout pads the shard (local shape ", shape.ToString(), ")"));
  }
  return internal::GroupByShape(form.layout, local);
}

// The device iter of mesh axis j. per_axis: the axis named after it (kind device; a mesh
// axis named `m`, which JAX allows, cannot be one: `m` is the memory axis of layouts).
absl::StatusOr<Iter> DeviceAxisIter(const Mesh& mesh, size_t j, DeviceAxisMode mode) {
  const MeshAxis& a = mesh.axes()[j];
  if (mode == DeviceAxisMode::kFlat) return Iter{a.size, mesh.axis_stride(j), Axis::Get("gpuid")};
  absl::StatusOr<Axis> axis = Axis::Find(a.name, AxisKind::kDevice);
  if (!axis.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "mesh axis '", a.name, "' cannot be a per_axis device axis: ", axis.status().message()));
  }
  return Iter{a.size, 1, *axis};
}

absl::Status NotExpressibleAsAxe(absl::string_view why) {
  return absl::FailedPreconditionError(absl::StrCat("not expressible as an Axe layout: ", why));
}

absl::Status Overflow(const TileAssignment& tiles) {
  return absl::InvalidArgumentError(
      absl::StrCat("the device ids of ", tiles.ToString(), " overflow int64 arithmetic"));
}

// An explicit device list as one device iter per tile dim (step: the id difference to the
// next tile along it), checked to give every listed id. All arithmetic is checked, so ids
// that bypassed validation report an error instead of overflowing.
absl::StatusOr<std::vector<Iter>> ExplicitIters(const TileAssignment& tiles) {
  const Axis gpuid = Axis::Get("gpuid");
  const std::vector<int64_t>& dims = tiles.dims();
  const int64_t base = tiles.DeviceAtFlat(0);
  std::vector<int64_t> flat_stride(dims.size(), 1);
  for (size_t k = dims.size(); k-- > 1;) {
    std::optional<int64_t> s = CheckedMul(flat_stride[k], dims[k]);
    if (!s) return Overflow(tiles);
    flat_stride[k - 1] = *s;
  }
  std::vector<int64_t> step(dims.size(), 0);
  std::vector<Iter> iters;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] > 1) {
      std::optional<int64_t> d = CheckedSub(tiles.DeviceAtFlat(flat_stride[k]), base);
      if (!d) return Overflow(tiles);
      step[k] = *d;
    }
    iters.push_back(Iter{dims[k], step[k], gpuid});
  }
  for (int64_t f = 0; f < tiles.num_elements(); ++f) {
    std::optional<int64_t> want = base;
    for (size_t k = 0; k < dims.size() && want; ++k) {
      std::optional<int64_t> term = CheckedMul((f / flat_stride[k]) % dims[k], step[k]);
      want = term ? CheckedAdd(*want, *term) : std::nullopt;
    }
    if (!want) return Overflow(tiles);
    if (tiles.DeviceAtFlat(f) != *want) {
      return NotExpressibleAsAxe(absl::StrCat("the device list of ", tiles.ToString(),
                                              " is not affine in each tile dim (tile ", f, ")"));
    }
  }
  return iters;
}

// An iota tile assignment as a layout over its row-major flat tile index (device ids on
// gpuid), grouped by the tile dims.
absl::StatusOr<Grouped> IotaTileLayout(const TileAssignment& tiles) {
  const Axis gpuid = Axis::Get("gpuid");
  std::vector<Iter> iters;
  const std::vector<int64_t>& r = tiles.reshape_dims();
  std::vector<int64_t> stride(r.size(), 1);
  for (size_t k = r.size(); k-- > 1;) stride[k - 1] = stride[k] * r[k];
  for (int64_t p : tiles.perm()) {
    iters.push_back(Iter{r[static_cast<size_t>(p)], stride[static_cast<size_t>(p)], gpuid});
  }
  absl::StatusOr<axe::Layout> layout = axe::Layout::Create(std::move(iters), {}, PhysCoord());
  if (!layout.ok()) return layout.status();
  absl::StatusOr<Grouped> grouped = Group(*layout, tiles.dims());
  if (!grouped.ok()) {
    return NotExpressibleAsAxe(absl::StrCat("the tile dims of ", tiles.ToString(),
                                            " split the iota's reshape dims unevenly"));
  }
  return grouped;
}

// The tile assignment as a layout over its row-major flat tile index (device ids on gpuid),
// grouped by the tile dims. One answer whatever the spelling: an explicit list that is an
// iota is read as the iota first, then (when its tile dims cut it unevenly) as a list that
// is affine in each tile dim.
absl::StatusOr<Grouped> TileLayout(const TileAssignment& tiles) {
  const std::optional<TileAssignment> iota = tiles.AsIota();
  absl::Status iota_error;
  if (iota) {
    absl::StatusOr<Grouped> grouped = IotaTileLayout(*iota);
    if (grouped.ok()) return grouped;
    iota_error = grouped.status();
  }
  absl::StatusOr<std::vector<Iter>> iters = ExplicitIters(tiles);
  if (!iters.ok()) return iota ? iota_error : iters.status();
  PhysCoord offset;
  offset.set(Axis::Get("gpuid"), tiles.DeviceAtFlat(0));
  absl::StatusOr<axe::Layout> layout = axe::Layout::Create(*std::move(iters), {}, offset);
  if (!layout.ok()) return layout.status();
  absl::StatusOr<Grouped> grouped = Group(*layout, tiles.dims());
  if (!grouped.ok()) return iota ? iota_error : grouped.status();
  return grouped;
}

// A layout from its parts; a scalar's empty shard part is the single point S[1:1].
absl::StatusOr<axe::Layout> CreateLayout(std::vector<Iter> shard, std::vector<Iter> replica,
                                         PhysCoord offset = PhysCoord()) {
  if (shard.empty()) shard.push_back(Iter{1, 1, Axis::Memory()});
  return axe::Layout::Create(std::move(shard), std::move(replica), offset);
}

// The whole array on every device of `replicas` (R) plus `offset`, in local memory.
absl::StatusOr<axe::Layout> Unsharded(absl::Span<const int64_t> shape,
                                      const std::optional<xla::Layout>& local_layout, DType dtype,
                                      std::vector<Iter> replicas, PhysCoord offset) {
  AXE_ASSIGN_OR_RETURN(Grouped memory, LocalMemory(std::vector<int64_t>(shape.begin(), shape.end()),
                                                   local_layout, dtype));
  AXE_ASSIGN_OR_RETURN(axe::Layout layout,
                       CreateLayout(memory.layout.shard(), std::move(replicas), offset));
  return Canonicalize(layout);
}

}  // namespace

absl::StatusOr<axe::Layout> HloShardingToAxe(absl::Span<const int64_t> global_shape,
                                             const HloSharding& sharding,
                                             const std::optional<xla::Layout>& local_layout,
                                             int64_t num_devices, DType dtype) {
  const Axis gpuid = Axis::Get("gpuid");
  switch (sharding.kind()) {
    case HloSharding::Kind::kTuple:
    case HloSharding::Kind::kManual:
    case HloSharding::Kind::kUnknown:
      return NotExpressibleAsAxe(absl::StrCat(sharding.ToString(), " has no single device map"));
    case HloSharding::Kind::kUnreduced:
      return NotExpressibleAsAxe(
          absl::StrCat(sharding.ToString(), " holds partial values, which a layout cannot say"));
    case HloSharding::Kind::kMaximal: {
      PhysCoord at;
      at.set(gpuid, sharding.device());
      return Unsharded(global_shape, local_layout, dtype, {}, at);
    }
    case HloSharding::Kind::kReplicated:
      if (num_devices < 1) return absl::InvalidArgumentError("{replicated} needs num_devices >= 1");
      return Unsharded(global_shape, local_layout, dtype, {Iter{num_devices, 1, gpuid}}, {});
    case HloSharding::Kind::kTiled: break;
  }
  for (HloSharding::SubgroupType t : sharding.subgroups()) {
    if (t != HloSharding::SubgroupType::kReplicated) {
      return NotExpressibleAsAxe(
          absl::StrCat(sharding.ToString(), " has a non-replicated subgroup"));
    }
  }
  // Checks the rank (with XLA's message) and the dims.
  AXE_RETURN_IF_ERROR(DevicesIndicesMap(sharding, global_shape, num_devices).status());
  const std::vector<int64_t>& dims = sharding.tiles()->dims();
  std::vector<int64_t> local(global_shape.begin(), global_shape.end());
  for (size_t i = 0; i < local.size(); ++i) {
    if (local[i] % dims[i] != 0) {
      return NotExpressibleAsAxe(absl::StrCat("dimension ", i, " (size ", local[i],
                                              ") is not divisible by its ", dims[i],
                                              " tiles (XLA pads the last tile)"));
    }
    local[i] /= dims[i];
  }
  AXE_ASSIGN_OR_RETURN(Grouped tiles, TileLayout(*sharding.tiles()));
  AXE_ASSIGN_OR_RETURN(Grouped memory, LocalMemory(local, local_layout, dtype));
  const std::vector<Iter>& t = tiles.layout.shard();
  const std::vector<Iter>& m = memory.layout.shard();
  auto block = [](const std::vector<Iter>& v, const Grouped& g, size_t i) {
    return std::vector<Iter>(v.begin() + static_cast<std::ptrdiff_t>(g.seps[i]),
                             v.begin() + static_cast<std::ptrdiff_t>(g.seps[i + 1]));
  };
  std::vector<Iter> shard;
  for (size_t i = 0; i < local.size(); ++i) {
    for (const Iter& it : block(t, tiles, i)) shard.push_back(it);
    for (const Iter& it : block(m, memory, i)) shard.push_back(it);
  }
  std::vector<Iter> replica;
  for (size_t i = local.size(); i < dims.size(); ++i) {
    for (const Iter& it : block(t, tiles, i)) {
      if (it.extent > 1) replica.push_back(it);
    }
  }
  AXE_ASSIGN_OR_RETURN(axe::Layout layout,
                       CreateLayout(std::move(shard), std::move(replica), tiles.layout.offset()));
  return Canonicalize(layout);
}

absl::StatusOr<axe::Layout> ShardedToAxe(absl::Span<const int64_t> global_shape,
                                         const NamedSharding& sharding,
                                         const std::optional<xla::Layout>& local_layout,
                                         DeviceAxisMode mode, DType dtype) {
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> local, sharding.ShardShape(global_shape));
  AXE_ASSIGN_OR_RETURN(Grouped memory, LocalMemory(local, local_layout, dtype));
  const std::vector<Iter>& mg = memory.layout.shard();
  std::vector<Iter> shard;
  for (size_t i = 0; i < local.size(); ++i) {
    for (size_t j : sharding.DimAxes(i)) {
      AXE_ASSIGN_OR_RETURN(Iter it, DeviceAxisIter(sharding.mesh(), j, mode));
      shard.push_back(it);
    }
    shard.insert(shard.end(), mg.begin() + static_cast<std::ptrdiff_t>(memory.seps[i]),
                 mg.begin() + static_cast<std::ptrdiff_t>(memory.seps[i + 1]));
  }
  std::vector<Iter> replica;
  for (size_t j : sharding.ReplicatedAxes()) {
    AXE_ASSIGN_OR_RETURN(Iter it, DeviceAxisIter(sharding.mesh(), j, mode));
    replica.push_back(it);
  }
  AXE_ASSIGN_OR_RETURN(axe::Layout layout, CreateLayout(std::move(shard), std::move(replica)));
  return Canonicalize(layout);
}

}  // namespace axe::sharding
