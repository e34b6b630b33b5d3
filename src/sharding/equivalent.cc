#include "axe/sharding/equivalent.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "axe/layout/axis_catalog.h"
#include "axe/sharding/sharding.h"
#include "axe/sharding/shardy.h"

namespace axe::sharding {
namespace {

absl::Status Prefixed(absl::string_view what, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(what, ": ", status.message()));
}

// The catalogue an Axe layout is read with: mesh axes are device axes.
absl::StatusOr<AxisCatalog> CatalogFor(const std::optional<Mesh>& mesh) {
  AxisCatalog catalog = AxisCatalog::Standard();
  if (!mesh) return catalog;
  std::vector<std::string> declarations;
  for (const MeshAxis& a : mesh->axes()) declarations.push_back(absl::StrCat(a.name, "=device"));
  return catalog.WithDeclarations(declarations);
}

// Per device, the bounding box of the elements it holds and how many distinct ones.
struct Holding {
  std::vector<int64_t> lo, hi;  // inclusive
  int64_t count = 0;
};

// The device axes that number devices: gpuid alone, or the mesh's axes in its order.
std::vector<Axis> DeviceAxes(const std::optional<Mesh>& mesh) {
  if (!mesh) return {Axis::Get("gpuid", AxisKind::kDevice)};
  std::vector<Axis> axes;
  for (const MeshAxis& a : mesh->axes()) axes.push_back(Axis::Get(a.name, AxisKind::kDevice));
  return axes;
}

// The distinct values the points take on `axes`, in the order the points first take them
// (so that an error names the point Apply would have listed first).
std::vector<std::vector<int64_t>> DistinctValues(absl::Span<const PhysCoord> points,
                                                 absl::Span<const Axis> axes) {
  std::vector<std::vector<int64_t>> values;
  absl::flat_hash_set<std::vector<int64_t>> seen;
  std::vector<int64_t> v(axes.size());
  for (const PhysCoord& p : points) {
    for (size_t j = 0; j < axes.size(); ++j) v[j] = p.get(axes[j]);
    if (seen.insert(v).second) values.push_back(v);
  }
  return values;
}

// The device at the given values of DeviceAxes(mesh).
absl::StatusOr<int64_t> DeviceOf(absl::Span<const int64_t> coordinate,
                                 const std::optional<Mesh>& mesh) {
  if (!mesh) return coordinate[0];
  return mesh->DeviceAt(coordinate);
}

// The mesh that numbers the layout's devices: none when its only device axis is gpuid (the
// device id); `mesh` when its device axes are mesh axes. Errors name a device axis that is
// neither, or gpuid mixed with mesh axes.
absl::StatusOr<std::optional<Mesh>> DeviceNumbering(const axe::Layout& layout,
                                                    const std::optional<Mesh>& mesh) {
  bool gpuid = false;
  bool mesh_axes = false;
  for (const Axis& axis : layout.axes()) {
    if (axis.kind() != AxisKind::kDevice) continue;
    if (axis.name() == "gpuid") {
      gpuid = true;
    } else if (mesh && mesh->AxisIndex(axis.name())) {
      mesh_axes = true;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "device axis '", axis.name(), "' is neither gpuid nor ",
          mesh ? absl::StrCat("an axis of ", mesh->ToString())
               : std::string("a mesh axis (give the mesh that numbers per_axis device axes)")));
    }
  }
  if (gpuid && mesh_axes) {
    return absl::InvalidArgumentError(
        "a layout numbers its devices by gpuid or by mesh axes, "
        "not both");
  }
  return mesh_axes ? mesh : std::nullopt;
}

// Widens a device's bounding box to take in `index`.
void Hold(Holding& h, absl::Span<const int64_t> index) {
  if (h.count == 0) {
    h.lo.assign(index.begin(), index.end());
    h.hi = h.lo;
  } else {
    for (size_t i = 0; i < index.size(); ++i) {
      h.lo[i] = std::min(h.lo[i], index[i]);
      h.hi[i] = std::max(h.hi[i], index[i]);
    }
  }
  ++h.count;
}

std::vector<DeviceShard> BoxesOrError(const std::map<int64_t, Holding>& held, absl::Status& error) {
  std::vector<DeviceShard> out;
  for (const auto& [device, h] : held) {
    DeviceShard shard;
    shard.device = device;
    int64_t volume = 1;
    for (size_t i = 0; i < h.lo.size(); ++i) {
      shard.index.push_back(Interval{h.lo[i], h.hi[i] + 1});
      volume *= h.hi[i] + 1 - h.lo[i];
    }
    if (volume != h.count) {
      error = absl::FailedPreconditionError(
          absl::StrCat("device ", device, " holds ", h.count,
                       " elements that do not form a box of the array (their bounding box is ",
                       shard.IndexToString(), ")"));
      return {};
    }
    out.push_back(std::move(shard));
  }
  return out;
}

}  // namespace

absl::StatusOr<ShardingNotation> ShardingNotation::Parse(absl::string_view text,
                                                         const std::optional<Mesh>& mesh) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  if (absl::StartsWith(trimmed, "{")) {
    absl::StatusOr<HloSharding> hlo = HloSharding::Parse(trimmed);
    if (!hlo.ok()) return Prefixed("HLO sharding", hlo.status());
    return ShardingNotation{*std::move(hlo), mesh, {}};
  }
  if (absl::StartsWith(trimmed, "#sdy.sharding") || absl::StartsWith(trimmed, "<@") ||
      absl::StartsWith(trimmed, "<mesh")) {
    absl::StatusOr<ShardySharding> sdy = ShardySharding::Parse(trimmed);
    if (!sdy.ok()) return Prefixed("Shardy sharding", sdy.status());
    std::optional<ShardyMesh> sdy_mesh;
    if (mesh) sdy_mesh = ShardyMesh::FromMesh(*mesh, "");
    AXE_ASSIGN_OR_RETURN(NamedSharding named, ShardyToRefinedNamedSharding(*sdy, sdy_mesh));
    return ShardingNotation{std::move(named), mesh, sdy->ToString()};
  }
  if (absl::StartsWith(trimmed, "NamedSharding(") ||
      absl::StartsWith(trimmed, "SingleDeviceSharding(")) {
    // JAX's repr: the sharding names its own mesh (or device).
    absl::StatusOr<Sharding> jax = Sharding::Parse(trimmed);
    if (!jax.ok()) return Prefixed("JAX sharding", jax.status());
    if (const NamedSharding* named = jax->named())
      return ShardingNotation{*named, std::nullopt, {}};
    AXE_ASSIGN_OR_RETURN(Mesh one, Mesh::Create({}, {jax->single_device()->device()}));
    AXE_ASSIGN_OR_RETURN(NamedSharding on_one,
                         NamedSharding::Create(std::move(one), PartitionSpec()));
    return ShardingNotation{std::move(on_one), std::nullopt, {}};
  }
  if (absl::StartsWith(trimmed, "P(") || absl::StartsWith(trimmed, "PartitionSpec(")) {
    if (!mesh) {
      return absl::InvalidArgumentError(
          absl::StrCat("the PartitionSpec ", trimmed, " needs a mesh (--mesh)"));
    }
    absl::StatusOr<PartitionSpec> spec = PartitionSpec::Parse(trimmed);
    if (!spec.ok()) return Prefixed("PartitionSpec", spec.status());
    AXE_ASSIGN_OR_RETURN(NamedSharding named, NamedSharding::Create(*mesh, *std::move(spec)));
    return ShardingNotation{std::move(named), mesh, {}};
  }
  AXE_ASSIGN_OR_RETURN(AxisCatalog catalog, CatalogFor(mesh));
  absl::StatusOr<axe::Layout> layout = axe::Layout::Parse(trimmed, catalog);
  if (!layout.ok()) return Prefixed("Axe layout", layout.status());
  return ShardingNotation{*std::move(layout), mesh, {}};
}

std::string ShardingNotation::KindName() const {
  if (!shardy.empty()) return "shardy";
  if (std::holds_alternative<NamedSharding>(value)) return "named";
  if (std::holds_alternative<HloSharding>(value)) return "hlo";
  return "axe";
}

std::string ShardingNotation::ToString() const {
  if (!shardy.empty()) return shardy;
  return std::visit([](const auto& v) { return v.ToString(); }, value);
}

absl::StatusOr<std::vector<DeviceShard>> DevicesIndicesMap(const axe::Layout& layout,
                                                           absl::Span<const int64_t> shape,
                                                           const std::optional<Mesh>& mesh) {
  AXE_RETURN_IF_ERROR(CheckShapeAdmitted(layout, shape));
  AXE_ASSIGN_OR_RETURN(const std::optional<Mesh> numbering, DeviceNumbering(layout, mesh));
  AXE_ASSIGN_OR_RETURN(std::vector<PhysCoord> replicas, ReplicaPoints(layout));
  const std::optional<int64_t> work =
      CheckedMul(layout.size(), static_cast<int64_t>(replicas.size()));
  if (!work || *work > kMaxEnumeratedPoints) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the layout has ", layout.size(), " elements x ", replicas.size(),
                     " replicas; at most ", kMaxEnumeratedPoints, " points are enumerated"));
  }
  // Element x sits at r + f_D(x) for each replica point r (which holds the offset): only the
  // device axes matter, so each r is reduced once to its distinct device-axis values.
  const std::vector<Axis> axes = DeviceAxes(numbering);
  const std::vector<std::vector<int64_t>> replica_values = DistinctValues(replicas, axes);
  std::map<int64_t, Holding> held;
  std::vector<int64_t> index(shape.size(), 0), shard_part(axes.size()), coordinate(axes.size());
  std::vector<int64_t> devices;
  for (int64_t flat = 0; flat < layout.size(); ++flat) {
    AXE_ASSIGN_OR_RETURN(const PhysCoord base, ApplyBase(layout, flat));
    for (size_t j = 0; j < axes.size(); ++j) {
      shard_part[j] = base.get(axes[j]) - layout.offset().get(axes[j]);  // f_D(x), which fits
    }
    devices.clear();
    for (const std::vector<int64_t>& r : replica_values) {
      for (size_t j = 0; j < axes.size(); ++j) coordinate[j] = r[j] + shard_part[j];
      AXE_ASSIGN_OR_RETURN(int64_t device, DeviceOf(coordinate, numbering));
      devices.push_back(device);
    }
    std::sort(devices.begin(), devices.end());
    devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
    for (int64_t device : devices) Hold(held[device], index);
    for (size_t i = index.size(); i-- > 0;) {  // the next index, row-major
      if (++index[i] < shape[i]) break;
      index[i] = 0;
    }
  }
  absl::Status error;
  std::vector<DeviceShard> out = BoxesOrError(held, error);
  AXE_RETURN_IF_ERROR(error);
  AssignReplicaGroups(out);
  return out;
}

absl::StatusOr<std::vector<DeviceShard>> DevicesIndicesMap(const ShardingNotation& sharding,
                                                           absl::Span<const int64_t> shape,
                                                           int64_t num_devices) {
  if (const auto* named = std::get_if<NamedSharding>(&sharding.value)) {
    return DevicesIndicesMap(*named, shape);
  }
  if (const auto* hlo = std::get_if<HloSharding>(&sharding.value)) {
    if (num_devices <= 0) num_devices = std::max<int64_t>(1, DeviceCountNamed(*hlo));
    AXE_ASSIGN_OR_RETURN(std::vector<DeviceShard> logical,
                         DevicesIndicesMap(*hlo, shape, num_devices));
    // HLO ids are logical: with a mesh, its device array is the device assignment.
    if (sharding.mesh && !sharding.mesh->has_default_devices()) {
      return ApplyDeviceAssignment(std::move(logical), sharding.mesh->device_array());
    }
    return logical;
  }
  return DevicesIndicesMap(std::get<axe::Layout>(sharding.value), shape, sharding.mesh);
}

absl::StatusOr<EquivalenceResult> Equivalent(absl::Span<const int64_t> shape,
                                             const ShardingNotation& first,
                                             const ShardingNotation& second) {
  // Device counts each side fixes by itself (0: none, an HLO {replicated}). An Axe layout
  // counts from its own device map, which the device count does not change: it is kept.
  auto own_count = [&](const ShardingNotation& s,
                       std::optional<std::vector<DeviceShard>>& map) -> absl::StatusOr<int64_t> {
    if (const auto* named = std::get_if<NamedSharding>(&s.value)) {
      return named->mesh().device_id_bound();  // any ids: 4-7 too
    }
    if (const auto* hlo = std::get_if<HloSharding>(&s.value)) return DeviceCountNamed(*hlo);
    AXE_ASSIGN_OR_RETURN(map, DevicesIndicesMap(s, shape, 0));
    return map->empty() ? int64_t{0} : map->back().device + 1;
  };
  // A Shardy sharding lists one dimension sharding per dimension, exactly (a PartitionSpec
  // may be shorter than the rank; Shardy's verifier refuses that).
  for (const ShardingNotation* s : {&first, &second}) {
    const auto* named = std::get_if<NamedSharding>(&s->value);
    if (s->shardy.empty() || named == nullptr || named->spec().size() == shape.size()) continue;
    return absl::InvalidArgumentError(
        absl::StrCat("the Shardy sharding ", s->shardy, " has ", named->spec().size(),
                     " dimension shardings but the value has rank ", shape.size(),
                     " (Shardy: sharding doesn't match tensor rank: ", named->spec().size(),
                     " != ", shape.size(), ")"));
  }
  std::optional<std::vector<DeviceShard>> a, b;
  AXE_ASSIGN_OR_RETURN(int64_t first_count, own_count(first, a));
  AXE_ASSIGN_OR_RETURN(int64_t second_count, own_count(second, b));
  const int64_t num_devices = std::max(first_count, second_count);
  if (!a) {
    AXE_ASSIGN_OR_RETURN(a, DevicesIndicesMap(first, shape, num_devices));
  }
  if (!b) {
    AXE_ASSIGN_OR_RETURN(b, DevicesIndicesMap(second, shape, num_devices));
  }
  EquivalenceResult result;
  result.difference = FirstDifference(*a, *b);
  result.equivalent = !result.difference.has_value();
  return result;
}

}  // namespace axe::sharding
