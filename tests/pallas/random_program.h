// Random Pallas programs for property tests: random grids, operands, BlockSpecs (Blocked,
// Element with padding, Squeezed, whole array) and affine index maps that often clamp, plus
// an order-sensitive accumulating kernel.
#ifndef AXE_TESTS_PALLAS_RANDOM_PROGRAM_H_
#define AXE_TESTS_PALLAS_RANDOM_PROGRAM_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "axe/pallas/execute.h"

namespace axe::pallas::testing {

struct RandomProgram {
  CallSpec spec;
  std::vector<AnyArray> inputs;
  std::vector<ShapeDType> outputs;
  std::string description;  // for failure messages

  std::vector<const AnyArray*> input_ptrs() const {
    std::vector<const AnyArray*> p;
    for (const AnyArray& a : inputs) p.push_back(&a);
    return p;
  }
};

// Any program interpret mode accepts: clamping, padding, revisits, aliases.
RandomProgram MakeRandomProgram(std::mt19937& rng);

// A program for parallel mode: random dimension_semantics with at least one parallel axis;
// outputs written at disjoint windows across parallel slices.
RandomProgram MakeRandomParallelProgram(std::mt19937& rng);

// The kernel: every output element becomes out * 3 + (sum of the input blocks' elements at
// the same row-major position, cyclically) + tag, with wrapping integer arithmetic. With
// `counter` set, tag = a per-call sequence number (order-sensitive; sequential use only);
// otherwise tag = the program's row-major number from ProgramId/NumPrograms over the
// grid's `grid_rank` axes.
absl::Status AccumulateKernel(absl::Span<const RawRef> ins, absl::Span<const RawRef> outs,
                              int64_t* counter, int grid_rank);

}  // namespace axe::pallas::testing

#endif  // AXE_TESTS_PALLAS_RANDOM_PROGRAM_H_
