// The MPI backend's own benchmarks behind BenchmarkCollective and BenchmarkReshard
// (collective_benchmark.h, reshard_benchmark.h), registered when the first MPI client is
// made.
#include <mutex>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "axe/base/status_macros.h"
#include "axe/runtime/mpi_client.h"
#include "runtime/collective_benchmark.h"
#include "runtime/mpi_collective_benchmark.h"
#include "runtime/mpi_reshard_benchmark.h"
#include "runtime/reshard_benchmark.h"
#include "src/runtime/mpi_state.h"

namespace axe::runtime {
namespace {

absl::StatusOr<CollectiveBenchmarkResult> MpiCollectiveBenchmark(
    Client& client, CollectiveKind kind, const sharding::Mesh& mesh,
    absl::Span<const std::string> axes, absl::Span<const int64_t> shape, DType dtype,
    const CollectiveBenchmarkOptions& options) {
  MpiClient* mpi = AsMpiClient(client);
  if (mpi == nullptr) return absl::InternalError("the MPI benchmark on another backend's client");
  return BenchmarkMpiCollective(*mpi, kind, mesh, axes, shape, dtype, options);
}

absl::StatusOr<ReshardBenchmarkResult> MpiReshardBenchmark(
    Client& client, absl::Span<const int64_t> shape, DType dtype, const sharding::Format& from,
    const sharding::Format& to, const ReshardBenchmarkOptions& options) {
  MpiClient* mpi = AsMpiClient(client);
  if (mpi == nullptr) return absl::InternalError("the MPI benchmark on another backend's client");
  MpiReshardBenchmarkOptions o;
  o.runs = options.runs > 0 ? options.runs : 5;
  o.check = options.check;
  o.seed = options.seed;
  if (options.reshard.transport == ReshardTransport::kStaged) {
    o.staging_bytes = options.reshard.staging_bytes;
  }
  AXE_ASSIGN_OR_RETURN(MpiReshardBenchmarkResult m,
                       BenchmarkMpiReshard(*mpi, shape, dtype, from, to, o));
  ReshardBenchmarkResult r;
  const int64_t kept = m.plan.bytes_kept.empty() ? 0 : m.plan.bytes_kept[0];
  r.plan = std::move(m.plan);
  r.stats = std::move(m.stats);
  r.bytes_written = r.plan.v_min_bytes;  // the bandwidths count V_min
  r.seconds = m.seconds;
  r.baseline_seconds = m.alltoallv_seconds;
  r.gbps = m.gbps;
  r.baseline_gbps = m.alltoallv_gbps;
  r.runs = m.runs;
  r.check = m.check;
  r.message_passing = ReshardBenchmarkResult::MessagePassing{
      m.alltoallv_local_seconds, m.gather_scatter_seconds, m.gather_scatter_bytes,
      mpi->LocalCopiesOnWorker(kept), mpi->own_cpus()};
  return r;
}

}  // namespace

void RegisterMpiBenchmarks() {
  static std::once_flag once;
  std::call_once(once, [] {
    RegisterCollectiveBenchmark("mpi", MpiCollectiveBenchmark);
    RegisterReshardBenchmark("mpi", MpiReshardBenchmark);
  });
}

}  // namespace axe::runtime
