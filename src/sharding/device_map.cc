#include "axe/sharding/device_map.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "axe/layout/box.h"

namespace axe::sharding {

std::string DeviceShard::IndexToString() const { return BoxToString(index); }

void AssignReplicaGroups(std::vector<DeviceShard>& map) {
  auto by_device = [](const DeviceShard& a, const DeviceShard& b) { return a.device < b.device; };
  if (!std::is_sorted(map.begin(), map.end(), by_device)) {
    std::sort(map.begin(), map.end(), by_device);
  }
  // Keyed by views of the boxes, which stay put while `map` is not resized: no box is copied.
  absl::flat_hash_map<absl::Span<const Interval>, int64_t> groups;
  groups.reserve(map.size());
  for (DeviceShard& shard : map) {
    auto [it, inserted] =
        groups.try_emplace(absl::MakeConstSpan(shard.index), static_cast<int64_t>(groups.size()));
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
  // The mesh coordinate of position p, counted up row-major (the last axis fastest).
  std::vector<int64_t> c(mesh.axes().size(), 0);
  for (int64_t p = 0; p < mesh.num_devices(); ++p) {
    DeviceShard shard;
    shard.device = mesh.DeviceAtPosition(p);
    shard.index.reserve(shape.size());
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t piece = 0;  // row-major over the dimension's axes, the first major
      for (size_t j : dim_axes[i]) piece = piece * mesh.axes()[j].size + c[j];
      shard.index.push_back(Interval{piece * local[i], (piece + 1) * local[i]});
    }
    map[static_cast<size_t>(p)] = std::move(shard);  // sorted by device below
    for (size_t j = c.size(); j-- > 0;) {
      if (++c[j] < mesh.axes()[j].size) break;
      c[j] = 0;
    }
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
    shard.index.push_back(Interval{0, shape[i]});
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

namespace {

// The shards of `map` by device id (the last one where an id repeats, as a map by id keeps).
std::vector<const DeviceShard*> ByDevice(absl::Span<const DeviceShard> map) {
  std::vector<const DeviceShard*> out;
  out.reserve(map.size());
  for (const DeviceShard& s : map) out.push_back(&s);
  // Maps come sorted by device with one entry each (AssignReplicaGroups): nothing to do.
  const bool increasing =
      std::adjacent_find(map.begin(), map.end(), [](const DeviceShard& x, const DeviceShard& y) {
        return x.device >= y.device;
      }) == map.end();
  if (increasing) return out;
  std::stable_sort(out.begin(), out.end(), [](const DeviceShard* x, const DeviceShard* y) {
    return x->device < y->device;
  });
  std::vector<const DeviceShard*> last;
  last.reserve(out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    if (i + 1 < out.size() && out[i + 1]->device == out[i]->device) continue;
    last.push_back(out[i]);
  }
  return last;
}

}  // namespace

// Compares the index boxes themselves and prints only the first difference (printing every
// device's box, as this once did, dominated equivalence checks of large meshes).
std::optional<DeviceMapDifference> FirstDifference(absl::Span<const DeviceShard> first,
                                                   absl::Span<const DeviceShard> second) {
  const std::vector<const DeviceShard*> a = ByDevice(first), b = ByDevice(second);
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i]->device < b[j]->device)) {
      return DeviceMapDifference{a[i]->device, a[i]->IndexToString(), "absent"};
    }
    if (i == a.size() || b[j]->device < a[i]->device) {
      return DeviceMapDifference{b[j]->device, "absent", b[j]->IndexToString()};
    }
    if (a[i]->index != b[j]->index) {
      return DeviceMapDifference{a[i]->device, a[i]->IndexToString(), b[j]->IndexToString()};
    }
    ++i;
    ++j;
  }
  return std::nullopt;
}

}  // namespace axe::sharding
