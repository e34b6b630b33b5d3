#include "write_check.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/pallas/clamp_report.h"

namespace axe::pallas::internal {
namespace {

// The program that writes a window, and its parallel slice.
struct Writer {
  int64_t slice, program;
};
using WrittenWindow = std::pair<Shape, Writer>;  // (window starts, writer)

Shape GridPointOf(const Grid& grid, int64_t number) {
  Shape point(static_cast<size_t>(grid.rank()));
  for (int a = grid.rank() - 1; a >= 0; --a) {
    point[static_cast<size_t>(a)] = number % grid.size(a);
    number /= grid.size(a);
  }
  return point;
}

absl::Status Conflict(const Grid& grid, const Operand& op, const WrittenWindow& a,
                      const WrittenWindow& b) {
  auto window = [&](const Shape& starts) {
    std::vector<int64_t> start, size;
    for (size_t i = 0; i < starts.size(); ++i) {
      start.push_back(starts[i] - op.padding_lo[i]);
      size.push_back(op.block_size[i]);
    }
    return FormatWindow(start, size);
  };
  return absl::InvalidArgumentError(absl::StrCat(
      "Parallel mode: ", op.origin, " is written at ", window(a.first), " by grid point ",
      PointText(GridPointOf(grid, a.second.program)), " and at ", window(b.first),
      " by grid point ", PointText(GridPointOf(grid, b.second.program)),
      ", which lie in different parallel slices; programs that differ on a \"parallel\" axis "
      "must write disjoint output windows (mark the axis \"arbitrary\" to revisit an output "
      "block)"));
}

bool Overlap(const Operand& op, const Shape& s, const Shape& t) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] - t[i] >= op.block_size[i] || t[i] - s[i] >= op.block_size[i]) return false;
  }
  return true;
}

using WindowMap = absl::flat_hash_map<Shape, Writer>;

// Every distinct window of `op` with its first writer; errors when two slices write the
// very same window.
absl::StatusOr<WindowMap> CollectWindows(const Grid& grid, const Operand& op,
                                         const std::vector<int>& parallel_axes) {
  WindowMap seen;
  Shape point(static_cast<size_t>(grid.rank()), 0);
  Window window;
  for (int64_t p = 0; p < grid.num_programs(); ++p) {
    AXE_RETURN_IF_ERROR(WindowAt(op, point, window));
    int64_t slice = 0;
    for (int a : parallel_axes) slice = slice * grid.size(a) + point[static_cast<size_t>(a)];
    auto [it, inserted] = seen.try_emplace(window.starts, Writer{slice, p});
    if (!inserted && it->second.slice != slice) {
      return Conflict(grid, op, *it, WrittenWindow{window.starts, Writer{slice, p}});
    }
    NextGridPoint(grid, absl::MakeSpan(point));
  }
  return seen;
}

// Windows of different slices that partly overlap. Only dimensions where some start is not
// a multiple of the block size ("loose") can overlap partly; windows are bucketed by block
// cell and compared with the 3^loose neighbouring cells, or pairwise when that is cheaper.
absl::Status FindPartialOverlap(const Grid& grid, const Operand& op, const WindowMap& seen) {
  std::vector<int> loose;
  for (int d = 0; d < op.rank; ++d) {
    const size_t k = static_cast<size_t>(d);
    for (const auto& [starts, writer] : seen) {
      if (starts[k] % op.block_size[k] != 0) {
        loose.push_back(d);
        break;
      }
    }
  }
  if (loose.empty()) return absl::OkStatus();
  // In program order, so that the first conflict found is the earliest.
  std::vector<WrittenWindow> windows(seen.begin(), seen.end());
  std::sort(windows.begin(), windows.end(),
            [](const auto& a, const auto& b) { return a.second.program < b.second.program; });
  int64_t neighbors = 1;
  for (size_t u = 0; u < loose.size() && neighbors <= 729; ++u) neighbors *= 3;
  auto check = [&](size_t x, size_t y) -> absl::Status {
    if (windows[x].second.slice != windows[y].second.slice &&
        Overlap(op, windows[x].first, windows[y].first)) {
      return Conflict(grid, op, windows[x], windows[y]);
    }
    return absl::OkStatus();
  };
  if (neighbors > 729 || neighbors > static_cast<int64_t>(windows.size())) {
    for (size_t x = 0; x < windows.size(); ++x) {
      for (size_t y = x + 1; y < windows.size(); ++y) AXE_RETURN_IF_ERROR(check(x, y));
    }
    return absl::OkStatus();
  }
  auto cell = [&](const Shape& starts) {
    Shape c(starts.size());
    for (size_t i = 0; i < starts.size(); ++i) c[i] = FloorDiv(starts[i], op.block_size[i]);
    return c;
  };
  absl::flat_hash_map<Shape, std::vector<size_t>> cells;
  for (size_t x = 0; x < windows.size(); ++x) cells[cell(windows[x].first)].push_back(x);
  for (size_t x = 0; x < windows.size(); ++x) {
    const Shape base = cell(windows[x].first);
    for (int64_t code = 0; code < neighbors; ++code) {
      Shape c = base;
      int64_t rest = code;
      for (int d : loose) {
        c[static_cast<size_t>(d)] += rest % 3 - 1;
        rest /= 3;
      }
      auto it = cells.find(c);
      if (it == cells.end()) continue;
      for (size_t y : it->second) {
        if (y > x) AXE_RETURN_IF_ERROR(check(x, y));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckDisjointWrites(const CallSpec& spec, const Plan& plan,
                                 const std::vector<int>& parallel_axes) {
  for (size_t k = plan.num_inputs; k < plan.operands.size(); ++k) {
    const Operand& op = plan.operands[k];
    if (std::find(op.block_size.begin(), op.block_size.end(), 0) != op.block_size.end()) {
      continue;  // empty windows
    }
    AXE_ASSIGN_OR_RETURN(WindowMap windows, CollectWindows(spec.grid, op, parallel_axes));
    AXE_RETURN_IF_ERROR(FindPartialOverlap(spec.grid, op, windows));
  }
  return absl::OkStatus();
}

}  // namespace axe::pallas::internal
