// The rules by which jit, AOT calls, device_put and ShapeDtypeStruct treat device-local
// layouts (spec jax-layout-format.md §4-7), with JAX's error texts. Pure functions over
// Formats: the compiler and the runtime call them; they hold no state.
//
//   ResolveJitInput(LocalLayout((1, 0)), {committed: false, layout: (0, 1), ...})
//   // {kRelayout, (1, 0)}: an uncommitted argument is re-laid-out before the call
//   ResolveJitInput(LocalLayout((1, 0)), {committed: true, layout: (0, 1), ...})
//   // ValueError "Layout passed to jit does not match the layout on the respective arg. ..."
#ifndef AXE_JIT_LAYOUT_RULES_H_
#define AXE_JIT_LAYOUT_RULES_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/ir/shaped_array.h"
#include "axe/sharding/format.h"
#include "axe/sharding/local_layout.h"

namespace axe::jit {

using sharding::AutoLayout;
using sharding::Format;
using sharding::LocalLayout;

// What a jit was given for one argument's layout: none, AUTO, or a concrete layout.
using JitLayout = Format::LayoutChoice;

// The default (row-major) layout of a rank: major_to_minor (0, 1, ..., rank-1), no tiling.
LocalLayout DefaultLayout(size_t rank);

// JAX's is_user_xla_layout_equal: a user layout without tiling is compared on major_to_minor
// only; otherwise the layouts must be equal.
bool UserLayoutMatches(const LocalLayout& user, const LocalLayout& actual);

// One leaf of jit's in_shardings/out_shardings: a Format, a sharding (no layout), or — an
// error — a bare Layout or Layout.AUTO:
//   `jax.jit` does not accept device-local layouts directly. Create a `Format` instance
//   wrapping this device-local layout and pass that to `jit` instead. Got {e}
// Returns the leaf's layout choice.
absl::StatusOr<JitLayout> JitLayoutOfBareLayout(const JitLayout& bare_layout);

// An argument at call time.
struct CallArgument {
  std::string name;  // its pytree key path, e.g. "x" or "args[0]"
  bool committed = false;
  LocalLayout layout;    // its current device-local layout
  ir::ShapedArray aval;  // its abstract value
};

enum class InputAction {
  kDefault,         // compile for the default layout (uncommitted, no jit layout)
  kArgumentLayout,  // compile for the argument's own (non-default) layout: a separate executable
  kJitLayout,       // the argument already has the jit layout
  kRelayout,        // re-lay the (uncommitted) argument out to the jit layout before the call
  kCompilerChoice,  // AUTO for an uncommitted argument: the compiler chooses
};

struct InputResolution {
  InputAction action = InputAction::kDefault;
  std::optional<LocalLayout> layout;  // the layout the call uses (none for kCompilerChoice)
};

// §4.2, per argument of a (non-AOT) jit call. Errors: a committed argument whose layout
// differs from the jit layout (ValueError text of §4.2, with the AUTO addition), a layout whose
// rank differs from the argument's (JAX's "incompatible with its layout annotation" text).
absl::StatusOr<InputResolution> ResolveJitInput(const JitLayout& jit_layout,
                                                const CallArgument& argument);

// §4.3: a compiled object's call. Committed arguments must have exactly the compiled layouts;
// uncommitted ones are re-laid-out (returned: the indices of the arguments to re-lay-out).
// Error (ValueError): both the documents' and current JAX's sentence, then at most five
// mismatches ("the N mismatches" when N < 5, else "5 mismatches out of N").
absl::StatusOr<std::vector<size_t>> CheckCompiledCall(absl::Span<const CallArgument> arguments,
                                                      absl::Span<const LocalLayout> compiled);

// §5: device_put(x, format). `Format(None, None)` is a plain put; otherwise the layout must be
// concrete or none:
//   sharding and layout in `Layout` instance should be concrete. Got layout: {format} for
//   input {aval}
absl::Status CheckDevicePutFormat(const Format& format, absl::string_view aval);

// §5: ShapeDtypeStruct(..., sharding=format) (TypeError):
//   `Layout.AUTO` cannot be used in place of a device-local layout in a `ShapeDtypeStruct`.
//   Got {format}
absl::Status CheckShapeDtypeStructFormat(const Format& format);

// §7: a donated input whose layout is AUTO while its output's is concrete (or the mirror).
absl::Status CheckDonation(const JitLayout& input, const JitLayout& output);

}  // namespace axe::jit

#endif  // AXE_JIT_LAYOUT_RULES_H_
