// ParseReplicaGroups, ParseSourceTargetPairs: the device groups of HLO collectives
// (hlo_replica_groups.h).
#include "axe/sharding/hlo_replica_groups.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/sharding/hlo_sharding.h"

namespace axe::sharding {
namespace replica_groups_text {
namespace {

using Groups = std::vector<std::vector<int64_t>>;

// `{a,b,...}` of ids; `seen` catches an id listed twice across groups.
absl::StatusOr<std::vector<int64_t>> ReadIdList(Scanner& s, int64_t& total,
                                                absl::flat_hash_set<int64_t>* seen) {
  std::vector<int64_t> ids;
  AXE_RETURN_IF_ERROR(s.Expect('{'));
  if (s.TryConsume('}')) return ids;
  while (true) {
    s.SkipSpace();
    const size_t at = s.pos();
    AXE_ASSIGN_OR_RETURN(int64_t id, s.ReadNonNegativeInt());
    if (id >= kMaxReplicaGroupDevices) {
      return s.MessageAt(at,
                         absl::StrCat("device ", id, " is not below ", kMaxReplicaGroupDevices));
    }
    if (seen && !seen->insert(id).second) {
      return s.MessageAt(at, absl::StrCat("device ", id, " is in more than one replica group"));
    }
    if (++total > kMaxReplicaGroupDevices) {
      return s.MessageAt(at, absl::StrCat("more than ", kMaxReplicaGroupDevices, " device ids"));
    }
    ids.push_back(id);
    if (s.TryConsume('}')) return ids;
    AXE_RETURN_IF_ERROR(s.Expect(','));
  }
}

absl::StatusOr<Groups> ReadListed(Scanner& s, int64_t num_devices) {
  Groups groups;
  int64_t total = 0;
  absl::flat_hash_set<int64_t> seen;
  AXE_RETURN_IF_ERROR(s.Expect('{'));
  if (s.TryConsume('}')) {
    if (num_devices < 1) {
      return s.MessageAt(0,
                         "replica_groups={} means every device, but the device count is unknown");
    }
    if (num_devices > kMaxReplicaGroupDevices) {
      return s.MessageAt(0, absl::StrCat("more than ", kMaxReplicaGroupDevices, " devices"));
    }
    groups.emplace_back();
    for (int64_t d = 0; d < num_devices; ++d) groups.back().push_back(d);
    return groups;
  }
  while (true) {
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> ids, ReadIdList(s, total, &seen));
    groups.push_back(std::move(ids));
    if (s.TryConsume('}')) return groups;
    AXE_RETURN_IF_ERROR(s.Expect(','));
  }
}

// `[a,b,...]`.
absl::StatusOr<std::vector<int64_t>> ReadDims(Scanner& s) {
  std::vector<int64_t> dims;
  AXE_RETURN_IF_ERROR(s.Expect('['));
  while (true) {
    AXE_ASSIGN_OR_RETURN(int64_t d, s.ReadNonNegativeInt());
    dims.push_back(d);
    if (dims.size() > 64) return s.MessageAt(s.pos(), "more than 64 dimensions");
    if (s.TryConsume(']')) return dims;
    AXE_RETURN_IF_ERROR(s.Expect(','));
  }
}

struct IotaGroups {
  int64_t groups = 0;
  int64_t size = 0;
  std::optional<TileAssignment> devices;
};

// `[groups,size]<=[reshape]` with an optional `T(perm)`.
absl::StatusOr<IotaGroups> ReadIota(Scanner& s) {
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ReadDims(s));
  if (dims.size() != 2) {
    return s.MessageAt(0, "an iota replica group list has two dims, [groups,group_size]");
  }
  if (!s.TryConsume("<=")) return s.Error("'<='");
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> reshape, ReadDims(s));
  std::vector<int64_t> perm;
  if (s.TryConsume('T')) {
    AXE_RETURN_IF_ERROR(s.Expect('('));
    while (true) {
      AXE_ASSIGN_OR_RETURN(int64_t p, s.ReadNonNegativeInt());
      perm.push_back(p);
      if (perm.size() > 64) return s.MessageAt(s.pos(), "more than 64 dimensions");
      if (s.TryConsume(')')) break;
      AXE_RETURN_IF_ERROR(s.Expect(','));
    }
  } else {
    for (size_t i = 0; i < reshape.size(); ++i) perm.push_back(static_cast<int64_t>(i));
  }
  absl::StatusOr<TileAssignment> iota = TileAssignment::Iota(dims, reshape, perm);
  if (!iota.ok()) return s.MessageAt(0, iota.status().message());
  return IotaGroups{dims[0], dims[1], *std::move(iota)};
}

Groups IotaDevices(const IotaGroups& iota) {
  Groups groups(static_cast<size_t>(iota.groups));
  for (int64_t g = 0; g < iota.groups; ++g) {
    for (int64_t i = 0; i < iota.size; ++i) {
      groups[g].push_back(iota.devices->DeviceAtFlat(g * iota.size + i));
    }
  }
  return groups;
}

// `'name'`.
absl::StatusOr<std::string> ReadQuoted(Scanner& s) {
  AXE_RETURN_IF_ERROR(s.Expect('\''));
  const size_t start = s.pos();
  const absl::string_view text = s.text();
  const size_t end = text.find('\'', start);
  if (end == absl::string_view::npos) return s.MessageAt(start, "the axis name is never closed");
  s.set_pos(end + 1);
  return std::string(text.substr(start, end - start));
}

struct MeshGroups {
  int64_t devices = 1;
  std::vector<int64_t> sizes;
  std::vector<size_t> order;  // the named axes, in the order named
  int64_t group_size = 1;
};

// `mesh['a'=2,'b'=4] {'b'}`: devices 0..N-1 row-major over the mesh; one group per
// coordinate of the axes not named, varying the named axes in the order named.
absl::StatusOr<MeshGroups> ReadMeshAxes(Scanner& s) {
  if (!s.TryConsume("mesh")) return s.Error("'mesh'");
  AXE_RETURN_IF_ERROR(s.Expect('['));
  std::vector<std::string> names;
  std::vector<int64_t> sizes;
  int64_t devices = 1;
  while (true) {
    AXE_ASSIGN_OR_RETURN(std::string name, ReadQuoted(s));
    AXE_RETURN_IF_ERROR(s.Expect('='));
    s.SkipSpace();
    const size_t at = s.pos();
    AXE_ASSIGN_OR_RETURN(int64_t size, s.ReadNonNegativeInt());
    if (size < 1 || size > kMaxReplicaGroupDevices / devices) {
      return s.MessageAt(at, absl::StrCat("a mesh of more than ", kMaxReplicaGroupDevices,
                                          " devices (or an axis of size 0)"));
    }
    devices *= size;
    names.push_back(std::move(name));
    sizes.push_back(size);
    if (s.TryConsume(']')) break;
    AXE_RETURN_IF_ERROR(s.Expect(','));
  }
  AXE_RETURN_IF_ERROR(s.Expect('{'));
  std::vector<bool> grouped(names.size(), false);
  std::vector<size_t> order;  // the named axes, in the order named
  while (!s.TryConsume('}')) {
    if (!order.empty()) AXE_RETURN_IF_ERROR(s.Expect(','));
    s.SkipSpace();
    const size_t at = s.pos();
    AXE_ASSIGN_OR_RETURN(std::string name, ReadQuoted(s));
    size_t axis = 0;
    while (axis < names.size() && names[axis] != name) ++axis;
    if (axis == names.size() || grouped[axis]) {
      return s.MessageAt(at, absl::StrCat("'", name, "' is not a mesh axis, or is named twice"));
    }
    grouped[axis] = true;
    order.push_back(axis);
  }
  int64_t group_size = 1;
  for (size_t a : order) group_size *= sizes[a];
  return MeshGroups{devices, std::move(sizes), std::move(order), group_size};
}

Groups MeshDevices(const MeshGroups& mesh) {
  const std::vector<int64_t>& sizes = mesh.sizes;
  const std::vector<size_t>& order = mesh.order;
  const int64_t devices = mesh.devices;
  const int64_t group_size = mesh.group_size;
  // Strides of the row-major mesh.
  std::vector<int64_t> stride(sizes.size(), 1);
  for (size_t i = sizes.size(); i-- > 1;) stride[i - 1] = stride[i] * sizes[i];
  Groups groups;
  for (int64_t base = 0; base < devices; ++base) {
    // `base` starts a group when its coordinates on the grouped axes are all 0.
    bool first = true;
    for (size_t a : order) first = first && (base / stride[a]) % sizes[a] == 0;
    if (!first) continue;
    std::vector<int64_t> group;
    for (int64_t k = 0; k < group_size; ++k) {
      int64_t rest = k, device = base;
      for (size_t j = order.size(); j-- > 0;) {
        device += (rest % sizes[order[j]]) * stride[order[j]];
        rest /= sizes[order[j]];
      }
      group.push_back(device);
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

}  // namespace
}  // namespace replica_groups_text

namespace replica_groups_text {
namespace {

// The groups in one of the three forms: listed (materialized), iota or mesh axes (not).
struct ReadGroups {
  Groups listed;
  std::optional<IotaGroups> iota;
  std::optional<MeshGroups> mesh;
};

absl::StatusOr<ReadGroups> Read(absl::string_view text, int64_t num_devices) {
  Scanner s(text);
  ReadGroups out;
  const char first = s.Peek();
  if (first == '{') {
    AXE_ASSIGN_OR_RETURN(out.listed, ReadListed(s, num_devices));
  } else if (first == '[') {
    AXE_ASSIGN_OR_RETURN(out.iota, ReadIota(s));
  } else if (first == 'm') {
    AXE_ASSIGN_OR_RETURN(out.mesh, ReadMeshAxes(s));
  } else {
    return s.Error("replica groups: '{', '[' (an iota list) or mesh[...] (mesh axes)");
  }
  if (!s.AtEnd()) return s.Error("the end of the replica groups");
  return out;
}

}  // namespace
}  // namespace replica_groups_text

absl::StatusOr<std::vector<std::vector<int64_t>>> ParseReplicaGroups(absl::string_view text,
                                                                     int64_t num_devices) {
  using namespace replica_groups_text;  // NOLINT(build/namespaces)
  AXE_ASSIGN_OR_RETURN(ReadGroups groups, Read(text, num_devices));
  if (groups.iota) return IotaDevices(*groups.iota);
  if (groups.mesh) return MeshDevices(*groups.mesh);
  return std::move(groups.listed);
}

absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> ReplicaGroupSizes(absl::string_view text,
                                                                           int64_t num_devices) {
  using namespace replica_groups_text;  // NOLINT(build/namespaces)
  if (text == "{}") {
    if (num_devices < 1) return ParseReplicaGroups(text, num_devices).status();
    return std::vector<std::pair<int64_t, int64_t>>{{num_devices, 1}};
  }
  AXE_ASSIGN_OR_RETURN(ReadGroups groups, Read(text, num_devices));
  if (groups.iota)
    return std::vector<std::pair<int64_t, int64_t>>{{groups.iota->size, groups.iota->groups}};
  if (groups.mesh) {
    return std::vector<std::pair<int64_t, int64_t>>{
        {groups.mesh->group_size, groups.mesh->devices / groups.mesh->group_size}};
  }
  std::vector<std::pair<int64_t, int64_t>> sizes;
  for (const std::vector<int64_t>& g : groups.listed) {
    const int64_t n = static_cast<int64_t>(g.size());
    if (!sizes.empty() && sizes.back().first == n) {
      ++sizes.back().second;
    } else {
      sizes.push_back({n, 1});
    }
  }
  return sizes;
}

absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> ParseSourceTargetPairs(
    absl::string_view text) {
  using namespace replica_groups_text;  // NOLINT(build/namespaces)
  Scanner s(text);
  std::vector<std::pair<int64_t, int64_t>> pairs;
  int64_t total = 0;
  AXE_RETURN_IF_ERROR(s.Expect('{'));
  if (!s.TryConsume('}')) {
    while (true) {
      const size_t at = s.pos();
      AXE_ASSIGN_OR_RETURN(std::vector<int64_t> pair, ReadIdList(s, total, nullptr));
      if (pair.size() != 2) return s.MessageAt(at, "a source-target pair is two device ids");
      pairs.emplace_back(pair[0], pair[1]);
      if (s.TryConsume('}')) break;
      AXE_RETURN_IF_ERROR(s.Expect(','));
    }
  }
  if (!s.AtEnd()) return s.Error("the end of the source-target pairs");
  return pairs;
}

}  // namespace axe::sharding
