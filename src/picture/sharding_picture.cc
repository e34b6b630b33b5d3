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

constexpr int64_t kMaxBlocks = 32;  // mesh positions drawn per direction

// The dimensions some device does not hold whole.
std::vector<size_t> SplitDims(const sharding::ShardingExplanation& e) {
  std::vector<size_t> split;
  for (size_t d = 0; d < e.global_shape.size(); ++d) {
    for (const DeviceShard& s : e.devices) {
      if (d < s.index.size() && s.index[d] != Interval{0, e.global_shape[d]}) {
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
    if (*dim < s.index.size()) all.insert({s.index[*dim].begin, s.index[*dim].end});
  }
  return {all.begin(), all.end()};
}

std::string IntervalLabel(const IndexRange& i) {
  return i.second - i.first <= 1 ? absl::StrCat(i.first) : absl::StrCat(i.first, "-", i.second - 1);
}

bool Holds(const DeviceShard& s, std::optional<size_t> dim, const IndexRange& i) {
  return !dim || (*dim < s.index.size() && s.index[*dim] == Interval{i.first, i.second});
}

// Whether the device's box holds index 0 of every split dimension that is not drawn.
bool AtOriginOfOthers(const DeviceShard& s, const std::vector<size_t>& others) {
  for (size_t d : others) {
    if (d >= s.index.size() || s.index[d].begin != 0) return false;
  }
  return true;
}

// The array drawn to scale: one drawn dimension per direction (or none), each block a
// rectangle of its index range, labelled with its devices where the label fits.
struct ScaledBlocks {
  std::optional<size_t> row_dim, col_dim;
  std::vector<IndexRange> rows, cols;  // the drawn intervals (at most kMaxScaledBlocks each)
  bool more_rows = false, more_cols = false, labels_left_out = false, aspect_clamped = false;
  int64_t width = 0, height = 0;  // of the array's rectangle, in pixels
};

constexpr int64_t kMaxScaledBlocks = 64;
constexpr int64_t kMinSide = 160, kMaxSide = 640;
constexpr int64_t kMaxAspect = 8;  // a side is at most 8 times the other

// The extent drawn down (rows) or across (columns): the drawn dimension's; else, for the
// picture to keep the array's aspect, the last dimension across and the one before it down
// (when they are not the other direction's), else 1.
int64_t DrawnExtent(const sharding::ShardingExplanation& e, const ScaledBlocks& b, bool rows) {
  const std::optional<size_t> dim = rows ? b.row_dim : b.col_dim;
  const std::optional<size_t> other = rows ? b.col_dim : b.row_dim;
  const size_t rank = e.global_shape.size();
  std::optional<size_t> shown = dim;
  if (!shown && rank >= (rows ? 2 : 1)) {
    const size_t candidate = rows ? rank - 2 : rank - 1;
    if (candidate != other) shown = candidate;
  }
  return shown ? std::max<int64_t>(e.global_shape[*shown], 1) : 1;
}

// The rectangle's size: the array's aspect ratio (clamped to kMaxAspect), large enough for
// the labels of equal blocks when it can, within kMinSide..kMaxSide.
void ChooseSize(const sharding::ShardingExplanation& e, int64_t label_width, ScaledBlocks& b) {
  double w = static_cast<double>(DrawnExtent(e, b, false));
  double h = static_cast<double>(DrawnExtent(e, b, true));
  if (w > kMaxAspect * h || h > kMaxAspect * w) {
    b.aspect_clamped = true;
    (w > h ? w : h) = kMaxAspect * std::min(w, h);
  }
  const double needed_w = static_cast<double>(b.cols.size() * (label_width + 8));
  const double needed_h = static_cast<double>(b.rows.size() * (kFontSize + 8));
  double scale = std::max(needed_w / w, needed_h / h);
  scale = std::max(scale, kMinSide / std::max(w, h));
  scale = std::min(scale, kMaxSide / std::max(w, h));
  b.width = std::max<int64_t>(static_cast<int64_t>(w * scale), 1);
  b.height = std::max<int64_t>(static_cast<int64_t>(h * scale), 1);
}

// The pixel offset of index `i` of a dimension of `extent` drawn over `pixels`.
int64_t PixelAt(int64_t i, int64_t extent, int64_t pixels) {
  return static_cast<int64_t>(static_cast<double>(i) / static_cast<double>(extent) *
                              static_cast<double>(pixels));
}

std::vector<IndexRange> FirstIntervals(std::vector<IndexRange> all, bool* more) {
  *more = static_cast<int64_t>(all.size()) > kMaxScaledBlocks;
  if (*more) all.resize(kMaxScaledBlocks);
  return all;
}

// The devices holding block (r, c) and the colour of their replica group.
Cell BlockCell(const sharding::ShardingExplanation& e, const ScaledBlocks& b, const IndexRange& r,
               const IndexRange& c, const std::vector<size_t>& others) {
  std::vector<int64_t> devices;
  int64_t group = -1;
  for (const DeviceShard& s : e.devices) {
    if (Holds(s, b.row_dim, r) && Holds(s, b.col_dim, c) && AtOriginOfOthers(s, others)) {
      devices.push_back(s.device);
      if (group < 0) group = s.replica_group;
    }
  }
  if (devices.empty()) return {"", std::string(kEmptyFill), std::string(kInk)};
  const Swatch sw = PaletteSwatch(group);
  return {sharding::DeviceListLabel(devices), sw.fill, sw.text};
}

// Draws the blocks with the array's top-left corner at (x, y) (tick labels above and at the
// left); returns the box taken.
Box DrawScaledBlocks(Svg& svg, int64_t x, int64_t y, const sharding::ShardingExplanation& e,
                     ScaledBlocks& b, const std::vector<size_t>& others) {
  std::vector<std::vector<Cell>> cells;
  std::vector<std::string> row_labels;
  int64_t label_width = 0;
  for (const IndexRange& r : b.rows) {
    row_labels.push_back(b.row_dim ? IntervalLabel(r) : "");
    cells.emplace_back();
    for (const IndexRange& c : b.cols) {
      cells.back().push_back(BlockCell(e, b, r, c, others));
      label_width = std::max(label_width, TextWidth(cells.back().back().label));
    }
  }
  ChooseSize(e, label_width, b);
  const std::string caption = absl::StrCat("array (", absl::StrJoin(e.global_shape, ", "),
                                           ") to scale: the blocks the devices hold");
  svg.Text(x, y + kFontSize, caption, kInk);
  const int64_t left = x + LinesWidth(row_labels) + 8, top = y + kLineHeight + kLineHeight;
  const int64_t row_extent = DrawnExtent(e, b, true), col_extent = DrawnExtent(e, b, false);
  for (size_t j = 0; j < b.cols.size(); ++j) {
    const int64_t x0 = left + (b.col_dim ? PixelAt(b.cols[j].first, col_extent, b.width) : 0);
    const int64_t x1 =
        left + (b.col_dim ? PixelAt(b.cols[j].second, col_extent, b.width) : b.width);
    if (b.col_dim && TextWidth(IntervalLabel(b.cols[j])) + 4 <= x1 - x0)
      svg.Text((x0 + x1) / 2, top - 4, IntervalLabel(b.cols[j]), kInk, TextAnchor::kMiddle);
  }
  for (size_t i = 0; i < b.rows.size(); ++i) {
    const int64_t y0 = top + (b.row_dim ? PixelAt(b.rows[i].first, row_extent, b.height) : 0);
    const int64_t y1 =
        top + (b.row_dim ? PixelAt(b.rows[i].second, row_extent, b.height) : b.height);
    if (b.row_dim && y1 - y0 >= kFontSize + 2)
      svg.Text(left - 4, (y0 + y1 + kFontSize) / 2 - 2, row_labels[i], kInk, TextAnchor::kEnd);
    for (size_t j = 0; j < b.cols.size(); ++j) {
      const int64_t x0 = left + (b.col_dim ? PixelAt(b.cols[j].first, col_extent, b.width) : 0);
      const int64_t x1 =
          left + (b.col_dim ? PixelAt(b.cols[j].second, col_extent, b.width) : b.width);
      const Cell& cell = cells[i][j];
      svg.Rect({x0, y0, std::max<int64_t>(x1 - x0, 1), std::max<int64_t>(y1 - y0, 1)}, cell.fill,
               kInk);
      if (cell.label.empty()) continue;
      if (TextWidth(cell.label) + 4 <= x1 - x0 && y1 - y0 >= kFontSize + 2) {
        svg.Text((x0 + x1) / 2, (y0 + y1 + kFontSize) / 2 - 2, cell.label, cell.text,
                 TextAnchor::kMiddle);
      } else {
        b.labels_left_out = true;
      }
    }
  }
  int64_t right = left + b.width, bottom = top + b.height;
  if (b.more_cols) {
    svg.Text(right + 4, top + kFontSize, "…", kInk);
    right += 16;
  }
  if (b.more_rows) {
    svg.Text(left, bottom + kFontSize + 2, "…", kInk);
    bottom += kLineHeight;
  }
  return {x, y, std::max(right - x, TextWidth(caption)), bottom - y};
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
                        const std::optional<sharding::Mesh>& mesh,
                        const std::vector<std::string>& extra_notes) {
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
  ScaledBlocks blocks;
  blocks.row_dim = row_dim;
  blocks.col_dim = col_dim;
  blocks.rows = FirstIntervals(Intervals(e, row_dim), &blocks.more_rows);
  blocks.cols = FirstIntervals(Intervals(e, col_dim), &blocks.more_cols);
  const CellGrid devices = MeshGrid(e, mesh);

  Svg svg;
  const std::string title =
      absl::StrCat("sharding of ", XlaName(e.dtype), "[", absl::StrJoin(e.global_shape, ","), "]");
  int64_t y = LegendLines(svg, kMargin, kMargin, {title}) + 6;
  const Box left = DrawScaledBlocks(svg, kMargin, y, e, blocks, others);
  const Box right = DrawCellGrid(svg, kMargin + left.width + 32, y, devices);

  std::vector<std::string> notes = {
      absl::StrCat("rows: ", row_dim ? absl::StrCat("dimension ", *row_dim) : "none split",
                   ", columns: ", col_dim ? absl::StrCat("dimension ", *col_dim) : "none split"),
      "each block: the devices holding it (replicas grouped); colour: replica group"};
  notes.insert(notes.end(), extra_notes.begin(), extra_notes.end());
  if (e.named.text) notes.push_back(*e.named.text);
  if (e.hlo.text) notes.push_back(absl::StrCat("HLO ", *e.hlo.text));
  notes.push_back(absl::StrCat("shard shape (", absl::StrJoin(e.shard_shape, ", "), "), ",
                               e.num_devices, " devices",
                               e.fully_replicated ? ", fully replicated" : ""));
  if (!others.empty()) {
    notes.push_back(absl::StrCat("dimensions ", absl::StrJoin(others, ", "),
                                 " are split too: the blocks at their index 0 are drawn"));
  }
  if (blocks.aspect_clamped)
    notes.push_back("the array is drawn at most 8 times longer than wide (not to scale)");
  if (blocks.labels_left_out)
    notes.push_back(
        "blocks too small for their devices' label are unlabelled: the mesh "
        "beside them shows each device's colour");
  if (blocks.more_rows || blocks.more_cols)
    notes.push_back("at most 64 blocks per direction are drawn; … marks the rest");
  if (devices.more_rows || devices.more_cols)
    notes.push_back("at most 32 mesh positions per direction are drawn; … marks the rest");

  int64_t width = std::max({LinesWidth({title}), left.width + 32 + right.width, LinesWidth(notes)});
  y += std::max(left.height, right.height) + 8;
  y = LegendLines(svg, kMargin, y, notes);
  return svg.Finish(title, width + 2 * kMargin, y + kMargin);
}

}  // namespace axe::picture
