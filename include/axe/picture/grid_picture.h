// SVG pictures of a Pallas grid over its output (`axe grid show --svg`): the array drawn to
// scale, each program's block window drawn over it, labelled with the program ids (grid
// indices) that write it and coloured per window; windows that reach past the array's edge
// show their padding outside it (shaded), windows the index map asked for out of range and
// that were clamped into the array (JAX's DynamicSlice semantics) get a red outline, and
// elements no program writes stay grey (uninitialized). Arrays of rank > 2 are drawn as
// their last two dimensions at index 0 of the others.
//
//   std::string svg = *GridSvg({DType::kS32, {8, 6}}, std::vector<BlockDim>{2, 3}, Grid{4, 2},
//                              IndexMapExpr::Identity(2).ToIndexMap());
#ifndef AXE_PICTURE_GRID_PICTURE_H_
#define AXE_PICTURE_GRID_PICTURE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "axe/pallas/array.h"
#include "axe/pallas/block_dim.h"
#include "axe/pallas/grid.h"
#include "axe/pallas/index_map.h"

namespace axe::picture {

// Programs drawn at most.
inline constexpr int64_t kMaxDrawnPrograms = 4096;

// Errors: those of ShowProgramIds and ProgramWindow (an invalid grid, block or index map),
// more than kMaxDrawnPrograms programs, an array of more than 2^24 elements.
absl::StatusOr<std::string> GridSvg(const pallas::ShapeDType& out,
                                    std::optional<std::vector<pallas::BlockDim>> block_shape,
                                    const pallas::Grid& grid, const pallas::IndexMap& index_map);

}  // namespace axe::picture

#endif  // AXE_PICTURE_GRID_PICTURE_H_
