// Timing of an operation on every rank of an MPI client (the MPI benchmark routines).
#ifndef AXE_SRC_RUNTIME_MPI_TIMING_H_
#define AXE_SRC_RUNTIME_MPI_TIMING_H_

#include <mpi.h>

#include <vector>

#include "absl/status/statusor.h"
#include "axe/base/status_macros.h"
#include "bench_timing.h"
#include "mpi_state.h"

namespace axe::runtime::internal {

// Runs `op` between two barriers; the seconds of the slowest rank.
template <typename Op>
absl::StatusOr<double> TimedOnEveryRank(MpiClient& client, Op op) {
  AXE_RETURN_IF_ERROR(MpiBarrier(client, "benchmark barrier"));
  const double t0 = NowSeconds();
  AXE_RETURN_IF_ERROR(op());
  std::vector<double> t{NowSeconds() - t0};
  AXE_RETURN_IF_ERROR(MpiAllreduceInPlace(client, t, MPI_MAX, "benchmark timing"));
  return t[0];
}

}  // namespace axe::runtime::internal

#endif  // AXE_SRC_RUNTIME_MPI_TIMING_H_
