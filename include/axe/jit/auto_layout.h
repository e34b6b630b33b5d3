// Choosing Layout.AUTO layouts with a cost model that explains itself (issue: layout control;
// spec jax-layout-format.md §7).
//
// For every AUTO input the model enumerates candidate device-local layouts (every permutation
// of major_to_minor up to rank 4; beyond, the default and each "dim k most minor" rotation)
// and estimates the bytes the program moves through that input under each: a slice reads the
// 64-byte lines its box touches (a line read along the minor dim is contiguous, across it
// every element costs a line; a strided slice's elements a line apart cost a line each); a
// transpose whose result must be row-major is free when the input's layout makes it a relabel and a
// full copy otherwise; an elementwise operation whose other operands have another layout inserts a
// relayout (2 x the bytes); anything else reads the value once. The cheapest candidate wins (ties:
// the default layout, then the first in enumeration order). Every AUTO output gets the layout its
// producer makes for free (a transpose's relabel, a squeeze or slice keeping its operand's order),
// else the default. A layout_constraint (with_layout_constraint) pins its result's layout: an
// operand stored otherwise costs a relayout (2 x its bytes), which the plan lists in `relayouts`.
//
// It reproduces XLA's observed choices: [LN-1] `apply_fn(x, y) = (x[0, :], y[:, 0])` gets
// inputs (0, 1) and (1, 0); [LT-5] the AUTO output of `x.T` with x (0, 1) is (1, 0).
#ifndef AXE_JIT_AUTO_LAYOUT_H_
#define AXE_JIT_AUTO_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/ir/jaxpr.h"
#include "axe/jit/layout_rules.h"

namespace axe::jit {

struct LayoutCandidate {
  LocalLayout layout;
  int64_t bytes = 0;   // the estimated bytes moved through the value under this layout
  std::string reason;  // what dominates the estimate, e.g. "slice reads 64 lines of 64 B"
};

struct AutoChoice {
  std::string value;  // "input 0 (a:f32[512,1024])" or "output 0 (d:f32[1024])"
  std::vector<LayoutCandidate> candidates;  // in enumeration order
  LocalLayout chosen;
};

struct LayoutPlan {
  std::vector<LocalLayout> inputs;   // one per jaxpr invar
  std::vector<LocalLayout> outputs;  // one per jaxpr outvar
  std::vector<AutoChoice> explain;   // one per AUTO input and output
  // The relayouts the chosen layouts make the program do, e.g. "equation 1
  // (layout_constraint): b major_to_minor=(0, 1) -> (1, 0)" or "output 0: c ... -> ...".
  std::vector<std::string> relayouts;
};

// `in_layouts` / `out_layouts` hold one entry per invar / outvar (none = the default layout,
// AUTO = choose, a concrete layout = fixed). Errors: counts that differ from the jaxpr's, a
// concrete layout of the wrong rank (JAX's text), an element type of unknown width.
absl::StatusOr<LayoutPlan> ChooseLayouts(const ir::Jaxpr& jaxpr,
                                         absl::Span<const JitLayout> in_layouts,
                                         absl::Span<const JitLayout> out_layouts);

// The explanation as text: per AUTO value its candidates with their estimated bytes and the
// chosen one marked.
std::string ExplainText(const LayoutPlan& plan);

// The number of 64-byte lines a box of `box` elements (per dim) at the start of an array of
// `shape` touches when the array is stored in `layout` with `element_bytes`-byte elements
// (lines counted per contiguous run; runs assumed line-aligned). With `strides` (a strided
// slice: `box` elements per dim, `strides` apart), elements along the minor dim that are a
// line or more apart cost a line each.
int64_t LinesTouched(absl::Span<const int64_t> shape, absl::Span<const int64_t> box,
                     const LocalLayout& layout, int64_t element_bytes,
                     absl::Span<const int64_t> strides = {});

}  // namespace axe::jit

#endif  // AXE_JIT_AUTO_LAYOUT_H_
