#include "axe/picture/layout_picture.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "axe/layout/nvidia.h"
#include "axe/picture/svg.h"
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
using ::testing::Not;

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

// The picture's width attribute.
int64_t PictureWidth(const std::string& svg) {
  const size_t at = svg.find(" width=\"");
  return at == std::string::npos ? -1 : std::stoll(svg.substr(at + 8));
}

TEST(LayoutSvg, LargeLayoutsAreSummarizedNotCropped) {
  const std::string svg = Draw("S[(1024,1024):(1024,1)]");
  EXPECT_EQ(CheckXml(svg), "");
  EXPECT_THAT(svg, HasSubstr("summary: each cell stands for a block of 32 x 32 elements"));
  // The last drawn cell is element (992, 992): the whole array is in view.
  EXPECT_THAT(svg, HasSubstr(">1016800</text>"));
  EXPECT_THAT(svg, Not(HasSubstr("showing rows 0-31")));
  // A 32 x 32 summary and the inverse view's window (and a few legend swatches).
  EXPECT_LT(CountElements(svg, "rect"), 2 * 32 * 32 + 40);
}

// The docs' sharded tensor (a 64 x 128 array on 2 x 2 devices): its top-left 32 x 32 cells
// are all on device 0, so a cropped picture showed device 0 alone.
constexpr char kFourDevices[] = "S[(2,32,2,64):(1@gpuid,64@m,2@gpuid,1@m)]";

TEST(LayoutSvg, SummaryOfAShardedTensorShowsEveryDevice) {
  const std::string svg = Draw(kFourDevices, {.shape = std::array<int64_t, 2>{64, 128}});
  EXPECT_EQ(CheckXml(svg), "");
  for (const char* device : {"gpuid = 0", "gpuid = 1", "gpuid = 2", "gpuid = 3"})
    EXPECT_THAT(svg, HasSubstr(device));
  EXPECT_THAT(svg, HasSubstr("a block of 2 x 4 elements"));
  // The physical half too: 2048 offsets per device in 32 blocks of 64, the last one 1984.
  EXPECT_THAT(svg, HasSubstr("physical summary: each cell stands for a block of 1 gpuid x 64 m"));
  EXPECT_THAT(svg, HasSubstr(">1984</text>"));
  EXPECT_THAT(svg, Not(HasSubstr("…")));
  EXPECT_TRUE(CompareGolden("layout_summary_4_devices.svg", svg));
}

// The physical view of a layout over 64 devices kept the first 32 rows (devices 0-31): the
// summary draws every other device, the last block starting at device 62.
TEST(LayoutSvg, PhysicalViewOfManyDevicesIsSummarizedNotCropped) {
  const std::string svg = Draw("S[(64,16):(1@gpuid,1)]");
  EXPECT_EQ(CheckXml(svg), "");
  EXPECT_THAT(svg, HasSubstr("physical: 64 gpuid values x 16 m values"));
  EXPECT_THAT(svg, HasSubstr("a block of 2 gpuid x 1 m"));
  EXPECT_THAT(svg, HasSubstr(">62</text>"));
  EXPECT_THAT(svg, HasSubstr(">62,0</text>"));
  EXPECT_THAT(svg, Not(HasSubstr(">63,0</text>")));
}

TEST(LayoutSvg, PhysicalZoomDrawsEveryPointOfTheWindow) {
  const std::string svg = Draw(kFourDevices, {.shape = std::array<int64_t, 2>{64, 128},
                                              .physical_zoom = GridZoom{1, 3, 64, 96}});
  EXPECT_EQ(CheckXml(svg), "");
  EXPECT_THAT(svg, HasSubstr("physical zoom: gpuid 1:3, m 64:96"));
  EXPECT_THAT(svg, Not(HasSubstr("physical summary")));
  // m = 64 on device 1 is element (33, 0), on device 2 element (1, 64); m = 95 is the last.
  EXPECT_THAT(svg, HasSubstr(">33,0</text>"));
  EXPECT_THAT(svg, HasSubstr(">1,64</text>"));
  EXPECT_THAT(svg, HasSubstr(">1,95</text>"));
  EXPECT_THAT(svg, Not(HasSubstr(">0,0</text>")));  // device 0 is outside the window
  // A layout on one axis: rows and column offsets of its folded grid (rows of 32 here).
  const std::string folded =
      Draw("S[(1024,1024):(1024,1)]", {.physical_zoom = GridZoom{1, 3, 0, 32}});
  EXPECT_THAT(folded,
              HasSubstr("physical zoom: rows 1-2, columns +0 to +31 (of 32768 rows of 32)"));
  EXPECT_THAT(folded, HasSubstr(">0,63</text>"));  // offset 63
  EXPECT_THAT(folded, Not(HasSubstr("physical summary")));
  EXPECT_THAT(Draw("S[(1024,1024):(1024,1)]"),
              HasSubstr("physical summary: each cell stands for a block of 1024 rows x 1 values"));
}

TEST(LayoutSvg, PhysicalZoomErrors) {
  absl::StatusOr<Layout> l = Layout::Parse(kFourDevices);
  ASSERT_TRUE(l.ok());
  EXPECT_THAT(LayoutSvg(*l, {.physical_zoom = GridZoom{9, 12, 0, 4}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the physical zoom window 9:12 holds no value of gpuid (the "
                                 "layout reaches 0..3)")));
  EXPECT_THAT(LayoutSvg(*l, {.physical_zoom = GridZoom{0, 4, 5, 5}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the physical zoom window 5:5 holds no value of m")));
  EXPECT_THAT(LayoutSvg(*Layout::Parse("S[(1024,1024):(1024,1)]"),
                        {.physical_zoom = GridZoom{40000, 40001, 0, 1}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the physical zoom window rows 40000:40001, columns 0:1 is "
                                 "empty or outside the 32768 rows of 32 values of m")));
}

TEST(LayoutSvg, ZoomDrawsEveryElementOfTheWindow) {
  const std::string svg = Draw(
      kFourDevices, {.shape = std::array<int64_t, 2>{64, 128}, .zoom = GridZoom{0, 4, 64, 68}});
  EXPECT_EQ(CheckXml(svg), "");
  // (1, 65) is on device 2 at m = 65; the window has no summary.
  EXPECT_THAT(svg, HasSubstr(">2:65</text>"));
  EXPECT_THAT(svg, HasSubstr("zoom: rows 0-3 and columns 64-67 of 64 x 128"));
  EXPECT_THAT(svg, Not(HasSubstr(">summary: ")));  // the physical half has its own summary
  EXPECT_THAT(svg, Not(HasSubstr("gpuid = 0")));
}

TEST(LayoutSvg, ZoomErrors) {
  absl::StatusOr<Layout> l = Layout::Parse(kFourDevices);
  ASSERT_TRUE(l.ok());
  EXPECT_THAT(
      LayoutSvg(*l, {.shape = std::array<int64_t, 2>{64, 128}, .zoom = GridZoom{0, 0, 0, 1}}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("the zoom window rows 0:0, columns 0:1 is empty or outside the "
                         "64 x 128 grid")));
  EXPECT_THAT(
      LayoutSvg(*l, {.shape = std::array<int64_t, 2>{64, 128}, .zoom = GridZoom{0, 8, 120, 129}}),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("columns 120:129")));
  EXPECT_THAT(ParseGridZoom("0:8"), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("expected ROW0:ROW1,COL0:COL1, got '0:8'")));
  EXPECT_THAT(ParseGridZoom("0:8,x:2"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the columns part 'x:2' of '0:8,x:2' is not BEGIN:END")));
  absl::StatusOr<GridZoom> z = ParseGridZoom("1:8,16:32");
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->row_begin, 1);
  EXPECT_EQ(z->col_end, 32);
}

// A long layout's title made one picture 1692 pixels wide: legend and title lines wrap.
TEST(LayoutSvg, LongTitlesWrapInsteadOfWideningThePicture) {
  std::string extents, strides;
  for (int i = 0; i < 10; ++i) {
    absl::StrAppend(&extents, i ? "," : "", 2);
    absl::StrAppend(&strides, i ? "," : "", int64_t{1} << (9 - i), "@m");
  }
  const std::string text = absl::StrCat("S[(", extents, "):(", strides, ")] + 12345678@m");
  const std::string svg = Draw(text, {.shape = std::array<int64_t, 2>{1024, 1}});
  EXPECT_EQ(CheckXml(svg), "");
  EXPECT_GT(TextWidth(absl::StrCat("Axe layout ", text)), kMaxLegendWidth);
  EXPECT_LE(PictureWidth(svg), kMaxLegendWidth + 2 * kMargin);
  EXPECT_THAT(svg, HasSubstr(">Axe layout S[(2,2,"));
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
using ::testing::Not;

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
