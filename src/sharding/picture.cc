#include "axe/sharding/picture.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"

namespace axe::sharding {
namespace {

constexpr size_t kMaxBlocks = 32;
constexpr int64_t kPictureWidth = 40;

// The cut points of dimension `dim`: every start and stop of a device's range, sorted.
std::vector<int64_t> CutPoints(absl::Span<const DeviceShard> devices, size_t dim, int64_t extent) {
  std::set<int64_t> cuts = {0, extent};
  for (const DeviceShard& d : devices) {
    cuts.insert(d.index[dim].begin);
    cuts.insert(d.index[dim].end);
  }
  return {cuts.begin(), cuts.end()};
}

// The devices whose box contains the point `at` in the drawn dimensions.
std::string CellLabel(absl::Span<const DeviceShard> devices, const std::vector<size_t>& dims,
                      const std::vector<int64_t>& at) {
  std::vector<int64_t> holders;
  for (const DeviceShard& d : devices) {
    bool inside = true;
    for (size_t k = 0; k < dims.size(); ++k) {
      const auto& [start, stop] = d.index[dims[k]];
      inside = inside && start <= at[k] && at[k] < stop;
    }
    if (inside) holders.push_back(d.device);
  }
  return holders.empty() ? std::string("-") : DeviceListLabel(std::move(holders));
}

std::string Repeat(absl::string_view piece, int64_t n) {
  std::string out;
  for (int64_t i = 0; i < n; ++i) absl::StrAppend(&out, piece);
  return out;
}

std::string Centered(const std::string& label, int64_t width) {
  const int64_t pad = width - static_cast<int64_t>(label.size());
  const int64_t left = pad / 2;
  return absl::StrCat(std::string(static_cast<size_t>(left), ' '), label,
                      std::string(static_cast<size_t>(pad - left), ' '));
}

// A horizontal rule: `left`, then each column's width of ─ separated by `middle`, `right`.
std::string Rule(const std::vector<int64_t>& widths, absl::string_view left,
                 absl::string_view middle, absl::string_view right) {
  std::string line(left.data(), left.size());
  for (size_t c = 0; c < widths.size(); ++c) {
    if (c > 0) absl::StrAppend(&line, middle);
    line.append(Repeat("─", widths[c]));
  }
  absl::StrAppend(&line, right);
  return line;
}

// Which dimensions to draw as rows and columns (nullopt: none); empty optional pair means
// "too many split dimensions".
struct DrawnDims {
  std::optional<size_t> rows;
  std::optional<size_t> cols;
};

std::optional<DrawnDims> ChooseDims(absl::Span<const int64_t> shape,
                                    absl::Span<const DeviceShard> devices) {
  std::vector<size_t> split;
  for (size_t i = 0; i < shape.size(); ++i) {
    for (const DeviceShard& d : devices) {
      if (d.index[i].begin != 0 || d.index[i].end != shape[i]) {
        split.push_back(i);
        break;
      }
    }
  }
  if (split.size() > 2) return std::nullopt;
  DrawnDims drawn;
  if (split.size() == 2) {
    drawn.rows = split[0];
    drawn.cols = split[1];
  } else if (split.size() == 1) {
    if (split[0] + 1 == shape.size()) {
      drawn.cols = split[0];
    } else {
      drawn.rows = split[0];
    }
  }
  return drawn;
}

}  // namespace

std::string DeviceListLabel(std::vector<int64_t> devices) {
  std::sort(devices.begin(), devices.end());
  std::vector<std::string> parts;
  for (size_t i = 0; i < devices.size();) {
    size_t j = i;
    while (j + 1 < devices.size() && devices[j + 1] == devices[j] + 1) ++j;
    if (j - i >= 2) {
      parts.push_back(absl::StrCat(devices[i], "-", devices[j]));
    } else {
      for (size_t k = i; k <= j; ++k) parts.push_back(absl::StrCat(devices[k]));
    }
    i = j + 1;
  }
  return absl::StrJoin(parts, ",");
}

std::vector<std::string> RenderShardingPicture(absl::Span<const int64_t> shape,
                                               absl::Span<const DeviceShard> devices) {
  const std::optional<DrawnDims> drawn = ChooseDims(shape, devices);
  if (!drawn) return {"(not drawn: more than two dimensions are split)"};
  const std::vector<int64_t> row_cuts = drawn->rows
                                            ? CutPoints(devices, *drawn->rows, shape[*drawn->rows])
                                            : std::vector<int64_t>{0, 1};
  const std::vector<int64_t> col_cuts = drawn->cols
                                            ? CutPoints(devices, *drawn->cols, shape[*drawn->cols])
                                            : std::vector<int64_t>{0, 1};
  const size_t num_rows = row_cuts.size() - 1;
  const size_t num_cols = col_cuts.size() - 1;
  if (num_rows > kMaxBlocks || num_cols > kMaxBlocks) {
    return {absl::StrCat("(not drawn: ", num_rows, " x ", num_cols, " blocks; at most ", kMaxBlocks,
                         " along each dimension are drawn)")};
  }
  std::vector<size_t> dims;
  if (drawn->rows) dims.push_back(*drawn->rows);
  if (drawn->cols) dims.push_back(*drawn->cols);
  std::vector<std::vector<std::string>> labels(num_rows, std::vector<std::string>(num_cols));
  std::vector<int64_t> widths(num_cols, 0);
  const int64_t col_total = col_cuts.back();
  for (size_t c = 0; c < num_cols; ++c) {
    const int64_t extent = col_cuts[c + 1] - col_cuts[c];
    widths[c] = std::max<int64_t>(5, *MulDivFloor(kPictureWidth, extent, col_total));
    for (size_t r = 0; r < num_rows; ++r) {
      std::vector<int64_t> at;
      if (drawn->rows) at.push_back(row_cuts[r]);
      if (drawn->cols) at.push_back(col_cuts[c]);
      labels[r][c] = CellLabel(devices, dims, at);
      widths[c] = std::max<int64_t>(widths[c], static_cast<int64_t>(labels[r][c].size()) + 2);
    }
  }
  std::vector<std::string> lines = {Rule(widths, "┌", "┬", "┐")};
  for (size_t r = 0; r < num_rows; ++r) {
    if (r > 0) lines.push_back(Rule(widths, "├", "┼", "┤"));
    std::string line = "│";
    for (size_t c = 0; c < num_cols; ++c) {
      absl::StrAppend(&line, Centered(labels[r][c], widths[c]), "│");
    }
    lines.push_back(line);
  }
  lines.push_back(Rule(widths, "└", "┴", "┘"));
  return lines;
}

}  // namespace axe::sharding
