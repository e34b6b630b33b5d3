#include "mpi_run.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "cli.h"
#include "error_line.h"

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
  // Rank 0 prints the job's error while every rank is still in MPI: once MPI is shut down, a
  // rank that exits first with a failure code makes the launcher end the others.
  if (!status.ok()) {
    PrintErrorLine(status);
    status = MarkPrinted(std::move(status));
  }
  const double timeout = client->timeout_seconds();
  client.reset();
  runtime::MpiFinalize(timeout);
  return status;
}
#endif

}  // namespace axe::cli
