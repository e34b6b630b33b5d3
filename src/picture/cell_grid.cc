#include "axe/picture/cell_grid.h"

#include <algorithm>

#include "axe/picture/palette.h"

namespace axe::picture {
namespace {

struct Metrics {
  int64_t label_width = 0;  // the row label column
  int64_t cell_width = 0;
  int64_t caption_height = 0;
};

Metrics Measure(const CellGrid& grid) {
  Metrics m;
  m.label_width = std::max<int64_t>(LinesWidth(grid.row_labels), TextWidth("…")) + 8;
  m.cell_width = std::max<int64_t>({LinesWidth(grid.col_labels), TextWidth("…"), 16});
  for (const Cell& c : grid.cells) m.cell_width = std::max(m.cell_width, TextWidth(c.label));
  m.cell_width += 10;
  m.caption_height = grid.caption.empty() ? 0 : kLineHeight + 4;
  return m;
}

int64_t Count(const std::vector<std::string>& labels, bool more) {
  return static_cast<int64_t>(labels.size()) + (more ? 1 : 0);
}

// Shades the padded part of a cell (at least 3 pixels when there is any).
void DrawPadding(Svg& svg, const Box& box, const Cell& cell) {
  if (cell.padded_right > 0) {
    const int64_t w =
        std::max<int64_t>(3, box.width * std::min<int64_t>(cell.padded_right, 1000) / 1000);
    svg.Rect({box.x + box.width - w, box.y, w, box.height}, kPaddingFill, "none",
             {{"fill-opacity", "0.85"}});
  }
  if (cell.padded_bottom > 0) {
    const int64_t h =
        std::max<int64_t>(3, box.height * std::min<int64_t>(cell.padded_bottom, 1000) / 1000);
    svg.Rect({box.x, box.y + box.height - h, box.width, h}, kPaddingFill, "none",
             {{"fill-opacity", "0.85"}});
  }
}

}  // namespace

Box MeasureCellGrid(const CellGrid& grid) {
  const Metrics m = Measure(grid);
  const int64_t width =
      std::max(m.label_width + Count(grid.col_labels, grid.more_cols) * m.cell_width,
               TextWidth(grid.caption));
  const int64_t height =
      m.caption_height + kCellHeight * (1 + Count(grid.row_labels, grid.more_rows));
  return {0, 0, width, height};
}

Box DrawCellGrid(Svg& svg, int64_t x, int64_t y, const CellGrid& grid) {
  const Metrics m = Measure(grid);
  if (!grid.caption.empty()) svg.Text(x, y + kFontSize, grid.caption, kInk);
  const int64_t top = y + m.caption_height + kCellHeight;  // below the column labels
  const int64_t left = x + m.label_width;
  const int64_t base = (kCellHeight + kFontSize) / 2 - 2;  // text baseline within a row
  const size_t cols = grid.col_labels.size();
  for (size_t c = 0; c < cols; ++c) {
    svg.Text(left + static_cast<int64_t>(c) * m.cell_width + m.cell_width / 2,
             top - kCellHeight + base, grid.col_labels[c], kInk, TextAnchor::kMiddle);
  }
  if (grid.more_cols) {
    svg.Text(left + static_cast<int64_t>(cols) * m.cell_width + m.cell_width / 2,
             top - kCellHeight + base, "…", kInk, TextAnchor::kMiddle);
  }
  for (size_t r = 0; r < grid.row_labels.size(); ++r) {
    const int64_t row_y = top + static_cast<int64_t>(r) * kCellHeight;
    svg.Text(left - 6, row_y + base, grid.row_labels[r], kInk, TextAnchor::kEnd);
    for (size_t c = 0; c < cols && r * cols + c < grid.cells.size(); ++c) {
      const Cell& cell = grid.cells[r * cols + c];
      const int64_t cell_x = left + static_cast<int64_t>(c) * m.cell_width;
      svg.Rect({cell_x, row_y, m.cell_width, kCellHeight}, cell.fill, kInk);
      DrawPadding(svg, {cell_x, row_y, m.cell_width, kCellHeight}, cell);
      svg.Text(cell_x + m.cell_width / 2, row_y + base, cell.label, cell.text, TextAnchor::kMiddle);
      if (cell.marked) {
        svg.Element("circle", {{"cx", std::to_string(cell_x + m.cell_width - 4)},
                               {"cy", std::to_string(row_y + 4)},
                               {"r", "2"},
                               {"fill", cell.text}});
      }
    }
    if (grid.more_cols) {
      svg.Text(left + static_cast<int64_t>(cols) * m.cell_width + m.cell_width / 2, row_y + base,
               "…", kInk, TextAnchor::kMiddle);
    }
  }
  if (grid.more_rows) {
    svg.Text(left - 6, top + static_cast<int64_t>(grid.row_labels.size()) * kCellHeight + base, "…",
             kInk, TextAnchor::kEnd);
  }
  Box box = MeasureCellGrid(grid);
  box.x = x;
  box.y = y;
  return box;
}

int64_t LegendSwatch(Svg& svg, int64_t x, int64_t y, const Cell& swatch, const std::string& text,
                     absl::string_view stroke) {
  const int64_t w = std::max<int64_t>(TextWidth(swatch.label) + 8, 24);
  svg.Rect({x, y + 1, w, kLineHeight - 2}, swatch.fill, stroke,
           {{"stroke-width", stroke == kInk ? "1" : "3"}});
  if (!swatch.label.empty()) {
    svg.Text(x + w / 2, y + kFontSize, swatch.label, swatch.text, TextAnchor::kMiddle);
  }
  svg.Text(x + w + 6, y + kFontSize, text, kInk);
  return y + kLineHeight;
}

}  // namespace axe::picture
