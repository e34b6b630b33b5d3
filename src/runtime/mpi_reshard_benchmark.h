// The MPI reshard benchmark (axe reshard --backend mpi): MpiReshard timed on generated data
// next to MPI's own all-to-all of the same bytes and the naive gather and scatter.
#ifndef AXE_SRC_RUNTIME_MPI_RESHARD_BENCHMARK_H_
#define AXE_SRC_RUNTIME_MPI_RESHARD_BENCHMARK_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/base/dtype.h"
#include "axe/runtime/array.h"
#include "axe/runtime/mpi_client.h"
#include "axe/runtime/mpi_reshard.h"
#include "axe/runtime/reshard.h"
#include "axe/runtime/reshard_plan.h"
#include "relayout/relayout_benchmark.h"

namespace axe::runtime {

struct MpiReshardBenchmarkOptions {
  int64_t runs = 5;  // timed runs of the reshard and of each baseline (interleaved), 1..1000
  bool check = false;
  uint64_t seed = 1;
  int64_t staging_bytes = kDefaultMpiStagingBytes;  // see MpiReshard
};

struct MpiReshardBenchmarkResult {
  ReshardPlan plan;
  ReshardStats stats;  // of the first, untimed reshard (job-wide)
  double seconds = 0;  // the best reshard (barrier to barrier, into an allocated target)
  // MPI_Alltoallv of exactly the plan's bytes between each pair of ranks, plain buffers.
  double alltoallv_seconds = 0;
  // The same with each rank's local-copy bytes as a block to itself: MPI moving every byte
  // the reshard writes (V_min + the local copies), as the in-process baseline counts.
  double alltoallv_local_seconds = 0;
  // The naive way: every rank's source shard gathered to rank 0 (MPI_Igatherv), then every
  // target shard scattered from it (MPI_Iscatterv); the bytes that crossed between ranks.
  double gather_scatter_seconds = 0;
  int64_t gather_scatter_bytes = 0;
  double gbps = 0, alltoallv_gbps = 0;  // V_min bytes / seconds / 1e9
  int64_t runs = 0;
  relayout::CheckOutcome check =
      relayout::CheckOutcome::kSkipped;  // every rank's target shard vs the host data
};

// On generated data (the same on every rank from `seed`). Errors: options out of range;
// the client is not MPI; DevicePut's, PlanReshard's and MpiReshard's errors.
absl::StatusOr<MpiReshardBenchmarkResult> BenchmarkMpiReshard(
    MpiClient& client, absl::Span<const int64_t> shape, DType dtype, const sharding::Format& from,
    const sharding::Format& to, const MpiReshardBenchmarkOptions& options);

}  // namespace axe::runtime

#endif  // AXE_SRC_RUNTIME_MPI_RESHARD_BENCHMARK_H_
