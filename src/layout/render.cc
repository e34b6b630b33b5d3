#include "axe/layout/render.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"

namespace axe {

absl::StatusOr<std::string> RenderGrid(const Layout& layout, int64_t rows, int64_t cols) {
  const int64_t shape[] = {rows, cols};
  AXE_RETURN_IF_ERROR(CheckShapeAdmitted(layout, shape));
  if (cols > 64 || rows > 256) {
    return absl::InvalidArgumentError(
        absl::StrCat("grid ", rows, "x", cols, " is too large to draw (at most 256 rows and 64 columns)"));
  }
  std::vector<Axis> axes = layout.axes();
  if (axes.empty()) axes.push_back(Axis::Memory());
  std::vector<std::string> cells;
  size_t width = 1;
  for (int64_t x = 0; x < rows * cols; ++x) {
    AXE_ASSIGN_OR_RETURN(PhysCoord p, ApplyBase(layout, x));
    std::string cell = absl::StrJoin(axes, ":", [&p](std::string* out, Axis a) { absl::StrAppend(out, p.get(a)); });
    width = std::max(width, cell.size());
    cells.push_back(std::move(cell));
  }
  width = std::max(width, absl::StrCat(cols - 1).size());
  const size_t label = absl::StrCat(rows - 1).size();
  auto pad = [](const std::string& s, size_t w) { return absl::StrCat(std::string(w - std::min(w, s.size()), ' '), s); };
  std::string out = absl::StrCat("each cell: ", absl::StrJoin(axes, ":", [](std::string* o, Axis a) {
                                   absl::StrAppend(o, a.name());
                                 }));
  if (!layout.replica().empty()) {
    absl::StrAppend(&out, " (base point; every element is also at the replica offsets of ",
                    "R[", FormatIters(layout.replica()), "])");
  }
  absl::StrAppend(&out, "\n", std::string(label, ' '));
  for (int64_t c = 0; c < cols; ++c) absl::StrAppend(&out, " ", pad(absl::StrCat(c), width));
  for (int64_t r = 0; r < rows; ++r) {
    absl::StrAppend(&out, "\n", pad(absl::StrCat(r), label));
    for (int64_t c = 0; c < cols; ++c) absl::StrAppend(&out, " ", pad(cells[r * cols + c], width));
  }
  out += '\n';
  return out;
}

}  // namespace axe
