// Reshard over MPI (mpi_client.h): the same plan as the in-process Reshard (reshard_plan.h),
// every rank computing it from the two shardings, so each rank receives only the elements
// its target shard lacks (V_min bytes in all) and copies the rest locally.
//
// On rank r: a message whose box MPI can address in the shard (strided_box.h: one block,
// or strided runs of 512 bytes or more as an MPI datatype) is sent straight from the source
// shard (MPI_Isend) or received straight into the target shard (MPI_Irecv); the others are
// packed from the source shard into a row-major staging buffer by a relayout plan
// (box_copy.h), or received in a staging buffer and unpacked into the target shard by a
// relayout plan. The local part is one relayout from shard to shard per local copy, run
// while the messages travel. Messages between one
// pair of ranks are matched in plan order (MPI keeps the order of one sender's messages).
// The messages travel in rounds bounded by `staging_bytes`: a message larger than the
// bound is cut into pieces (along its outermost dimension of extent > 1), and a new round
// starts whenever a piece would take some rank's bytes sent or received in the round past
// the bound (every rank computes the same rounds from the plan). A rank's peak is then its
// source shard + its target shard + at most 2 x staging_bytes (send and receive staging,
// kept by the client for the next reshard; none when every message moves in place).
// staging_bytes 0: one round, staging = the staged bytes the rank sends + receives.
// Before any data moves, the ranks agree on the call (AgreeOnCall), and every wait is
// bounded by the client's timeout.
//
//   ReshardStats stats;
//   Array b = *Reshard(a, {NamedSharding(mesh, P(None, 'y')), std::nullopt}, {}, &stats);
//   stats.bytes_moved == plan.v_min_bytes;   // summed over the ranks
//
// Deprecated: Reshard and ReshardInto (reshard.h) do this on an MPI client's arrays (its
// backend, backend.h; options.staging_bytes with kStaged, else kDefaultExchangeStagingBytes).
// MpiReshard(a, t, stats, s) is Reshard(a, t, {ReshardTransport::kStaged, s}, stats) on an
// MPI client.
#ifndef AXE_RUNTIME_MPI_RESHARD_H_
#define AXE_RUNTIME_MPI_RESHARD_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/base/dtype.h"
#include "axe/runtime/array.h"
#include "axe/runtime/mpi_client.h"
#include "axe/runtime/reshard.h"
#include "axe/runtime/reshard_plan.h"

namespace axe::runtime {

// Plans and executes on every rank. Stats are those of the whole job (bytes and messages
// summed over the ranks; per-device vectors gathered from every rank; seconds of the
// slowest rank). Errors: the array is not on an MPI client; CheckReshard's (what differs);
// the ranks' calls differ; PlanReshard's; MPI errors and timeouts.
// staging_bytes: 0 or at least one element (InvalidArgument otherwise).
inline constexpr int64_t kDefaultMpiStagingBytes = kDefaultExchangeStagingBytes;
absl::StatusOr<Array> MpiReshard(const Array& array, const sharding::Format& target,
                                 ReshardStats* stats = nullptr,
                                 int64_t staging_bytes = kDefaultMpiStagingBytes);

// Executes `plan` into `out` (allocated with the target format on the same client).
absl::Status MpiReshardInto(const Array& array, Array& out, const ReshardPlan& plan,
                            ReshardStats* stats = nullptr,
                            int64_t staging_bytes = kDefaultMpiStagingBytes);

}  // namespace axe::runtime

#endif  // AXE_RUNTIME_MPI_RESHARD_H_
