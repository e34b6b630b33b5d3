// A reshard plan: which device sends which box of an array to which other device when the
// array changes from one sharding to another, built from the two device -> index-box maps
// (sharding::DevicesIndicesMap).
//
// Every device d receives exactly the elements it lacks, D(d) \ S(d) (its target box minus
// the box it already holds), so the elements sent in all are
//   V_min = Σ_d |D(d) \ S(d)|,
// the least any reshard can move; the part D(d) ∩ S(d) is a local copy. A box lacked by d
// is cut along the source boxes; when a source box is replicated on several devices, the
// sender is the one that has sent the fewest bytes so far (pieces placed largest first),
// which balances the bytes sent per device.
//
//   ReshardPlan p = *PlanReshard({8, 8}, 4, Named("x=2,y=2", "P('x')"),
//                                Named("x=2,y=2", "P(None, 'y')"));
//   p.v_min_bytes;   // 256: each of the 4 devices lacks a 4x4 quarter (16 x 4 bytes)
//   std::cout << p;  // messages, bytes per device, V_min
#ifndef AXE_RUNTIME_RESHARD_PLAN_H_
#define AXE_RUNTIME_RESHARD_PLAN_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/relayout/index_box.h"
#include "axe/sharding/device_map.h"
#include "axe/sharding/named_sharding.h"

namespace axe::runtime {

// One box of global indices copied from src_device's shard into dst_device's shard.
struct ReshardMessage {
  int64_t src_device = 0;
  int64_t dst_device = 0;
  relayout::IndexBox box;
  int64_t bytes = 0;
  friend bool operator==(const ReshardMessage&, const ReshardMessage&) = default;
};

struct ReshardPlan {
  std::vector<int64_t> shape;
  int element_bytes = 0;
  std::string from, to;  // the two shardings, as text

  // Between devices (src_device != dst_device), ordered by destination, then source.
  std::vector<ReshardMessage> messages;
  // What each device already holds: D(d) ∩ S(d), copied within the device.
  std::vector<ReshardMessage> local_copies;

  int64_t v_min_elements = 0;
  int64_t v_min_bytes = 0;  // the bytes of all messages
  int64_t local_bytes = 0;  // the bytes of all local copies
  // Per device id (0 .. the largest id of either map): bytes sent, received, kept.
  std::vector<int64_t> bytes_sent, bytes_received, bytes_kept;

  // The largest bytes_sent (the busiest sender).
  int64_t max_bytes_sent() const;
  // Several lines: the shardings, V_min, per-device bytes and the messages (the first
  // `max_messages`, then a count of the rest).
  std::string ToString(int max_messages = 32) const;
  friend std::ostream& operator<<(std::ostream& os, const ReshardPlan& p) {
    return os << p.ToString();
  }
};

// Plans from two device maps of the same array. Errors (InvalidArgument): a negative
// dimension; a map entry whose box has the wrong rank or lies outside the shape (naming the
// device); a device listed twice; source boxes that do not cover the array (an element no
// device holds, named); element_bytes < 1; more than 2^24 device x source-box pairs
// (ResourceExhausted); sizes that overflow int64.
absl::StatusOr<ReshardPlan> PlanReshard(absl::Span<const int64_t> shape, int element_bytes,
                                        absl::Span<const sharding::DeviceShard> from,
                                        absl::Span<const sharding::DeviceShard> to);

// From two shardings (their DevicesIndicesMap). Errors: CheckShape's for either sharding
// (JAX's texts, naming the dimension), and the above.
absl::StatusOr<ReshardPlan> PlanReshard(absl::Span<const int64_t> shape, int element_bytes,
                                        const sharding::NamedSharding& from,
                                        const sharding::NamedSharding& to);

}  // namespace axe::runtime

#endif  // AXE_RUNTIME_RESHARD_PLAN_H_
