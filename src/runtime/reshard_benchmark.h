// Times a reshard on generated data next to its baseline measured in the same run: a
// memcpy, on the same device threads, of exactly the bytes the reshard writes on each device
// (what it receives, V_min in all, plus what it keeps by a local copy). `axe reshard` and
// bench/reshard_bench.cc print this.
//
//   ReshardBenchmarkResult r = *BenchmarkReshard(*client, {8192, 8192}, DType::kF32,
//                                                *MakeArrayFormat(rows), *MakeArrayFormat(cols));
//   r.seconds / r.baseline_seconds;   // the reshard's time over memcpy of the same bytes
#ifndef AXE_SRC_RUNTIME_RESHARD_BENCHMARK_H_
#define AXE_SRC_RUNTIME_RESHARD_BENCHMARK_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/base/dtype.h"
#include "axe/base/memory_budget.h"
#include "axe/runtime/array.h"
#include "axe/runtime/client.h"
#include "axe/runtime/reshard.h"
#include "axe/runtime/reshard_plan.h"
#include "relayout/relayout_benchmark.h"

namespace axe::runtime {

struct ReshardBenchmarkOptions {
  ReshardOptions reshard;
  // Timed runs (each one reshard and one baseline memcpy, interleaved): exactly this many
  // when > 0 (at most kMaxBenchmarkRuns; timing stops after max_seconds whatever it says);
  // 0: as many as fit in about target_seconds (3 to 50).
  int64_t runs = 0;
  double target_seconds = 0.3;
  double max_seconds = 60;
  // Compare every device's target shard with the host data sliced to its box.
  bool check = false;
  uint64_t seed = 1;  // of the generated data
  // Refuse runs whose buffers exceed this budget; nullopt: the budget when the run starts
  // (ResolveMemoryBudget: AXE_MEMORY_LIMIT, else the cgroup limit or MemAvailable).
  std::optional<MemoryBudget> memory;
  // Called after each timed run with the runs done so far (a progress report); may be empty.
  std::function<void(int64_t runs_done)> on_run;
};

struct ReshardBenchmarkResult {
  ReshardPlan plan;
  ReshardStats stats;           // of the first (untimed) reshard: bytes, messages, peaks
  int64_t bytes_written = 0;    // V_min + the local copies: what the reshard writes
  double seconds = 0;           // the best timed reshard (into an already allocated target)
  double baseline_seconds = 0;  // the best memcpy of the same bytes per device, same threads
  double gbps = 0;              // bytes_written / seconds / 1e9
  double baseline_gbps = 0;     // bytes_written / baseline_seconds / 1e9
  int64_t runs = 0;
  bool stopped_by_time_limit = false;
  relayout::CheckOutcome check = relayout::CheckOutcome::kSkipped;

  // A message-passing backend's own benchmark (MPI's, mpi_reshard_benchmark.h) times the
  // reshard barrier to barrier, the slowest process counting, next to these baselines
  // instead of memcpy (baseline_seconds is then the MPI_Alltoallv of the same bytes).
  struct MessagePassing {
    // MPI_Alltoallv with each process's local bytes as a block to itself as well.
    double alltoallv_local_seconds = 0;
    // Every source shard gathered to one process, then every target shard scattered.
    double gather_scatter_seconds = 0;
    int64_t gather_scatter_bytes = 0;
    bool local_copies_on_worker = false;  // where process 0 copied the bytes it keeps
    int own_cpus = 1;                     // the CPUs process 0 has to itself
  };
  std::optional<MessagePassing> message_passing;
};

// On any backend: the client's backend's own benchmark when it registered one
// (RegisterReshardBenchmark; MPI's), else the in-process one. Errors: options out of range
// (naming the field); ResourceExhausted when the buffers would exceed the memory budget;
// DevicePut's, PlanReshard's and Reshard's errors (a target the array cannot take names what
// differs).
absl::StatusOr<ReshardBenchmarkResult> BenchmarkReshard(Client& client,
                                                        absl::Span<const int64_t> shape,
                                                        DType dtype, const sharding::Format& from,
                                                        const sharding::Format& to,
                                                        const ReshardBenchmarkOptions& options);

// A backend's own reshard benchmark, for the clients whose backend() is `backend`.
using ReshardBenchmarkFn = absl::StatusOr<ReshardBenchmarkResult> (*)(
    Client& client, absl::Span<const int64_t> shape, DType dtype, const sharding::Format& from,
    const sharding::Format& to, const ReshardBenchmarkOptions& options);
void RegisterReshardBenchmark(absl::string_view backend, ReshardBenchmarkFn fn);

// The bytes one rank of the MPI reshard benchmark (mpi_reshard.h's BenchmarkMpiReshard on
// `ranks` ranks) holds at once, checked against `budget` before MPI starts: the generated
// global data (on every rank), its source and target shard, the exchange baselines' buffers,
// the gather baseline's (the whole array on rank 0, counted on every rank), the staging
// buffers and, with `check`, the expected shard. Errors: MakeShardStorage's;
// ResourceExhausted (MemoryBudget::Check's message) when it does not fit.
absl::Status CheckMpiReshardMemory(absl::Span<const int64_t> shape, DType dtype,
                                   const sharding::Format& from, const sharding::Format& to,
                                   int64_t ranks, bool check, int64_t staging_bytes,
                                   const MemoryBudget& budget);

}  // namespace axe::runtime

#endif  // AXE_SRC_RUNTIME_RESHARD_BENCHMARK_H_
