// Ending a failed run on a backend with one device per process (tools/axe/mpi_run.h), in
// process: the job's error goes to the command's own error stream, once, marked printed; an
// error of this process alone is left to the caller, the backend not finished.
#include "mpi_run.h"

#include <memory>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "axe/runtime/backend.h"
#include "axe/runtime/backend_registry.h"
#include "axe/runtime/client.h"
#include "error_line.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::cli {
namespace mpi_run_cli_test {
namespace {

using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;

// A backend like MPI's (one device per process) whose finish is recorded.
struct OneDevicePerProcess {
  bool finished = false;
  runtime::BackendFactory factory;
  OneDevicePerProcess() {
    factory.name = "one_per_process";
    factory.one_device_per_process = true;
    factory.finish = [this](double) { finished = true; };
  }
  BackendRun Run() {
    BackendRun run;
    run.backend = &factory;
    absl::StatusOr<std::unique_ptr<runtime::Client>> client = runtime::Client::InProcess(1);
    EXPECT_THAT(client, IsOk());
    if (client.ok()) run.client = *std::move(client);
    return run;
  }
};

TEST(MpiRunCliTest, AJobWideErrorGoesToTheCommandsErrorStream) {
  OneDevicePerProcess backend;
  std::ostringstream err;
  const absl::Status status =
      EndFailedRun(err, backend.Run(),
                   runtime::MarkSameOnEveryRank(absl::InvalidArgumentError("--mesh: 3 devices")));
  EXPECT_EQ(err.str(), "axe: error: --mesh: 3 devices\n");
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument, "--mesh: 3 devices"));
  EXPECT_TRUE(WasPrinted(status));
  EXPECT_TRUE(backend.finished);
}

TEST(MpiRunCliTest, AnErrorOfThisProcessAloneIsLeftToTheCaller) {
  OneDevicePerProcess backend;
  std::ostringstream err;
  const absl::Status status =
      EndFailedRun(err, backend.Run(), absl::DeadlineExceededError("rank 1 did not answer"));
  EXPECT_EQ(err.str(), "");
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kDeadlineExceeded, "rank 1 did not answer"));
  EXPECT_FALSE(WasPrinted(status));
  EXPECT_FALSE(backend.finished);
}

}  // namespace
}  // namespace mpi_run_cli_test
}  // namespace axe::cli
