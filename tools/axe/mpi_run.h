// What the commands that run with --backend mpi share (axe reshard, axe collective,
// axe ir run): the --mpi-timeout option, starting MPI and this rank's client, and ending the
// run after an error.
#ifndef AXE_TOOLS_AXE_MPI_RUN_H_
#define AXE_TOOLS_AXE_MPI_RUN_H_

#include <cstdint>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#ifdef AXE_HAVE_MPI
#include "axe/runtime/mpi_client.h"
#endif

namespace axe::cli {

// Adds --mpi-timeout SECONDS, bound to `seconds` (default 60).
void AddMpiTimeoutOption(CLI::App* cmd, double& seconds);

#ifdef AXE_HAVE_MPI
// Starts MPI (bounded by options.timeout_seconds: MpiInit's watchdog) and makes this rank's
// client, when the launcher runs exactly `devices` ranks (checked before MPI starts, and
// again after). `devices_text` says where the count comes from ("the mesh has 4 devices").
// Errors: "--mpi-timeout: ..." out of range; "--mesh: <devices_text> but <r> MPI ranks run;
// use mpirun -n <devices>"; MpiInit's and MpiClient::Create's.
absl::StatusOr<std::unique_ptr<runtime::MpiClient>> StartMpiRun(
    int64_t devices, const std::string& devices_text, const runtime::MpiClientOptions& options);

// Ends a run that failed with `status` and returns it. An error that every rank returns
// alike (runtime::IsSameOnEveryRank) ends MPI on every rank (MpiFinalize, bounded by the
// client's timeout), so the job ends without mpirun's report of a rank lost; after any other
// error MPI is left as it is (the process exits and mpirun ends the job).
absl::Status EndMpiRun(std::unique_ptr<runtime::MpiClient> client, absl::Status status);
#endif

}  // namespace axe::cli

#endif  // AXE_TOOLS_AXE_MPI_RUN_H_
