// Running a program with its inputs and outputs in dense device-local layouts (minor_to_major
// permutations), without re-laying them out row-major first.
//
// A value of logical shape S stored with minor_to_major m is, in memory, the row-major array
// of its physical shape (S permuted major to minor). CompileInLayouts rewrites the program so
// that each input is read in its physical shape and transposed to S, and each output is
// transposed to its physical shape, then folds the transposes the layouts make free:
//  - transpose of a transpose: one transpose of the composed permutation, none when it is the
//    identity;
//  - a transposed dot_general operand: the permutation moved into the dimension numbers (the
//    GEMM reads the operand in place with a transpose flag) when the free dimensions keep
//    their order;
//  - a transpose of a dot_general's result that swaps the operands' free dimensions: the
//    dot_general with its operands swapped;
//  - a reduction (reduce_sum, reduce_max, reduce_min) of a transposed operand: the reduced axes
//    mapped back, and what remains transposed after the (smaller) result when needed;
//  - a slice of a transposed operand: the slice of the stored value, then its transpose;
//  - an elementwise operation whose array operands are all transposed by the same permutation
//    or broadcast (broadcast_in_dim), each read only there: computed on the stored values (the
//    broadcasts made in their order), its result transposed (so that the transpose can meet
//    the next one and cancel); stop_gradient is the identity;
//  - a transpose left that moves only dimensions of extent 1: a reshape (no copy).
// The program's meaning is unchanged: integers give the same bits as the row-major run; float
// reductions may add in another order.
//
//   exec::ProgramLayouts layouts{{{0, 1}}, {{0, 1}}};    // x column-major, the result too
//   auto e = exec::CompileInLayouts(jaxpr, layouts);     // e->input_avals(): physical shapes
//   auto out = e->Run({x_in_its_layout});                // out[0] in its layout
#ifndef AXE_EXEC_LAYOUTS_H_
#define AXE_EXEC_LAYOUTS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/exec/executable.h"
#include "axe/ir/jaxpr.h"

namespace axe::exec {

// One minor_to_major per input and output (empty: row-major); either list may be empty
// (all row-major).
struct ProgramLayouts {
  std::vector<std::vector<int64_t>> inputs;
  std::vector<std::vector<int64_t>> outputs;
};

// The row-major shape of a `shape` value's storage in layout `minor_to_major` (empty:
// row-major, `shape` itself).
std::vector<int64_t> PhysicalShape(absl::Span<const int64_t> shape,
                                   absl::Span<const int64_t> minor_to_major);

// The program on physical inputs and outputs (transposes at the edges), not yet folded.
// Errors (InvalidArgument): layout counts that differ from the program's inputs or outputs; a
// minor_to_major that is not a permutation of the value's dimensions (naming the input or
// output and the layout).
absl::StatusOr<ir::ClosedJaxpr> WithPhysicalEdges(const ir::ClosedJaxpr& jaxpr,
                                                  const ProgramLayouts& layouts);

// The program with the free transposes folded away (see the header comment); canonical.
ir::ClosedJaxpr FoldTransposes(const ir::ClosedJaxpr& jaxpr);

// Executable::Compile of FoldTransposes(WithPhysicalEdges(jaxpr, layouts)): its inputs and
// outputs are the values' storage in their layouts (input_avals() give the physical shapes).
absl::StatusOr<Executable> CompileInLayouts(const ir::ClosedJaxpr& jaxpr,
                                            const ProgramLayouts& layouts,
                                            ExecOptions options = {});

}  // namespace axe::exec

#endif  // AXE_EXEC_LAYOUTS_H_
