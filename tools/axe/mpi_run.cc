#include "mpi_run.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/runtime/backend.h"
#include "cli.h"
#include "error_line.h"

namespace axe::cli {

void AddMpiTimeoutOption(CLI::App* cmd, double& seconds) {
  cmd->add_option("--mpi-timeout", seconds,
                  "With --backend mpi, how long one wait on the other ranks may take, MPI's "
                  "initialisation included, before the run fails (seconds, default 60)");
}

std::string BackendOptionHelp() {
  std::string help;
  for (const std::string& name : runtime::RegisteredBackends()) {
    const runtime::BackendFactory* f = *runtime::FindBackend(name);
    absl::StrAppend(&help, help.empty() ? "" : ", or ", name, " (", f->description, ")");
  }
  return absl::StrCat(help, "; default threads");
}

absl::StatusOr<const runtime::BackendFactory*> FindBackendOption(const std::string& name) {
  absl::StatusOr<const runtime::BackendFactory*> f = runtime::FindBackend(name);
  if (!f.ok()) return InOption("--backend", f.status());
  return f;
}

absl::StatusOr<BackendRun> StartRun(const runtime::BackendFactory& backend,
                                    const runtime::BackendRunOptions& options) {
  BackendRun run;
  run.backend = &backend;
  run.timeout_seconds = options.timeout_seconds;
  AXE_ASSIGN_OR_RETURN(run.client, backend.start(options));
  return run;
}

void EndRun(BackendRun run) {
  run.client.reset();
  run.backend->finish(run.timeout_seconds);
}

absl::Status EndFailedRun(std::ostream& err, BackendRun run, absl::Status status) {
  if (!run.backend->one_device_per_process || !runtime::IsSameOnEveryRank(status) ||
      run.client == nullptr || run.client->ops().broken()) {
    return status;
  }
  // Rank 0 prints the job's error while every rank is still in the run: once it is shut
  // down, a rank that exits first with a failure code makes the launcher end the others.
  if (!status.ok()) {
    PrintErrorLine(err, status);
    status = MarkPrinted(std::move(status));
  }
  EndRun(std::move(run));
  return status;
}

}  // namespace axe::cli
