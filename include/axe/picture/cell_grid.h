// A labelled grid of coloured cells, the building block of the layout and tiling pictures:
// a caption, column labels above, row labels at the left, and a "…" column and row where
// the grid was cut to a window.
#ifndef AXE_PICTURE_CELL_GRID_H_
#define AXE_PICTURE_CELL_GRID_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "axe/picture/svg.h"

namespace axe::picture {

struct Cell {
  std::string label;
  std::string fill;
  std::string text;     // the label's colour
  bool marked = false;  // draws a small dot in the top-right corner
  // The part of the cell that is padding, in thousandths of its width (at the right) and
  // height (at the bottom): drawn shaded.
  int64_t padded_right = 0, padded_bottom = 0;
};

struct CellGrid {
  std::string caption;
  std::vector<std::string> row_labels;  // one per drawn row
  std::vector<std::string> col_labels;  // one per drawn column
  std::vector<Cell> cells;              // row-major, row_labels.size() * col_labels.size()
  bool more_rows = false, more_cols = false;
};

inline constexpr int64_t kCellHeight = 20;

// The width and height DrawCellGrid will take.
Box MeasureCellGrid(const CellGrid& grid);
// Draws the grid with its top-left corner at (x, y); returns the box it took.
Box DrawCellGrid(Svg& svg, int64_t x, int64_t y, const CellGrid& grid);

// A legend row: a colour swatch followed by its meaning; returns the y below it.
int64_t LegendSwatch(Svg& svg, int64_t x, int64_t y, const Cell& swatch, const std::string& text,
                     absl::string_view stroke = "#1a1a1a");

}  // namespace axe::picture

#endif  // AXE_PICTURE_CELL_GRID_H_
