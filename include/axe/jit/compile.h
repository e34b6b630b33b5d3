// Compiling a jaxpr with a Format per input and output (JAX's AOT path:
// jit(f, in_shardings=..., out_shardings=...).lower(...).compile()): every AUTO layout is
// resolved by the cost model (auto_layout.h), every given sharding is checked against its
// value, and the executable reports the formats it was compiled for.
//
//   Compiled c = *Compile(jaxpr, {Format(AUTO), Format(AUTO)}, {Format(AUTO), Format(AUTO)});
//   *c.input_formats()[1].local_layout();   // Layout(major_to_minor=(1, 0), ...)
//
// This is the compile step and its queries; execute.h runs a Compiled on the runtime's
// arrays and jit.h is jit called like a function (resolution per call, a cache).
#ifndef AXE_JIT_COMPILE_H_
#define AXE_JIT_COMPILE_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "axe/ir/jaxpr.h"
#include "axe/jit/auto_layout.h"
#include "axe/jit/device_assignment.h"
#include "axe/jit/layout_rules.h"
#include "axe/sharding/format.h"
#include "axe/sharding/sharding.h"

namespace axe::jit {

// jit's donate_argnums: inputs whose buffers the program may reuse for an output. Each
// donated input is paired with the first not yet paired output of the same shape and element
// type (as XLA aliases them).
struct CompileOptions {
  std::vector<size_t> donate_argnums;
  // The actual arguments, when known: only to name them in the incompatible-devices error.
  std::vector<ArgumentPlacement> arguments;
};

class Compiled {
 public:
  // One per input / output (Format::Compiled): always a concrete layout (local_layout() is
  // never null); the sharding the user gave, none where the program was left to choose it.
  const std::vector<Format>& input_formats() const { return input_formats_; }
  const std::vector<Format>& output_formats() const { return output_formats_; }
  // The cost model's decisions, one per AUTO value.
  const LayoutPlan& plan() const { return plan_; }
  const ir::ClosedJaxpr& jaxpr() const { return jaxpr_; }
  // (donated input, output it aliases), one per donated input that found an output.
  const std::vector<std::pair<size_t, size_t>>& donations() const { return donations_; }

 private:
  friend absl::StatusOr<Compiled> Compile(ir::ClosedJaxpr jaxpr,
                                          const std::vector<std::optional<Format>>& in_formats,
                                          const std::vector<std::optional<Format>>& out_formats,
                                          const CompileOptions& options);
  ir::ClosedJaxpr jaxpr_;
  std::vector<Format> input_formats_;
  std::vector<Format> output_formats_;
  LayoutPlan plan_;
  std::vector<std::pair<size_t, size_t>> donations_;
};

// `in_formats` / `out_formats`: one entry per jaxpr input / output, or empty (= all none).
// Errors: counts that differ; a sharding that does not fit its value (JAX's rank and
// divisibility texts, naming "jit arguments" / "jit outputs"); a concrete layout of the wrong
// rank (JAX's "One of jit arguments with pytree key path ..." text); the donation rules of
// the donated inputs (a donated input whose layout is AUTO while its output's is
// concrete, or the mirror, with JAX's two messages); a donate_argnums entry out of range;
// input and output shardings on different devices (device_assignment.h, JAX's "Received
// incompatible devices for jitted computation").
absl::StatusOr<Compiled> Compile(ir::ClosedJaxpr jaxpr,
                                 const std::vector<std::optional<Format>>& in_formats,
                                 const std::vector<std::optional<Format>>& out_formats,
                                 const CompileOptions& options = {});

}  // namespace axe::jit

#endif  // AXE_JIT_COMPILE_H_
