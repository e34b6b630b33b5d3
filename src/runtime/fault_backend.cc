#include "axe/runtime/testing/fault_backend.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/runtime/array.h"
#include "axe/runtime/backend.h"
#include "axe/runtime/device_values.h"

namespace axe::runtime::testing {
namespace {

// One RunOnDevices call as the faulted device's task sees it: the task waits on it (a dropped
// message, a delay), and the caller closes it when the call is over, waiting for the tasks
// that are still running the caller's function (which refers to the caller's frame).
class CallGate {
 public:
  // Waits up to `seconds` (forever when negative); true when the call closed first.
  bool WaitForClose(double seconds) {
    std::unique_lock<std::mutex> lock(mu_);
    if (seconds < 0) {
      cv_.wait(lock, [&] { return closed_; });
      return true;
    }
    return cv_.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return closed_; });
  }
  // Runs fn() unless the call is closed (then an Aborted error).
  absl::Status RunIfOpen(const std::function<absl::Status()>& fn) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_) return absl::AbortedError("the call was over before the delayed part began");
      ++running_;
    }
    absl::Status s = fn();
    std::lock_guard<std::mutex> lock(mu_);
    if (--running_ == 0) cv_.notify_all();
    return s;
  }
  void Close() {
    std::unique_lock<std::mutex> lock(mu_);
    closed_ = true;
    cv_.notify_all();
    cv_.wait(lock, [&] { return running_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool closed_ = false;
  int running_ = 0;
};

absl::string_view CallName(FaultedCall call) {
  switch (call) {
    case FaultedCall::kAny: return "any call";
    case FaultedCall::kAllReduce: return "all_reduce";
    case FaultedCall::kAllGather: return "all_gather";
    case FaultedCall::kReduceScatter: return "reduce_scatter";
    case FaultedCall::kAllToAll: return "all_to_all";
    case FaultedCall::kPermute: return "ppermute";
    case FaultedCall::kReshard: return "reshard";
  }
  return "?";
}

class FaultBackend final : public Backend {
 public:
  FaultBackend(Client& client, const Fault& fault) : client_(client), fault_(fault) {}
  // The inner backend: set once the wrapper is in the client.
  void Wrap(std::unique_ptr<Backend> inner) { inner_ = std::move(inner); }

  absl::string_view name() const override { return "faults"; }

  absl::Status RunOnDevices(const std::function<absl::Status(int)>& fn) override;
  absl::Status AgreeOnCall(absl::string_view what,
                           absl::FunctionRef<std::string()> describe) override {
    return inner_->AgreeOnCall(what, describe);
  }

  absl::StatusOr<DeviceValues> AllReduce(const CollectiveCall& call, ReduceOp op,
                                         const DeviceValues& x) override {
    return Collective(FaultedCall::kAllReduce, [&] { return inner_->AllReduce(call, op, x); });
  }
  absl::StatusOr<DeviceValues> AllGather(const CollectiveCall& call, const DeviceValues& x,
                                         int64_t dim, bool tiled) override {
    return Collective(FaultedCall::kAllGather,
                      [&] { return inner_->AllGather(call, x, dim, tiled); });
  }
  absl::StatusOr<DeviceValues> ReduceScatter(const CollectiveCall& call, ReduceOp op,
                                             const DeviceValues& x, int64_t dim,
                                             bool tiled) override {
    return Collective(FaultedCall::kReduceScatter,
                      [&] { return inner_->ReduceScatter(call, op, x, dim, tiled); });
  }
  absl::StatusOr<DeviceValues> AllToAll(const CollectiveCall& call, const DeviceValues& x,
                                        int64_t split_axis, int64_t concat_axis,
                                        bool tiled) override {
    return Collective(FaultedCall::kAllToAll,
                      [&] { return inner_->AllToAll(call, x, split_axis, concat_axis, tiled); });
  }
  absl::StatusOr<DeviceValues> CollectivePermute(const CollectiveCall& call, const DeviceValues& x,
                                                 absl::Span<const int64_t> source_of) override {
    return Collective(FaultedCall::kPermute,
                      [&] { return inner_->CollectivePermute(call, x, source_of); });
  }

  absl::Status ExchangeReshard(const Array& array, Array& out, const ReshardPlan& plan,
                               const ReshardOptions& options, ReshardStats* stats) override;
  // The raw exchanges pass through (the faults are injected into the collectives above).
  absl::Status AllGatherBytes(const CollectiveCall& call, int device, const void* send,
                              int64_t bytes, void* receive) override {
    return inner_->AllGatherBytes(call, device, send, bytes, receive);
  }
  absl::Status PermuteBytes(const CollectiveCall& call, int device, const void* send, int64_t bytes,
                            absl::Span<const int64_t> source_of, void* receive) override {
    return inner_->PermuteBytes(call, device, send, bytes, source_of, receive);
  }
  absl::Status AllToAllBytes(const CollectiveCall& call, int device, const void* send,
                             int64_t block, void* receive) override {
    return inner_->AllToAllBytes(call, device, send, block, receive);
  }
  void ReleaseStaging() override { inner_->ReleaseStaging(); }

  absl::Status Barrier() override { return inner_->Barrier(); }
  double timeout_seconds() const override { return inner_->timeout_seconds(); }
  void set_timeout_seconds(double seconds) override { inner_->set_timeout_seconds(seconds); }
  bool broken() const override { return inner_->broken(); }

 private:
  // Whether this call of kind `call` is the faulted one (counts the matching calls).
  bool Strikes(FaultedCall call) {
    if (fault_.call != FaultedCall::kAny && fault_.call != call) return false;
    return seen_++ == fault_.nth;
  }
  // Every device's parts run on this process's device tasks (the in-process backend).
  bool OnDeviceTasks() const {
    return static_cast<int>(client_.addressable_devices().size()) == client_.num_devices();
  }
  absl::Status Killed() const {
    return absl::UnavailableError(
        absl::StrCat("device ", fault_.device, " was killed (injected fault)"));
  }
  // The fault on the device's task: an error, or OK when the part runs (after a delay).
  absl::Status PartFault(CallGate* gate);
  // Runs `forward` (the inner backend's call) with the fault where it strikes.
  template <typename Forward>
  absl::StatusOr<DeviceValues> Collective(FaultedCall call, const Forward& forward);
  // The part of the struck call on a process that holds only some devices.
  absl::Status StrikeProcess();

  Client& client_;
  const Fault fault_;
  std::unique_ptr<Backend> inner_;
  int64_t seen_ = 0;
  bool striking_ = false;  // inside the struck call
  bool killed_ = false;
};

absl::Status FaultBackend::PartFault(CallGate* gate) {
  switch (fault_.kind) {
    case FaultKind::kKill: return Killed();
    case FaultKind::kDrop:
      gate->WaitForClose(-1);  // until the call is over without this part
      return absl::DeadlineExceededError("the message never came (injected fault)");
    case FaultKind::kDelay:
      if (gate->WaitForClose(fault_.delay_seconds)) {
        return absl::AbortedError("the call was over before the delayed part began");
      }
      return absl::OkStatus();
    case FaultKind::kCorrupt: return absl::OkStatus();
  }
  return absl::OkStatus();
}

absl::Status FaultBackend::RunOnDevices(const std::function<absl::Status(int)>& fn) {
  const bool strike = striking_ && OnDeviceTasks() && fault_.kind != FaultKind::kCorrupt;
  if (!strike && !killed_) return inner_->RunOnDevices(fn);
  auto gate = std::make_shared<CallGate>();
  const int target = fault_.device;
  const bool killed = killed_;
  // Every part runs fn only while the call is open: after a timeout the caller's frame, which
  // fn refers to, is gone.
  absl::Status s = inner_->RunOnDevices([this, &fn, gate, target, killed](int device) {
    if (device == target) {
      if (killed) return Killed();
      absl::Status part = PartFault(gate.get());
      if (!part.ok()) return part;
    }
    return gate->RunIfOpen([&] { return fn(device); });
  });
  gate->Close();
  return s;
}

absl::Status FaultBackend::StrikeProcess() {
  switch (fault_.kind) {
    case FaultKind::kKill: return Killed();
    case FaultKind::kDrop: {
      // Wait as a receiver would, then fail as its backend's timeout makes it.
      const double t = inner_->timeout_seconds();
      std::this_thread::sleep_for(std::chrono::duration<double>(t));
      return absl::DeadlineExceededError(absl::StrCat(
          "device ", fault_.device, ": no message within ", t, " s (injected fault: dropped)"));
    }
    case FaultKind::kDelay:
      std::this_thread::sleep_for(std::chrono::duration<double>(fault_.delay_seconds));
      return absl::OkStatus();
    case FaultKind::kCorrupt: return absl::OkStatus();
  }
  return absl::OkStatus();
}

template <typename Forward>
absl::StatusOr<DeviceValues> FaultBackend::Collective(FaultedCall call, const Forward& forward) {
  if (!Strikes(call)) return forward();
  if (fault_.kind == FaultKind::kKill) killed_ = true;
  if (!OnDeviceTasks() && client_.IsAddressable(fault_.device)) {
    AXE_RETURN_IF_ERROR(StrikeProcess());
  }
  striking_ = true;
  absl::StatusOr<DeviceValues> out = forward();
  striking_ = false;
  if (out.ok() && fault_.kind == FaultKind::kCorrupt && client_.IsAddressable(fault_.device) &&
      out->bytes() > 0) {
    out->mutable_data(fault_.device)[0] ^= 0x5a;
  }
  return out;
}

absl::Status FaultBackend::ExchangeReshard(const Array& array, Array& out, const ReshardPlan& plan,
                                           const ReshardOptions& options, ReshardStats* stats) {
  if (!Strikes(FaultedCall::kReshard)) {
    return inner_->ExchangeReshard(array, out, plan, options, stats);
  }
  if (fault_.kind == FaultKind::kKill) killed_ = true;
  if (!OnDeviceTasks() && client_.IsAddressable(fault_.device)) {
    AXE_RETURN_IF_ERROR(StrikeProcess());
  }
  striking_ = true;
  absl::Status s = inner_->ExchangeReshard(array, out, plan, options, stats);
  striking_ = false;
  DeviceBuffer* shard = out.mutable_shard_buffer(fault_.device);
  if (s.ok() && fault_.kind == FaultKind::kCorrupt && shard != nullptr && shard->size() > 0) {
    shard->data()[0] ^= 0x5a;
  }
  return s;
}

}  // namespace

absl::string_view FaultKindName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kKill: return "kill";
    case FaultKind::kDrop: return "drop";
    case FaultKind::kDelay: return "delay";
    case FaultKind::kCorrupt: return "corrupt";
  }
  return "?";
}

absl::Status InjectFault(Client& client, const Fault& fault) {
  if (fault.device < 0 || fault.device >= client.num_devices()) {
    return absl::InvalidArgumentError(absl::StrCat("the fault names device ", fault.device,
                                                   " but the client has ", client.num_devices(),
                                                   " devices"));
  }
  if (fault.nth < 0 || !(fault.delay_seconds >= 0)) {
    return absl::InvalidArgumentError(absl::StrCat("the fault's call number (", fault.nth,
                                                   ") and delay (", fault.delay_seconds,
                                                   " s) must not be negative"));
  }
  if (fault.kind == FaultKind::kDrop && !(client.ops().timeout_seconds() > 0)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "a dropped message on the ", client.ops().name(), " backend of ", CallName(fault.call),
        " would be waited for forever: give the client a "
        "timeout (ClientOptions::timeout_seconds)"));
  }
  auto wrapper = std::make_unique<FaultBackend>(client, fault);
  FaultBackend* raw = wrapper.get();
  raw->Wrap(client.ExchangeOps(std::move(wrapper)));
  return absl::OkStatus();
}

}  // namespace axe::runtime::testing
