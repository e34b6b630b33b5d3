// The layout notebook of seed 001 ([LN-1], [LN-3] in spec jax-layout-format.md §4.3), run
// on the runtime: apply_fn(x, y) = (x[0, :], y[:, 0]) on two f32[512,1024] compiled with
// Format(Layout.AUTO) for inputs and outputs, then called four ways:
//
//   -- uncommitted with mismatched layout:     jnp.ones-like arrays, re-laid-out, called
//   -- uncommitted with matching layout:       already in the compiled layouts
//   -- committed with matching layout:         made by an init program compiled with
//                                              out_shardings = the compiled input formats
//   -- committed with mismatched layout:       device_put with Layout((0, 1)): the
//                                              "does not match" error
//
// examples/layout_notebook.cc, its test and `axe tour` print FormatNotebook's text, which
// equals the notebook's output line for line.
#ifndef AXE_JIT_NOTEBOOK_H_
#define AXE_JIT_NOTEBOOK_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "axe/jit/compile.h"
#include "axe/jit/execute.h"
#include "axe/runtime/client.h"

namespace axe::jit {

// jax.make_jaxpr(apply_fn) on two f32[512,1024], as JAX prints it.
extern const char kApplyFnJaxpr[];

struct NotebookCall {
  std::string title;                        // "uncommitted with mismatched layout"
  std::vector<LocalLayout> layouts;         // the arguments' layouts (x, y)
  absl::Status status;                      // the call's outcome
  std::vector<ArgumentRelayout> relayouts;  // what the call re-laid-out
};

struct Notebook {
  Compiled apply;                   // apply_fn compiled with AUTO layouts
  std::vector<NotebookCall> calls;  // the four calls, in the notebook's order
};

// Runs the notebook on `client` (device 0 holds every array). Errors: only failures of the
// steps that must succeed (parsing, compiling, device_put); the calls' outcomes are recorded.
absl::StatusOr<Notebook> RunLayoutNotebook(runtime::Client& client);

// The notebook's printout: per call its title line, "x major_to_minor = (0, 1)", the same for
// y, and "-> `apply` called successfully" or "-> error: mismatched input layouts".
std::string FormatNotebook(const Notebook& notebook);

}  // namespace axe::jit

#endif  // AXE_JIT_NOTEBOOK_H_
