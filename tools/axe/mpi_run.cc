#include "mpi_run.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "cli.h"

namespace axe::cli {

void AddMpiTimeoutOption(CLI::App* cmd, double& seconds) {
  cmd->add_option("--mpi-timeout", seconds,
                  "With --backend mpi, how long one wait on the other ranks may take, MPI's "
                  "initialisation included, before the run fails (seconds, default 60)");
}

#ifdef AXE_HAVE_MPI
absl::StatusOr<std::unique_ptr<runtime::MpiClient>> StartMpiRun(
    int64_t devices, const std::string& devices_text, const runtime::MpiClientOptions& options) {
  if (absl::Status s = runtime::CheckMpiTimeout(options.timeout_seconds); !s.ok()) {
    return InOption("--mpi-timeout", s);
  }
  // Checked before MPI starts (the launcher says how many ranks run), then again after.
  for (bool started : {false, true}) {
    if (started) AXE_RETURN_IF_ERROR(runtime::MpiInit(nullptr, nullptr, options.timeout_seconds));
    const int ranks = started ? runtime::MpiWorldSize() : runtime::MpiLaunchedWorldSize();
    if (devices != ranks) {
      return InOption(
          "--mesh", absl::InvalidArgumentError(absl::StrCat(
                        devices_text, " but ", ranks, " MPI ranks run; use mpirun -n ", devices)));
    }
  }
  return runtime::MpiClient::Create(options);
}

absl::Status EndMpiRun(std::unique_ptr<runtime::MpiClient> client, absl::Status status) {
  if (!runtime::IsSameOnEveryRank(status) || client == nullptr || client->broken()) return status;
  const double timeout = client->timeout_seconds();
  client.reset();
  runtime::MpiFinalize(timeout);
  return status;
}
#endif

}  // namespace axe::cli
