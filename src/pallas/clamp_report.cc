#include "axe/pallas/clamp_report.h"

#include <optional>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"

namespace axe::pallas {

std::variant<int64_t, uint64_t> WindowEnd(int64_t start, int64_t size) {
  if (std::optional<int64_t> end = CheckedAdd(start, size)) return *end;
  return static_cast<uint64_t>(start) + static_cast<uint64_t>(size);
}

std::string FormatWindow(const std::vector<int64_t>& start, const std::vector<int64_t>& size) {
  std::vector<std::string> parts;
  for (size_t d = 0; d < start.size(); ++d) {
    const std::string end =
        std::visit([](auto v) { return absl::StrCat(v); }, WindowEnd(start[d], size[d]));
    parts.push_back(absl::StrCat(start[d], ":", end));
  }
  return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

std::string ClampEvent::ToString() const {
  std::string s = absl::StrCat(
      operand, " at grid point ", FormatTuple(grid_point, true), ": the index map returned ",
      FormatTuple(indices, true), ", asking for the window ", FormatWindow(requested_start, size),
      " of an array of shape ", FormatTuple(array_shape, true),
      negative_start ? "; it was moved to " : "; it was clamped to ", FormatWindow(start, size));
  if (negative_start) {
    s += " (a negative start counts from the end of the padded dimension, as in JAX's "
         "lax.dynamic_slice)";
  } else if (blocked_dim_moved) {
    s += " (an index map returns block indices, not element offsets)";
  }
  return s;
}

}  // namespace axe::pallas
