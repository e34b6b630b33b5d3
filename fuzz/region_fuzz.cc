// Slice regions (ParseBox, `axe slice --region`: "[[0, 8], [8, 24]]" or "0:8,8:24", a single
// index "3" for 3:4). Laws: BoxToString reads back to an equal region; Slice of a small row-major
// layout over a shape that holds the region never crashes and, when it answers, gives a layout
// whose first and last elements are the layout's at the region's corners.
#include <cstdint>
#include <string>
#include <vector>

#include "axe/layout/apply.h"
#include "axe/layout/box.h"
#include "axe/layout/layout.h"
#include "axe/layout/slice.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<std::vector<axe::Interval>> region = axe::ParseBox(axe::fuzz::AsText(data, size));
  if (!region.ok()) return 0;
  const std::string text = axe::BoxToString(*region);
  absl::StatusOr<std::vector<axe::Interval>> again = axe::ParseBox(text);
  AXE_FUZZ_CHECK(again.ok() && *again == *region, "parse(print(r)) == r for " + text);
  // A row-major layout over the smallest shape holding the region, if small.
  std::vector<int64_t> shape;
  int64_t points = 1;
  for (const axe::Interval& i : *region) {
    if (i.begin < 0 || i.end <= i.begin || i.end > 64) return 0;
    shape.push_back(i.end);
    points *= i.end;
    if (points > 4096) return 0;
  }
  std::string layout_text = "S[(";
  std::string strides;
  int64_t stride = points;
  for (size_t d = 0; d < shape.size(); ++d) {
    stride /= shape[d];
    layout_text += (d ? "," : "") + std::to_string(shape[d]);
    strides += (d ? "," : "") + std::to_string(stride);
  }
  if (shape.empty()) return 0;
  absl::StatusOr<axe::Layout> layout = axe::Layout::Parse(layout_text + "):(" + strides + ")]");
  AXE_FUZZ_CHECK(layout.ok(), "the row-major layout parses: " + layout_text);
  absl::StatusOr<axe::MaybeLayout> sliced = axe::Slice(*layout, shape, *region);
  AXE_FUZZ_CHECK(sliced.ok(), "a region inside its shape slices: " + text);
  if (!sliced->has_value()) return 0;
  // The slice's first and last elements are the layout's at the region's corners.
  std::vector<int64_t> extents, first, last;
  for (const axe::Interval& i : *region) {
    extents.push_back(i.size());
    first.push_back(i.begin);
    last.push_back(i.end - 1);
  }
  std::vector<int64_t> zeros(extents.size(), 0), ends = extents;
  for (int64_t& e : ends) e -= 1;
  absl::StatusOr<axe::PhysCoord> a = axe::ApplyBase(**sliced, extents, zeros);
  absl::StatusOr<axe::PhysCoord> b = axe::ApplyBase(*layout, shape, first);
  AXE_FUZZ_CHECK(a.ok() && b.ok() && *a == *b, "the slice starts at the region's corner: " + text);
  a = axe::ApplyBase(**sliced, extents, ends);
  b = axe::ApplyBase(*layout, shape, last);
  AXE_FUZZ_CHECK(a.ok() && b.ok() && *a == *b, "the slice ends at the region's corner: " + text);
  return 0;
}
