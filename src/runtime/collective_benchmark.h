// Times one collective over mesh axes on generated data next to a baseline measured in the
// same run, and reports bus bandwidth (nccl-tests' convention). `axe collective` prints it.
//
// The CLI's five collectives, on a value of `shape` per device: all_reduce (sum),
// all_gather (tiled, dimension 0), reduce_scatter (sum, tiled, dimension 0), all_to_all
// (tiled, split and concat dimension 0) and permute (a ring: member i sends to i + 1 mod n).
// Sizes: S = the bytes of one device's input (all_gather: of its output); algbw = S / t;
// busbw = algbw x factor: all_reduce 2 (n-1)/n, all_gather, reduce_scatter and all_to_all
// (n-1)/n, permute 1 (n: the group size).
//
// Baselines: in-process, memcpy on every device's thread of the bytes its result holds; MPI
// (mpi_collective_benchmark.h, registered by the MPI backend), the MPI library's own
// collective on the same communicator.
#ifndef AXE_SRC_RUNTIME_COLLECTIVE_BENCHMARK_H_
#define AXE_SRC_RUNTIME_COLLECTIVE_BENCHMARK_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/base/dtype.h"
#include "axe/base/memory_budget.h"
#include "axe/runtime/client.h"
#include "axe/sharding/mesh.h"
#include "relayout/relayout_benchmark.h"

namespace axe::runtime {

enum class CollectiveKind { kAllReduce, kAllGather, kReduceScatter, kAllToAll, kPermute };

// "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "permute".
absl::string_view CollectiveKindName(CollectiveKind kind);
// Errors (InvalidArgument): any other text, listing the five names.
absl::StatusOr<CollectiveKind> ParseCollectiveKind(absl::string_view text);

struct CollectiveBenchmarkOptions {
  int64_t runs = 5;  // timed runs of the collective and of the baseline, interleaved; 1..1000
  bool check = false;
  uint64_t seed = 1;
  // The in-process benchmark refuses what exceeds it (CheckCollectiveMemory); nullopt: the
  // budget when the run starts (ResolveMemoryBudget).
  std::optional<MemoryBudget> memory;
  // Called after each timed run with the runs done so far (a progress report); may be empty.
  std::function<void(int64_t runs_done)> on_run;
};

struct CollectiveBenchmarkResult {
  std::vector<int64_t> output_shape;
  int64_t group_size = 1;
  int64_t size_bytes = 0;  // S
  double bus_factor = 1;
  double seconds = 0, baseline_seconds = 0;  // the best runs
  double algbw_gbps = 0, busbw_gbps = 0, baseline_busbw_gbps = 0;
  std::string baseline;  // what the baseline is, in words
  int64_t runs = 0;
  relayout::CheckOutcome check =
      relayout::CheckOutcome::kSkipped;  // every device's result vs a host reference
};

// The bytes a process running `devices_here` of the benchmark's devices holds at once
// (inputs with their host copies, the result, the baseline pair, the timed run's result, and
// with `check` one group's inputs and reference), checked against `budget` before anything
// is allocated. Errors: DescribeCollective's and MakeCollectiveGroups'; ResourceExhausted
// (MemoryBudget::Check's message, naming the collective) when it does not fit.
absl::Status CheckCollectiveMemory(CollectiveKind kind, const sharding::Mesh& mesh,
                                   absl::Span<const std::string> axes,
                                   absl::Span<const int64_t> shape, DType dtype,
                                   int64_t devices_here, bool check, const MemoryBudget& budget);

// On any backend: the client's backend's own benchmark when it registered one
// (RegisterCollectiveBenchmark: MPI's times barrier to barrier next to the MPI library's own
// collective), else the in-process one (next to memcpy). Errors: options out of range;
// CheckCollectiveMemory's; the collective's errors (a shape whose dimension 0 the group size
// does not divide, for the tiled scatters, names it).
absl::StatusOr<CollectiveBenchmarkResult> BenchmarkCollective(
    Client& client, CollectiveKind kind, const sharding::Mesh& mesh,
    absl::Span<const std::string> axes, absl::Span<const int64_t> shape, DType dtype,
    const CollectiveBenchmarkOptions& options);

// A backend's own collective benchmark, for the clients whose backend() is `backend`
// (registered with the backend, backend_registry.h).
using CollectiveBenchmarkFn = absl::StatusOr<CollectiveBenchmarkResult> (*)(
    Client& client, CollectiveKind kind, const sharding::Mesh& mesh,
    absl::Span<const std::string> axes, absl::Span<const int64_t> shape, DType dtype,
    const CollectiveBenchmarkOptions& options);
void RegisterCollectiveBenchmark(absl::string_view backend, CollectiveBenchmarkFn fn);

// Shared with the MPI benchmark. Device d's generated input (the same on every process).
std::vector<uint8_t> CollectiveInput(uint64_t seed, int64_t device, int64_t bytes);
// The bytes member `index` of a group should hold, from the members' inputs in member order.
absl::StatusOr<std::vector<uint8_t>> CollectiveReference(
    CollectiveKind kind, DType dtype, absl::Span<const std::vector<uint8_t>> members,
    int64_t index);
// The result's shape, S, the bus factor, for a group of n. Errors: a negative dimension, a
// size that overflows int64.
absl::Status DescribeCollective(CollectiveKind kind, absl::Span<const int64_t> shape,
                                int element_bytes, int64_t n, CollectiveBenchmarkResult& r);

}  // namespace axe::runtime

#endif  // AXE_SRC_RUNTIME_COLLECTIVE_BENCHMARK_H_
