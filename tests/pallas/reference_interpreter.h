// Test oracle: JAX's HLO interpreter for Pallas (spec §5) written out literally and naively —
// physically padded copies of every operand, DynamicSlice copies of each block,
// DynamicUpdateSlice write-back — with no views, no shortcuts and no shared code with
// ExecuteCall beyond the public types. Kernels receive contiguous copies of their blocks.
#ifndef AXE_TESTS_PALLAS_REFERENCE_INTERPRETER_H_
#define AXE_TESTS_PALLAS_REFERENCE_INTERPRETER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "axe/pallas/execute.h"

namespace axe::pallas::testing {

// Runs `kernel` over spec.grid in interpret-mode semantics. Supports Blocked, Element and
// Squeezed dims and input_output_aliases; ignores everything else in spec.options.
// The kernel must not call ProgramId (the oracle installs no program context).
absl::StatusOr<std::vector<AnyArray>> ReferenceInterpret(const CallSpec& spec,
                                                         const std::vector<const AnyArray*>& inputs,
                                                         const std::vector<ShapeDType>& out_shapes,
                                                         RawKernel kernel);

}  // namespace axe::pallas::testing

#endif  // AXE_TESTS_PALLAS_REFERENCE_INTERPRETER_H_
