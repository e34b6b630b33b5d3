#include "axe/picture/layout_picture.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "axe/layout/inverse.h"
#include "axe/layout/render.h"
#include "axe/picture/cell_grid.h"
#include "axe/picture/palette.h"
#include "axe/picture/svg.h"

namespace axe::picture {
namespace {

constexpr int64_t kMaxListedReplicas = 8;
constexpr int64_t kMaxEnumeratedAxisValues = 4096;

Cell Coloured(std::string label, int64_t colour, bool marked = false) {
  Swatch s = PaletteSwatch(colour);
  return {std::move(label), std::move(s.fill), std::move(s.text), marked};
}

std::string PointLabel(const PhysCoord& p, const std::vector<Axis>& axes) {
  return absl::StrJoin(axes, ":",
                       [&p](std::string* out, Axis a) { absl::StrAppend(out, p.get(a)); });
}

std::string AxisNames(const std::vector<Axis>& axes) {
  return absl::StrJoin(axes, ":", [](std::string* out, Axis a) { absl::StrAppend(out, a.name()); });
}

absl::StatusOr<Axis> ChooseAxis(const Layout& layout, std::optional<Axis> given,
                                absl::string_view what) {
  if (given.has_value()) {
    if (!layout.uses(*given)) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": the layout ", layout.ToString(),
                                                     " does not use the axis '", given->name(),
                                                     "'"));
    }
    return *given;
  }
  const std::vector<Axis> axes = layout.axes();
  for (Axis a : axes) {
    if (!a.is_memory()) return a;
  }
  return axes.empty() ? Axis::Memory() : axes.front();
}

// The smallest and largest value the layout reaches on `axis` (base and replica points).
absl::StatusOr<std::pair<int64_t, int64_t>> AxisRange(const Layout& layout, Axis axis) {
  int64_t lo = layout.offset().get(axis), hi = lo;
  for (const std::vector<Iter>* iters : {&layout.shard(), &layout.replica()}) {
    for (const Iter& it : *iters) {
      if (it.axis != axis) continue;
      std::optional<int64_t> reach = CheckedMul(it.stride, it.extent - 1);
      std::optional<int64_t> next = reach ? CheckedAdd(*reach < 0 ? lo : hi, *reach) : reach;
      if (!next) return absl::OutOfRangeError("the layout's range overflows int64");
      (*reach < 0 ? lo : hi) = *next;
    }
  }
  return std::pair{lo, hi};
}

// The distinct values on `axis`, sorted, when there are at most kMaxEnumeratedAxisValues
// digit combinations; else every value of its range.
std::vector<int64_t> AxisValues(const Layout& layout, Axis axis, std::pair<int64_t, int64_t> range,
                                int64_t limit) {
  std::set<int64_t> values = {layout.offset().get(axis)};
  for (const std::vector<Iter>* iters : {&layout.shard(), &layout.replica()}) {
    for (const Iter& it : *iters) {
      if (it.axis != axis) continue;
      // values.size() * extent, without overflow for extents near 2^63.
      if (it.extent > kMaxEnumeratedAxisValues / static_cast<int64_t>(values.size())) {
        values.clear();
        // The range may end at INT64_MAX: stop on its last value rather than step past it.
        for (int64_t v = range.first; static_cast<int64_t>(values.size()) < limit; ++v) {
          values.insert(v);
          if (v == range.second) break;
        }
        return {values.begin(), values.end()};
      }
      std::set<int64_t> next;
      for (int64_t v : values) {
        for (int64_t d = 0; d < it.extent; ++d) next.insert(v + d * it.stride);
      }
      values = std::move(next);
    }
  }
  std::vector<int64_t> out(values.begin(), values.end());
  if (static_cast<int64_t>(out.size()) > limit) out.resize(static_cast<size_t>(limit));
  return out;
}

struct Section {
  CellGrid grid;
  std::vector<std::pair<Cell, std::string>> swatches;
  std::vector<std::string> notes;
};

// The drawn part of the logical grid: the zoom window (default: all of it) and the step
// between drawn rows and columns (1 when it fits the picture window, else the block size).
struct Sampling {
  GridZoom zoom;
  int64_t row_step = 1, col_step = 1;
  int64_t drawn_rows() const { return CeilDiv(zoom.row_end - zoom.row_begin, row_step); }
  int64_t drawn_cols() const { return CeilDiv(zoom.col_end - zoom.col_begin, col_step); }
  bool summarized() const { return row_step > 1 || col_step > 1; }
};

absl::StatusOr<Sampling> ChooseSampling(std::array<int64_t, 2> shape,
                                        const LayoutPictureOptions& options) {
  Sampling s;
  s.zoom = options.zoom.value_or(GridZoom{0, shape[0], 0, shape[1]});
  const GridZoom& z = s.zoom;
  if (z.row_begin < 0 || z.row_begin >= z.row_end || z.row_end > shape[0] || z.col_begin < 0 ||
      z.col_begin >= z.col_end || z.col_end > shape[1]) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the zoom window rows ", z.row_begin, ":", z.row_end, ", columns ", z.col_begin, ":",
        z.col_end, " is empty or outside the ", shape[0], " x ", shape[1], " grid"));
  }
  s.row_step = CeilDiv(z.row_end - z.row_begin, options.max_rows);
  s.col_step = CeilDiv(z.col_end - z.col_begin, options.max_cols);
  return s;
}

absl::StatusOr<Section> LogicalView(const Layout& layout, std::array<int64_t, 2> shape, Axis colour,
                                    const LayoutPictureOptions& options) {
  AXE_RETURN_IF_ERROR(CheckShapeAdmitted(layout, shape));
  AXE_ASSIGN_OR_RETURN(Sampling sampling, ChooseSampling(shape, options));
  std::vector<Axis> axes = layout.axes();
  if (axes.empty()) axes.push_back(Axis::Memory());
  Section s;
  const bool replicated = layout.replica_size() > 1;
  s.grid.caption = absl::StrCat("logical ", shape[0], " x ", shape[1], ": each cell ",
                                AxisNames(axes), ", coloured by ", colour.name());
  const GridZoom& z = sampling.zoom;
  for (int64_t i = 0; i < sampling.drawn_rows(); ++i)
    s.grid.row_labels.push_back(absl::StrCat(z.row_begin + i * sampling.row_step));
  for (int64_t j = 0; j < sampling.drawn_cols(); ++j)
    s.grid.col_labels.push_back(absl::StrCat(z.col_begin + j * sampling.col_step));
  std::set<int64_t> colours;
  for (int64_t i = 0; i < sampling.drawn_rows(); ++i) {
    for (int64_t j = 0; j < sampling.drawn_cols(); ++j) {
      // r * cols + c < rows * cols = size, which fits int64.
      const int64_t r = z.row_begin + i * sampling.row_step;
      const int64_t c = z.col_begin + j * sampling.col_step;
      AXE_ASSIGN_OR_RETURN(PhysCoord p, ApplyBase(layout, r * shape[1] + c));
      s.grid.cells.push_back(Coloured(PointLabel(p, axes), p.get(colour), replicated));
      colours.insert(p.get(colour));
    }
  }
  for (int64_t v : colours) {
    if (static_cast<int64_t>(s.swatches.size()) == kPaletteSize) {
      s.notes.push_back("(colours repeat after 12 values)");
      break;
    }
    s.swatches.push_back({Coloured("", v), absl::StrCat(colour.name(), " = ", v)});
  }
  if (options.zoom) {
    s.notes.push_back(absl::StrCat("zoom: rows ", z.row_begin, "-", z.row_end - 1, " and columns ",
                                   z.col_begin, "-", z.col_end - 1, " of ", shape[0], " x ",
                                   shape[1]));
  }
  if (sampling.summarized()) {
    s.notes.push_back(absl::StrCat("summary: each cell stands for a block of ", sampling.row_step,
                                   " x ", sampling.col_step,
                                   " elements and shows its first (top-left) one; "
                                   "zoom in for every element"));
  }
  if (replicated) {
    std::string note =
        absl::StrCat("• replicated by R[", FormatIters(layout.replica()),
                     "]: each element is held at ", layout.replica_size(), " points");
    if (layout.replica_size() <= kMaxListedReplicas) {
      AXE_ASSIGN_OR_RETURN(std::vector<PhysCoord> points, ReplicaPoints(layout));
      absl::StrAppend(&note, ": the cell's point");
      for (const PhysCoord& p : points) {
        PhysCoord shift;  // p - O: the replica's offset from the base point
        for (const auto& [axis, value] : p.entries())
          shift.set(axis, value - layout.offset().get(axis));
        if (!shift.empty()) absl::StrAppend(&note, ", + ", shift.ToString());
      }
    }
    s.notes.push_back(std::move(note));
  }
  return s;
}

std::string LogicalLabel(const std::vector<int64_t>& flats, int64_t cols) {
  if (flats.empty()) return "";
  std::string label = absl::StrCat(flats[0] / cols, ",", flats[0] % cols);
  if (flats.size() > 1) absl::StrAppend(&label, "+", flats.size() - 1);
  return label;
}

// One panel of the inverse view: `fixed` holds the panel axes' values.
absl::StatusOr<CellGrid> PhysicalPanel(const InverseMap& inverse, const PhysCoord& fixed,
                                       Axis row_axis, const std::vector<int64_t>& rows,
                                       Axis col_axis, const std::vector<int64_t>& cols,
                                       int64_t logical_cols) {
  CellGrid grid;
  for (int64_t r : rows) grid.row_labels.push_back(absl::StrCat(r));
  for (int64_t c : cols) grid.col_labels.push_back(absl::StrCat(c));
  for (int64_t r : rows) {
    for (int64_t c : cols) {
      PhysCoord p = fixed;
      p.set(row_axis, r);
      p.set(col_axis, c);
      AXE_ASSIGN_OR_RETURN(std::vector<int64_t> flats, inverse.Preimage(p));
      if (flats.empty()) {
        grid.cells.push_back({"", std::string(kEmptyFill), std::string(kInk)});
      } else {
        grid.cells.push_back(Coloured(LogicalLabel(flats, logical_cols), flats[0] / logical_cols));
      }
    }
  }
  return grid;
}

// The values of one axis the inverse view draws: all of them when they fit `max`, else one
// per block of `step` consecutive values (the block's first), so that the whole axis stays in
// view. `count` is how many values the axis has (its span when too many to list).
struct AxisSample {
  std::vector<int64_t> values;
  int64_t step = 1, count = 0;
};

// Only the values in [begin, end) when a zoom window gives them; `count` 0 when none is.
AxisSample SampleAxis(const Layout& layout, Axis axis, std::pair<int64_t, int64_t> range,
                      int64_t max, std::optional<std::pair<int64_t, int64_t>> window) {
  AxisSample out;
  if (window) {
    if (window->first >= window->second) return out;
    range = {std::max(range.first, window->first), std::min(range.second, window->second - 1)};
    if (range.first > range.second) return out;
  }
  std::vector<int64_t> listed = AxisValues(layout, axis, range, kMaxEnumeratedAxisValues + 1);
  if (static_cast<int64_t>(listed.size()) <= kMaxEnumeratedAxisValues) {
    std::erase_if(listed, [&](int64_t v) { return v < range.first || v > range.second; });
    out.count = static_cast<int64_t>(listed.size());
    out.step = std::max<int64_t>(1, CeilDiv(out.count, max));
    for (int64_t i = 0; i < out.count; i += out.step) out.values.push_back(listed[i]);
    return out;
  }
  // Too many to list: every value of the range, in blocks. A valid layout's span fits int64.
  std::optional<int64_t> span = CheckedSub(range.second, range.first);
  if (span) span = CheckedAdd(*span, 1);
  out.count = span.value_or(std::numeric_limits<int64_t>::max());
  out.step = CeilDiv(out.count, max);
  // k * step <= count - 1: no overflow near the int64 range's end.
  for (int64_t k = 0; k < max && k <= (out.count - 1) / out.step; ++k) {
    out.values.push_back(range.first + k * out.step);
  }
  return out;
}

// The note of a summarized inverse view.
std::string PhysicalSummaryNote(int64_t row_step, int64_t col_step, absl::string_view rows,
                                absl::string_view cols) {
  return absl::StrCat("physical summary: each cell stands for a block of ", row_step, " ", rows,
                      " x ", col_step, " ", cols,
                      " and shows its first (top-left) point; the labels are the blocks' first "
                      "values");
}

// The inverse view of a layout on one axis: its values in rows of `width`.
absl::StatusOr<std::vector<CellGrid>> FoldedView(const Layout& layout, const InverseMap& inverse,
                                                 Axis axis, int64_t width, int64_t logical_cols,
                                                 const LayoutPictureOptions& options,
                                                 std::vector<std::string>& notes) {
  AXE_ASSIGN_OR_RETURN(auto range, AxisRange(layout, axis));
  // The span (hi - lo + 1) of a valid layout's axis fits int64 (Layout::Create checks it).
  std::optional<int64_t> span = CheckedSub(range.second, range.first);
  if (span) span = CheckedAdd(*span, 1);
  if (!span) return absl::OutOfRangeError("the layout's range overflows int64");
  const int64_t count = *span;
  const int64_t rows = CeilDiv(count, width);
  CellGrid grid;
  grid.caption = absl::StrCat("physical: ", axis.name(), " ", range.first, "..", range.second,
                              " in rows of ", width, "; each cell the logical r,c it holds");
  // The zoom window's rows and columns of the folded grid (default: all of them); beyond the
  // picture window they are summarized, one drawn per block of steps.
  GridZoom z = options.physical_zoom.value_or(GridZoom{0, rows, 0, width});
  if (options.physical_zoom) {
    if (z.row_begin < 0 || z.row_begin >= z.row_end || z.row_begin >= rows || z.col_begin < 0 ||
        z.col_begin >= z.col_end || z.col_begin >= width) {
      return absl::InvalidArgumentError(
          absl::StrCat("the physical zoom window rows ", z.row_begin, ":", z.row_end, ", columns ",
                       z.col_begin, ":", z.col_end, " is empty or outside the ", rows, " rows of ",
                       width, " values of ", axis.name()));
    }
    z.row_end = std::min(z.row_end, rows);
    z.col_end = std::min(z.col_end, width);
  }
  const int64_t row_step = CeilDiv(z.row_end - z.row_begin, options.max_rows);
  const int64_t col_step = CeilDiv(z.col_end - z.col_begin, options.max_cols);
  // Indexed by drawn row and column (k * step < end - begin), never stepping past int64.
  const int64_t drawn_rows = CeilDiv(z.row_end - z.row_begin, row_step);
  const int64_t drawn_cols = CeilDiv(z.col_end - z.col_begin, col_step);
  for (int64_t j = 0; j < drawn_cols; ++j) {
    grid.col_labels.push_back(absl::StrCat("+", z.col_begin + j * col_step));
  }
  for (int64_t i = 0; i < drawn_rows; ++i) {
    const int64_t r = z.row_begin + i * row_step;
    // r * width < count: r < rows = ceil(count / width).
    grid.row_labels.push_back(absl::StrCat(range.first + r * width));
    for (int64_t j = 0; j < drawn_cols; ++j) {
      const int64_t c = z.col_begin + j * col_step;
      // r * width + c < count: no overflow while the value is in the range.
      std::optional<int64_t> offset = CheckedMul(r, width);
      if (offset) offset = CheckedAdd(*offset, c);
      if (!offset || *offset >= count) {
        grid.cells.push_back({"", std::string(kBackground), std::string(kInk)});
        continue;
      }
      const int64_t value = range.first + *offset;
      PhysCoord p;
      p.set(axis, value);
      AXE_ASSIGN_OR_RETURN(std::vector<int64_t> flats, inverse.Preimage(p));
      grid.cells.push_back(
          flats.empty() ? Cell{"", std::string(kEmptyFill), std::string(kInk)}
                        : Coloured(LogicalLabel(flats, logical_cols), flats[0] / logical_cols));
    }
  }
  if (options.physical_zoom) {
    notes.push_back(absl::StrCat("physical zoom: rows ", z.row_begin, "-", z.row_end - 1,
                                 ", columns +", z.col_begin, " to +", z.col_end - 1, " (of ", rows,
                                 " rows of ", width, ")"));
  }
  if (row_step > 1 || col_step > 1) {
    notes.push_back(absl::StrCat("physical: ", rows, " rows of ", width, " values"));
    notes.push_back(PhysicalSummaryNote(row_step, col_step, "rows", "values"));
  }
  return std::vector<CellGrid>{std::move(grid)};
}

// The inverse view's row and column axes: the options', else the first memory axis as
// columns (else the last axis) and the first other axis as rows. Requires >= 2 axes.
absl::StatusOr<std::pair<Axis, Axis>> ChooseRowAndColumn(const Layout& layout,
                                                         const LayoutPictureOptions& options) {
  const std::vector<Axis> axes = layout.axes();
  std::optional<Axis> col = options.column_axis;
  if (!col) {
    for (Axis a : axes) {
      if (a.is_memory() && (!options.row_axis || a != *options.row_axis)) {
        col = a;
        break;
      }
    }
    if (!col) col = axes.back() == options.row_axis ? axes.front() : axes.back();
  }
  AXE_ASSIGN_OR_RETURN(Axis col_axis, ChooseAxis(layout, col, "column axis"));
  std::optional<Axis> row = options.row_axis;
  if (!row) {
    for (Axis a : axes) {
      if (a != col_axis) {
        row = a;
        break;
      }
    }
  }
  AXE_ASSIGN_OR_RETURN(Axis row_axis, ChooseAxis(layout, row, "row axis"));
  if (row_axis == col_axis) {
    return absl::InvalidArgumentError(
        absl::StrCat("row axis and column axis are both '", row_axis.name(), "'"));
  }
  return std::pair{row_axis, col_axis};
}

absl::StatusOr<std::vector<CellGrid>> PhysicalView(const Layout& layout, int64_t logical_cols,
                                                   const LayoutPictureOptions& options,
                                                   std::vector<std::string>& notes) {
  AXE_ASSIGN_OR_RETURN(InverseMap inverse, InverseMap::Build(layout));
  const std::vector<Axis> axes = layout.axes();
  if (axes.size() == 1) {
    const int64_t width =
        options.row_width > 0 ? options.row_width : std::min<int64_t>(logical_cols, 32);
    return FoldedView(layout, inverse, axes[0], width, logical_cols, options, notes);
  }
  AXE_ASSIGN_OR_RETURN(auto row_col, ChooseRowAndColumn(layout, options));
  const auto [row_axis, col_axis] = row_col;
  std::vector<Axis> panel_axes;
  for (Axis a : axes) {
    if (a != row_axis && a != col_axis) panel_axes.push_back(a);
  }
  AXE_ASSIGN_OR_RETURN(auto row_range, AxisRange(layout, row_axis));
  AXE_ASSIGN_OR_RETURN(auto col_range, AxisRange(layout, col_axis));
  std::optional<std::pair<int64_t, int64_t>> row_window, col_window;
  if (const std::optional<GridZoom>& z = options.physical_zoom) {
    row_window = {z->row_begin, z->row_end};
    col_window = {z->col_begin, z->col_end};
  }
  const AxisSample rows = SampleAxis(layout, row_axis, row_range, options.max_rows, row_window);
  const AxisSample cols = SampleAxis(layout, col_axis, col_range, options.max_cols, col_window);
  for (const auto& [sample, axis, range, window] :
       {std::tuple{&rows, row_axis, row_range, row_window},
        std::tuple{&cols, col_axis, col_range, col_window}}) {
    if (sample->count == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the physical zoom window ", window->first, ":", window->second, " holds no value of ",
          axis.name(), " (the layout reaches ", range.first, "..", range.second, ")"));
    }
  }
  // The panels: every combination of the panel axes' values, the last axis fastest.
  std::vector<std::vector<int64_t>> panel_values;
  int64_t total_panels = 1;
  for (Axis a : panel_axes) {
    AXE_ASSIGN_OR_RETURN(auto range, AxisRange(layout, a));
    panel_values.push_back(AxisValues(layout, a, range, kMaxEnumeratedAxisValues));
    total_panels = CheckedMul(total_panels, static_cast<int64_t>(panel_values.back().size()))
                       .value_or(std::numeric_limits<int64_t>::max());
  }
  std::vector<CellGrid> panels;
  std::vector<size_t> digit(panel_axes.size(), 0);
  for (int64_t n = 0; n < std::min(total_panels, options.max_panels); ++n) {
    PhysCoord fixed;
    std::vector<std::string> where;
    for (size_t i = 0; i < panel_axes.size(); ++i) {
      fixed.set(panel_axes[i], panel_values[i][digit[i]]);
      where.push_back(absl::StrCat(panel_axes[i].name(), " = ", panel_values[i][digit[i]]));
    }
    AXE_ASSIGN_OR_RETURN(CellGrid panel, PhysicalPanel(inverse, fixed, row_axis, rows.values,
                                                       col_axis, cols.values, logical_cols));
    panel.caption = absl::StrJoin(where, ", ");
    panels.push_back(std::move(panel));
    for (size_t i = panel_axes.size(); i-- > 0;) {
      if (++digit[i] < panel_values[i].size()) break;
      digit[i] = 0;
    }
  }
  if (panels.size() == 1 && panels[0].caption.empty()) panels[0].caption = "physical space";
  notes.insert(notes.begin(),
               absl::StrCat("physical: rows ", row_axis.name(), ", columns ", col_axis.name(),
                            "; each cell the logical r,c it holds (+k: k more),"
                            " coloured by r; grey: no element"));
  if (total_panels > static_cast<int64_t>(panels.size())) {
    notes.push_back(absl::StrCat("showing ", panels.size(), " of ", total_panels, " panels"));
  }
  if (options.physical_zoom) {
    notes.push_back(absl::StrCat("physical zoom: ", row_axis.name(), " ", row_window->first, ":",
                                 row_window->second, ", ", col_axis.name(), " ", col_window->first,
                                 ":", col_window->second));
  }
  if (rows.step > 1 || cols.step > 1) {
    notes.push_back(absl::StrCat("physical: ", rows.count, " ", row_axis.name(), " values x ",
                                 cols.count, " ", col_axis.name(), " values"));
    notes.push_back(PhysicalSummaryNote(rows.step, cols.step, row_axis.name(), col_axis.name()));
  }
  return panels;
}

// Draws the swatches left to right, wrapping at `width`; returns the y below them.
int64_t FlowSwatches(Svg& svg, int64_t x0, int64_t y, int64_t width,
                     const std::vector<std::pair<Cell, std::string>>& swatches) {
  int64_t x = x0;
  for (const auto& [swatch, text] : swatches) {
    const int64_t w = 24 + 6 + TextWidth(text) + 16;
    if (x > x0 && x + w > x0 + width) {
      x = x0;
      y += kLineHeight;
    }
    LegendSwatch(svg, x, y, swatch, text);
    x += w;
  }
  return swatches.empty() ? y : y + kLineHeight;
}

}  // namespace

absl::StatusOr<GridZoom> ParseGridZoom(absl::string_view text) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, ',');
  if (parts.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ROW0:ROW1,COL0:COL1, got '", text, "'"));
  }
  int64_t bounds[4] = {};
  for (int i = 0; i < 2; ++i) {
    std::vector<absl::string_view> range = absl::StrSplit(parts[i], ':');
    if (range.size() != 2 || !absl::SimpleAtoi(range[0], &bounds[2 * i]) ||
        !absl::SimpleAtoi(range[1], &bounds[2 * i + 1])) {
      return absl::InvalidArgumentError(absl::StrCat("the ", i == 0 ? "rows" : "columns", " part '",
                                                     parts[i], "' of '", text,
                                                     "' is not BEGIN:END"));
    }
  }
  return GridZoom{bounds[0], bounds[1], bounds[2], bounds[3]};
}

absl::StatusOr<std::string> LayoutSvg(const Layout& layout, const LayoutPictureOptions& options) {
  if (options.max_rows < 1 || options.max_cols < 1 || options.max_panels < 1) {
    return absl::InvalidArgumentError("the picture window must be at least 1 x 1, 1 panel");
  }
  const std::array<int64_t, 2> shape = options.shape.value_or(DefaultGridShape(layout));
  AXE_RETURN_IF_ERROR(CheckShapeAdmitted(layout, shape));
  AXE_ASSIGN_OR_RETURN(Axis colour, ChooseAxis(layout, options.colour_axis, "colour axis"));
  AXE_ASSIGN_OR_RETURN(Section logical, LogicalView(layout, shape, colour, options));
  std::vector<std::string> physical_notes;
  AXE_ASSIGN_OR_RETURN(std::vector<CellGrid> panels,
                       PhysicalView(layout, shape[1], options, physical_notes));

  Svg svg;
  const std::string title = absl::StrCat("Axe layout ", layout.ToString());
  int64_t y = LegendLines(svg, kMargin, kMargin, {title}) + 6;
  int64_t width = LinesWidth({title});
  const Box grid = DrawCellGrid(svg, kMargin, y, logical.grid);
  width = std::max(width, grid.width);
  y += grid.height + 8;
  y = FlowSwatches(svg, kMargin, y, std::max<int64_t>(grid.width, 480), logical.swatches);
  // The notes under the grid wrap at the grid's width when it is wider than a legend line.
  const int64_t notes_width = std::max(kMaxLegendWidth, grid.width);
  width = std::max(width, LinesWidth(logical.notes, notes_width));
  y = LegendLines(svg, kMargin, y, logical.notes, notes_width) + 16;
  int64_t x = kMargin, panels_height = 0;
  for (const CellGrid& panel : panels) {
    const Box box = DrawCellGrid(svg, x, y, panel);
    x += box.width + 24;
    panels_height = std::max(panels_height, box.height);
  }
  width = std::max(width, x - kMargin);
  y += panels_height + 8;
  width = std::max(width, LinesWidth(physical_notes));
  y = LegendLines(svg, kMargin, y, physical_notes);
  return svg.Finish(title, width + 2 * kMargin, y + kMargin);
}

absl::StatusOr<std::string> RelayoutSvg(const Layout& source, const Layout& destination,
                                        const LayoutPictureOptions& options) {
  if (options.max_rows < 1 || options.max_cols < 1) {
    return absl::InvalidArgumentError("the picture window must be at least 1 x 1");
  }
  if (source.size() != destination.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the source ", source.ToString(), " has ", source.size(), " elements and the destination ",
        destination.ToString(), " has ", destination.size()));
  }
  const std::array<int64_t, 2> shape = options.shape.value_or(DefaultGridShape(source));
  AXE_RETURN_IF_ERROR(CheckShapeAdmitted(source, shape));
  AXE_ASSIGN_OR_RETURN(Axis colour, ChooseAxis(source, options.colour_axis, "colour axis"));
  AXE_ASSIGN_OR_RETURN(Section from, LogicalView(source, shape, colour, options));
  AXE_ASSIGN_OR_RETURN(Axis to_colour, ChooseAxis(destination, std::nullopt, "colour axis"));
  AXE_ASSIGN_OR_RETURN(Section to, LogicalView(destination, shape, to_colour, options));
  // Both grids show the same window: colour the destination's cells as the source's, so a
  // colour follows the elements from where they are to where they go.
  for (size_t i = 0; i < to.grid.cells.size() && i < from.grid.cells.size(); ++i) {
    to.grid.cells[i].fill = from.grid.cells[i].fill;
    to.grid.cells[i].text = from.grid.cells[i].text;
  }
  from.grid.caption = absl::StrCat("source: ", from.grid.caption);
  to.grid.caption =
      absl::StrCat("destination: ", to.grid.caption.substr(0, to.grid.caption.find(", coloured")),
                   ", coloured as the source");
  Svg svg;
  const std::string title =
      absl::StrCat("relayout ", source.ToString(), " -> ", destination.ToString());
  int64_t y = LegendLines(svg, kMargin, kMargin, {title}) + 6;
  const Box left = DrawCellGrid(svg, kMargin, y, from.grid);
  const Box right = DrawCellGrid(svg, kMargin + left.width + 32, y, to.grid);
  y += std::max(left.height, right.height) + 8;
  y = FlowSwatches(svg, kMargin, y, left.width + 32 + right.width, from.swatches);
  std::vector<std::string> notes = {
      absl::StrCat("each element keeps its source colour: the ", colour.name(), " it comes from")};
  for (const std::string& n : from.notes) notes.push_back(absl::StrCat("source: ", n));
  for (const std::string& n : to.notes) {
    if (n.rfind("(colours", 0) != 0) notes.push_back(absl::StrCat("destination: ", n));
  }
  const int64_t width =
      std::max({LinesWidth({title}), left.width + 32 + right.width, LinesWidth(notes)});
  y = LegendLines(svg, kMargin, y, notes);
  return svg.Finish(title, width + 2 * kMargin, y + kMargin);
}

}  // namespace axe::picture
