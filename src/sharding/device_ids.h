// Checks on the device ids an HLO sharding names (internal): each in [0, Mesh::kMaxDevices)
// and, in a tile assignment, listed at most once.
#ifndef AXE_SRC_SHARDING_DEVICE_IDS_H_
#define AXE_SRC_SHARDING_DEVICE_IDS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace axe::sharding {

// OK for 0 <= device < Mesh::kMaxDevices; otherwise an error naming the id.
absl::Status CheckDeviceId(int64_t device);

// The first id of a tile assignment's device list that is out of range or repeats an
// earlier one, with the error; nullopt when every id is fine.
struct BadDeviceId {
  size_t index = 0;
  absl::Status error;
};
std::optional<BadDeviceId> FindBadDeviceId(absl::Span<const int64_t> devices);

}  // namespace axe::sharding

#endif  // AXE_SRC_SHARDING_DEVICE_IDS_H_
