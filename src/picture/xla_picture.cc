#include "axe/picture/xla_picture.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/picture/cell_grid.h"
#include "axe/picture/palette.h"
#include "axe/picture/svg.h"
#include "axe/xla/tiling.h"

namespace axe::picture {
namespace {

// How the first tile level cuts one drawn (physical) dimension.
struct DimCut {
  int64_t dim = 0;    // logical dimension number
  int64_t size = 1;   // its size
  int64_t bound = 1;  // the tile's extent along it
  int64_t count = 1;  // tiles along it
  static constexpr size_t kNotCovered = static_cast<size_t>(-1);
  // Its group in the level; kNotCovered when no group covers it. (A plain value: g++ 12
  // reports a copied std::optional<size_t> as maybe uninitialized once inlined.)
  size_t group = kNotCovered;
};

absl::StatusOr<DimCut> CutOf(const xla::TilingMap& map, size_t physical_position) {
  DimCut cut;
  cut.dim = map.physical_order()[physical_position];
  cut.size = map.physical_dimensions()[physical_position];
  cut.bound = 1;
  cut.count = cut.size;
  if (map.levels().empty()) return cut;
  const xla::TilingLevel& level = map.levels()[0];
  const size_t padded = level.left_padding + physical_position;
  if (padded < level.prefix) return cut;
  const size_t covered = padded - level.prefix;
  for (size_t g = 0; g < level.groups.size(); ++g) {
    const std::vector<size_t>& members = level.groups[g];
    if (std::find(members.begin(), members.end(), covered) == members.end()) continue;
    if (members.size() > 1) {
      return absl::UnimplementedError(
          absl::StrCat("the picture does not draw tiles that combine dimension ", cut.dim,
                       " with another one (`*` in ", level.tile.ToString(), ")"));
    }
    cut.bound = level.bounds[g];
    cut.count = level.counts[g];
    cut.group = g;
    return cut;
  }
  return cut;  // covered by a `*`-free part of no group: cannot happen; drawn untiled
}

// The memory rank of the first-level tile holding `index` (row-major over the level's
// untiled prefix dims and its tile counts), or, without tiles, the rank of its row.
absl::StatusOr<int64_t> TileNumber(const xla::TilingMap& map, const std::vector<int64_t>& index) {
  if (map.levels().empty()) {
    AXE_ASSIGN_OR_RETURN(int64_t linear, map.LinearIndex(index));
    return linear / std::max<int64_t>(1, map.physical_dimensions().back());
  }
  AXE_ASSIGN_OR_RETURN(std::vector<xla::LevelPosition> where, map.Locate(index));
  const xla::TilingLevel& level = map.levels()[0];
  std::vector<int64_t> padded_dims(level.left_padding, 1), padded_index(level.left_padding, 0);
  for (size_t p = 0; p < map.physical_order().size(); ++p) {
    padded_dims.push_back(map.physical_dimensions()[p]);
    padded_index.push_back(index[static_cast<size_t>(map.physical_order()[p])]);
  }
  int64_t number = 0;  // below expanded_elements: no overflow
  for (size_t i = 0; i < level.prefix; ++i) number = number * padded_dims[i] + padded_index[i];
  for (size_t g = 0; g < level.counts.size(); ++g)
    number = number * level.counts[g] + where[0].tile_index[g];
  return number;
}

// [start, start + size) as "a-b" or "a" (start >= 0, size >= 1). An empty array's tiles may
// reach past INT64_MAX (its element count is 0 whatever the tile), so b is summed unsigned.
std::string Range(int64_t start, int64_t size) {
  if (size <= 1) return absl::StrCat(start);
  return absl::StrCat(start, "-", static_cast<uint64_t>(start) + static_cast<uint64_t>(size - 1));
}

int64_t PaddedPermille(int64_t tile, int64_t bound, int64_t size) {
  const int64_t end = (tile + 1) * bound;  // <= count * bound, which the map checked
  // end - size < bound, so the permille is below 1000; only the product can be large.
  return end <= size ? 0 : *MulDivFloor(end - size, 1000, bound);
}

absl::StatusOr<CellGrid> TileGrid(const xla::TilingMap& map, const DimCut& rows, const DimCut& cols,
                                  const TilePictureOptions& options) {
  CellGrid grid;
  const int64_t shown_rows = std::min(rows.count, options.max_tile_rows);
  const int64_t shown_cols = std::min(cols.count, options.max_tile_cols);
  // Tile c starts at c * bound < size (c < count); it ends at the array's edge at the latest.
  for (int64_t c = 0; c < shown_cols; ++c) {
    const int64_t start = c * cols.bound;
    grid.col_labels.push_back(Range(start, std::min(cols.bound, cols.size - start)));
  }
  std::vector<int64_t> index(map.dimensions().size(), 0);
  for (int64_t r = 0; r < shown_rows; ++r) {
    const int64_t start = r * rows.bound;
    grid.row_labels.push_back(Range(start, std::min(rows.bound, rows.size - start)));
    for (int64_t c = 0; c < shown_cols; ++c) {
      if (rows.dim != cols.dim) index[static_cast<size_t>(rows.dim)] = r * rows.bound;
      index[static_cast<size_t>(cols.dim)] = c * cols.bound;
      AXE_ASSIGN_OR_RETURN(int64_t number, TileNumber(map, index));
      const Swatch s = PaletteSwatch(number);
      Cell cell{absl::StrCat("#", number), s.fill, s.text};
      cell.padded_right = PaddedPermille(c, cols.bound, cols.size);
      if (rows.dim != cols.dim) cell.padded_bottom = PaddedPermille(r, rows.bound, rows.size);
      grid.cells.push_back(std::move(cell));
    }
  }
  grid.more_rows = shown_rows < rows.count;
  grid.more_cols = shown_cols < cols.count;
  return grid;
}

// The second tile level inside one first-level tile, when it tiles the tile's two drawn
// bounds (or the last one) and nothing else.
std::optional<CellGrid> SubTileGrid(const xla::TilingMap& map, const DimCut& rows,
                                    const DimCut& cols, const TilePictureOptions& options,
                                    std::vector<std::string>& notes) {
  if (map.levels().size() < 2 || rows.group == DimCut::kNotCovered ||
      cols.group == DimCut::kNotCovered) {
    return std::nullopt;
  }
  const xla::TilingLevel& first = map.levels()[0];
  const xla::TilingLevel& second = map.levels()[1];
  const size_t n = first.bounds.size();
  const bool drawn_are_last = n >= 2 && rows.group == n - 2 && cols.group == n - 1;
  const size_t k = second.bounds.size();
  if (!drawn_are_last || second.left_padding != 0 || k > 2 ||
      second.prefix != second.input_rank - k || second.groups.size() != k) {
    notes.push_back(absl::StrCat("tile level ", second.tile.ToString(),
                                 " is not drawn (it does not subdivide the drawn tile)"));
    return std::nullopt;
  }
  const int64_t sub_rows = k == 2 ? second.bounds[0] : 1, sub_cols = second.bounds[k - 1];
  const int64_t count_rows = k == 2 ? second.counts[0] : rows.bound;
  const int64_t count_cols = second.counts[k - 1];
  CellGrid grid;
  grid.caption = absl::StrCat("tile #0 (", rows.bound, " x ", cols.bound, ") in ",
                              second.tile.ToString(), " sub-tiles of ", sub_rows, " x ", sub_cols,
                              " elements, numbered in memory order:");
  const int64_t shown_rows = std::min(count_rows, options.max_subtile_rows);
  const int64_t shown_cols = std::min(count_cols, options.max_subtile_cols);
  // Sub-tile c starts inside the tile (c * sub_cols < cols.bound); its end may not fit.
  for (int64_t c = 0; c < shown_cols; ++c) grid.col_labels.push_back(Range(c * sub_cols, sub_cols));
  for (int64_t r = 0; r < shown_rows; ++r) {
    grid.row_labels.push_back(Range(r * sub_rows, sub_rows));
    for (int64_t c = 0; c < shown_cols; ++c) {
      const Swatch s = PaletteSwatch(r);
      grid.cells.push_back({absl::StrCat(r * count_cols + c), s.fill, s.text});
    }
  }
  grid.more_rows = shown_rows < count_rows;
  grid.more_cols = shown_cols < count_cols;
  if (grid.more_rows || grid.more_cols) {
    notes.push_back(absl::StrCat("sub-tiles: showing ", shown_rows, " of ", count_rows,
                                 " rows and ", shown_cols, " of ", count_cols, " columns"));
  }
  return grid;
}

std::vector<std::string> PlaneNotes(const xla::TilingMap& map, const xla::Shape& shape,
                                    const DimCut& rows, const DimCut& cols, const CellGrid& tiles) {
  std::vector<std::string> notes;
  const size_t rank = map.dimensions().size();
  notes.push_back(absl::StrCat("rows: dimension ", rows.dim, " (", rows.size,
                               "), columns: dimension ", cols.dim, " (", cols.size,
                               "), the two most minor in memory"));
  if (!map.levels().empty()) {
    notes.push_back(absl::StrCat("each cell one ", map.levels()[0].tile.ToString(),
                                 " tile, #n its place in memory; shaded: padding"));
  } else {
    notes.push_back("no tiles: each cell one row, #n its place in memory");
  }
  if (tiles.more_rows || tiles.more_cols) {
    notes.push_back(absl::StrCat("showing ", tiles.row_labels.size(), " of ", rows.count,
                                 " tile rows and ", tiles.col_labels.size(), " of ", cols.count,
                                 " tile columns (… marks the rest)"));
  }
  if (rank > 2) {
    std::vector<std::string> others;
    int64_t planes = 1;
    for (size_t p = 0; p + 2 < rank; ++p) {
      const int64_t d = map.physical_order()[p];
      others.push_back(absl::StrCat(d, " (", shape.dimensions()[static_cast<size_t>(d)], ")"));
      planes = CheckedMul(planes, shape.dimensions()[static_cast<size_t>(d)]).value_or(-1);
    }
    notes.push_back(absl::StrCat("the plane at index 0 of dimensions ", absl::StrJoin(others, ", "),
                                 "; ", planes, " such planes in all"));
  }
  return notes;
}

}  // namespace

absl::StatusOr<std::string> TiledArraySvg(const xla::Shape& shape,
                                          const TilePictureOptions& options) {
  if (options.max_tile_rows < 1 || options.max_tile_cols < 1 || options.max_subtile_rows < 1 ||
      options.max_subtile_cols < 1) {
    return absl::InvalidArgumentError("the picture window must be at least 1 x 1");
  }
  AXE_ASSIGN_OR_RETURN(xla::TilingMap map, xla::TilingMap::Create(shape));
  const size_t rank = map.dimensions().size();
  if (rank == 0) return absl::InvalidArgumentError("a rank-0 array has no tiles to draw");
  AXE_ASSIGN_OR_RETURN(DimCut cols, CutOf(map, rank - 1));
  DimCut rows = cols;  // rank 1: one row
  rows.bound = rows.count = 1;
  rows.group = DimCut::kNotCovered;
  if (rank >= 2) {
    AXE_ASSIGN_OR_RETURN(rows, CutOf(map, rank - 2));
  } else {
    rows.size = 1;
  }
  AXE_ASSIGN_OR_RETURN(CellGrid tiles, TileGrid(map, rows, cols, options));
  std::vector<std::string> notes = PlaneNotes(map, shape, rows, cols, tiles);
  std::optional<CellGrid> sub = SubTileGrid(map, rows, cols, options, notes);

  Svg svg;
  const std::string title = absl::StrCat("XLA ", shape.ToString());
  int64_t y = LegendLines(svg, kMargin, kMargin, {title}) + 6;
  const Box grid = DrawCellGrid(svg, kMargin, y, tiles);
  int64_t width = std::max(LinesWidth({title}), grid.width);
  y += grid.height + 8;
  y = LegendSwatch(svg, kMargin, y, {"", std::string(kPaddingFill), std::string(kInk)},
                   "padding (beyond the array's edge, inside the last tile)");
  width = std::max(width, LinesWidth(notes));
  y = LegendLines(svg, kMargin, y, notes) + 12;
  width =
      std::max(width, 40 + TextWidth("padding (beyond the array's edge, inside the last tile)"));
  if (sub) {
    const Box box = DrawCellGrid(svg, kMargin, y, *sub);
    width = std::max(width, box.width);
    y += box.height + 8;
  }
  return svg.Finish(title, width + 2 * kMargin, y + kMargin);
}

}  // namespace axe::picture
