// What the commands that run on a chosen runtime backend share (axe reshard, axe collective,
// axe ir run): the --backend and --mpi-timeout options, starting the backend's run from the
// registry (runtime/backend_registry.h), and ending it, after an error too.
#ifndef AXE_TOOLS_AXE_MPI_RUN_H_
#define AXE_TOOLS_AXE_MPI_RUN_H_

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "axe/runtime/backend_registry.h"
#include "axe/runtime/client.h"

namespace axe::cli {

// Adds --mpi-timeout SECONDS, bound to `seconds` (default 60).
void AddMpiTimeoutOption(CLI::App* cmd, double& seconds);

// The --backend option's help: the registered backends, one phrase each.
std::string BackendOptionHelp();

// The backend --backend names. Errors: "--backend: unknown backend 'gpu'; this axe has
// threads, mpi".
absl::StatusOr<const runtime::BackendFactory*> FindBackendOption(const std::string& name);

// A run on a backend: its factory and this process's client.
struct BackendRun {
  const runtime::BackendFactory* backend = nullptr;
  std::unique_ptr<runtime::Client> client;
  double timeout_seconds = 0;
  // Whether this process prints the run's output (the one that holds device 0).
  bool prints() const { return client == nullptr || client->IsAddressable(0); }
};

// Starts `backend` for a run on options.devices devices (MPI: MpiInit bounded by the
// timeout, and exactly that many ranks). Errors: the backend's start errors.
absl::StatusOr<BackendRun> StartRun(const runtime::BackendFactory& backend,
                                    const runtime::BackendRunOptions& options);

// Ends a run that succeeded: its client destroyed, then the backend finished (MPI:
// MpiFinalize bounded by the timeout).
void EndRun(BackendRun run);

// Ends a run that failed with `status` and returns it. On a backend with one device per
// process, an error that every process returns alike (runtime::IsSameOnEveryRank) is printed
// on `err` (the command's error stream) once, from rank 0, while every process is still in
// the run, and marked printed (MarkPrinted); then the run ends normally, so that the job ends
// without the launcher's report of a rank lost; after any other error the backend is left as
// it is (the process exits and the launcher ends the job).
absl::Status EndFailedRun(std::ostream& err, BackendRun run, absl::Status status);

}  // namespace axe::cli

#endif  // AXE_TOOLS_AXE_MPI_RUN_H_
