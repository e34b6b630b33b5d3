// Which device holds which elements (JAX's `devices_indices_map`), computed directly from
// the definition of spec jax-layout-format.md §8.3, and the queries built on it.
//
//   DevicesIndicesMap(NamedSharding(Mesh('x': 2, 'y': 2), P('x',)), {8, 8})
//   // device 0: [[0, 4], [0, 8]], group 0;  device 1: the same, group 0;
//   // device 2: [[4, 8], [0, 8]], group 1;  device 3: the same, group 1
#ifndef AXE_SHARDING_DEVICE_MAP_H_
#define AXE_SHARDING_DEVICE_MAP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/box.h"
#include "axe/sharding/named_sharding.h"

namespace axe::sharding {

struct DeviceShard {
  int64_t device = 0;
  // The box of global indices this device holds: per dimension [begin, end).
  std::vector<Interval> index;
  // Devices with the same index box hold identical data; groups are numbered 0, 1, ... in
  // the order of their smallest device id.
  int64_t replica_group = 0;

  // "[[0, 4], [0, 8]]": the box's one text form (BoxToString, axe/layout/box.h).
  std::string IndexToString() const;
  friend bool operator==(const DeviceShard&, const DeviceShard&) = default;
};

// One entry per device, in device id order. Errors: CheckShape's.
absl::StatusOr<std::vector<DeviceShard>> DevicesIndicesMap(const NamedSharding& sharding,
                                                           absl::Span<const int64_t> shape);
// The single entry of a SingleDeviceSharding (the whole box). Errors: a negative dim.
absl::StatusOr<std::vector<DeviceShard>> DevicesIndicesMap(const SingleDeviceSharding& sharding,
                                                           absl::Span<const int64_t> shape);

// Sorts entries by device id and numbers their replica groups (equal boxes, numbered in
// the order of their smallest device id).
void AssignReplicaGroups(std::vector<DeviceShard>& map);

// The replica groups of a device map: group k lists its devices in increasing order.
std::vector<std::vector<int64_t>> ReplicaGroups(absl::Span<const DeviceShard> map);

// The first device (smallest id) on which two device maps differ: it holds different boxes,
// or appears in only one map. nullopt when the maps are equal (the same device -> elements
// map, whatever notation each came from).
struct DeviceMapDifference {
  int64_t device = 0;
  std::string first;   // its box in the first map, or "absent"
  std::string second;  // its box in the second map, or "absent"
};
std::optional<DeviceMapDifference> FirstDifference(absl::Span<const DeviceShard> first,
                                                   absl::Span<const DeviceShard> second);

}  // namespace axe::sharding

#endif  // AXE_SHARDING_DEVICE_MAP_H_
