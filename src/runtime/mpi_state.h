// MPI handles and helpers shared by the MPI backend's sources (internal; public API in
// include/axe/runtime/mpi_*.h). Everything here runs on the thread that initialized MPI.
#ifndef AXE_SRC_RUNTIME_MPI_STATE_H_
#define AXE_SRC_RUNTIME_MPI_STATE_H_

#include <mpi.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/relayout/strided_box.h"
#include "axe/runtime/array.h"
#include "axe/runtime/backend.h"
#include "axe/runtime/collectives.h"
#include "axe/runtime/device.h"
#include "axe/runtime/device_values.h"
#include "axe/runtime/mpi_client.h"
#include "axe/runtime/reshard.h"
#include "axe/sharding/mesh.h"

namespace axe::runtime {

struct MpiState {
  MPI_Comm world = MPI_COMM_NULL;  // a duplicate of MPI_COMM_WORLD with MPI_ERRORS_RETURN
  // Sub-communicators by "<mesh device order>|<axes>": this rank's group's communicator
  // (MPI_COMM_NULL where this rank is outside the mesh).
  std::map<std::string, MPI_Comm> group_comms;
  bool broken = false;
  // Staging buffers of MpiReshardInto (packed messages to send, received messages), kept
  // between reshards so that repeated ones do not fault fresh pages in; grown as needed.
  DeviceBuffer send_staging, receive_staging;
  // Scratch of the collectives (what a member receives before it folds it, packed pieces),
  // kept between calls and grown as needed, so that repeated calls do not fault fresh pages
  // in; not accounted to the device (a temporary of one call, as a std::vector was).
  std::unique_ptr<uint8_t[]> scratch;
  int64_t scratch_bytes = 0;
  // Buffers that pending requests may still touch after a timeout: kept until exit.
  std::vector<std::shared_ptr<void>> abandoned;

  template <typename T>
  void KeepAlive(T&& object) {
    abandoned.push_back(std::make_shared<std::decay_t<T>>(std::forward<T>(object)));
  }
};

// OK for MPI_SUCCESS, else Internal: "<what>: <MPI's error string>".
absl::Status MpiStatus(int code, absl::string_view what);

// FailedPrecondition when the client is broken (an earlier timeout).
absl::Status CheckUsable(MpiClient& client);

// Completes `requests` by polling MPI_Testall until the client's timeout. On timeout the
// client is marked broken and the result is DeadlineExceeded: "<what>: no answer from the
// other ranks within <t> s (a rank died or stalls)". The caller keeps the buffers of the
// requests alive (MpiState::KeepAlive) when this fails.
absl::Status WaitAll(MpiClient& client, std::vector<MPI_Request>& requests, absl::string_view what);

// Every rank calls this with a text describing its call; OK when all texts are equal, else
// InvalidArgument on every rank: "<what>: the ranks' arguments differ: rank 0 has <text>,
// rank 3 has <text>" (the lowest rank that differs from rank 0).
absl::Status AgreeOnCall(MpiClient& client, absl::string_view what, const std::string& text);

// The communicator of this rank's group in a collective over `axes` of `mesh` (made once by
// MPI_Comm_split with the group as color and the member index as key, then reused);
// MPI_COMM_NULL when this rank is not a device of the mesh.
absl::StatusOr<MPI_Comm> GroupComm(MpiClient& client, const sharding::Mesh& mesh,
                                   absl::Span<const std::string> axes,
                                   const CollectiveGroups& groups);

// values[i] = op over the ranks of values[i] (MPI_Iallreduce on the world communicator,
// bounded by the timeout); op is MPI_SUM, MPI_MAX or MPI_MIN.
absl::Status MpiAllreduceInPlace(MpiClient& client, std::vector<int64_t>& values, MPI_Op op,
                                 absl::string_view what);
absl::Status MpiAllreduceInPlace(MpiClient& client, std::vector<double>& values, MPI_Op op,
                                 absl::string_view what);
// MPI_Ibarrier on the world communicator, bounded by the timeout.
absl::Status MpiBarrier(MpiClient& client, absl::string_view what);

// Datatypes made for one exchange, freed together when this goes out of scope (MPI keeps a
// type alive while a pending operation uses it, so they may be freed once it is posted).
class MpiTypes {
 public:
  MpiTypes() = default;
  MpiTypes(const MpiTypes&) = delete;
  MpiTypes& operator=(const MpiTypes&) = delete;
  ~MpiTypes();
  MPI_Datatype Add(MPI_Datatype type);

 private:
  std::vector<MPI_Datatype> types_;
};

// How MPI reads or writes a strided box in place: `count` items of `type` from `base`.
struct MpiBoxView {
  uint8_t* base = nullptr;
  MPI_Datatype type = MPI_BYTE;
  int count = 0;
};

// Below this innermost run, a strided box is packed by a relayout (or a copy loop) rather
// than handed to MPI as a datatype (MPI's datatype engine copies one run at a time).
inline constexpr int64_t kMinInPlaceRunBytes = 512;

// MPI_BYTE x bytes for a contiguous box, else nested MPI_Type_create_hvector over a
// contiguous run (committed; kept in `types`); nullopt when a count does not fit MPI's int.
absl::StatusOr<std::optional<MpiBoxView>> MpiViewOf(const relayout::StridedBox& box,
                                                    uint8_t* buffer, MpiTypes& types);

// The client's collective scratch, at least `bytes` long (MpiState::scratch; not zeroed).
// Errors: ResourceExhausted when the host cannot allocate it.
absl::StatusOr<uint8_t*> Scratch(MpiClient& client, int64_t bytes);

// The view through which MPI can move `box` of a tensor stored at `data` in `layout` in
// place: a contiguous block, or a strided box whose runs are at least kMinInPlaceRunBytes
// (its datatype made into `types`); nullopt when the box must be packed. Errors:
// DescribeStridedBox's and MPI's.
absl::StatusOr<std::optional<MpiBoxView>> MpiInPlaceView(const relayout::BufferLayout& layout,
                                                         absl::Span<const int64_t> shape,
                                                         absl::Span<const Interval> box,
                                                         int element_bytes, const uint8_t* data,
                                                         MpiTypes& types);

// A byte count as MPI's int; InvalidArgument past INT_MAX.
absl::StatusOr<int> MpiCount(int64_t bytes, absl::string_view what);

// Makes BenchmarkCollective and BenchmarkReshard use the MPI benchmarks on MPI clients
// (mpi_benchmarks.cc); MpiClient::Create calls it (once is enough).
void RegisterMpiBenchmarks();

// The MPI backend of `client` (mpi_backend.cc): what MpiClient's constructor installs.
std::unique_ptr<Backend> MakeMpiBackend(MpiClient& client);

// The MPI backend's collectives (mpi_collectives.cc) on checked calls (backend.h), each
// rank passing its own value in x; ranks outside the mesh get zeros. Waits are bounded by
// the client's timeout (DeadlineExceeded).
absl::StatusOr<DeviceValues> MpiBackendAllReduce(MpiClient& client, const CollectiveCall& call,
                                                 ReduceOp op, const DeviceValues& x);
absl::StatusOr<DeviceValues> MpiBackendAllGather(MpiClient& client, const CollectiveCall& call,
                                                 const DeviceValues& x, int64_t dim);
absl::StatusOr<DeviceValues> MpiBackendReduceScatter(MpiClient& client, const CollectiveCall& call,
                                                     ReduceOp op, const DeviceValues& x,
                                                     int64_t dim);
absl::StatusOr<DeviceValues> MpiBackendAllToAll(MpiClient& client, const CollectiveCall& call,
                                                const DeviceValues& x, int64_t split_axis,
                                                int64_t concat_axis, bool tiled);
// The raw exchanges of Backend (backend.h) on this rank's bytes: MPI_Iallgather,
// MPI_Isend/MPI_Irecv, MPI_Ialltoall on the group's communicator, bounded by the timeout.
absl::Status MpiBackendAllGatherBytes(MpiClient& client, const CollectiveCall& call,
                                      const void* send, int64_t bytes, void* receive);
absl::Status MpiBackendPermuteBytes(MpiClient& client, const CollectiveCall& call, const void* send,
                                    int64_t bytes, absl::Span<const int64_t> source_of,
                                    void* receive);
absl::Status MpiBackendAllToAllBytes(MpiClient& client, const CollectiveCall& call,
                                     const void* send, int64_t block, void* receive);
absl::StatusOr<DeviceValues> MpiBackendCollectivePermute(MpiClient& client,
                                                         const CollectiveCall& call,
                                                         const DeviceValues& x,
                                                         absl::Span<const int64_t> source_of);

// The MPI backend's reshard exchange (mpi_reshard.cc, mpi_reshard.h describes it) of a
// checked plan, staging bounded by `staging_bytes` (0: one round).
absl::Status MpiExchangeReshard(MpiClient& client, const Array& array, Array& out,
                                const ReshardPlan& plan, int64_t staging_bytes,
                                ReshardStats* stats);

}  // namespace axe::runtime

#endif  // AXE_SRC_RUNTIME_MPI_STATE_H_
