// The MPI backend ("mpi"): one device per rank; the collectives and the reshard exchange
// move data with MPI's non-blocking point-to-point calls, every wait bounded by the client's
// timeout (mpi_client.h, mpi_collectives.h, mpi_reshard.h).
#include <functional>
#include <memory>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/runtime/mpi_reshard.h"
#include "src/runtime/mpi_state.h"

namespace axe::runtime {
namespace {

class MpiBackend final : public Backend {
 public:
  explicit MpiBackend(MpiClient& client) : client_(client) {}

  absl::string_view name() const override { return "mpi"; }

  absl::Status RunOnDevices(const std::function<absl::Status(int)>& fn) override {
    const int rank = client_.rank();
    absl::Status s = fn(rank);
    if (s.ok()) return s;
    absl::Status prefixed(s.code(), absl::StrCat("device ", rank, ": ", s.message()));
    s.ForEachPayload([&prefixed](absl::string_view url, const absl::Cord& payload) {
      prefixed.SetPayload(url, payload);
    });
    return prefixed;
  }

  absl::Status AgreeOnCall(absl::string_view what,
                           absl::FunctionRef<std::string()> describe) override {
    return runtime::AgreeOnCall(client_, what, describe());
  }

  absl::StatusOr<DeviceValues> AllReduce(const CollectiveCall& call, ReduceOp op,
                                         const DeviceValues& x) override {
    return MpiBackendAllReduce(client_, call, op, x);
  }
  absl::StatusOr<DeviceValues> AllGather(const CollectiveCall& call, const DeviceValues& x,
                                         int64_t dim, bool) override {
    return MpiBackendAllGather(client_, call, x, dim);
  }
  absl::StatusOr<DeviceValues> ReduceScatter(const CollectiveCall& call, ReduceOp op,
                                             const DeviceValues& x, int64_t dim, bool) override {
    return MpiBackendReduceScatter(client_, call, op, x, dim);
  }
  absl::StatusOr<DeviceValues> AllToAll(const CollectiveCall& call, const DeviceValues& x,
                                        int64_t split_axis, int64_t concat_axis,
                                        bool tiled) override {
    return MpiBackendAllToAll(client_, call, x, split_axis, concat_axis, tiled);
  }
  absl::StatusOr<DeviceValues> CollectivePermute(const CollectiveCall& call, const DeviceValues& x,
                                                 absl::Span<const int64_t> source_of) override {
    return MpiBackendCollectivePermute(client_, call, x, source_of);
  }

  absl::Status AllGatherBytes(const CollectiveCall& call, int device, const void* send,
                              int64_t bytes, void* receive) override {
    AXE_RETURN_IF_ERROR(CheckOwnDevice(call, device));
    return MpiBackendAllGatherBytes(client_, call, send, bytes, receive);
  }
  absl::Status PermuteBytes(const CollectiveCall& call, int device, const void* send, int64_t bytes,
                            absl::Span<const int64_t> source_of, void* receive) override {
    AXE_RETURN_IF_ERROR(CheckOwnDevice(call, device));
    return MpiBackendPermuteBytes(client_, call, send, bytes, source_of, receive);
  }
  absl::Status AllToAllBytes(const CollectiveCall& call, int device, const void* send,
                             int64_t block, void* receive) override {
    AXE_RETURN_IF_ERROR(CheckOwnDevice(call, device));
    return MpiBackendAllToAllBytes(client_, call, send, block, receive);
  }

  // A message-passing transport always stages what MPI cannot address in place: bounded
  // by options.staging_bytes when the caller asks for kStaged, else by the MPI default.
  absl::Status ExchangeReshard(const Array& array, Array& out, const ReshardPlan& plan,
                               const ReshardOptions& options, ReshardStats* stats) override {
    const int64_t staging = options.transport == ReshardTransport::kStaged
                                ? options.staging_bytes
                                : kDefaultExchangeStagingBytes;
    return MpiExchangeReshard(client_, array, out, plan, staging, stats);
  }
  void ReleaseStaging() override {
    client_.state().send_staging = DeviceBuffer();
    client_.state().receive_staging = DeviceBuffer();
  }

  absl::Status Barrier() override { return MpiBarrier(client_, "barrier"); }
  double timeout_seconds() const override { return client_.timeout_seconds(); }
  void set_timeout_seconds(double seconds) override { client_.set_timeout_seconds(seconds); }
  bool broken() const override { return client_.broken(); }

 private:
  // A raw exchange moves this rank's own device's bytes only.
  absl::Status CheckOwnDevice(const CollectiveCall& call, int device) const {
    if (device == client_.rank()) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        call.what, ": rank ", client_.rank(), " holds device ", client_.rank(), ", not ", device));
  }

  MpiClient& client_;
};

}  // namespace

std::unique_ptr<Backend> MakeMpiBackend(MpiClient& client) {
  return std::make_unique<MpiBackend>(client);
}

}  // namespace axe::runtime
