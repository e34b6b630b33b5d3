#include "axe/picture/grid_picture.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "axe/pallas/index_map_expr.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "picture/golden.h"
#include "picture/xml_check.h"
#include "support/status_matchers.h"

namespace axe::picture {
namespace grid_picture_test {
namespace {

using ::axe::testing_support::StatusIs;
using pallas::BlockDim;
using pallas::Grid;
using testing::CheckXml;
using testing::CompareGolden;
using ::testing::HasSubstr;
using ::testing::Not;

pallas::IndexMap Map(const std::string& text) {
  absl::StatusOr<pallas::IndexMapExpr> e = pallas::IndexMapExpr::Parse(text);
  EXPECT_TRUE(e.ok()) << e.status();
  return e->ToIndexMap();
}

std::vector<BlockDim> Blocks(const std::vector<std::string>& texts) {
  std::vector<BlockDim> out;
  for (const std::string& t : texts) out.push_back(*BlockDim::Parse(t));
  return out;
}

std::string Draw(std::vector<int64_t> shape, std::vector<BlockDim> block, Grid grid,
                 const std::string& map) {
  absl::StatusOr<std::string> svg =
      GridSvg({DType::kS32, std::move(shape)}, std::move(block), grid, Map(map));
  EXPECT_TRUE(svg.ok()) << svg.status();
  return svg.ok() ? *svg : "";
}

TEST(GridSvg, DocsExampleGolden) {
  // docs/pallas.md: axe grid show --shape 8,6 --block 2,3 --grid 4,2.
  const std::string svg = Draw({8, 6}, Blocks({"2", "3"}), Grid{4, 2}, "(i,j)->(i,j)");
  EXPECT_EQ(CheckXml(svg), "");
  EXPECT_THAT(svg, HasSubstr(">(0,0)</text>"));
  EXPECT_THAT(svg, HasSubstr(">(3,1)</text>"));
  EXPECT_THAT(svg, Not(HasSubstr("clamped")));
  EXPECT_TRUE(CompareGolden("grid_8x6_block_2x3.svg", svg));
}

TEST(GridSvg, ElementOffsetMistakeIsMarkedClampedGolden) {
  // CK-2: returning element offsets (4*i) instead of block indices clamps the windows.
  const std::string svg = Draw({12}, Blocks({"4"}), Grid{3}, "(i)->(4*i)");
  EXPECT_EQ(CheckXml(svg), "");
  EXPECT_THAT(svg, HasSubstr("stroke=\"#c00000\""));
  EXPECT_THAT(svg, HasSubstr("clamped: "));
  EXPECT_THAT(svg, HasSubstr(">(1,)+1</text>"));  // programs 1 and 2 both clamped to [8:12]
  EXPECT_TRUE(CompareGolden("grid_clamped.svg", svg));
}

TEST(GridSvg, PartialLastBlockShowsPadding) {
  const std::string svg = Draw({7, 7}, Blocks({"2", "3"}), Grid{4, 3}, "(i,j)->(i,j)");
  EXPECT_EQ(CheckXml(svg), "");
  EXPECT_THAT(svg, HasSubstr("fill-opacity=\"0.6\""));
  EXPECT_THAT(svg, HasSubstr(">(3,2)</text>"));
}

// An empty array (no elements, so under the element cap) with a dimension near 2^63 and
// windows of blocks far out along it: the pixel scale used to overflow (UB) at
// 44777967029670292 * 480 (fuzz/corpus/explorer_request/empty-array-huge-rows-regression).
TEST(GridSvg, EmptyArrayWithHugeDimensionsDraws) {
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{44777967029670292, 0}, std::vector<int64_t>{0, INT64_MAX / 8},
        std::vector<int64_t>{INT64_MAX / 4, 0}}) {
    SCOPED_TRACE(shape[0]);
    absl::StatusOr<std::string> whole =  // the whole array per program
        GridSvg({DType::kS32, shape}, std::nullopt, Grid{5, 6}, Map("(i,j)->(0,0)"));
    ASSERT_TRUE(whole.ok()) << whole.status();
    EXPECT_EQ(CheckXml(*whole), "");
    // Every coordinate is a small pixel count (an overflow left huge or negative ones).
    std::vector<int64_t> numbers;
    for (absl::string_view rest = *whole; !rest.empty();) {
      const size_t at = rest.find_first_of("-0123456789");
      if (at == absl::string_view::npos) break;
      rest.remove_prefix(at);
      size_t len = 1;
      while (len < rest.size() && absl::ascii_isdigit(rest[len])) ++len;
      int64_t value = 0;
      if (absl::SimpleAtoi(rest.substr(0, len), &value)) numbers.push_back(value);
      rest.remove_prefix(len);
    }
    ASSERT_FALSE(numbers.empty());
    for (int64_t v : numbers) {
      if (v == shape[0] || v == shape[1]) continue;  // the title and notes name the shape
      EXPECT_LT(std::abs(v), 100000) << *whole;
    }
  }
}

// Element padding of 2^56 in front of an empty array's one column: the windows sit 2^56
// elements before it, 2.9e18 pixels at 40 per column. The picture refuses instead of writing
// such coordinates (or overflowing on larger ones).
TEST(GridSvg, WindowsFarFromTheArrayAreRefused) {
  for (const char* block : {"Element(1,(72057594037927936,0))", "Element(1,(1000000,0))",
                            "Element(1152921504606846976)"}) {
    SCOPED_TRACE(block);
    for (const char* map : {"(i,j)->(i,j)", "(i,j)->(i,j*1000000000000)"}) {
      EXPECT_THAT(GridSvg({DType::kS32, {0, 1}}, Blocks({"0", block}), Grid{2, 2}, Map(map)),
                  StatusIs(absl::StatusCode::kInvalidArgument,
                           HasSubstr("of an array of 1 columns, too far from the array to draw "
                                     "(a picture reaches at most 32768 pixels from it)")));
    }
  }
  // Padding the buffer past what int64 byte strides hold is refused before drawing.
  EXPECT_EQ(GridSvg({DType::kS32, {0, 1}}, Blocks({"0", "Element(1,(9223372036854775806,0))"}),
                    Grid{2, 2}, Map("(i,j)->(i,j)"))
                .status()
                .code(),
            absl::StatusCode::kResourceExhausted);
  // Rows are named as rows; a reach within the limit still draws.
  EXPECT_THAT(GridSvg({DType::kS32, {1, 0}}, Blocks({"Element(1,(0,5000))", "0"}), Grid{2, 2},
                      Map("(i,j)->(i*5000,j)")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("covers rows [5000:5001] of an array of 1 rows")));
  EXPECT_EQ(CheckXml(Draw({0, 1}, Blocks({"0", "Element(1,(100,0))"}), Grid{2, 2}, "(i,j)->(i,j)")),
            "");
}

TEST(GridSvg, ReductionAxisGroupsProgramsOfOneWindow) {
  const std::string svg = Draw({4, 4}, Blocks({"2", "2"}), Grid{2, 2, 3}, "(i,j,k)->(i,j)");
  EXPECT_THAT(svg, HasSubstr(">(0,0,0)+2</text>"));
}

TEST(GridSvg, UnwrittenElementsStayGrey) {
  const std::string svg = Draw({8}, Blocks({"2"}), Grid{2}, "(i)->(i)");
  EXPECT_THAT(svg, HasSubstr("written by no program"));
  EXPECT_THAT(svg, HasSubstr("fill=\"#f0f0f0\""));
}

TEST(GridSvg, Errors) {
  EXPECT_THAT(GridSvg({DType::kS32, {8}}, Blocks({"2"}), Grid{5000}, Map("(i)->(0)")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at most 4096")));
  EXPECT_THAT(GridSvg({DType::kS32, {1 << 13, 1 << 12}}, std::nullopt, Grid{}, Map("()->(0,0)")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("more than")));
  EXPECT_FALSE(GridSvg({DType::kS32, {8}}, Blocks({"2"}), Grid{4}, Map("(i,j)->(i)")).ok());
}

TEST(GridSvg, IsDeterministic) {
  EXPECT_EQ(Draw({8, 6}, Blocks({"2", "3"}), Grid{4, 2}, "(i,j)->(i,j)"),
            Draw({8, 6}, Blocks({"2", "3"}), Grid{4, 2}, "(i,j)->(i,j)"));
}

}  // namespace
}  // namespace grid_picture_test
}  // namespace axe::picture

namespace axe::picture {
namespace grid_picture_test {
namespace {

TEST(GridSvg, ElementPaddingBeforeTheArrayStaysInsideThePicture) {
  // docs/pallas.md's Element example: windows start at -2 and -1 (front padding).
  absl::StatusOr<std::string> svg =
      GridSvg({DType::kS32, {7, 7}},
              std::vector<pallas::BlockDim>{*pallas::BlockDim::Parse("Element(2,(1,0))"),
                                            *pallas::BlockDim::Parse("Element(3,(2,0))")},
              pallas::Grid{4, 3}, pallas::IndexMapExpr::Parse("(i,j)->(2*i,3*j)")->ToIndexMap());
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_EQ(testing::CheckXml(*svg), "");
  // Every rect starts inside the picture.
  EXPECT_EQ(svg->find("x=\"-"), std::string::npos);
  EXPECT_EQ(svg->find("y=\"-"), std::string::npos);
  EXPECT_NE(svg->find(">(0,0)</text>"), std::string::npos);
}

}  // namespace
}  // namespace grid_picture_test
}  // namespace axe::picture
