// The collectives of collectives.h on an MPI client (mpi_client.h): the same semantics
// (JAX's, spec ir-and-shard-map.md §7), the same errors, and results equal byte for byte to
// the in-process ones, with data moved by MPI's point-to-point calls on the group's
// sub-communicator, every message of a phase posted at once, in place where MPI can address
// the data (mpi_collectives.cc; runtime.md "The MPI backend"):
//
//  - all-reduce: member j receives every member's chunk j (its own read in place) and folds
//    it in member order (reduce_elements.h, so every element type and the in-process
//    rounding), then every folded chunk goes straight into its place in every result
//    (2 (n-1)/n of the bytes, as a ring);
//  - all-gather: every value straight into its place (a strided MPI datatype when the
//    dimension is not the outermost and the runs are long, else scratch and a reorder);
//  - reduce-scatter: the pieces (packed first when the dimension is not the outermost),
//    then the fold;
//  - all-to-all: chunks in place (a block, or a datatype for long strided runs), else packed
//    and unpacked by relayouts;
//  - collective-permute: MPI_Isend / MPI_Irecv pairs; members that receive nothing get 0.
//
// Every rank of the client calls the function with the same arguments (its own value in x);
// ranks outside the mesh get zeros. Results are written whole, not zeroed first. Before the data
// moves the ranks compare a description of the call (AgreeOnCall): differing arguments are
// InvalidArgument on every rank naming both. Waits are bounded by the client's timeout
// (DeadlineExceeded). x must belong to an MPI client (InvalidArgument otherwise).
//
// Deprecated: the front doors of collectives.h (AllReduce, ...) run the same collectives on
// an MPI client's values (its backend, backend.h). These wrappers only add the check that x
// belongs to an MPI client.
#ifndef AXE_RUNTIME_MPI_COLLECTIVES_H_
#define AXE_RUNTIME_MPI_COLLECTIVES_H_

#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/runtime/device_values.h"
#include "axe/runtime/reduce_elements.h"
#include "axe/sharding/mesh.h"

namespace axe::runtime {

absl::StatusOr<DeviceValues> MpiAllReduce(const sharding::Mesh& mesh,
                                          absl::Span<const std::string> axes, ReduceOp op,
                                          const DeviceValues& x);
absl::StatusOr<DeviceValues> MpiAllGather(const sharding::Mesh& mesh,
                                          absl::Span<const std::string> axes, const DeviceValues& x,
                                          int64_t dim, bool tiled);
absl::StatusOr<DeviceValues> MpiReduceScatter(const sharding::Mesh& mesh,
                                              absl::Span<const std::string> axes, ReduceOp op,
                                              const DeviceValues& x, int64_t dim, bool tiled);
absl::StatusOr<DeviceValues> MpiAllToAll(const sharding::Mesh& mesh,
                                         absl::Span<const std::string> axes, const DeviceValues& x,
                                         int64_t split_axis, int64_t concat_axis, bool tiled);
absl::StatusOr<DeviceValues> MpiCollectivePermute(
    const sharding::Mesh& mesh, absl::Span<const std::string> axes, const DeviceValues& x,
    absl::Span<const std::pair<int64_t, int64_t>> perm);

}  // namespace axe::runtime

#endif  // AXE_RUNTIME_MPI_COLLECTIVES_H_
