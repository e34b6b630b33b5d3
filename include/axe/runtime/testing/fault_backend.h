// A fault-injecting backend for tests: it wraps a client's backend (backend.h) and makes one
// chosen device's part of a chosen call go wrong, so that a test can check that every
// collective and reshard then fails with a clear error, never hangs and never returns a
// silently wrong result.
//
//   std::unique_ptr<Client> client = *Client::InProcess(4, {.timeout_seconds = 0.2});
//   ASSERT_OK(testing::InjectFault(*client, {.kind = testing::FaultKind::kDrop, .device = 2}));
//   AllReduce(mesh, {"x"}, ReduceOp::kSum, v);   // DeadlineExceeded: "device 2: no answer ..."
//
// Where the fault strikes. On a client whose process holds every device (the in-process
// backend), it strikes the device's task inside the call (RunOnDevices). On a process that
// holds only some devices (MPI, one per rank), it strikes the whole call on the process that
// holds the device; the other processes then see what their backend makes of a peer that
// never answers (the MPI backend: DeadlineExceeded within the client's timeout).
#ifndef AXE_RUNTIME_TESTING_FAULT_BACKEND_H_
#define AXE_RUNTIME_TESTING_FAULT_BACKEND_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "axe/runtime/client.h"

namespace axe::runtime::testing {

enum class FaultKind {
  // The device dies: from the chosen call on, every part it has fails at once with
  // Unavailable "device <d> was killed (injected fault)".
  kKill,
  // The message the device waits for in the chosen call never arrives: its part waits until
  // the backend's timeout ends the call (DeadlineExceeded). Needs a timeout.
  kDrop,
  // The device's part of the chosen call starts `delay_seconds` late: a correct result when
  // that is within the timeout, else DeadlineExceeded.
  kDelay,
  // A byte of the device's result of the chosen call is flipped after the call, as by a
  // message corrupted on its way in. Backends do not detect this (docs/reliability.md); a
  // comparison with a reference (the benchmarks' --check) does.
  kCorrupt,
};

// The calls a fault can choose (kAny: every collective and reshard).
enum class FaultedCall {
  kAny,
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kPermute,
  kReshard
};

struct Fault {
  FaultKind kind = FaultKind::kKill;
  int device = 0;
  FaultedCall call = FaultedCall::kAny;
  int64_t nth = 0;           // which of the matching calls (0: the first), counted from InjectFault
  double delay_seconds = 0;  // kDelay
};

// "kill", "drop", "delay", "corrupt".
absl::string_view FaultKindName(FaultKind kind);

// Wraps `client`'s backend in one that injects `fault` (the client keeps it until destroyed).
// Errors (InvalidArgument): a device the client does not have, a negative nth or delay;
// (FailedPrecondition) kDrop on a backend without a timeout (it would wait forever).
absl::Status InjectFault(Client& client, const Fault& fault);

}  // namespace axe::runtime::testing

#endif  // AXE_RUNTIME_TESTING_FAULT_BACKEND_H_
