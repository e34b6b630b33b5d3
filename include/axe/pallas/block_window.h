// A program's block window as an Axe layout over its operand ("Pallas on Axe layouts").
//
// In interpret mode a program sees, of each operand, the window [start, start + block) of the
// array padded with Element padding and up to a multiple of the block (a negative start
// counted from the end of the padded dimension, then starts clamped, as JAX's
// lax.dynamic_slice does). The part of that window inside the array is a box of the array,
// and the operand's row-major layout sliced to that box (layout/slice.h) is the layout of the
// elements the program reads or writes: block coordinate u (within the box) maps to memory
// offset f(u). The rest of the window is padding (uninitialized values).
//
//   BlockSpec spec({2, 3}, [](int64_t i, int64_t j) { return std::pair{i, j}; });
//   BlockWindow w = *ProgramWindow(spec, {DType::kS32, {8, 6}}, Grid{4, 2}, {1, 1});
//   w.region;                  // {{2, 4}, {3, 6}} (array coordinates)
//   w.layout->ToString();      // "S[(2,3):(6,1)] + 15"
#ifndef AXE_PALLAS_BLOCK_WINDOW_H_
#define AXE_PALLAS_BLOCK_WINDOW_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/layout.h"
#include "axe/layout/slice.h"
#include "axe/pallas/array.h"
#include "axe/pallas/block_spec.h"
#include "axe/pallas/grid.h"

namespace axe::pallas {

struct BlockWindow {
  // The window's start and size per array dimension, in array coordinates (negative or past
  // the end where it reaches into padding); Squeezed dimensions have size 1.
  std::vector<int64_t> start, size;
  // The part of the window inside the array, per dimension (empty when none is).
  std::vector<Interval> region;
  // The operand's row-major layout sliced to `region`; nullopt when the region is empty.
  std::optional<Layout> layout;
};

// The window `spec` gives the program at `point` of `grid` on an operand of `operand`'s
// shape. Errors: those of ValidateCall for this one operand, and the index map's errors.
absl::StatusOr<BlockWindow> ProgramWindow(const BlockSpec& spec, const ShapeDType& operand,
                                          const Grid& grid, absl::Span<const int64_t> point);

}  // namespace axe::pallas

#endif  // AXE_PALLAS_BLOCK_WINDOW_H_
