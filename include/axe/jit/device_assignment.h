// jit's rule that every sharding of one computation is on the same devices, in the same
// order (JAX's "Received incompatible devices for jitted computation").
//
// The shardings are taken in JAX's order: the input shardings (a jit in_sharding, or the
// sharding of a committed argument), without repeats, then the explicit output shardings.
// The first one fixes the device assignment (its mesh's devices in mesh order, or the one
// device of a SingleDeviceSharding); the first that differs is the error:
//
//   Received incompatible devices for jitted computation. Got argument x of the program with
//   shape float32[8] and with device ids [0, 1] on platform CPU and explicit output sharding
//   with device ids [2, 3] on platform CPU
//
// An input sharding is named after the first argument stored on exactly its devices, when
// there is one (JAX's wording, that side first); otherwise it is "ARG_SHARDING". Where JAX
// can print the matched side's devices twice, the other side here shows its own devices.
#ifndef AXE_JIT_DEVICE_ASSIGNMENT_H_
#define AXE_JIT_DEVICE_ASSIGNMENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "axe/ir/shaped_array.h"
#include "axe/sharding/sharding.h"

namespace axe::jit {

// The devices a sharding's computation runs on, in order.
std::vector<int64_t> DeviceAssignment(const sharding::Sharding& sharding);

// An argument as the message names it: its name, type and the devices it is stored on.
struct ArgumentPlacement {
  std::string name;
  ir::ShapedArray aval;
  std::vector<int64_t> devices;
};

// `inputs`: one per argument (none: unspecified); `outputs`: one per output (none:
// unspecified); `arguments`: what is known of the actual arguments (may be empty, e.g. when
// compiling for types only); `function`: how the message names the computation.
// Errors: InvalidArgument with JAX's text above.
absl::Status CheckDeviceAssignment(absl::Span<const std::optional<sharding::Sharding>> inputs,
                                   absl::Span<const std::optional<sharding::Sharding>> outputs,
                                   absl::Span<const ArgumentPlacement> arguments,
                                   const std::string& function = "the program");

}  // namespace axe::jit

#endif  // AXE_JIT_DEVICE_ASSIGNMENT_H_
