// SVG pictures of an Axe layout (`axe layout show --svg`), in two views drawn one above the
// other:
//  - the logical tensor as a 2-D grid (the shape given, else DefaultGridShape), each cell
//    coloured by the value of one physical axis and labelled with its base point on every
//    axis ("lane:reg", the axes in the layout's print order); a dot marks every cell when
//    the layout has replicas, and the legend lists the replica offsets;
//  - the inverse view: the physical space, rows one axis and columns another (by default the
//    first non-memory axis and the first memory axis; one panel per combination of the other
//    axes' values), each point labelled with the logical coordinate "r,c" it holds ("+k"
//    when k more map to it) and coloured by the logical row. A layout on one axis is drawn
//    as its values in rows of a chosen width (memory offsets 0..W-1 on the first row, ...).
// A logical grid larger than the window (32 x 32 cells) is summarized, not cropped: each
// drawn cell stands for a block of cells (the block's first element is drawn), so that the
// whole array stays in view; a zoom window draws a part of it (again summarized when larger
// than the window). The inverse view is summarized the same way: an axis with more values
// than the window draws one per block of consecutive values (the block's first, which labels
// it), so a big layout shows all its devices and memory; it draws at most 4 panels, and the
// legend says what was summarized or left out.
//
//   std::string svg = *LayoutSvg(*Layout::Parse(
//       "S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp"), {});
#ifndef AXE_PICTURE_LAYOUT_PICTURE_H_
#define AXE_PICTURE_LAYOUT_PICTURE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/layout/axis.h"
#include "axe/layout/layout.h"

namespace axe::picture {

// Rows [row_begin, row_end) and columns [col_begin, col_end) of the logical grid.
struct GridZoom {
  int64_t row_begin = 0, row_end = 0, col_begin = 0, col_end = 0;
};

// Parses "ROW0:ROW1,COL0:COL1" (half-open, as Python slices: "0:8,16:32" is rows 0-7 of
// columns 16-31). Errors name the part that is not a range.
absl::StatusOr<GridZoom> ParseGridZoom(absl::string_view text);

struct LayoutPictureOptions {
  // The logical shape ROWS, COLS (default: DefaultGridShape).
  std::optional<std::array<int64_t, 2>> shape = std::nullopt;
  // The axis whose value colours the logical cells (default: the first non-memory axis the
  // layout uses, else the memory axis).
  std::optional<Axis> colour_axis = std::nullopt;
  // The axes of the inverse view's rows and columns (defaults above).
  std::optional<Axis> row_axis = std::nullopt, column_axis = std::nullopt;
  // A one-axis inverse view: values per row (0: the logical column count, at most 32).
  int64_t row_width = 0;
  // Cells drawn at most per direction (each view) and panels of the inverse view.
  int64_t max_rows = 32, max_cols = 32, max_panels = 4;
  // The part of the logical grid drawn (default: all of it, summarized when large).
  std::optional<GridZoom> zoom = std::nullopt;
  // The part of the inverse view drawn (default: all of it, summarized when large): rows
  // and columns are values of the row and column axes ("0:2,1024:2048": devices 0 and 1,
  // memory 1024 to 2047); for a layout on one axis, rows and column offsets of the folded
  // grid.
  std::optional<GridZoom> physical_zoom = std::nullopt;
};

// Errors: the shape is not admitted by the layout, an axis option names an axis the layout
// does not use (or row and column are the same axis), a non-positive window, a zoom window
// that is empty or outside the shape, a physical zoom window that holds no point.
absl::StatusOr<std::string> LayoutSvg(const Layout& layout, const LayoutPictureOptions& options);

// A relayout from `source` to `destination` (the same logical shape): the two logical grids
// side by side, each cell labelled with the element's point in that layout, and both
// coloured by the source's colour axis, so that a colour follows the elements from where they
// are to where they go. Options: shape, colour_axis (of the source) and the window.
// Errors: the layouts' sizes differ, the shape is not admitted, the colour axis is unused.
absl::StatusOr<std::string> RelayoutSvg(const Layout& source, const Layout& destination,
                                        const LayoutPictureOptions& options);

}  // namespace axe::picture

#endif  // AXE_PICTURE_LAYOUT_PICTURE_H_
