// The "mpi" backend in the registry (backend_registry.h). Built as an object library
// (axe::runtime_mpi_registration) so that a program that links it always keeps the registration.
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/runtime/backend_registry.h"
#include "axe/runtime/mpi_client.h"

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

}  // namespace

AXE_RUNTIME_BACKEND(MpiFactory);

}  // namespace axe::runtime
