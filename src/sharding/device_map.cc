#include "axe/sharding/device_map.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"

namespace axe::sharding {

std::string DeviceShard::IndexToString() const {
  std::vector<std::string> parts;
  for (const auto& [start, stop] : index)
    parts.push_back(absl::StrCat("[", start, ", ", stop, "]"));
  return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

void AssignReplicaGroups(std::vector<DeviceShard>& map) {
  std::sort(map.begin(), map.end(),
            [](const DeviceShard& a, const DeviceShard& b) { return a.device < b.device; });
  std::map<std::vector<std::pair<int64_t, int64_t>>, int64_t> groups;
  for (DeviceShard& shard : map) {
    auto [it, inserted] = groups.emplace(shard.index, static_cast<int64_t>(groups.size()));
    shard.replica_group = it->second;
  }
}

absl::StatusOr<std::vector<DeviceShard>> DevicesIndicesMap(const NamedSharding& sharding,
                                                           absl::Span<const int64_t> shape) {
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> local, sharding.ShardShape(shape));
  const Mesh& mesh = sharding.mesh();
  std::vector<std::vector<size_t>> dim_axes(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) dim_axes[i] = sharding.DimAxes(i);
  std::vector<DeviceShard> map(static_cast<size_t>(mesh.num_devices()));
  for (int64_t p = 0; p < mesh.num_devices(); ++p) {
    const std::vector<int64_t> c = mesh.CoordinateOfPosition(p);
    DeviceShard shard;
    shard.device = mesh.DeviceAtPosition(p);
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t piece = 0;  // row-major over the dimension's axes, the first major
      for (size_t j : dim_axes[i]) piece = piece * mesh.axes()[j].size + c[j];
      shard.index.emplace_back(piece * local[i], (piece + 1) * local[i]);
    }
    map[static_cast<size_t>(shard.device)] = std::move(shard);
  }
  AssignReplicaGroups(map);
  return map;
}

absl::StatusOr<std::vector<DeviceShard>> DevicesIndicesMap(const SingleDeviceSharding& sharding,
                                                           absl::Span<const int64_t> shape) {
  DeviceShard shard;
  shard.device = sharding.device();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("dimension ", i, " has the negative size ", shape[i]));
    }
    shard.index.emplace_back(0, shape[i]);
  }
  return std::vector<DeviceShard>{std::move(shard)};
}

std::vector<std::vector<int64_t>> ReplicaGroups(absl::Span<const DeviceShard> map) {
  std::vector<std::vector<int64_t>> groups;
  for (const DeviceShard& shard : map) {
    const size_t k = static_cast<size_t>(shard.replica_group);
    if (groups.size() <= k) groups.resize(k + 1);
    groups[k].push_back(shard.device);
  }
  for (auto& g : groups) std::sort(g.begin(), g.end());
  return groups;
}

std::optional<DeviceMapDifference> FirstDifference(absl::Span<const DeviceShard> first,
                                                   absl::Span<const DeviceShard> second) {
  std::map<int64_t, std::string> a, b;
  for (const DeviceShard& s : first) a[s.device] = s.IndexToString();
  for (const DeviceShard& s : second) b[s.device] = s.IndexToString();
  auto ia = a.begin();
  auto ib = b.begin();
  while (ia != a.end() || ib != b.end()) {
    if (ib == b.end() || (ia != a.end() && ia->first < ib->first)) {
      return DeviceMapDifference{ia->first, ia->second, "absent"};
    }
    if (ia == a.end() || ib->first < ia->first) {
      return DeviceMapDifference{ib->first, "absent", ib->second};
    }
    if (ia->second != ib->second) return DeviceMapDifference{ia->first, ia->second, ib->second};
    ++ia;
    ++ib;
  }
  return std::nullopt;
}

}  // namespace axe::sharding
