#include "axe/pallas/block_window.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "operand_plan.h"

namespace axe::pallas {

absl::StatusOr<BlockWindow> ProgramWindow(const BlockSpec& spec, const ShapeDType& operand,
                                          const Grid& grid, absl::Span<const int64_t> point) {
  if (point.size() != static_cast<size_t>(grid.rank())) {
    return absl::InvalidArgumentError(absl::StrCat("grid point ", internal::PointText(point),
                                                   " has ", point.size(), " indices, but the grid ",
                                                   grid.ToString(), " has ", grid.rank(), " axes"));
  }
  for (int a = 0; a < grid.rank(); ++a) {
    const int64_t p = point[static_cast<size_t>(a)];
    if (p < 0 || p >= grid.size(a)) {
      return absl::InvalidArgumentError(absl::StrCat("grid point ", internal::PointText(point),
                                                     " is outside the grid ", grid.ToString(),
                                                     " on axis ", a));
    }
  }
  const CallSpec call{.grid = grid, .in_specs = {spec}};
  AXE_ASSIGN_OR_RETURN(internal::Plan plan, internal::BuildPlan(call, {operand}, {}));
  const internal::Operand& op = plan.operands[0];
  internal::Window window;
  AXE_RETURN_IF_ERROR(internal::WindowAt(op, point, window));
  BlockWindow out;
  bool empty = false;
  for (int d = 0; d < op.rank; ++d) {
    const size_t k = static_cast<size_t>(d);
    const int64_t start = window.starts[k] - op.padding_lo[k];  // array coordinates
    out.start.push_back(start);
    out.size.push_back(op.block_size[k]);
    const int64_t begin = std::max<int64_t>(start, 0);
    const int64_t end = std::min(start + op.block_size[k], op.array_shape[k]);
    if (begin >= end) empty = true;
    out.region.push_back({begin, std::max(begin, end)});
  }
  if (empty) return out;
  AXE_ASSIGN_OR_RETURN(Layout row_major, Layout::RowMajor(operand.shape));
  AXE_ASSIGN_OR_RETURN(MaybeLayout sliced, Slice(row_major, operand.shape, out.region));
  if (!sliced.has_value()) {
    // A box of a row-major layout always has one; this would be a bug in the algebra.
    return absl::InternalError(absl::StrCat("the row-major layout of ", operand.ToString(),
                                            " has no slice to ", BoxToString(out.region), ": ",
                                            sliced.reason));
  }
  out.layout = *sliced;
  return out;
}

}  // namespace axe::pallas
