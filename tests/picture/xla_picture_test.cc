#include "axe/picture/xla_picture.h"

#include <string>

#include "axe/xla/text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "picture/golden.h"
#include "picture/xml_check.h"
#include "support/status_matchers.h"

namespace axe::picture {
namespace xla_picture_test {
namespace {

using ::axe::testing_support::StatusIs;
using testing::CheckXml;
using testing::CompareGolden;
using testing::CountElements;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Draw(const std::string& text, TilePictureOptions options = {}) {
  absl::StatusOr<xla::Shape> s = xla::ParseShape(text);
  EXPECT_TRUE(s.ok()) << s.status();
  absl::StatusOr<std::string> svg = TiledArraySvg(*s, options);
  EXPECT_TRUE(svg.ok()) << svg.status();
  return svg.ok() ? *svg : "";
}

TEST(TiledArraySvg, Bf16TpuLayoutGoldenIsSummarised) {
  const std::string svg = Draw("bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}");
  EXPECT_EQ(CheckXml(svg), "");
  EXPECT_THAT(svg, HasSubstr("showing 8 of 160 tile rows and 8 of 128 tile columns"));
  // Tile (1, 0) is the 129th in memory: 128 tiles per row of tiles.
  EXPECT_THAT(svg, HasSubstr(">#128</text>"));
  // Physical order 1, 0, 2, 3: dimension 1 (size 1) is the most major, then 0 (size 8).
  EXPECT_THAT(svg, HasSubstr("dimensions 1 (1), 0 (8); 8 such planes"));
  EXPECT_THAT(svg, HasSubstr("(2,1) sub-tiles of 2 x 1 elements"));
  // Sub-tile (1, 0) follows the 128 sub-tiles of rows 0-1.
  EXPECT_THAT(svg, HasSubstr(">128</text>"));
  EXPECT_LT(CountElements(svg, "rect"), 200);
  EXPECT_TRUE(CompareGolden("xla_bf16_tiled.svg", svg));
}

TEST(TiledArraySvg, EdgeTilesShadeTheirPadding) {
  // 3 x 5 in T(2,2): the last tile row and column are half padding.
  const std::string svg = Draw("f32[3,5]{1,0:T(2,2)}");
  EXPECT_EQ(CheckXml(svg), "");
  EXPECT_THAT(svg, HasSubstr("fill-opacity=\"0.85\""));
  EXPECT_THAT(svg, HasSubstr(">#5</text>"));  // 2 x 3 tiles
  EXPECT_THAT(svg, Not(HasSubstr(">#6</text>")));
  EXPECT_THAT(svg, Not(HasSubstr("showing")));
}

// A tile of 2^56 elements over an array of 5: the tile is almost all padding, and its
// padded share (end - size) * 1000 / bound overflowed int64 before dividing (found by a
// request sweep of the explorer; fuzz/corpus/explorer_request/
// tile-padding-permille-past-int64-regression).
TEST(TiledArraySvg, TilesFarLargerThanTheArrayShadeTheirPadding) {
  for (const char* text : {"f32[5]{0:T(72057594037927936)(8)}", "pred[1]{0:T(8,72057594037927936)}",
                           "s4[3]{0:T(9223372036854775807)(7)}"}) {
    SCOPED_TRACE(text);
    const std::string svg = Draw(text);
    EXPECT_EQ(CheckXml(svg), "");
    EXPECT_THAT(svg, HasSubstr(">#0</text>"));
    EXPECT_THAT(svg, HasSubstr("fill-opacity=\"0.85\""));
  }
  // An empty array whose tiles end past INT64_MAX: the column labels are written exactly.
  const std::string empty = Draw("f32[0,0,9223372036854775807]{2,1,0:T(4611686018427387904)(8)}");
  EXPECT_EQ(CheckXml(empty), "");
  EXPECT_THAT(empty, HasSubstr(">0-4611686018427387903<"));
  EXPECT_THAT(empty, HasSubstr(">4611686018427387904-9223372036854775806<"));
  // Sub-tiles whose last one ends past INT64_MAX.
  const std::string sub = Draw("f32[0,0]{1,0:T(2,9223372036854775807)(1,4611686018427387905)}");
  EXPECT_EQ(CheckXml(sub), "");
  EXPECT_THAT(sub, HasSubstr(">4611686018427387905-9223372036854775809<"));
}

TEST(TiledArraySvg, ColumnMajorOrderNumbersTilesDownTheColumns) {
  // {0,1}: dimension 0 is minor, so the picture's columns are dimension 0.
  const std::string svg = Draw("f32[4,6]{0,1:T(2,2)}");
  EXPECT_THAT(svg, HasSubstr("rows: dimension 1 (6), columns: dimension 0 (4)"));
}

TEST(TiledArraySvg, RankOneTileAndUntiledArrays) {
  EXPECT_THAT(Draw("f32[8,256]{1,0:T(128)}"), HasSubstr(">#3</text>"));  // row 1, tile 1
  EXPECT_THAT(Draw("f32[3,4]{1,0}"), HasSubstr("no tiles: each cell one row"));
  EXPECT_EQ(CheckXml(Draw("s8[300]{0:T(128)}")), "");
}

TEST(TiledArraySvg, IsDeterministic) {
  EXPECT_EQ(Draw("bf16[16,256]{1,0:T(8,128)(2,1)}"), Draw("bf16[16,256]{1,0:T(8,128)(2,1)}"));
}

TEST(TiledArraySvg, Errors) {
  absl::StatusOr<xla::Shape> scalar = xla::ParseShape("f32[]");
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_THAT(TiledArraySvg(*scalar),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("rank-0")));
  EXPECT_THAT(TiledArraySvg(*xla::ParseShape("f32[4,6,8]{2,1,0:T(2,*,4)}")),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("combine dimension 2")));
  EXPECT_THAT(TiledArraySvg(*xla::ParseShape("f32[4]{0}"), {.max_tile_rows = 0}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at least 1")));
}

}  // namespace
}  // namespace xla_picture_test
}  // namespace axe::picture
