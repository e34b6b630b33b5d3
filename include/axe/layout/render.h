// Pictures of layouts: a 2-D logical shape drawn as a grid whose cells show the physical
// point of each element (the base point f_D(x) + O; replicas are listed in the legend).
//
//   RenderGrid(*Layout::Parse("S[(8,4,2):(4@laneid,1@laneid,1@reg)]"), 8, 8)
//   // each cell: laneid:reg
//   //      0    1    2  ...
//   //  0  0:0  0:1  1:0  ...
#ifndef AXE_LAYOUT_RENDER_H_
#define AXE_LAYOUT_RENDER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "axe/layout/layout.h"

namespace axe {

// Renders the layout over the logical shape (rows, cols); rows * cols must equal size().
// Errors: the shape is not admitted, or it has more than 64 columns or 256 rows.
absl::StatusOr<std::string> RenderGrid(const Layout& layout, int64_t rows, int64_t cols);

}  // namespace axe

#endif  // AXE_LAYOUT_RENDER_H_
