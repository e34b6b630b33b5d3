// The "mpi" backend in the registry (backend_registry.h), with its own collective and
// reshard benchmarks. Built as an object library (axe::runtime_mpi_registration) so that a
// program that links it always keeps the registration.
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/runtime/backend_registry.h"
#include "axe/runtime/mpi_client.h"
#include "axe/runtime/mpi_reshard.h"
#include "runtime/collective_benchmark.h"
#include "runtime/mpi_collective_benchmark.h"
#include "runtime/mpi_reshard_benchmark.h"
#include "runtime/reshard_benchmark.h"

namespace axe::runtime {
namespace {

absl::Status InOption(absl::string_view option, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(option, ": ", status.message()));
}

// Starts MPI (bounded by the timeout: MpiInit's watchdog) and makes this rank's client when
// the launcher runs exactly o.devices ranks (checked before MPI starts, and again after).
absl::StatusOr<std::unique_ptr<Client>> StartMpi(const BackendRunOptions& o) {
  if (absl::Status s = CheckMpiTimeout(o.timeout_seconds); !s.ok()) {
    return InOption(o.timeout_option, s);
  }
  LocalCopyThread local = LocalCopyThread::kAuto;
  if (o.local_copies == "worker") local = LocalCopyThread::kWorker;
  if (o.local_copies == "caller") local = LocalCopyThread::kCaller;
  for (bool started : {false, true}) {
    if (started) AXE_RETURN_IF_ERROR(MpiInit(nullptr, nullptr, o.timeout_seconds));
    const int ranks = started ? MpiWorldSize() : MpiLaunchedWorldSize();
    if (o.devices != ranks) {
      return absl::InvalidArgumentError(absl::StrCat(o.devices_option, ": ", o.devices_text,
                                                     " but ", ranks,
                                                     " MPI ranks run; use mpirun -n ", o.devices));
    }
  }
  AXE_ASSIGN_OR_RETURN(
      std::unique_ptr<MpiClient> client,
      MpiClient::Create({.timeout_seconds = o.timeout_seconds, .local_copies = local}));
  return std::unique_ptr<Client>(std::move(client));
}

BackendFactory MpiFactory() {
  BackendFactory f;
  f.name = "mpi";
  f.description = "one device per MPI rank (under mpirun -n <devices>; rank 0 prints)";
  f.one_device_per_process = true;
  f.start = StartMpi;
  f.finish = [](double timeout_seconds) { MpiFinalize(timeout_seconds); };
  return f;
}

absl::StatusOr<CollectiveBenchmarkResult> MpiCollectiveBenchmark(
    Client& client, CollectiveKind kind, const sharding::Mesh& mesh,
    absl::Span<const std::string> axes, absl::Span<const int64_t> shape, DType dtype,
    const CollectiveBenchmarkOptions& options) {
  MpiClient* mpi = AsMpiClient(client);
  if (mpi == nullptr) return absl::InternalError("the MPI benchmark on another backend's client");
  return BenchmarkMpiCollective(*mpi, kind, mesh, axes, shape, dtype, options);
}

absl::StatusOr<ReshardBenchmarkResult> MpiReshardBenchmark(Client& client,
                                                           absl::Span<const int64_t> shape,
                                                           DType dtype, const ArrayFormat& from,
                                                           const ArrayFormat& to,
                                                           const ReshardBenchmarkOptions& options) {
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

struct Registrations {
  Registrations() {
    RegisterCollectiveBenchmark("mpi", MpiCollectiveBenchmark);
    RegisterReshardBenchmark("mpi", MpiReshardBenchmark);
  }
};
const Registrations kRegistrations;

}  // namespace

AXE_RUNTIME_BACKEND(MpiFactory);

}  // namespace axe::runtime
