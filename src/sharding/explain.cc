#include "axe/sharding/explain.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/sharding/format.h"
#include "axe/sharding/from_axe.h"
#include "axe/sharding/from_hlo.h"
#include "axe/sharding/picture.h"
#include "axe/xla/shape.h"
#include "axe/xla/to_axe.h"

namespace axe::sharding {
namespace {

template <typename T>
TextOrReason TextOf(const absl::StatusOr<T>& value) {
  if (!value.ok()) return {std::nullopt, std::string(value.status().message())};
  return {value->ToString(), ""};
}

// The NamedSharding, or the reason there is none, in both of its texts.
void SetNamed(ShardingExplanation& out, const absl::StatusOr<NamedSharding>& named) {
  out.named = TextOf(named);
  out.named_jax = named.ok() ? named->JaxRepr() : std::string();
}

xla::Layout RowMajor(size_t rank) {
  std::vector<int64_t> minor_to_major(rank);
  for (size_t i = 0; i < rank; ++i) minor_to_major[i] = static_cast<int64_t>(rank - 1 - i);
  return xla::Layout(std::move(minor_to_major));
}

// The local shape text and its Axe memory layout.
void DescribeLocal(ShardingExplanation& out, const ExplainOptions& options) {
  const xla::Shape local = xla::Shape::Array(
      options.dtype, out.shard_shape, {},
      options.local_layout ? *options.local_layout : RowMajor(out.shard_shape.size()));
  out.local_shape = local.ToString();
  absl::StatusOr<xla::AxeForm> form = xla::ToAxe(local);
  if (!form.ok()) {
    out.local_axe = {std::nullopt, std::string(form.status().message())};
  } else {
    out.local_axe = {form->layout.ToString(), ""};
  }
}

void DescribeDevices(ShardingExplanation& out, std::vector<DeviceShard> devices) {
  out.fully_replicated = std::all_of(devices.begin(), devices.end(), [&](const DeviceShard& d) {
    for (size_t i = 0; i < d.index.size(); ++i) {
      if (d.index[i].begin != 0 || d.index[i].end != out.global_shape[i]) return false;
    }
    return true;
  });
  out.picture = RenderShardingPicture(out.global_shape, devices);
  out.devices = std::move(devices);
}

// The device count an HLO sharding is explained over.
int64_t HloDeviceCount(const HloSharding& hlo, const std::optional<Mesh>& mesh,
                       int64_t num_devices) {
  if (mesh) return mesh->num_devices();
  if (num_devices > 0) return num_devices;
  return std::max<int64_t>(1, DeviceCountNamed(hlo));
}

// XLA's shard shape: ceil(d_i / tiles_i) (the last tile may be smaller).
std::vector<int64_t> HloShardShape(const HloSharding& hlo, absl::Span<const int64_t> shape) {
  std::vector<int64_t> local(shape.begin(), shape.end());
  if (hlo.kind() != HloSharding::Kind::kTiled) return local;
  for (size_t i = 0; i < local.size(); ++i) local[i] = CeilDiv(local[i], hlo.tiles()->dims()[i]);
  return local;
}

// JAX's Format of one shard: the local layout as a JAX Layout and the sharding.
void DescribeFormat(ShardingExplanation& out, const std::optional<Sharding>& sharding,
                    const ExplainOptions& options) {
  if (!sharding) {
    out.format = {std::nullopt, "no JAX sharding: " + out.named.reason};
    return;
  }
  absl::StatusOr<LocalLayout> layout =
      options.jax_layout
          ? *options.jax_layout
          : LocalLayout::FromXla(options.local_layout ? *options.local_layout
                                                      : RowMajor(out.global_shape.size()));
  if (!layout.ok()) {
    out.format = {std::nullopt, std::string(layout.status().message())};
    return;
  }
  out.format = TextOf(Format::Create(*std::move(layout), *sharding));
}

// The Shardy form of a NamedSharding: the mesh as @mesh and the sharding on it.
void DescribeShardy(ShardingExplanation& out, const NamedSharding& named, size_t rank) {
  out.shardy = {NamedToShardySharding(named, rank).ToString(), ""};
  // As JAX lowers it: the mesh without device_ids (the order is the device assignment's).
  ShardyMesh mesh = ShardyMesh::FromMesh(named.mesh(), JaxMeshName(named.mesh()));
  mesh.device_ids.clear();
  out.shardy_mesh = mesh.ToString();
}

}  // namespace

absl::StatusOr<ShardingExplanation> ExplainNamedSharding(absl::Span<const int64_t> shape,
                                                         const NamedSharding& sharding,
                                                         const ExplainOptions& options) {
  AXE_ASSIGN_OR_RETURN(std::vector<DeviceShard> devices, DevicesIndicesMap(sharding, shape));
  ShardingExplanation out;
  out.global_shape.assign(shape.begin(), shape.end());
  out.dtype = options.dtype;
  out.num_devices = sharding.mesh().num_devices();
  SetNamed(out, sharding);
  out.hlo = TextOf(NamedToHloSharding(sharding, shape.size()));
  out.axe =
      TextOf(ShardedToAxe(shape, sharding, options.local_layout, options.mode, options.dtype));
  if (!sharding.mesh().has_default_devices()) {
    out.device_assignment = sharding.mesh().device_array();
  }
  DescribeShardy(out, sharding, shape.size());
  DescribeFormat(out, Sharding(sharding), options);
  AXE_ASSIGN_OR_RETURN(out.shard_shape, sharding.ShardShape(shape));
  DescribeLocal(out, options);
  DescribeDevices(out, std::move(devices));
  return out;
}

absl::StatusOr<ShardingExplanation> ExplainHloSharding(absl::Span<const int64_t> shape,
                                                       const HloSharding& sharding,
                                                       const std::optional<Mesh>& mesh,
                                                       int64_t num_devices,
                                                       const ExplainOptions& options) {
  ShardingExplanation out;
  out.global_shape.assign(shape.begin(), shape.end());
  out.dtype = options.dtype;
  AXE_RETURN_IF_ERROR(CheckNumDevices(num_devices));
  out.num_devices = HloDeviceCount(sharding, mesh, num_devices);
  AXE_ASSIGN_OR_RETURN(std::vector<DeviceShard> devices,
                       DevicesIndicesMap(sharding, shape, out.num_devices));
  if (mesh && !mesh->has_default_devices()) {
    out.device_assignment = mesh->device_array();
    devices = ApplyDeviceAssignment(std::move(devices), out.device_assignment);
  }
  out.hlo = {sharding.Canonical().ToString(), ""};
  absl::StatusOr<NamedSharding> named =
      mesh ? HloToNamedSharding(sharding, shape.size(), *mesh)
           : HloToNamedSharding(sharding, shape.size(), out.num_devices);
  if (named.ok()) {
    // JAX requires divisibility where XLA pads: say so rather than show a NamedSharding
    // that would be refused for this shape.
    if (absl::Status fits = named->CheckShape(shape); !fits.ok()) named = fits;
  }
  SetNamed(out, named);
  if (named.ok()) {
    DescribeShardy(out, *named, shape.size());
    DescribeFormat(out, Sharding(*named), options);
  } else {
    out.shardy = {std::nullopt, out.named.reason};
    std::optional<Sharding> single;
    if (sharding.kind() == HloSharding::Kind::kMaximal) {
      if (absl::StatusOr<SingleDeviceSharding> s = SingleDeviceSharding::Create(sharding.device());
          s.ok()) {
        single = Sharding(*std::move(s));
      }
    }
    DescribeFormat(out, single, options);
  }
  if (options.mode == DeviceAxisMode::kFlat) {
    out.axe = TextOf(
        HloShardingToAxe(shape, sharding, options.local_layout, out.num_devices, options.dtype));
  } else if (named.ok()) {
    out.axe =
        TextOf(ShardedToAxe(shape, *named, options.local_layout, options.mode, options.dtype));
  } else {
    out.axe = {std::nullopt, "per_axis needs mesh axes: " + out.named.reason};
  }
  out.shard_shape = HloShardShape(sharding, shape);
  DescribeLocal(out, options);
  DescribeDevices(out, std::move(devices));
  return out;
}

absl::StatusOr<ShardingExplanation> ExplainSharding(absl::Span<const int64_t> shape,
                                                    const Sharding& sharding,
                                                    const ExplainOptions& options) {
  if (const NamedSharding* named = sharding.named()) {
    return ExplainNamedSharding(shape, *named, options);
  }
  const SingleDeviceSharding& single = *sharding.single_device();
  AXE_ASSIGN_OR_RETURN(HloSharding maximal, HloSharding::Maximal(single.device()));
  AXE_ASSIGN_OR_RETURN(ShardingExplanation out,
                       ExplainHloSharding(shape, maximal, std::nullopt, 0, options));
  out.num_devices = 1;  // the one device, whatever its id
  out.named = {single.ToString(), ""};
  // As JAX lowers it: replicated over an empty mesh, in a one-device program.
  AXE_ASSIGN_OR_RETURN(NamedSharding on_no_mesh, NamedSharding::Create(Mesh(), PartitionSpec()));
  DescribeShardy(out, on_no_mesh, shape.size());
  if (single.device() != 0) {
    out.notes.push_back(absl::StrCat("JAX compiles a program on this sharding for the one device ",
                                     single.device(), " (device assignment [", single.device(),
                                     "]): its HLO says {replicated} and its Shardy "
                                     "mesh is empty; {maximal device=",
                                     single.device(),
                                     "} is the same placement in a "
                                     "program over several devices"));
  }
  DescribeFormat(out, sharding, options);
  return out;
}

absl::StatusOr<ShardingExplanation> ExplainAxeLayout(absl::Span<const int64_t> shape,
                                                     const axe::Layout& layout,
                                                     const std::optional<Mesh>& mesh,
                                                     ExplainOptions options) {
  AXE_ASSIGN_OR_RETURN(ShardingOfLayout found, ShardingFromAxe(layout, shape, mesh));
  options.local_layout = found.local_xla;
  return ExplainSharding(shape, found.sharding, options);
}

absl::StatusOr<ShardingExplanation> ExplainShardySharding(absl::Span<const int64_t> shape,
                                                          const ShardySharding& sharding,
                                                          const std::optional<ShardyMesh>& mesh,
                                                          const ExplainOptions& options) {
  AXE_RETURN_IF_ERROR(sharding.Check(mesh, shape.size()));
  AXE_ASSIGN_OR_RETURN(NamedSharding refined, ShardyToRefinedNamedSharding(sharding, mesh));
  AXE_ASSIGN_OR_RETURN(ShardingExplanation out, ExplainNamedSharding(shape, refined, options));
  absl::StatusOr<NamedSharding> exact = ShardyToNamedSharding(sharding, mesh);
  SetNamed(out, exact);
  DescribeFormat(out, exact.ok() ? std::optional<Sharding>(*exact) : std::nullopt, options);
  out.shardy = {sharding.ToString(), ""};
  const ShardyMesh& on = sharding.inline_mesh() ? *sharding.inline_mesh() : *mesh;
  out.shardy_mesh = on.name.empty() ? std::string() : on.ToString();
  return out;
}

}  // namespace axe::sharding
