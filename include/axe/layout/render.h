// Pictures of layouts: a 2-D logical shape drawn as a grid whose cells show the physical
// point of each element (the base point f_D(x) + O; replicas are listed in the legend).
//
//   RenderGrid(*Layout::Parse("S[(8,4,2):(4@laneid,1@laneid,1@reg)]"), 8, 8)
//   // each cell: laneid:reg
//   //      0    1    2  ...
//   //  0  0:0  0:1  1:0  ...
//
// Large grids are drawn as their top-left window (at most 32 rows and 16 columns by
// default) with the number of rows and columns left out, never as an unreadable wall.
#ifndef AXE_LAYOUT_RENDER_H_
#define AXE_LAYOUT_RENDER_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "axe/layout/layout.h"

namespace axe {

// The readable 2-D shape of a layout when the caller gives none: the columns are the
// product of the trailing shard extents while it stays <= 64 (at least the last extent),
// the rows the rest. Figure 2's S[(8,2,4,2):...] is drawn 8 x 16.
std::array<int64_t, 2> DefaultGridShape(const Layout& layout);

struct GridWindow {
  int64_t max_rows = 32;
  int64_t max_cols = 16;
};

// The cells of a grid drawing: the base points of the top-left window of (rows, cols).
struct GridView {
  int64_t rows = 0, cols = 0;  // the whole logical shape
  int64_t shown_rows = 0, shown_cols = 0;
  std::vector<Axis> axes;        // each cell shows these axes' values
  std::vector<PhysCoord> cells;  // shown_rows * shown_cols base points, row-major
};

// Errors: the shape is not admitted by the layout (apply.h CheckShapeAdmitted).
absl::StatusOr<GridView> ViewGrid(const Layout& layout, int64_t rows, int64_t cols,
                                  GridWindow window = {});

// Renders the layout over the logical shape (rows, cols); rows * cols must equal size().
absl::StatusOr<std::string> RenderGrid(const Layout& layout, int64_t rows, int64_t cols,
                                       GridWindow window = {});

}  // namespace axe

#endif  // AXE_LAYOUT_RENDER_H_
