#include "axe/picture/layout_picture.h"

#include <string>

#include "axe/layout/nvidia.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "picture/golden.h"
#include "picture/xml_check.h"
#include "support/status_matchers.h"

namespace axe::picture {
namespace layout_picture_test {
namespace {

using ::axe::testing_support::StatusIs;
using testing::CheckXml;
using testing::CompareGolden;
using testing::CountElements;
using ::testing::HasSubstr;

constexpr char kFigure2[] = "S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp";

std::string Draw(const std::string& text, LayoutPictureOptions options = {}) {
  absl::StatusOr<Layout> l = Layout::Parse(text);
  EXPECT_TRUE(l.ok()) << l.status();
  absl::StatusOr<std::string> svg = LayoutSvg(*l, options);
  EXPECT_TRUE(svg.ok()) << svg.status();
  return svg.ok() ? *svg : "";
}

TEST(LayoutSvg, Figure2Golden) {
  const std::string svg =
      Draw(kFigure2, {.shape = std::array<int64_t, 2>{8, 16}, .colour_axis = Axis::Get("warp")});
  EXPECT_EQ(CheckXml(svg), "");
  // The cell of (2, 9) is the paper's point warp 6, lane 8, reg 1 (print order lane:warp:reg).
  EXPECT_THAT(svg, HasSubstr(">8:6:1</text>"));
  EXPECT_THAT(svg, HasSubstr("R[2:4@warp]"));
  EXPECT_THAT(svg, HasSubstr("warp = 5"));
  // Four panels of the inverse view: warp 5, 6, 9, 10.
  EXPECT_THAT(svg, HasSubstr(">warp = 10</text>"));
  EXPECT_TRUE(CompareGolden("figure2_layout.svg", svg));
}

TEST(LayoutSvg, MmaM16N8K16AccumulatorGolden) {
  absl::StatusOr<std::string> svg =
      LayoutSvg(MmaM16N8K16Accumulator(), {.shape = std::array<int64_t, 2>{16, 8}});
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_EQ(CheckXml(*svg), "");
  // Lane 5 holds (1, 2) and (1, 3) in registers 0 and 1: row laneid 5, columns reg 0, 1.
  EXPECT_THAT(*svg, HasSubstr(">1,2</text>"));
  EXPECT_TRUE(CompareGolden("mma_m16n8k16_c.svg", *svg));
}

TEST(LayoutSvg, IsDeterministic) { EXPECT_EQ(Draw(kFigure2), Draw(kFigure2)); }

TEST(LayoutSvg, LargeLayoutsAreCutToAWindow) {
  const std::string svg = Draw("S[(1024,1024):(1024,1)]");
  EXPECT_EQ(CheckXml(svg), "");
  EXPECT_THAT(svg, HasSubstr("showing rows 0-31 of"));
  EXPECT_THAT(svg, HasSubstr("…"));
  // Two windows of 32 x 32 cells (and a few legend swatches), never a million cells.
  EXPECT_LT(CountElements(svg, "rect"), 2 * 32 * 32 + 40);
}

// Values at the ends of int64 (found by a request sweep of the explorer;
// fuzz/corpus/explorer_request/layout-axis-values-at-int64-max-regression): listing the values
// of an axis whose range ends at INT64_MAX stepped past it, and counting the combinations of
// extents near 2^62 overflowed.
TEST(LayoutSvg, AxisValuesAtTheEndsOfInt64) {
  // The first two have too many points to draw and say so; the third is drawn.
  EXPECT_THAT(LayoutSvg(*Layout::Parse("S[(2305843009213693952,1):(0,1@lane)] + "
                                       "9223372036854775807@m"),
                        {}),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("inverse: more than 1048576 preimage points")));
  EXPECT_THAT(LayoutSvg(*Layout::Parse("S[2:1@lane] + R[4611686018427387904:1@lane]"), {}),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("more than 1048576 distinct points to enumerate")));
  absl::StatusOr<std::string> svg =
      LayoutSvg(*Layout::Parse("S[(2,2305843009213693952):(1@lane,1@lane)]"), {});
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_EQ(CheckXml(*svg), "");
}

TEST(LayoutSvg, MemoryLayoutIsDrawnInRowsOfTheChosenWidth) {
  const std::string svg =
      Draw("S[(4,4):(1,4)]", {.shape = std::array<int64_t, 2>{4, 4}, .row_width = 8});
  EXPECT_EQ(CheckXml(svg), "");
  EXPECT_THAT(svg, HasSubstr("in rows of 8"));
  // Offset 1 holds (1, 0): a column-major 4 x 4.
  EXPECT_THAT(svg, HasSubstr(">1,0</text>"));
}

TEST(LayoutSvg, NonInjectiveCellsCountTheExtraPoints) {
  // A broadcast: both logical rows map to the same memory.
  const std::string svg = Draw("S[(2,4):(0,1)]");
  EXPECT_THAT(svg, HasSubstr(">0,0+1</text>"));
}

TEST(LayoutSvg, ChosenAxes) {
  const std::string svg = Draw(kFigure2, {.colour_axis = Axis::Get("lane"),
                                          .row_axis = Axis::Get("warp"),
                                          .column_axis = Axis::Get("lane")});
  EXPECT_THAT(svg, HasSubstr("coloured by lane"));
  EXPECT_THAT(svg, HasSubstr("rows warp, columns lane"));
  EXPECT_THAT(svg, HasSubstr(">reg = 0</text>"));
}

TEST(LayoutSvg, Errors) {
  const Layout l = *Layout::Parse(kFigure2);
  EXPECT_THAT(LayoutSvg(l, {.shape = std::array<int64_t, 2>{8, 8}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("128")));
  EXPECT_THAT(LayoutSvg(l, {.colour_axis = Axis::Get("tx")}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("colour axis: the layout")));
  EXPECT_THAT(LayoutSvg(l, {.row_axis = Axis::Get("lane"), .column_axis = Axis::Get("lane")}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("both 'lane'")));
  EXPECT_THAT(LayoutSvg(l, {.max_rows = 0}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at least 1")));
}

}  // namespace
}  // namespace layout_picture_test
}  // namespace axe::picture

namespace axe::picture {
namespace layout_picture_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

TEST(RelayoutSvg, RegistersToSharedMemoryGolden) {
  // The m16n8k16 C fragment stored row-major into a 16 x 8 shared-memory tile.
  const Layout to_smem = *Layout::Parse("S[(16,8):(8,1)]");
  absl::StatusOr<std::string> svg =
      RelayoutSvg(MmaM16N8K16Accumulator(), to_smem,
                  {.shape = std::array<int64_t, 2>{16, 8}, .colour_axis = Axis::Get("laneid")});
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_EQ(testing::CheckXml(*svg), "");
  EXPECT_THAT(*svg, HasSubstr("source: logical 16 x 8"));
  EXPECT_THAT(*svg, HasSubstr("destination: logical 16 x 8: each cell m, coloured as the source"));
  // Element (0, 2): lane 1, register 0 -> offset 2; both cells in lane 1's colour.
  EXPECT_THAT(*svg, HasSubstr(">0:1</text>"));
  EXPECT_TRUE(testing::CompareGolden("relayout_mma_to_smem.svg", *svg));
}

TEST(RelayoutSvg, Errors) {
  EXPECT_THAT(RelayoutSvg(*Layout::Parse("S[8:1]"), *Layout::Parse("S[4:1]"), {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("has 8 elements and the destination S[4:1] has 4")));
  EXPECT_THAT(RelayoutSvg(*Layout::Parse("S[8:1]"), *Layout::Parse("S[8:2]"),
                          {.colour_axis = Axis::Get("lane")}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("colour axis")));
}

}  // namespace
}  // namespace layout_picture_test
}  // namespace axe::picture
