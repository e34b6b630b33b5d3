// A rank that dies (`kill`: SIGKILL) or stalls (`stall`: sleeps past the timeout) in the
// middle of a collective, or whose part the fault-injecting backend strikes
// (`injected_kill`: it fails at once; `injected_drop`: it waits out the timeout;
// `injected_delay`: it starts 60 s late), stalls before it creates its client (`stall_create`), or
// is stopped (SIGSTOP) before it initializes MPI (`stop_init`) or before it finalizes MPI
// (`stop_finalize`): the other ranks must return an error within the client's timeout, never
// hang. Rank 0 prints "fault detected: rank 0 got <code> after <t> s: <message>" (what ctest
// looks for); every survivor then ends the job with MPI_Abort (the lost rank cannot finish).
// The survivors are waiting in the collective's first exchange when the rank is lost. In
// `stop_init` and `stop_finalize` they cannot return (MPI_Init and MPI_Finalize do not):
// MpiInit's or MpiFinalize's watchdog ends each of them with "axe: error: rank <r>: MPI
// initialisation: no answer from the other ranks within 2 s ..." (or "MPI finalisation"; what
// ctest looks for), and mpirun then ends the job.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "axe/runtime/collectives.h"
#include "axe/runtime/mpi_client.h"
#include "axe/runtime/testing/fault_backend.h"
#include "axe/sharding/mesh.h"

namespace {

using axe::runtime::DeviceValues;
using axe::runtime::ReduceOp;
using axe::runtime::testing::FaultedCall;

// Prints what rank 0 must print when `s` is an error that came within 3 timeouts.
void Report(int me, const absl::Status& s, double took, double timeout) {
  std::printf("rank %d: %s after %.2f s: %s\n", me, s.ok() ? "no error" : "error", took,
              std::string(s.message()).c_str());
  if (me == 0 && !s.ok() && took < 3 * timeout) {
    std::printf("fault detected: rank 0 got %s after %.2f s: %s\n",
                absl::StatusCodeToString(s.code()).c_str(), took, std::string(s.message()).c_str());
  }
  std::fflush(stdout);
}

// Rank 1 stalls before creating its client; the others' Create must fail in time.
int RunStallCreate(double timeout) {
  const int me = axe::runtime::MpiWorldRank();
  if (me == 1) sleep(60);  // the job is aborted before
  const auto start = std::chrono::steady_clock::now();
  auto client = axe::runtime::MpiClient::Create({.timeout_seconds = timeout});
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  Report(me, client.status(), took.count(), timeout);
  if (client.ok()) static_cast<void>(client->release());  // MPI may still use it: keep it
  sleep(1);
  axe::runtime::MpiAbort(client.ok() ? 1 : 0);
}

// Rank 1 stops once the job is up; the others' MpiFinalize must end them within its timeout.
int RunStopFinalize() {
  auto client = axe::runtime::MpiClient::Create({.timeout_seconds = 2});
  if (!client.ok()) return 3;
  if (axe::runtime::MpiWorldRank() == 1) raise(SIGSTOP);  // mpirun kills it at the end
  client->reset();
  axe::runtime::MpiFinalize(2);
  std::printf("rank %d: MPI finalized without rank 1\n", axe::runtime::MpiLaunchedWorldRank());
  return 1;
}

int Run(const std::string& mode) {
  const double timeout = 3;
  if (mode == "stall_create") return RunStallCreate(timeout);
  if (mode == "stop_finalize") return RunStopFinalize();
  auto client = axe::runtime::MpiClient::Create({.timeout_seconds = timeout});
  if (!client.ok()) return 3;
  const int me = (*client)->rank(), n = (*client)->num_devices();
  auto mesh = axe::sharding::Mesh::Parse("x=" + std::to_string(n));
  if (!mesh.ok()) return 3;
  const std::vector<std::string> axes = {"x"};
  absl::StatusOr<DeviceValues> v =
      DeviceValues::Allocate(**client, {1 << 16}, axe::DType::kF32, true);
  if (!v.ok() || !axe::runtime::AllReduce(*mesh, axes, ReduceOp::kSum, *v).ok()) return 3;
  if (mode.rfind("injected_", 0) == 0) {
    // The fault backend strikes rank 1's part of the next all-reduce; rank 1 does not die.
    using axe::runtime::testing::FaultKind;
    const FaultKind kind = mode == "injected_kill"   ? FaultKind::kKill
                           : mode == "injected_drop" ? FaultKind::kDrop
                                                     : FaultKind::kDelay;
    if (!axe::runtime::testing::InjectFault(
             **client,
             {.kind = kind, .device = 1, .call = FaultedCall::kAllReduce, .delay_seconds = 60})
             .ok()) {
      return 3;
    }
  } else if (me == 1) {
    if (mode == "kill") raise(SIGKILL);
    sleep(60);  // stall: far past the others' timeout (the job is aborted before)
  }
  const auto start = std::chrono::steady_clock::now();
  absl::Status s = axe::runtime::AllReduce(*mesh, axes, ReduceOp::kSum, *v).status();
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  Report(me, s, took.count(), timeout);
  sleep(1);                                // let the other survivors print
  axe::runtime::MpiAbort(s.ok() ? 1 : 0);  // the lost rank cannot finish: end the job
}

}  // namespace

// Rank 1 stops before MPI starts; the others' MpiInit must end them within its timeout.
int RunStopInit(int argc, char** argv) {
  if (axe::runtime::MpiLaunchedWorldRank() == 1) raise(SIGSTOP);  // mpirun kills it at the end
  if (!axe::runtime::MpiInit(&argc, &argv, 2).ok()) return 3;
  std::printf("rank %d: MPI initialized without rank 1\n", axe::runtime::MpiWorldRank());
  std::fflush(stdout);
  axe::runtime::MpiAbort(1);
}

int main(int argc, char** argv) {
  const std::set<std::string> modes = {"kill",          "stall",         "stall_create",
                                       "stop_init",     "stop_finalize", "injected_kill",
                                       "injected_drop", "injected_delay"};
  if (argc != 2 || modes.count(argv[1]) == 0) {
    std::fprintf(stderr,
                 "usage: axe_mpi_fault kill|stall|stall_create|stop_init|stop_finalize|"
                 "injected_kill|injected_drop|injected_delay (under mpirun -n 3 or more)\n");
    return 2;
  }
  if (std::strcmp(argv[1], "stop_init") == 0) return RunStopInit(argc, argv);
  if (!axe::runtime::MpiInit(&argc, &argv).ok()) return 3;
  if (axe::runtime::MpiWorldSize() < 2) {
    std::fprintf(stderr, "axe_mpi_fault needs at least 2 ranks\n");
    return 2;
  }
  return Run(argv[1]);
}
