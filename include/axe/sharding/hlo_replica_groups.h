// The device groups of an HLO collective, in every form XLA prints them:
//
//   replica_groups={{0,1,2,3},{4,5,6,7}}       listed
//   replica_groups={}                          one group of every device
//   replica_groups=[2,4]<=[8]                  iota: 2 groups of 4, devices 0..7 in order
//   replica_groups=[4,2]<=[2,4]T(1,0)          iota, transposed: {0,4},{1,5},{2,6},{3,7}
//   replica_groups=mesh['axis_0'=2,'axis_1'=4] {'axis_1'}
//                                              mesh axes: devices laid out row-major over
//                                              the mesh; a group varies the named axes
//   source_target_pairs={{0,1},{1,2}}          collective-permute's pairs
//
// The ids are what the collective names: partition ids (logical devices, positions in the
// program's device assignment) in a module partitioned with one replica.
#ifndef AXE_SHARDING_HLO_REPLICA_GROUPS_H_
#define AXE_SHARDING_HLO_REPLICA_GROUPS_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace axe::sharding {

// At most this many device ids in all the groups of one collective (Mesh::kMaxDevices).
inline constexpr int64_t kMaxReplicaGroupDevices = 65536;

// Errors name the 0-based position in `text`: a malformed list, an id < 0 or
// >= kMaxReplicaGroupDevices, an id listed twice, groups of more than
// kMaxReplicaGroupDevices devices in all, `{}` with num_devices < 1.
absl::StatusOr<std::vector<std::vector<int64_t>>> ParseReplicaGroups(absl::string_view text,
                                                                     int64_t num_devices);

// The sizes of the groups without listing their devices: (group size, how many groups of
// that size) runs, in order. The work is linear in the text (an iota or mesh-axes form of
// 65,536 devices is not expanded). Errors: ParseReplicaGroups's.
absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> ReplicaGroupSizes(absl::string_view text,
                                                                           int64_t num_devices);

// Errors: a malformed list, a pair that is not two ids, an id out of range, more than
// kMaxReplicaGroupDevices pairs.
absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> ParseSourceTargetPairs(
    absl::string_view text);

}  // namespace axe::sharding

#endif  // AXE_SHARDING_HLO_REPLICA_GROUPS_H_
