#include "runtime/mpi_collective_benchmark.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/relayout/element_type.h"
#include "axe/runtime/collectives.h"
#include "axe/runtime/device_values.h"
#include "src/runtime/mpi_state.h"
#include "src/runtime/mpi_timing.h"

namespace axe::runtime {

using relayout::CheckOutcome;
using relayout::ElementBytes;

namespace {

absl::StatusOr<MPI_Datatype> SumType(DType dtype) {
  switch (dtype) {
    case DType::kF32: return MPI_FLOAT;
    case DType::kF64: return MPI_DOUBLE;
    case DType::kS8: return MPI_INT8_T;
    case DType::kS16: return MPI_INT16_T;
    case DType::kS32: return MPI_INT32_T;
    case DType::kS64: return MPI_INT64_T;
    case DType::kU8: return MPI_UINT8_T;
    case DType::kU16: return MPI_UINT16_T;
    case DType::kU32: return MPI_UINT32_T;
    case DType::kU64: return MPI_UINT64_T;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("the MPI library cannot sum ", XlaName(dtype),
                       " for the baseline; use f32, f64 or an integer type of 8 to 64 bits"));
  }
}

absl::StatusOr<DeviceValues> Run(CollectiveKind kind, const sharding::Mesh& mesh,
                                 absl::Span<const std::string> axes, const DeviceValues& x,
                                 int64_t n) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return AllReduce(mesh, axes, ReduceOp::kSum, x);
    case CollectiveKind::kAllGather: return AllGather(mesh, axes, x, 0, true);
    case CollectiveKind::kReduceScatter:
      return ReduceScatter(mesh, axes, ReduceOp::kSum, x, 0, true);
    case CollectiveKind::kAllToAll: return AllToAll(mesh, axes, x, 0, 0, true);
    case CollectiveKind::kPermute: {
      std::vector<std::pair<int64_t, int64_t>> ring;
      for (int64_t i = 0; i < n; ++i) ring.push_back({i, (i + 1) % n});
      return CollectivePermute(mesh, axes, x, ring);
    }
  }
  return absl::InternalError("unknown collective");
}

// The MPI library's own collective with the same bytes, blocking, on `comm`.
absl::Status RunLibrary(CollectiveKind kind, MPI_Comm comm, MPI_Datatype sum_type, int eb,
                        const DeviceValues& x, std::vector<uint8_t>& out, int64_t n,
                        int64_t index) {
  if (comm == MPI_COMM_NULL || x.bytes() == 0) return absl::OkStatus();
  const uint8_t* in = x.data(x.client().addressable_devices()[0]);
  const int bytes = static_cast<int>(x.bytes()), count = static_cast<int>(x.bytes() / eb);
  const int piece = static_cast<int>(x.bytes() / n);
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return MpiStatus(MPI_Allreduce(in, out.data(), count, sum_type, MPI_SUM, comm),
                       "MPI_Allreduce");
    case CollectiveKind::kAllGather:
      return MpiStatus(MPI_Allgather(in, bytes, MPI_BYTE, out.data(), bytes, MPI_BYTE, comm),
                       "MPI_Allgather");
    case CollectiveKind::kReduceScatter:
      return MpiStatus(MPI_Reduce_scatter_block(in, out.data(), static_cast<int>(count / n),
                                                sum_type, MPI_SUM, comm),
                       "MPI_Reduce_scatter_block");
    case CollectiveKind::kAllToAll:
      return MpiStatus(MPI_Alltoall(in, piece, MPI_BYTE, out.data(), piece, MPI_BYTE, comm),
                       "MPI_Alltoall");
    case CollectiveKind::kPermute:
      return MpiStatus(
          MPI_Sendrecv(in, bytes, MPI_BYTE, static_cast<int>((index + 1) % n), 0, out.data(), bytes,
                       MPI_BYTE, static_cast<int>((index + n - 1) % n), 0, comm, MPI_STATUS_IGNORE),
          "MPI_Sendrecv");
  }
  return absl::InternalError("unknown collective");
}

}  // namespace

absl::StatusOr<CollectiveBenchmarkResult> BenchmarkMpiCollective(
    MpiClient& client, CollectiveKind kind, const sharding::Mesh& mesh,
    absl::Span<const std::string> axes, absl::Span<const int64_t> shape, DType dtype,
    const CollectiveBenchmarkOptions& options) {
  if (options.runs < 1 || options.runs > 1000) {
    return absl::InvalidArgumentError(
        absl::StrCat("runs: must be between 1 and 1000, got ", options.runs));
  }
  // Every option that changes the messages (a rank that alone checks, or runs more times,
  // would wait for messages the others never send); the collective agrees on the rest.
  AXE_RETURN_IF_ERROR(
      AgreeOnCall(client, "collective benchmark",
                  absl::StrCat("{", options.runs, " runs, ", options.check ? "check" : "no check",
                               ", seed ", options.seed, "}")));
  AXE_ASSIGN_OR_RETURN(int eb, ElementBytes(dtype));
  MPI_Datatype sum_type = MPI_BYTE;
  if (kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter) {
    AXE_ASSIGN_OR_RETURN(sum_type, SumType(dtype));
  }
  AXE_ASSIGN_OR_RETURN(CollectiveGroups groups, MakeCollectiveGroups(mesh, axes));
  CollectiveBenchmarkResult r;
  AXE_RETURN_IF_ERROR(DescribeCollective(kind, shape, eb, groups.group_size(), r));
  const int64_t n = r.group_size;
  const int64_t input_bytes = kind == CollectiveKind::kAllGather ? r.size_bytes / n : r.size_bytes;
  const int me = client.rank();
  AXE_ASSIGN_OR_RETURN(DeviceValues x,
                       DeviceValues::Allocate(client, {shape.begin(), shape.end()}, dtype));
  const std::vector<uint8_t> mine = CollectiveInput(options.seed, me, input_bytes);
  std::copy(mine.begin(), mine.end(), x.mutable_data(me));
  AXE_ASSIGN_OR_RETURN(DeviceValues out, Run(kind, mesh, axes, x, n));
  AXE_ASSIGN_OR_RETURN(MPI_Comm comm, GroupComm(client, mesh, axes, groups));
  if (options.check) {
    std::vector<int64_t> failed{0};
    if (const auto member = groups.Member(me)) {
      const auto [group, index] = *member;
      std::vector<std::vector<uint8_t>> inputs;
      for (int64_t d : groups.groups[static_cast<size_t>(group)]) {
        inputs.push_back(CollectiveInput(options.seed, d, input_bytes));
      }
      AXE_ASSIGN_OR_RETURN(std::vector<uint8_t> want,
                           CollectiveReference(kind, dtype, inputs, index));
      failed[0] = *out.ToHost(me) == want ? 0 : 1;
    }
    AXE_RETURN_IF_ERROR(MpiAllreduceInPlace(client, failed, MPI_SUM, "the check"));
    r.check = failed[0] == 0 ? CheckOutcome::kPassed : CheckOutcome::kFailed;
  }
  const auto member = groups.Member(me);
  const int64_t index = member ? member->second : 0;
  std::vector<uint8_t> library_out(static_cast<size_t>(out.bytes()));
  r.baseline = "the MPI library's own blocking collective on the same communicator";
  r.seconds = r.baseline_seconds = 1e300;
  for (r.runs = 0; r.runs < options.runs; ++r.runs) {
    AXE_ASSIGN_OR_RETURN(double a, internal::TimedOnEveryRank(client, [&] {
                           return RunLibrary(kind, comm, sum_type, eb, x, library_out, n, index);
                         }));
    AXE_ASSIGN_OR_RETURN(double b, internal::TimedOnEveryRank(client, [&] {
                           return Run(kind, mesh, axes, x, n).status();
                         }));
    r.baseline_seconds = std::min(r.baseline_seconds, a);
    r.seconds = std::min(r.seconds, b);
  }
  const auto s = static_cast<double>(r.size_bytes);
  r.algbw_gbps = r.seconds > 0 ? s / r.seconds / 1e9 : 0;
  r.busbw_gbps = r.algbw_gbps * r.bus_factor;
  r.baseline_busbw_gbps = r.baseline_seconds > 0 ? s / r.baseline_seconds / 1e9 * r.bus_factor : 0;
  return r;
}

}  // namespace axe::runtime
