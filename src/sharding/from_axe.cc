#include "axe/sharding/from_axe.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/layout/group.h"
#include "axe/xla/to_axe.h"
#include "group_by_shape.h"

namespace axe::sharding {
namespace {

absl::Status Inexpressible(absl::string_view why) {
  return absl::FailedPreconditionError(absl::StrCat("not expressible: ", why));
}

// A device iter of the grouped layout: in the block of dimension `dim`, or in R (no dim).
struct DeviceIter {
  Iter iter;
  std::optional<size_t> dim;
  size_t rank_in_place = 0;  // its index among the device iters of its dim (or of R)
};

// The layout split into its memory part (per dimension) and its device iters.
struct Split {
  bool flat = true;                       // device iters on gpuid (else per mesh axis)
  std::vector<std::vector<Iter>> memory;  // per dimension, the memory iters in order
  std::vector<DeviceIter> devices;        // D's (dimension order, block order), then R's
  int64_t device_offset = 0;              // the offset on gpuid (flat mode)
};

std::string Where(const std::optional<size_t>& dim) {
  return dim ? absl::StrCat("dimension ", *dim) : std::string("the replica part");
}

// Checks the axes of every iter and of the offset; decides the mode.
absl::Status CheckAxes(const axe::Layout& layout, Split& split) {
  const Axis gpuid = Axis::Get("gpuid");
  split.flat = layout.uses(gpuid);
  for (Axis a : layout.axes()) {
    if (a.is_memory()) continue;
    if (split.flat && a != gpuid) {
      return Inexpressible(absl::StrCat("the layout uses gpuid and the axis ", a.name(),
                                        ": device iters are either all on gpuid or all on "
                                        "per-mesh-axis device axes"));
    }
    if (!split.flat && a.kind() != AxisKind::kDevice) {
      return Inexpressible(absl::StrCat("the axis ", a.name(), " is a ", AxisKindName(a.kind()),
                                        " axis, not a device axis"));
    }
  }
  for (const PhysCoord::Entry& e : layout.offset().entries()) {
    if (e.second == 0) continue;
    if (e.first.is_memory() || e.first != gpuid) {
      return Inexpressible(absl::StrCat("the layout has the offset ", e.second, "@", e.first.name(),
                                        " (a shard starts at local offset 0 "
                                        "and covers all of its mesh axes)"));
    }
    split.device_offset = e.second;
  }
  return absl::OkStatus();
}

// Splits each dimension's block into device iters followed by memory iters.
absl::Status SplitBlocks(const Grouped& grouped, size_t rank, Split& split) {
  const std::vector<Iter>& shard = grouped.layout.shard();
  split.memory.assign(rank, {});
  for (size_t i = 0; i < rank; ++i) {
    size_t devices_in_dim = 0;
    for (size_t k = grouped.seps[i]; k < grouped.seps[i + 1]; ++k) {
      const Iter& it = shard[k];
      if (it.extent == 1) continue;
      if (it.axis.is_memory()) {
        split.memory[i].push_back(it);
        continue;
      }
      if (!split.memory[i].empty()) {
        return Inexpressible(absl::StrCat(
            "dimension ", i, ": the device iter ", it.ToString(), " follows the memory iter ",
            split.memory[i].back().ToString(), " (a cyclic distribution, not a block sharding)"));
      }
      if (it.stride <= 0) {
        return Inexpressible(absl::StrCat("dimension ", i, ": the device iter ", it.ToString(),
                                          " has a stride <= 0"));
      }
      split.devices.push_back({it, i, devices_in_dim++});
    }
  }
  size_t replicas = 0;
  for (const Iter& it : grouped.layout.replica()) {
    if (it.extent == 1) continue;
    if (it.axis.is_memory()) {
      return Inexpressible(absl::StrCat("the replica iter ", it.ToString(),
                                        " is on memory (a shard is one block of memory)"));
    }
    if (it.stride <= 0) {
      return Inexpressible(absl::StrCat("the replica iter ", it.ToString(), " has a stride <= 0"));
    }
    split.devices.push_back({it, std::nullopt, replicas++});
  }
  return absl::OkStatus();
}

std::string InventedName(const DeviceIter& d) {
  if (!d.dim) return absl::StrCat("r", d.rank_in_place);
  if (d.rank_in_place == 0) return absl::StrCat("d", *d.dim);
  return absl::StrCat("d", *d.dim, "_", d.rank_in_place);
}

// The spec entries: per dimension the mesh axis names of its device iters, major first.
// names[k] lists the names of split.devices[k].
absl::StatusOr<PartitionSpec> SpecOf(const Split& split,
                                     const std::vector<std::vector<std::string>>& names) {
  std::vector<PartitionSpec::Entry> entries(split.memory.size());
  for (size_t k = 0; k < split.devices.size(); ++k) {
    if (!split.devices[k].dim) continue;
    PartitionSpec::Entry& e = entries[*split.devices[k].dim];
    e.insert(e.end(), names[k].begin(), names[k].end());
  }
  while (!entries.empty() && entries.back().empty()) entries.pop_back();
  return PartitionSpec::Create(std::move(entries));
}

// Flat mode, no mesh: the device iters sorted by stride must be a row-major mixed radix.
absl::StatusOr<NamedSharding> InventFlatMesh(const Split& split) {
  std::vector<size_t> order(split.devices.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return split.devices[a].iter.stride > split.devices[b].iter.stride;
  });
  int64_t expected = 1;
  for (size_t k = order.size(); k-- > 0;) {
    const Iter& it = split.devices[order[k]].iter;
    if (it.stride != expected) {
      return Inexpressible(absl::StrCat(
          "the device iters do not tile gpuid 0..N-1 exactly once "
          "(expected an iter of stride ",
          expected, ", found ", it.ToString(), " in ", Where(split.devices[order[k]].dim), ")"));
    }
    std::optional<int64_t> next = CheckedMul(expected, it.extent);
    if (!next || *next > Mesh::kMaxDevices) {
      return Inexpressible(
          absl::StrCat("the device iters cover more than ", Mesh::kMaxDevices, " devices"));
    }
    expected = *next;
  }
  std::vector<MeshAxis> axes;
  std::vector<std::vector<std::string>> names(split.devices.size());
  for (size_t k : order) {
    names[k] = {InventedName(split.devices[k])};
    axes.push_back({names[k][0], split.devices[k].iter.extent});
  }
  AXE_ASSIGN_OR_RETURN(Mesh mesh, Mesh::Create(std::move(axes)));
  AXE_ASSIGN_OR_RETURN(PartitionSpec spec, SpecOf(split, names));
  return NamedSharding::Create(std::move(mesh), std::move(spec));
}

// Flat mode on a given mesh: each device iter (e, s@gpuid) is a run of consecutive mesh axes
// of size > 1 ending with the axis of stride s, with sizes multiplying to e.
absl::StatusOr<NamedSharding> OnFlatMesh(const Split& split, const Mesh& mesh) {
  std::vector<size_t> big;  // the axes of size > 1, in mesh order
  for (size_t j = 0; j < mesh.rank(); ++j) {
    if (mesh.axes()[j].size > 1) big.push_back(j);
  }
  std::vector<bool> used(mesh.rank(), false);
  std::vector<std::vector<std::string>> names(split.devices.size());
  for (size_t k = 0; k < split.devices.size(); ++k) {
    const Iter& it = split.devices[k].iter;
    const std::string where =
        absl::StrCat(" (the device iter ", it.ToString(), " in ", Where(split.devices[k].dim), ")");
    size_t b = big.size();
    for (size_t q = 0; q < big.size(); ++q) {
      if (mesh.axis_stride(big[q]) == it.stride) b = q;
    }
    if (b == big.size()) {
      return Inexpressible(absl::StrCat("no axis of ", mesh.ToString(), " has the position stride ",
                                        it.stride, where));
    }
    int64_t covered = 1;
    size_t first = b + 1;
    while (covered < it.extent && first > 0) covered *= mesh.axes()[big[--first]].size;
    if (covered != it.extent) {
      return Inexpressible(
          absl::StrCat("the device iter does not cover whole axes of ", mesh.ToString(), where));
    }
    for (size_t q = first; q <= b; ++q) {
      if (used[big[q]]) {
        return Inexpressible(
            absl::StrCat("mesh axis '", mesh.axes()[big[q]].name, "' is covered twice", where));
      }
      used[big[q]] = true;
      names[k].push_back(mesh.axes()[big[q]].name);
    }
  }
  for (size_t j : big) {
    if (!used[j]) {
      return Inexpressible(absl::StrCat("mesh axis '", mesh.axes()[j].name, "' (size ",
                                        mesh.axes()[j].size, ") is not covered by the layout"));
    }
  }
  AXE_ASSIGN_OR_RETURN(PartitionSpec spec, SpecOf(split, names));
  return NamedSharding::Create(mesh, std::move(spec));
}

// per_axis mode: each device axis is one iter of stride 1; the mesh is the given one (each
// axis of the layout one of its axes, of the same size, all axes of size > 1 used) or the
// layout's device axes in name order.
absl::StatusOr<NamedSharding> PerAxisMesh(const Split& split, const std::optional<Mesh>& given) {
  std::vector<MeshAxis> axes;
  std::vector<std::vector<std::string>> names(split.devices.size());
  for (size_t k = 0; k < split.devices.size(); ++k) {
    const Iter& it = split.devices[k].iter;
    const std::string name(it.axis.name());
    for (const MeshAxis& a : axes) {
      if (a.name == name) {
        return Inexpressible(absl::StrCat("the device axis ", name,
                                          " is used by more than "
                                          "one iter (a mesh axis is one iter of stride 1)"));
      }
    }
    if (it.stride != 1) {
      return Inexpressible(absl::StrCat("the device iter ", it.ToString(), " in ",
                                        Where(split.devices[k].dim), " has stride ", it.stride,
                                        " (a mesh axis is one iter "
                                        "of stride 1)"));
    }
    axes.push_back({name, it.extent});
    names[k] = {name};
  }
  AXE_ASSIGN_OR_RETURN(PartitionSpec spec, SpecOf(split, names));
  if (!given) {
    std::sort(axes.begin(), axes.end(),
              [](const MeshAxis& a, const MeshAxis& b) { return a.name < b.name; });
    AXE_ASSIGN_OR_RETURN(Mesh mesh, Mesh::Create(std::move(axes)));
    return NamedSharding::Create(std::move(mesh), std::move(spec));
  }
  for (const MeshAxis& a : axes) {
    std::optional<size_t> j = given->AxisIndex(a.name);
    if (!j || given->axes()[*j].size != a.size) {
      return Inexpressible(absl::StrCat("the device axis ", a.name, " (extent ", a.size,
                                        ") is not an axis of ", given->ToString()));
    }
  }
  for (const MeshAxis& m : given->axes()) {
    const bool used =
        std::any_of(axes.begin(), axes.end(), [&](const MeshAxis& a) { return a.name == m.name; });
    if (!used && m.size > 1) {
      return Inexpressible(
          absl::StrCat("mesh axis '", m.name, "' (size ", m.size, ") is not used by the layout"));
    }
  }
  return NamedSharding::Create(*given, std::move(spec));
}

// The local layout of the memory part over the shard shape.
absl::Status LocalPart(const Split& split, ShardingOfLayout& out) {
  std::vector<Iter> iters;
  out.shard_shape.clear();
  for (const std::vector<Iter>& block : split.memory) {
    int64_t size = 1;
    for (const Iter& it : block) size *= it.extent;  // divides the layout's size
    out.shard_shape.push_back(size);
    iters.insert(iters.end(), block.begin(), block.end());
  }
  if (iters.empty()) iters.push_back(Iter{1, 1, Axis::Memory()});
  AXE_ASSIGN_OR_RETURN(axe::Layout memory, axe::Layout::Create(std::move(iters)));
  absl::StatusOr<xla::Layout> local = xla::FromAxe(memory, out.shard_shape);
  if (!local.ok()) {
    return Inexpressible(
        absl::StrCat("the memory part ", memory.ToString(), ": ", local.status().message()));
  }
  out.local_xla = *local;
  AXE_ASSIGN_OR_RETURN(out.local_layout, LocalLayout::FromXla(*local));
  if (out.local_layout.tiling() && out.local_layout.tiling()->empty()) {
    AXE_ASSIGN_OR_RETURN(out.local_layout, out.local_layout.WithTiling(std::nullopt));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ShardingOfLayout> ShardingFromAxe(const axe::Layout& layout,
                                                 absl::Span<const int64_t> global_shape,
                                                 const std::optional<Mesh>& mesh) {
  Split split;
  AXE_RETURN_IF_ERROR(CheckAxes(layout, split));
  AXE_ASSIGN_OR_RETURN(Grouped grouped, internal::GroupByShape(layout, global_shape));
  AXE_RETURN_IF_ERROR(SplitBlocks(grouped, global_shape.size(), split));
  ShardingOfLayout out{
      SingleDeviceSharding::Create(0).value(), {}, xla::Layout(), LocalLayout::Create({}).value()};
  AXE_RETURN_IF_ERROR(LocalPart(split, out));
  if (split.device_offset != 0) {
    if (!split.devices.empty() || mesh) {
      return Inexpressible(absl::StrCat("the layout has the offset ", split.device_offset,
                                        "@gpuid and device iters or a mesh (a sharding over "
                                        "a mesh starts at mesh position 0)"));
    }
    AXE_ASSIGN_OR_RETURN(SingleDeviceSharding single,
                         SingleDeviceSharding::Create(split.device_offset));
    out.sharding = single;
    return out;
  }
  absl::StatusOr<NamedSharding> named;
  if (!split.flat) {
    named = PerAxisMesh(split, mesh);
  } else if (mesh) {
    named = OnFlatMesh(split, *mesh);
  } else {
    named = InventFlatMesh(split);
  }
  if (!named.ok()) return named.status();
  out.sharding = *std::move(named);
  return out;
}

}  // namespace axe::sharding
