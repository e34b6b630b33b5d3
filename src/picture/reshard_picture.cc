#include "axe/picture/reshard_picture.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "axe/picture/cell_grid.h"
#include "axe/picture/palette.h"
#include "axe/picture/svg.h"
#include "axe/relayout/index_box.h"
#include "axe/sharding/picture.h"

namespace axe::picture {
namespace {

using relayout::IndexBox;
using runtime::ReshardMessage;
using runtime::ReshardPlan;
using sharding::DeviceShard;

constexpr size_t kMaxCells = 32;         // cells per direction
constexpr size_t kMaxArrowDevices = 16;  // devices drawn in the arrow panel
constexpr size_t kMaxArrowPairs = 48;    // arrows
constexpr size_t kMaxListedMessages = 24;
constexpr size_t kMaxListedDevices = 16;
constexpr size_t kMaxCellEntries = 64;  // holders remembered per cell
constexpr int64_t kSwatchWidth = 32;
constexpr int64_t kArrowGap = 96;  // between the two device columns

// The drawn dimensions (absent: not split, drawn as one "all" row or column) and the split
// dimensions that are not drawn (drawn at index 0).
struct DrawnDims {
  std::optional<size_t> row, col;
  std::vector<size_t> others;
};

// One drawn direction: the cells' intervals of its dimension (the first kMaxCells).
struct Direction {
  std::optional<size_t> dim;
  std::vector<Interval> cells;
  bool more = false;
};

// What one cell shows: the devices holding it before, and after (receiver, sender or -1 when
// the receiver keeps it).
struct CellHolders {
  std::vector<int64_t> sources;
  int64_t source_count = 0;
  std::vector<std::pair<int64_t, int64_t>> destinations;
  int64_t destination_count = 0;
  bool kept = false;
};

bool IsSplit(const IndexBox& box, size_t d, int64_t extent) {
  return d < box.size() && !(box[d].begin == 0 && box[d].end == extent);
}

DrawnDims ChooseDims(absl::Span<const int64_t> shape, const std::vector<IndexBox>& boxes) {
  std::vector<size_t> split;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (std::any_of(boxes.begin(), boxes.end(),
                    [&](const IndexBox& b) { return IsSplit(b, d, shape[d]); }))
      split.push_back(d);
  }
  DrawnDims dims;
  if (split.size() == 1) {
    (split[0] + 1 == shape.size() ? dims.col : dims.row) = split[0];
  } else if (split.size() >= 2) {
    dims.row = split[0];
    dims.col = split[1];
    dims.others.assign(split.begin() + 2, split.end());
  }
  return dims;
}

// The intervals of dimension `dim` that no box boundary cuts.
Direction MakeDirection(std::optional<size_t> dim, absl::Span<const int64_t> shape,
                        const std::vector<IndexBox>& boxes) {
  Direction dir{dim, {}, false};
  if (!dim) {
    dir.cells.push_back({0, 1});
    return dir;
  }
  std::set<int64_t> cuts = {0, shape[*dim]};
  for (const IndexBox& b : boxes) {
    if (*dim < b.size()) cuts.insert({b[*dim].begin, b[*dim].end});
  }
  std::vector<int64_t> points(cuts.begin(), cuts.end());
  for (size_t i = 0; i + 1 < points.size(); ++i) {
    if (points[i] >= 0 && points[i + 1] <= shape[*dim])
      dir.cells.push_back({points[i], points[i + 1]});
  }
  dir.more = dir.cells.size() > kMaxCells;
  if (dir.more) dir.cells.resize(kMaxCells);
  return dir;
}

// The drawn cells of `dir` that `box` covers, as [first, last).
std::pair<size_t, size_t> Covered(const Direction& dir, const IndexBox& box) {
  if (!dir.dim) return {0, 1};
  if (*dir.dim >= box.size()) return {0, 0};
  const Interval& in = box[*dir.dim];
  auto begin_at_least = [&dir](int64_t v) {
    return static_cast<size_t>(
        std::lower_bound(dir.cells.begin(), dir.cells.end(), v,
                         [](const Interval& c, int64_t x) { return c.begin < x; }) -
        dir.cells.begin());
  };
  return {begin_at_least(in.begin), begin_at_least(in.end)};
}

bool AtOriginOfOthers(const IndexBox& box, const std::vector<size_t>& others) {
  return std::all_of(others.begin(), others.end(), [&box](size_t d) {
    return d < box.size() && box[d].begin == 0 && box[d].end > 0;
  });
}

// Calls visit(cell index) for every drawn cell inside `box`.
template <typename Visit>
void ForCells(const Direction& rows, const Direction& cols, const DrawnDims& dims,
              const IndexBox& box, Visit visit) {
  if (!AtOriginOfOthers(box, dims.others)) return;
  const auto [r0, r1] = Covered(rows, box);
  const auto [c0, c1] = Covered(cols, box);
  for (size_t r = r0; r < r1; ++r)
    for (size_t c = c0; c < c1; ++c) visit(r * cols.cells.size() + c);
}

std::string IntervalLabel(const Direction& dir, const Interval& i) {
  if (!dir.dim) return "all";
  return i.end - i.begin <= 1 ? absl::StrCat(i.begin) : absl::StrCat(i.begin, "-", i.end - 1);
}

CellGrid EmptyGrid(const Direction& rows, const Direction& cols, std::string caption) {
  CellGrid grid;
  grid.caption = std::move(caption);
  for (const Interval& i : rows.cells) grid.row_labels.push_back(IntervalLabel(rows, i));
  for (const Interval& i : cols.cells) grid.col_labels.push_back(IntervalLabel(cols, i));
  grid.more_rows = rows.more;
  grid.more_cols = cols.more;
  return grid;
}

Cell DeviceCell(std::string label, int64_t device) {
  const Swatch sw = PaletteSwatch(device);
  return {std::move(label), sw.fill, sw.text};
}

Cell SourceCell(CellHolders& h) {
  if (h.source_count == 0) return {"", std::string(kEmptyFill), std::string(kInk)};
  std::sort(h.sources.begin(), h.sources.end());
  std::string label = sharding::DeviceListLabel(h.sources);
  if (h.source_count > static_cast<int64_t>(h.sources.size()) || label.size() > 14)
    label = absl::StrCat(h.sources[0], ",…+", h.source_count - 1);
  return DeviceCell(std::move(label), h.sources[0]);
}

Cell DestinationCell(CellHolders& h) {
  if (h.destination_count == 0) return {"", std::string(kEmptyFill), std::string(kInk)};
  std::sort(h.destinations.begin(), h.destinations.end());
  std::vector<std::string> parts;
  for (size_t i = 0; i < h.destinations.size() && i < 2; ++i) {
    const auto& [dst, src] = h.destinations[i];
    parts.push_back(src < 0 ? absl::StrCat(dst) : absl::StrCat(dst, "←", src));
  }
  if (h.destination_count > 2) parts.push_back(absl::StrCat("+", h.destination_count - 2));
  Cell cell = DeviceCell(absl::StrJoin(parts, " "), h.destinations[0].first);
  cell.marked = h.kept;
  return cell;
}

std::vector<IndexBox> Boxes(absl::Span<const DeviceShard> map) {
  std::vector<IndexBox> boxes;
  for (const DeviceShard& s : map) boxes.push_back(s.index);
  return boxes;
}

// The two grids: the source map's holders at the left, the destination's at the right.
std::pair<CellGrid, CellGrid> Grids(const ReshardPlan& plan, const std::vector<IndexBox>& from,
                                    absl::Span<const DeviceShard> from_map, const Direction& rows,
                                    const Direction& cols, const DrawnDims& dims) {
  std::vector<CellHolders> cells(rows.cells.size() * cols.cells.size());
  for (size_t i = 0; i < from.size(); ++i) {
    ForCells(rows, cols, dims, from[i], [&](size_t k) {
      if (cells[k].sources.size() < kMaxCellEntries) cells[k].sources.push_back(from_map[i].device);
      ++cells[k].source_count;
    });
  }
  auto add = [&](const ReshardMessage& m, bool kept) {
    ForCells(rows, cols, dims, m.box, [&](size_t k) {
      if (cells[k].destinations.size() < kMaxCellEntries)
        cells[k].destinations.push_back({m.dst_device, kept ? -1 : m.src_device});
      ++cells[k].destination_count;
      cells[k].kept |= kept;
    });
  };
  for (const ReshardMessage& m : plan.messages) add(m, false);
  for (const ReshardMessage& m : plan.local_copies) add(m, true);
  CellGrid left = EmptyGrid(rows, cols, "source: who holds it now");
  CellGrid right = EmptyGrid(rows, cols, "destination: who gets it from whom");
  for (CellHolders& h : cells) {
    left.cells.push_back(SourceCell(h));
    right.cells.push_back(DestinationCell(h));
  }
  return {std::move(left), std::move(right)};
}

// The sender -> receiver pairs of the messages, or nullopt when too many to draw.
std::optional<std::set<std::pair<int64_t, int64_t>>> ArrowPairs(const ReshardPlan& plan) {
  std::set<std::pair<int64_t, int64_t>> pairs;
  for (const ReshardMessage& m : plan.messages) {
    if (m.src_device < 0 || m.dst_device < 0 ||
        static_cast<size_t>(std::max(m.src_device, m.dst_device)) >= kMaxArrowDevices)
      return std::nullopt;
    pairs.insert({m.src_device, m.dst_device});
    if (pairs.size() > kMaxArrowPairs) return std::nullopt;
  }
  return pairs;
}

// The devices as two columns of swatches with an arrow from each sender to each receiver;
// returns the box it took.
Box DrawArrows(Svg& svg, int64_t x, int64_t y, const ReshardPlan& plan,
               const std::set<std::pair<int64_t, int64_t>>& pairs) {
  const int64_t devices =
      std::min<int64_t>(static_cast<int64_t>(plan.bytes_sent.size()), kMaxArrowDevices);
  svg.Text(x, y + kFontSize, "messages: sender → receiver", kInk);
  const int64_t top = y + kLineHeight + 4 + kCellHeight;  // level with the grids' first row
  const int64_t right_x = x + kSwatchWidth + kArrowGap;
  auto centre_y = [top](int64_t d) { return top + d * kCellHeight + kCellHeight / 2; };
  for (int64_t d = 0; d < devices; ++d) {
    const Swatch sw = PaletteSwatch(d);
    for (int64_t column_x : {x, right_x}) {
      svg.Rect({column_x, top + d * kCellHeight + 2, kSwatchWidth, kCellHeight - 4}, sw.fill, kInk);
      svg.Text(column_x + kSwatchWidth / 2, centre_y(d) + 4, absl::StrCat(d), sw.text,
               TextAnchor::kMiddle);
    }
  }
  svg.OpenGroup({{"fill", "none"}, {"stroke-width", "2"}});
  for (const auto& [src, dst] : pairs) {
    const int64_t x1 = x + kSwatchWidth + 2, y1 = centre_y(src);
    const int64_t x2 = right_x - 2, y2 = centre_y(dst);
    const std::string ink = PaletteSwatch(src).fill;
    svg.Element("polyline",
                {{"points", absl::StrCat(x1, ",", y1, " ", x2 - 14, ",", y2, " ", x2 - 6, ",", y2)},
                 {"stroke", ink}});
    svg.Element(
        "polygon",
        {{"points", absl::StrCat(x2, ",", y2, " ", x2 - 8, ",", y2 - 4, " ", x2 - 8, ",", y2 + 4)},
         {"fill", ink},
         {"stroke", std::string(kInk)},
         {"stroke-width", "1"}});
  }
  svg.CloseGroup();
  return {x, y, std::max(2 * kSwatchWidth + kArrowGap, TextWidth("messages: sender → receiver")),
          top - y + devices * kCellHeight};
}

std::vector<std::string> Notes(const ReshardPlan& plan, const DrawnDims& dims, bool cut,
                               bool arrows) {
  auto dim_text = [](std::optional<size_t> d) {
    return d ? absl::StrCat("dimension ", *d) : std::string("none split");
  };
  std::vector<std::string> notes = {
      absl::StrCat("source ", plan.from.empty() ? "map" : plan.from),
      absl::StrCat("destination ", plan.to.empty() ? "map" : plan.to),
      absl::StrCat("rows: ", dim_text(dims.row), ", columns: ", dim_text(dims.col)),
      "left: the devices holding each box now, coloured by the first",
      "right: d←s, device d receives the box from device s, coloured by the first receiver;",
      "d with a dot: device d already holds the box (kept, a local copy)",
      absl::StrCat("V_min ", plan.v_min_bytes, " bytes (", plan.v_min_elements, " elements) in ",
                   plan.messages.size(), " messages; kept locally ", plan.local_bytes, " bytes in ",
                   plan.local_copies.size(), " copies; busiest sender ", plan.max_bytes_sent(),
                   " bytes")};
  if (!dims.others.empty()) {
    notes.push_back(absl::StrCat("dimensions ", absl::StrJoin(dims.others, ", "),
                                 " are split too: the boxes at their index 0 are drawn"));
  }
  if (cut) notes.push_back("at most 32 boxes per direction are drawn; … marks the rest");
  if (!arrows && !plan.messages.empty()) {
    notes.push_back(absl::StrCat("the messages are not drawn as arrows (more than ",
                                 kMaxArrowDevices, " devices or ", kMaxArrowPairs,
                                 " device pairs): see the list"));
  }
  return notes;
}

std::vector<std::string> Lists(const ReshardPlan& plan) {
  std::vector<std::string> lines = {"bytes per device:"};
  const size_t n = plan.bytes_sent.size();
  for (size_t d = 0; d < n && d < kMaxListedDevices; ++d) {
    lines.push_back(absl::StrCat("device ", d, ": sends ", plan.bytes_sent[d], " B, receives ",
                                 plan.bytes_received[d], " B, keeps ", plan.bytes_kept[d], " B"));
  }
  if (n > kMaxListedDevices)
    lines.push_back(absl::StrCat("… ", n - kMaxListedDevices, " more devices"));
  lines.push_back(plan.messages.empty() ? "no messages" : "messages:");
  for (size_t i = 0; i < plan.messages.size() && i < kMaxListedMessages; ++i) {
    const ReshardMessage& m = plan.messages[i];
    lines.push_back(absl::StrCat("#", i + 1, " ", m.src_device, " → ", m.dst_device, ": ",
                                 BoxToString(m.box), " ", m.bytes, " B"));
  }
  if (plan.messages.size() > kMaxListedMessages) {
    lines.push_back(
        absl::StrCat("… ", plan.messages.size() - kMaxListedMessages, " more messages"));
  }
  return lines;
}

}  // namespace

std::string ReshardSvg(const ReshardPlan& plan, absl::Span<const DeviceShard> from,
                       absl::Span<const DeviceShard> to) {
  const std::vector<IndexBox> from_boxes = Boxes(from);
  std::vector<IndexBox> all = from_boxes;
  for (const IndexBox& b : Boxes(to)) all.push_back(b);
  for (const auto* list : {&plan.messages, &plan.local_copies})
    for (const ReshardMessage& m : *list) all.push_back(m.box);
  const DrawnDims dims = ChooseDims(plan.shape, all);
  const Direction rows = MakeDirection(dims.row, plan.shape, all);
  const Direction cols = MakeDirection(dims.col, plan.shape, all);
  const auto [left, right] = Grids(plan, from_boxes, from, rows, cols, dims);
  const std::optional<std::set<std::pair<int64_t, int64_t>>> pairs = ArrowPairs(plan);
  const bool arrows = pairs.has_value() && !pairs->empty();

  Svg svg;
  const std::string title = absl::StrCat("reshard of (", absl::StrJoin(plan.shape, ", "), ") x ",
                                         plan.element_bytes, "-byte elements");
  int64_t y = LegendLines(svg, kMargin, kMargin, {title}) + 6;
  int64_t x = kMargin;
  const Box left_box = DrawCellGrid(svg, x, y, left);
  x += left_box.width + 24;
  Box middle{x, y, 0, 0};
  if (arrows) {
    middle = DrawArrows(svg, x, y, plan, *pairs);
    x += middle.width + 24;
  }
  const Box right_box = DrawCellGrid(svg, x, y, right);
  const std::vector<std::string> notes = Notes(plan, dims, rows.more || cols.more, arrows);
  const std::vector<std::string> lists = Lists(plan);
  const int64_t width = std::max(
      {LinesWidth({title}), x + right_box.width - kMargin, LinesWidth(notes), LinesWidth(lists)});
  y += std::max({left_box.height, middle.height, right_box.height}) + 8;
  y = LegendLines(svg, kMargin, y, notes) + 6;
  y = LegendLines(svg, kMargin, y, lists);
  return svg.Finish(title, width + 2 * kMargin, y + kMargin);
}

absl::StatusOr<std::string> ReshardSvg(absl::Span<const int64_t> shape, int element_bytes,
                                       const sharding::NamedSharding& from,
                                       const sharding::NamedSharding& to) {
  AXE_ASSIGN_OR_RETURN(runtime::ReshardPlan plan,
                       runtime::PlanReshard(shape, element_bytes, from, to));
  AXE_ASSIGN_OR_RETURN(std::vector<DeviceShard> from_map, sharding::DevicesIndicesMap(from, shape));
  AXE_ASSIGN_OR_RETURN(std::vector<DeviceShard> to_map, sharding::DevicesIndicesMap(to, shape));
  return ReshardSvg(plan, from_map, to_map);
}

}  // namespace axe::picture
