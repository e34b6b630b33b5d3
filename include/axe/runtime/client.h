// A client: N devices behind one interface, whatever backend holds them.
//
// The in-process backend (Client::InProcess, backend "threads") gives each device its own
// memory (accounted per device, see device.h) and its own worker thread; data moves
// between devices' memories by copies that the receiving device's worker performs. The MPI
// backend (mpi_client.h, one device per rank) implements the same interface: there a process
// addresses only its own device, so code asks addressable_devices() instead of assuming
// all N. What the backends do differently (running on devices, collectives, reshard's
// exchange, barriers, timeouts) is the client's Backend (backend.h), ops().
//
//   std::unique_ptr<Client> client = *Client::InProcess(4);
//   AXE_RETURN_IF_ERROR(client->RunOnDevices([&](int device) -> absl::Status {
//     ...   // runs on every device's worker at once
//     return absl::OkStatus();
//   }));
#ifndef AXE_RUNTIME_CLIENT_H_
#define AXE_RUNTIME_CLIENT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/runtime/backend.h"
#include "axe/runtime/device.h"

namespace axe::runtime {

struct ClientOptions {
  int64_t memory_per_device_bytes = 0;  // 0: unlimited
  // How long RunOnDevices waits for the devices' workers before DeadlineExceeded (0: no
  // limit): for a device that stops answering outside the function it runs (a killed device,
  // testing/fault_backend.h); a function that never returns still refers to the caller's
  // values after the timeout. After a timeout the client is broken: every later call fails
  // at once (FailedPrecondition).
  double timeout_seconds = 0;
};

class Client {
 public:
  // At most this many devices in one process.
  static constexpr int kMaxInProcessDevices = 1024;

  virtual ~Client() = default;

  // `num_devices` devices with worker threads in this process. Errors (InvalidArgument):
  // num_devices outside [1, kMaxInProcessDevices]; a negative memory limit or timeout.
  static absl::StatusOr<std::unique_ptr<Client>> InProcess(int num_devices,
                                                           const ClientOptions& options = {});

  // "threads" for the in-process backend.
  virtual absl::string_view backend() const = 0;
  // Devices in the whole system (ids 0 .. num_devices() - 1).
  virtual int num_devices() const = 0;
  // The devices this process holds memory of, in increasing id order.
  virtual const std::vector<int>& addressable_devices() const = 0;
  virtual bool IsAddressable(int device) const = 0;
  // An addressable device (unchecked: callers ask IsAddressable first).
  virtual Device& device(int id) = 0;

  // Runs fn(device id) on the worker of every addressable device at once and returns when
  // all have finished: OK, or the error of the lowest-numbered failing device, prefixed
  // with "device <id>: " and keeping its code. Calling it from a device's own worker is a
  // FailedPrecondition error (it would wait on itself). ops().RunOnDevices.
  absl::Status RunOnDevices(const std::function<absl::Status(int)>& fn) {
    return ops_->RunOnDevices(fn);
  }

  // The backend's operations (backend.h), which the collectives and reshards dispatch to.
  Backend& ops() const { return *ops_; }
  // Puts `ops` in place of the backend's operations and returns the old ones: a wrapper
  // (the fault-injecting backend of testing/fault_backend.h) takes them in to forward to.
  std::unique_ptr<Backend> ExchangeOps(std::unique_ptr<Backend> ops);

  // Bytes in use and peak per device (index = device id; 0 for non-addressable devices),
  // and a new peak measurement on every device.
  std::vector<int64_t> BytesInUse();
  std::vector<int64_t> PeakBytes();
  void ResetPeaks();

 protected:
  // The derived client's constructor sets its backend; its destructor releases it first
  // (ReleaseOps), while the devices the backend may use still exist.
  void SetOps(std::unique_ptr<Backend> ops) { ops_ = std::move(ops); }
  void ReleaseOps() { ops_.reset(); }

 private:
  std::unique_ptr<Backend> ops_;
};

}  // namespace axe::runtime

#endif  // AXE_RUNTIME_CLIENT_H_
