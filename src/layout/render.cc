#include "axe/layout/render.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"

namespace axe {

std::array<int64_t, 2> DefaultGridShape(const Layout& layout) {
  const std::vector<Iter>& d = layout.shard();
  int64_t cols = d.back().extent;
  for (size_t i = d.size() - 1; i-- > 0;) {
    if (cols > 64 / d[i].extent) break;  // cols * extent > 64
    cols *= d[i].extent;
  }
  return {layout.size() / cols, cols};
}

absl::StatusOr<GridView> ViewGrid(const Layout& layout, int64_t rows, int64_t cols,
                                  GridWindow window) {
  const int64_t shape[] = {rows, cols};
  AXE_RETURN_IF_ERROR(CheckShapeAdmitted(layout, shape));
  GridView view;
  view.rows = rows;
  view.cols = cols;
  view.shown_rows = std::min(rows, std::max<int64_t>(window.max_rows, 1));
  view.shown_cols = std::min(cols, std::max<int64_t>(window.max_cols, 1));
  view.axes = layout.axes();
  if (view.axes.empty()) view.axes.push_back(Axis::Memory());
  view.cells.reserve(static_cast<size_t>(view.shown_rows * view.shown_cols));
  for (int64_t r = 0; r < view.shown_rows; ++r) {
    for (int64_t c = 0; c < view.shown_cols; ++c) {
      AXE_ASSIGN_OR_RETURN(PhysCoord p, ApplyBase(layout, r * cols + c));
      view.cells.push_back(std::move(p));
    }
  }
  return view;
}

namespace {

std::string PadLeft(const std::string& s, size_t width) {
  return absl::StrCat(std::string(width - std::min(width, s.size()), ' '), s);
}

std::string Legend(const Layout& layout, const GridView& view) {
  std::string out = absl::StrCat(
      "each cell: ",
      absl::StrJoin(view.axes, ":", [](std::string* o, Axis a) { absl::StrAppend(o, a.name()); }));
  if (!layout.replica().empty()) {
    absl::StrAppend(&out, " (base point; every element is also at the replica offsets of ", "R[",
                    FormatIters(layout.replica()), "])");
  }
  if (view.shown_rows < view.rows || view.shown_cols < view.cols) {
    absl::StrAppend(&out, "\nshowing rows 0-", view.shown_rows - 1, " of ", view.rows,
                    " and columns 0-", view.shown_cols - 1, " of ", view.cols);
  }
  return out;
}

}  // namespace

absl::StatusOr<std::string> RenderGrid(const Layout& layout, int64_t rows, int64_t cols,
                                       GridWindow window) {
  AXE_ASSIGN_OR_RETURN(GridView view, ViewGrid(layout, rows, cols, window));
  std::vector<std::string> cells;
  size_t width = absl::StrCat(view.shown_cols - 1).size();
  for (const PhysCoord& p : view.cells) {
    cells.push_back(absl::StrJoin(
        view.axes, ":", [&p](std::string* out, Axis a) { absl::StrAppend(out, p.get(a)); }));
    width = std::max(width, cells.back().size());
  }
  const bool more_cols = view.shown_cols < view.cols;
  const size_t label = absl::StrCat(view.shown_rows - 1).size();
  std::string out = absl::StrCat(Legend(layout, view), "\n", std::string(label, ' '));
  for (int64_t c = 0; c < view.shown_cols; ++c)
    absl::StrAppend(&out, " ", PadLeft(absl::StrCat(c), width));
  if (more_cols) absl::StrAppend(&out, " ...");
  for (int64_t r = 0; r < view.shown_rows; ++r) {
    absl::StrAppend(&out, "\n", PadLeft(absl::StrCat(r), label));
    for (int64_t c = 0; c < view.shown_cols; ++c) {
      absl::StrAppend(&out, " ",
                      PadLeft(cells[static_cast<size_t>(r * view.shown_cols + c)], width));
    }
    if (more_cols) absl::StrAppend(&out, " ...");
  }
  if (view.shown_rows < view.rows) absl::StrAppend(&out, "\n", PadLeft("...", label));
  out += '\n';
  return out;
}

}  // namespace axe
