// Arguments described in text, for `axe call` and tests: "uncommitted", "committed",
// optionally followed by the layout the array is stored in and its sharding, as a Layout(...)
// or a Format(...) repr:
//
//   uncommitted
//   committed Layout((1, 0))
//   uncommitted Format(Layout((0, 1)), NamedSharding(Mesh('x': 2), P('x')))
//
// The array holds 0, 1, 2, ... in row-major order (rounded to its element type), on device 0
// when no sharding is given.
#ifndef AXE_JIT_CALL_ARGUMENT_H_
#define AXE_JIT_CALL_ARGUMENT_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/ir/shaped_array.h"
#include "axe/jit/device_assignment.h"
#include "axe/jit/layout_rules.h"
#include "axe/runtime/array.h"
#include "axe/runtime/client.h"

namespace axe::jit {

struct CallArgumentSpec {
  bool committed = false;
  std::optional<LocalLayout> layout;           // none: row-major
  std::optional<sharding::Sharding> sharding;  // none: device 0
};

// Errors (InvalidArgument naming the text position): a first word other than committed /
// uncommitted, an unreadable Layout or Format, a Format with Layout.AUTO (device_put's text),
// a SingleDeviceSharding on a device beyond Mesh::kMaxDevices.
absl::StatusOr<CallArgumentSpec> ParseCallArgumentSpec(absl::string_view text);

// The devices a client needs for the spec's sharding: its largest device id + 1 (1 without
// one).
int64_t DevicesNeeded(const CallArgumentSpec& spec);

// The input formats a call compiles for, as `jit(f, in_shardings=...).lower(*args)` does: where
// `in` gives no sharding for a committed argument, the argument's sharding; where `in` gives
// nothing at all for a committed argument in another layout than the default, its layout too.
// `in` is empty (none given) or one per argument.
std::vector<std::optional<Format>> CallInputFormats(const std::vector<std::optional<Format>>& in,
                                                    const std::vector<CallArgumentSpec>& specs);

// The devices a client needs for a call: the largest device id of any format or argument + 1.
int64_t DevicesNeeded(const std::vector<std::optional<Format>>& formats,
                      const std::vector<CallArgumentSpec>& specs);

// Where each argument of a call sits, for the incompatible-devices message (device 0 when it
// has no sharding).
std::vector<ArgumentPlacement> CallPlacements(const std::vector<ir::ShapedArray>& avals,
                                              const std::vector<CallArgumentSpec>& specs);

// The Format an array of `shape` and `dtype` is stored in as the spec says (no sharding:
// device 0). Errors: a layout of the wrong rank or that XLA cannot express.
absl::StatusOr<Format> CallArgumentFormat(absl::Span<const int64_t> shape, DType dtype,
                                          const CallArgumentSpec& spec);

// The array of `aval` the spec describes. Errors: the sharding or layout do not fit the
// aval (the runtime's texts), an element type the host cannot hold.
absl::StatusOr<runtime::Array> MakeCallArgument(runtime::Client& client,
                                                const ir::ShapedArray& aval,
                                                const CallArgumentSpec& spec);

}  // namespace axe::jit

#endif  // AXE_JIT_CALL_ARGUMENT_H_
