// The in-process backend ("threads", internal): every device of the client in this process,
// each with its own worker thread; a collective or reshard runs one task per device, which
// reads the other devices' memory directly (no messages).
#ifndef AXE_SRC_RUNTIME_THREADS_BACKEND_H_
#define AXE_SRC_RUNTIME_THREADS_BACKEND_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/runtime/backend.h"
#include "axe/runtime/client.h"

namespace axe::runtime::internal {

struct RawRendezvous;  // threads_backend.cc

class ThreadsBackend final : public Backend {
 public:
  // `client` holds every device in this process and outlives the backend.
  ThreadsBackend(Client& client, double timeout_seconds);

  absl::string_view name() const override { return "threads"; }
  absl::Status RunOnDevices(const std::function<absl::Status(int)>& fn) override;

  absl::StatusOr<DeviceValues> AllReduce(const CollectiveCall& call, ReduceOp op,
                                         const DeviceValues& x) override;
  absl::StatusOr<DeviceValues> AllGather(const CollectiveCall& call, const DeviceValues& x,
                                         int64_t dim, bool tiled) override;
  absl::StatusOr<DeviceValues> ReduceScatter(const CollectiveCall& call, ReduceOp op,
                                             const DeviceValues& x, int64_t dim,
                                             bool tiled) override;
  absl::StatusOr<DeviceValues> AllToAll(const CollectiveCall& call, const DeviceValues& x,
                                        int64_t split_axis, int64_t concat_axis,
                                        bool tiled) override;
  absl::StatusOr<DeviceValues> CollectivePermute(const CollectiveCall& call, const DeviceValues& x,
                                                 absl::Span<const int64_t> source_of) override;

  // The raw exchanges, for one device's program on each of several threads (each device calls
  // for itself): the members meet, each copies what it receives from the others' buffers,
  // and none returns before every member has copied (its buffer is read until then).
  absl::Status AllGatherBytes(const CollectiveCall& call, int device, const void* send,
                              int64_t bytes, void* receive) override;
  absl::Status PermuteBytes(const CollectiveCall& call, int device, const void* send, int64_t bytes,
                            absl::Span<const int64_t> source_of, void* receive) override;
  absl::Status AllToAllBytes(const CollectiveCall& call, int device, const void* send,
                             int64_t block, void* receive) override;

  absl::Status ExchangeReshard(const Array& array, Array& out, const ReshardPlan& plan,
                               const ReshardOptions& options, ReshardStats* stats) override;

  // Nothing to wait for: one caller drives every device, and RunOnDevices returns when all
  // of them are done.
  absl::Status Barrier() override { return absl::OkStatus(); }
  double timeout_seconds() const override { return timeout_seconds_; }
  void set_timeout_seconds(double seconds) override { timeout_seconds_ = seconds; }
  bool broken() const override { return broken_.load(); }

 private:
  // Runs fn(device, its group's members, its index) on every device of the call's mesh,
  // through the client (so that a wrapper of this backend sees every device's task).
  absl::Status ForEachMember(
      const CollectiveCall& call,
      const std::function<absl::Status(int, const std::vector<int64_t>&, int64_t)>& fn);
  // RunOnDevices without a timeout: fn by reference, the state on this frame.
  absl::Status RunAndWait(const std::function<absl::Status(int)>& fn, size_t n);
  // The result of a call, zeroed where the mesh leaves devices out.
  absl::StatusOr<DeviceValues> AllocateResult(const CollectiveCall& call, const DeviceValues& x);

  // Where the members of one raw exchange meet: each member's send buffer, then the copies.
  // `copy(senders)` runs on each member once all have arrived (senders[j]: member j's send
  // buffer); Meet returns once every member's copy has run. DeadlineExceeded after the
  // timeout (a member never came; the client is then broken).
  absl::Status Meet(
      const CollectiveCall& call, int device, const void* send,
      const std::function<void(const std::vector<const uint8_t*>& senders, int64_t index)>& copy);

  Client& client_;
  double timeout_seconds_;
  std::atomic<bool> broken_{false};
  std::shared_ptr<RawRendezvous> rendezvous_;
};

}  // namespace axe::runtime::internal

#endif  // AXE_SRC_RUNTIME_THREADS_BACKEND_H_
