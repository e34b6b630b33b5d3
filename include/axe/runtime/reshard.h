// Reshard(array, target format): moves an array to another sharding and local layout by a
// reshard plan (reshard_plan.h), so that every device receives only the elements it lacks
// (V_min in all) and keeps the rest by a local copy. Never all-gather-then-slice.
//
// Every copy is a relayout plan between a box of one shard and a box of another
// (box_copy.h), so a change of local layout costs nothing extra. Transports:
//  - kDirect (in-process default): the receiving device's worker copies each message box
//    straight from the sender's shard into its own, one pass;
//  - kStaged: as a message-passing backend does it, each message is packed by a relayout
//    into a staging buffer of at most `staging_bytes` (row-major, in chunks when larger)
//    and unpacked from it by another relayout.
// Those are the in-process backend's; the client's backend (backend.h) does the exchange,
// after these front doors have checked the call once (the MPI backend: mpi_reshard.h).
// Peak memory on a device during a reshard: its source shard (resident before and after),
// its target shard, and (kStaged) one staging buffer.
//
//   ReshardStats stats;
//   Array b = *Reshard(a, {NamedSharding(mesh, P(None, 'y')), std::nullopt}, {}, &stats);
//   stats.bytes_moved == plan.v_min_bytes;
#ifndef AXE_RUNTIME_RESHARD_H_
#define AXE_RUNTIME_RESHARD_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "axe/runtime/array.h"
#include "axe/runtime/reshard_plan.h"

namespace axe::runtime {

enum class ReshardTransport { kDirect, kStaged };

// A message-passing backend (MPI) always stages what it cannot move in place: bounded by
// staging_bytes when the caller asks for kStaged, else by this.
inline constexpr int64_t kDefaultExchangeStagingBytes = int64_t{64} << 20;

struct ReshardOptions {
  ReshardTransport transport = ReshardTransport::kDirect;
  // kStaged: 0 (no bound: one message at a time) or at least one element.
  int64_t staging_bytes = int64_t{1} << 20;
};

// What a reshard did, measured while it ran.
struct ReshardStats {
  int64_t bytes_moved = 0;  // between devices (== the plan's V_min bytes)
  int64_t local_bytes = 0;  // copied within devices
  int64_t messages = 0;     // message boxes copied (chunks of kStaged not counted apart)
  std::vector<int64_t> bytes_received;  // per device id
  // Per device id: the most bytes in use on the device during the reshard (its source
  // shard, its target shard and staging; whatever else it held before is included too).
  std::vector<int64_t> peak_bytes;
  double seconds = 0;  // the copies only (after planning and allocation)
};

// Checks that `array` can become `target`: the target mesh fits the client, the target
// sharding accepts the array's shape (JAX's texts, naming the dimension), the local
// layout fits the target shard. Errors name what differs.
absl::Status CheckReshard(const Array& array, const sharding::Format& target);

// Plans and executes. Errors: CheckReshard's, PlanReshard's, allocation, the copies'.
absl::StatusOr<Array> Reshard(const Array& array, const sharding::Format& target,
                              const ReshardOptions& options = {}, ReshardStats* stats = nullptr);

// Executes a plan made for this array's shape, element size and sharding and the target's
// sharding. Errors: a plan for another shape, element size or device maps (saying which),
// and Reshard's.
absl::StatusOr<Array> ExecuteReshard(const Array& array, const sharding::Format& target,
                                     const ReshardPlan& plan, const ReshardOptions& options = {},
                                     ReshardStats* stats = nullptr);

// Executes a plan into an existing array `out` (allocated with the target format, e.g. to
// time repeated reshards without allocating): the same as ExecuteReshard otherwise, except
// that the device peaks are not reset first. Errors: `out` has another client, shape or
// element type, or the plan does not match the two arrays' shardings.
absl::Status ReshardInto(const Array& array, Array& out, const ReshardPlan& plan,
                         const ReshardOptions& options = {}, ReshardStats* stats = nullptr);

}  // namespace axe::runtime

#endif  // AXE_RUNTIME_RESHARD_H_
