#include "axe/picture/sharding_picture.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/picture/cell_grid.h"
#include "axe/picture/palette.h"
#include "axe/picture/svg.h"
#include "axe/sharding/picture.h"

namespace axe::picture {
namespace {

using sharding::DeviceShard;
using IndexRange = std::pair<int64_t, int64_t>;

constexpr int64_t kMaxBlocks = 32;

// The dimensions some device does not hold whole.
std::vector<size_t> SplitDims(const sharding::ShardingExplanation& e) {
  std::vector<size_t> split;
  for (size_t d = 0; d < e.global_shape.size(); ++d) {
    for (const DeviceShard& s : e.devices) {
      if (d < s.index.size() && s.index[d] != IndexRange{0, e.global_shape[d]}) {
        split.push_back(d);
        break;
      }
    }
  }
  return split;
}

std::vector<IndexRange> Intervals(const sharding::ShardingExplanation& e,
                                  std::optional<size_t> dim) {
  if (!dim) return {{0, 1}};
  std::set<IndexRange> all;
  for (const DeviceShard& s : e.devices) {
    if (*dim < s.index.size()) all.insert(s.index[*dim]);
  }
  return {all.begin(), all.end()};
}

std::string IntervalLabel(const IndexRange& i) {
  return i.second - i.first <= 1 ? absl::StrCat(i.first) : absl::StrCat(i.first, "-", i.second - 1);
}

bool Holds(const DeviceShard& s, std::optional<size_t> dim, const IndexRange& i) {
  return !dim || (*dim < s.index.size() && s.index[*dim] == i);
}

// Whether the device's box holds index 0 of every split dimension that is not drawn.
bool AtOriginOfOthers(const DeviceShard& s, const std::vector<size_t>& others) {
  for (size_t d : others) {
    if (d >= s.index.size() || s.index[d].first != 0) return false;
  }
  return true;
}

CellGrid BlockGrid(const sharding::ShardingExplanation& e, std::optional<size_t> row_dim,
                   std::optional<size_t> col_dim, const std::vector<size_t>& others) {
  CellGrid grid;
  const std::vector<IndexRange> rows = Intervals(e, row_dim), cols = Intervals(e, col_dim);
  const size_t shown_rows = std::min<size_t>(rows.size(), kMaxBlocks);
  const size_t shown_cols = std::min<size_t>(cols.size(), kMaxBlocks);
  grid.caption = absl::StrCat("array (", absl::StrJoin(e.global_shape, ", "), ")");
  for (size_t c = 0; c < shown_cols; ++c)
    grid.col_labels.push_back(col_dim ? IntervalLabel(cols[c]) : "all");
  for (size_t r = 0; r < shown_rows; ++r) {
    grid.row_labels.push_back(row_dim ? IntervalLabel(rows[r]) : "all");
    for (size_t c = 0; c < shown_cols; ++c) {
      std::vector<int64_t> devices;
      int64_t group = -1;
      for (const DeviceShard& s : e.devices) {
        if (Holds(s, row_dim, rows[r]) && Holds(s, col_dim, cols[c]) &&
            AtOriginOfOthers(s, others)) {
          devices.push_back(s.device);
          if (group < 0) group = s.replica_group;
        }
      }
      const Swatch sw = PaletteSwatch(group);
      grid.cells.push_back(devices.empty()
                               ? Cell{"", std::string(kEmptyFill), std::string(kInk)}
                               : Cell{sharding::DeviceListLabel(devices), sw.fill, sw.text});
    }
  }
  grid.more_rows = shown_rows < rows.size();
  grid.more_cols = shown_cols < cols.size();
  return grid;
}

CellGrid MeshGrid(const sharding::ShardingExplanation& e,
                  const std::optional<sharding::Mesh>& mesh) {
  std::map<int64_t, int64_t> group_of;
  for (const DeviceShard& s : e.devices) group_of[s.device] = s.replica_group;
  auto cell = [&group_of](int64_t device) {
    auto it = group_of.find(device);
    const Swatch sw = PaletteSwatch(it == group_of.end() ? 0 : it->second);
    return it == group_of.end()
               ? Cell{absl::StrCat(device), std::string(kEmptyFill), std::string(kInk)}
               : Cell{absl::StrCat(device), sw.fill, sw.text};
  };
  CellGrid grid;
  if (!mesh || mesh->rank() == 0) {
    grid.caption = "devices";
    const int64_t n = std::min<int64_t>(e.num_devices, kMaxBlocks);
    grid.row_labels.push_back("");
    for (int64_t d = 0; d < n; ++d) {
      grid.col_labels.push_back("");
      grid.cells.push_back(cell(d));
    }
    grid.more_cols = n < e.num_devices;
    return grid;
  }
  const sharding::MeshAxis& first = mesh->axes()[0];
  const int64_t cols = mesh->num_devices() / first.size;
  std::vector<std::string> col_axes;
  for (size_t j = 1; j < mesh->rank(); ++j)
    col_axes.push_back(absl::StrCat(mesh->axes()[j].name, "=", mesh->axes()[j].size));
  grid.caption = absl::StrCat("mesh: rows ", first.name, "=", first.size,
                              col_axes.empty() ? "" : ", columns ", absl::StrJoin(col_axes, " x "));
  const int64_t shown_rows = std::min<int64_t>(first.size, kMaxBlocks);
  const int64_t shown_cols = std::min<int64_t>(cols, kMaxBlocks);
  for (int64_t c = 0; c < shown_cols; ++c) {
    std::vector<int64_t> coord = mesh->CoordinateOfPosition(c);
    coord.erase(coord.begin());
    grid.col_labels.push_back(absl::StrJoin(coord, ","));
  }
  for (int64_t r = 0; r < shown_rows; ++r) {
    grid.row_labels.push_back(absl::StrCat(first.name, "=", r));
    for (int64_t c = 0; c < shown_cols; ++c)
      grid.cells.push_back(cell(mesh->DeviceAtPosition(r * cols + c)));
  }
  grid.more_rows = shown_rows < first.size;
  grid.more_cols = shown_cols < cols;
  return grid;
}

}  // namespace

std::string ShardingSvg(const sharding::ShardingExplanation& e,
                        const std::optional<sharding::Mesh>& mesh) {
  const std::vector<size_t> split = SplitDims(e);
  std::optional<size_t> row_dim, col_dim;
  const size_t rank = e.global_shape.size();
  if (split.size() == 1) {
    (split[0] + 1 == rank ? col_dim : row_dim) = split[0];
  } else if (split.size() >= 2) {
    row_dim = split[0];
    col_dim = split[1];
  }
  const std::vector<size_t> others(split.begin() + std::min<size_t>(2, split.size()), split.end());
  const CellGrid blocks = BlockGrid(e, row_dim, col_dim, others);
  const CellGrid devices = MeshGrid(e, mesh);

  std::vector<std::string> notes = {
      absl::StrCat("rows: ", row_dim ? absl::StrCat("dimension ", *row_dim) : "none split",
                   ", columns: ", col_dim ? absl::StrCat("dimension ", *col_dim) : "none split"),
      "each block: the devices holding it (replicas grouped); colour: replica group"};
  if (e.named.text) notes.push_back(*e.named.text);
  if (e.hlo.text) notes.push_back(absl::StrCat("HLO ", *e.hlo.text));
  notes.push_back(absl::StrCat("shard shape (", absl::StrJoin(e.shard_shape, ", "), "), ",
                               e.num_devices, " devices",
                               e.fully_replicated ? ", fully replicated" : ""));
  if (!others.empty()) {
    notes.push_back(absl::StrCat("dimensions ", absl::StrJoin(others, ", "),
                                 " are split too: the blocks at their index 0 are drawn"));
  }
  if (blocks.more_rows || blocks.more_cols || devices.more_rows || devices.more_cols)
    notes.push_back("at most 32 blocks (mesh positions) per direction are drawn; … marks the rest");

  Svg svg;
  const std::string title =
      absl::StrCat("sharding of ", XlaName(e.dtype), "[", absl::StrJoin(e.global_shape, ","), "]");
  int64_t y = LegendLines(svg, kMargin, kMargin, {title}) + 6;
  const Box left = DrawCellGrid(svg, kMargin, y, blocks);
  const Box right = DrawCellGrid(svg, kMargin + left.width + 32, y, devices);
  int64_t width = std::max({TextWidth(title), left.width + 32 + right.width, LinesWidth(notes)});
  y += std::max(left.height, right.height) + 8;
  y = LegendLines(svg, kMargin, y, notes);
  return svg.Finish(title, width + 2 * kMargin, y + kMargin);
}

}  // namespace axe::picture
