// Moving the interpreter's values into and out of a runtime client's devices, and running a
// collective equation with the runtime's collectives (internal to src/ir; target
// axe_ir_run).
#ifndef AXE_SRC_IR_EVAL_DEVICE_BYTES_H_
#define AXE_SRC_IR_EVAL_DEVICE_BYTES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "axe/ir/jaxpr.h"
#include "axe/runtime/client.h"
#include "axe/runtime/collectives.h"
#include "axe/runtime/device_values.h"
#include "axe/sharding/mesh.h"
#include "eval_spmd.h"

namespace axe::ir::internal {

// Position p's value on device mesh.DeviceAtPosition(p) (zeros on the client's other
// devices), in the dtype's bytes.
absl::StatusOr<runtime::DeviceValues> ToDevices(runtime::Client& client, const sharding::Mesh& mesh,
                                                const Replicas& x);
// Every mesh position's value back from its device, typed `aval`.
absl::StatusOr<Replicas> FromDevices(const runtime::DeviceValues& v, const sharding::Mesh& mesh,
                                     const ShapedArray& aval);

// The runtime collective of a communicating collective equation (collectives.h: the
// client's backend runs it).
absl::StatusOr<runtime::DeviceValues> RunRuntimeCollective(const sharding::Mesh& mesh,
                                                           const Eqn& eqn,
                                                           const std::vector<std::string>& axes,
                                                           const runtime::DeviceValues& x);

// Position `position`'s value back from its device, typed `aval`.
absl::StatusOr<HostArray> FromDevice(const runtime::DeviceValues& v, const sharding::Mesh& mesh,
                                     int64_t position, const ShapedArray& aval);

}  // namespace axe::ir::internal

#endif  // AXE_SRC_IR_EVAL_DEVICE_BYTES_H_
