#include "axe/picture/grid_picture.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/pallas/block_spec.h"
#include "axe/pallas/block_window.h"
#include "axe/pallas/show_program_ids.h"
#include "axe/picture/cell_grid.h"
#include "axe/picture/palette.h"
#include "axe/picture/svg.h"

namespace axe::picture {
namespace {

using pallas::BlockWindow;

// A block far larger than the array pads it: the run behind the picture stays this small.
constexpr int64_t kMaxBufferBytes = int64_t{1} << 28;
constexpr int64_t kMaxElements = int64_t{1} << 24;
constexpr int64_t kDrawWidth = 640, kDrawHeight = 480;  // the array at most
constexpr int64_t kElementPixels = 40;                  // an element at most

// One distinct window (in the two drawn dimensions) and the programs that use it.
struct DrawnWindow {
  int64_t row_start = 0, row_size = 1, col_start = 0, col_size = 1;
  std::vector<std::string> programs;
  bool clamped = false;
};

std::string PointText(const std::vector<int64_t>& point) {
  return absl::StrCat("(", absl::StrJoin(point, ","), point.size() == 1 ? ",)" : ")");
}

// Pixel scale: `count` elements over at most `max` pixels, at most kElementPixels each.
struct Scale {
  int64_t count = 1, pixels = 1;
  // Exact while element * pixels fits in int64. An empty array may still have a dimension
  // near 2^63 (its element count is 0), and windows over it start as far out: those scale in
  // long double, clamped to +-2^40 pixels so that sums of positions cannot overflow.
  int64_t At(int64_t element) const {
    if (std::optional<int64_t> product = CheckedMul(element, pixels)) {
      return FloorDiv(*product, count);
    }
    constexpr long double kLimit = 0x1p40L;
    const long double at = std::floor(static_cast<long double>(element) * pixels / count);
    return static_cast<int64_t>(std::clamp(at, -kLimit, kLimit));
  }
};
Scale MakeScale(int64_t count, int64_t max) {
  count = std::max<int64_t>(count, 1);
  return {count, count > max / kElementPixels ? max : std::min(max, count * kElementPixels)};
}

absl::StatusOr<std::vector<DrawnWindow>> Windows(const pallas::ShapeDType& out,
                                                 const pallas::BlockSpec& spec,
                                                 const pallas::Grid& grid,
                                                 const std::set<std::vector<int64_t>>& clamped) {
  const size_t rank = out.shape.size();
  std::map<std::vector<int64_t>, size_t> index_of;
  std::vector<DrawnWindow> windows;
  std::vector<int64_t> point(static_cast<size_t>(grid.rank()), 0);
  do {
    AXE_ASSIGN_OR_RETURN(BlockWindow w, pallas::ProgramWindow(spec, out, grid, point));
    bool at_origin = true;  // of the dimensions that are not drawn
    for (size_t d = 0; d + 2 < rank; ++d)
      at_origin = at_origin && w.start[d] <= 0 && w.start[d] + w.size[d] > 0;
    if (!at_origin) continue;
    DrawnWindow drawn;
    if (rank >= 2) {
      drawn.row_start = w.start[rank - 2];
      drawn.row_size = w.size[rank - 2];
    }
    if (rank >= 1) {
      drawn.col_start = w.start[rank - 1];
      drawn.col_size = w.size[rank - 1];
    }
    const std::vector<int64_t> key = {drawn.row_start, drawn.row_size, drawn.col_start,
                                      drawn.col_size};
    auto [it, added] = index_of.emplace(key, windows.size());
    if (added) windows.push_back(drawn);
    windows[it->second].programs.push_back(PointText(point));
    if (clamped.count(point)) windows[it->second].clamped = true;
  } while (pallas::NextGridPoint(grid, absl::MakeSpan(point)));
  return windows;
}

// A window drawn at most this many pixels from the array's corner, on either side: Element
// padding or a block far larger than the array could otherwise place one millions of pixels
// away (an empty array passes the element cap with any padding).
constexpr int64_t kMaxReachPixels = int64_t{1} << 15;

// Refuses windows reaching past kMaxReachPixels, naming the first one.
absl::Status CheckReach(const std::vector<DrawnWindow>& windows, const Scale& xs, const Scale& ys,
                        int64_t rows, int64_t cols) {
  auto within = [](const Scale& s, int64_t start, int64_t size) {
    // start + size cannot overflow: WindowAt checked the start, and it ends in the padded array.
    const int64_t a = s.At(start), b = s.At(start + size);
    return a >= -kMaxReachPixels && a <= kMaxReachPixels && b >= -kMaxReachPixels &&
           b <= kMaxReachPixels;
  };
  for (const DrawnWindow& w : windows) {
    const bool rows_fit = within(ys, w.row_start, w.row_size);
    if (rows_fit && within(xs, w.col_start, w.col_size)) continue;
    const std::string what =
        rows_fit ? absl::StrCat("columns [", w.col_start, ":", w.col_start + w.col_size,
                                "] of an array of ", cols, " columns")
                 : absl::StrCat("rows [", w.row_start, ":", w.row_start + w.row_size,
                                "] of an array of ", rows, " rows");
    return absl::InvalidArgumentError(
        absl::StrCat("the block of program ", w.programs[0], " covers ", what,
                     ", too far from the array to draw (a picture reaches at most ",
                     kMaxReachPixels, " pixels from it)"));
  }
  return absl::OkStatus();
}

std::string WindowLabel(const DrawnWindow& w) {
  if (w.programs.size() == 1) return w.programs[0];
  return absl::StrCat(w.programs[0], "+", w.programs.size() - 1);
}

// The pixel box of a window over the array drawn at (x0, y0).
Box WindowBox(const DrawnWindow& w, int64_t x0, int64_t y0, const Scale& xs, const Scale& ys) {
  return {x0 + xs.At(w.col_start), y0 + ys.At(w.row_start),
          xs.At(w.col_start + w.col_size) - xs.At(w.col_start),
          ys.At(w.row_start + w.row_size) - ys.At(w.row_start)};
}

// Draws each window over the array at (x0, y0); returns the right and bottom edges of the
// array and the windows together.
std::pair<int64_t, int64_t> DrawWindows(Svg& svg, const std::vector<DrawnWindow>& windows,
                                        int64_t x0, int64_t y0, const Scale& xs, const Scale& ys) {
  int64_t right = x0 + xs.pixels, bottom = y0 + ys.pixels;
  for (size_t i = 0; i < windows.size(); ++i) {
    const DrawnWindow& w = windows[i];
    const Box box = WindowBox(w, x0, y0, xs, ys);
    right = std::max(right, box.x + box.width);
    bottom = std::max(bottom, box.y + box.height);
    Attributes extra = {{"fill-opacity", "0.9"}};
    if (w.clamped) extra.push_back({"stroke-width", "3"});
    svg.Rect(box, PaletteSwatch(static_cast<int64_t>(i)).fill, w.clamped ? kMarkStroke : kInk,
             std::move(extra));
  }
  return {right, bottom};
}

// The windows' labels, drawn last (over the padding shade), where they fit.
void DrawWindowLabels(Svg& svg, const std::vector<DrawnWindow>& windows, int64_t x0, int64_t y0,
                      const Scale& xs, const Scale& ys) {
  for (size_t i = 0; i < windows.size(); ++i) {
    const Box box = WindowBox(windows[i], x0, y0, xs, ys);
    const std::string label = WindowLabel(windows[i]);
    if (box.width >= TextWidth(label) + 4 && box.height >= kFontSize + 2) {
      svg.Text(box.x + box.width / 2, box.y + box.height / 2 + kFontSize / 2 - 2, label,
               PaletteSwatch(static_cast<int64_t>(i)).text, TextAnchor::kMiddle);
    }
  }
}

}  // namespace

absl::StatusOr<std::string> GridSvg(const pallas::ShapeDType& out,
                                    std::optional<std::vector<pallas::BlockDim>> block_shape,
                                    const pallas::Grid& grid, const pallas::IndexMap& index_map) {
  AXE_RETURN_IF_ERROR(grid.Validate());
  if (grid.num_programs() > kMaxDrawnPrograms) {
    return absl::InvalidArgumentError(absl::StrCat("the grid ", grid.ToString(), " has ",
                                                   grid.num_programs(),
                                                   " programs; a picture "
                                                   "draws at most ",
                                                   kMaxDrawnPrograms));
  }
  std::optional<int64_t> elements = CheckedProduct(out.shape);
  if (!elements || *elements > kMaxElements) {
    return absl::InvalidArgumentError(absl::StrCat("the array has more than ", kMaxElements,
                                                   " elements; a picture draws at most that"));
  }
  std::vector<pallas::ClampEvent> clamps;
  AXE_ASSIGN_OR_RETURN(
      pallas::AnyArray ids,
      pallas::ShowProgramIds(out, block_shape, grid, index_map,
                             {.clamp_report = &clamps, .max_buffer_bytes = kMaxBufferBytes}));
  (void)ids;
  std::set<std::vector<int64_t>> clamped;
  for (const pallas::ClampEvent& e : clamps) clamped.insert(e.grid_point);
  const pallas::BlockSpec spec = block_shape ? pallas::BlockSpec(*block_shape, index_map)
                                             : pallas::BlockSpec::WholeArray(index_map);
  AXE_ASSIGN_OR_RETURN(std::vector<DrawnWindow> windows, Windows(out, spec, grid, clamped));

  const size_t rank = out.shape.size();
  const int64_t rows = rank >= 2 ? out.shape[rank - 2] : 1;
  const int64_t cols = rank >= 1 ? out.shape[rank - 1] : 1;
  const Scale ys = MakeScale(rows, kDrawHeight), xs = MakeScale(cols, kDrawWidth);
  AXE_RETURN_IF_ERROR(CheckReach(windows, xs, ys, rows, cols));
  Svg svg;
  const std::string title = absl::StrCat("Pallas grid ", grid.ToString(), " over ", out.ToString());
  int64_t y = LegendLines(svg, kMargin, kMargin, {title}) + 8;
  // Windows reaching into Element padding before the array start at negative indices.
  int64_t first_row = 0, first_col = 0;
  for (const DrawnWindow& w : windows) {
    first_row = std::min(first_row, w.row_start);
    first_col = std::min(first_col, w.col_start);
  }
  const int64_t x0 = kMargin + 8 - xs.At(first_col), y0 = y + 8 - ys.At(first_row);
  svg.Rect({x0, y0, xs.pixels, ys.pixels}, kEmptyFill, kInk);
  const auto [right, bottom] = DrawWindows(svg, windows, x0, y0, xs, ys);
  const int64_t left = x0 + xs.At(first_col), top = y0 + ys.At(first_row);
  if (left < x0) {
    svg.Rect({left, top, x0 - left, bottom - top}, kPaddingFill, "none", {{"fill-opacity", "0.6"}});
  }
  if (top < y0) {
    svg.Rect({x0, top, xs.pixels, y0 - top}, kPaddingFill, "none", {{"fill-opacity", "0.6"}});
  }
  // The padding: whatever of the windows lies outside the array, shaded over them.
  svg.Rect({x0 + xs.pixels, top, std::max<int64_t>(0, right - x0 - xs.pixels), bottom - top},
           kPaddingFill, "none", {{"fill-opacity", "0.6"}});
  svg.Rect({x0, y0 + ys.pixels, xs.pixels, std::max<int64_t>(0, bottom - y0 - ys.pixels)},
           kPaddingFill, "none", {{"fill-opacity", "0.6"}});
  svg.Rect({x0, y0, xs.pixels, ys.pixels}, "none", kInk, {{"stroke-width", "2"}});
  DrawWindowLabels(svg, windows, x0, y0, xs, ys);
  y = bottom + 12;
  std::vector<std::string> notes = {
      absl::StrCat(rank >= 2 ? absl::StrCat(rows, " rows x ") : "", cols,
                   " columns; each block: the program ids (grid indices) writing it (+k: k more)"),
      "grey inside the array: written by no program (uninitialized)"};
  int64_t width = std::max(LinesWidth({title}), right - kMargin);
  y = LegendSwatch(svg, kMargin, y, {"", std::string(kPaddingFill), std::string(kInk)},
                   "padding: the part of a window past the array's edge");
  if (!clamps.empty()) {
    y = LegendSwatch(svg, kMargin, y, {"", std::string(kBackground), std::string(kInk)},
                     "red outline: clamped (the index map asked for a window outside the array)",
                     kMarkStroke);
    notes.push_back(absl::StrCat("clamped: ", clamps[0].ToString()));
    if (clamps.size() > 1) notes.push_back(absl::StrCat("and ", clamps.size() - 1, " more"));
  }
  if (rank > 2) notes.push_back("the last two dimensions, at index 0 of the others");
  notes.push_back("labels too long for their block are left out");
  width = std::max({width, LinesWidth(notes),
                    40 + TextWidth("red outline: clamped (the index "
                                   "map asked for a window outside "
                                   "the array)")});
  y = LegendLines(svg, kMargin, y, notes);
  return svg.Finish(title, width + 2 * kMargin, y + kMargin);
}

}  // namespace axe::picture
