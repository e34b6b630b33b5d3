// `axe collective --backend mpi`: one collective of collective_benchmark.h over MPI
// (mpi_collectives.h) next to the MPI library's own blocking collective on the same group
// communicator, with the same bytes (MPI_Allreduce, MPI_Allgather,
// MPI_Reduce_scatter_block, MPI_Alltoall, MPI_Sendrecv around the ring). Each run is timed
// barrier to barrier, the slowest rank's time counting.
#ifndef AXE_SRC_RUNTIME_MPI_COLLECTIVE_BENCHMARK_H_
#define AXE_SRC_RUNTIME_MPI_COLLECTIVE_BENCHMARK_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/runtime/mpi_client.h"
#include "runtime/collective_benchmark.h"

namespace axe::runtime {

// Errors: BenchmarkCollective's; an element type the MPI library cannot sum (all_reduce and
// reduce_scatter baselines: floating and integer types of 8 to 64 bits only).
absl::StatusOr<CollectiveBenchmarkResult> BenchmarkMpiCollective(
    MpiClient& client, CollectiveKind kind, const sharding::Mesh& mesh,
    absl::Span<const std::string> axes, absl::Span<const int64_t> shape, DType dtype,
    const CollectiveBenchmarkOptions& options);

}  // namespace axe::runtime

#endif  // AXE_SRC_RUNTIME_MPI_COLLECTIVE_BENCHMARK_H_
