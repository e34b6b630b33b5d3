#include "axe/picture/sharding_picture.h"

#include <string>
#include <utility>

#include "axe/sharding/explain.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "picture/golden.h"
#include "picture/xml_check.h"

namespace axe::picture {
namespace sharding_picture_test {
namespace {

using testing::CheckXml;
using testing::CompareGolden;
using testing::CountElements;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Draw(const std::string& mesh_text, const std::string& spec_text,
                 std::vector<int64_t> shape) {
  absl::StatusOr<sharding::Mesh> mesh = sharding::Mesh::Parse(mesh_text);
  EXPECT_TRUE(mesh.ok()) << mesh.status();
  absl::StatusOr<sharding::PartitionSpec> spec = sharding::PartitionSpec::Parse(spec_text);
  EXPECT_TRUE(spec.ok()) << spec.status();
  absl::StatusOr<sharding::NamedSharding> named = sharding::NamedSharding::Create(*mesh, *spec);
  EXPECT_TRUE(named.ok()) << named.status();
  absl::StatusOr<sharding::ShardingExplanation> e =
      sharding::ExplainNamedSharding(shape, *named, {});
  EXPECT_TRUE(e.ok()) << e.status();
  return e.ok() ? ShardingSvg(*e, *mesh) : "";
}

TEST(ShardingSvg, Mesh2x2SplitBothGolden) {
  const std::string svg = Draw("x=2,y=2", "P('x','y')", {8, 8});
  EXPECT_EQ(CheckXml(svg), "");
  for (const char* label : {">0</text>", ">1</text>", ">2</text>", ">3</text>", ">0-3</text>",
                            ">4-7</text>", "mesh: rows x=2, columns y=2"})
    EXPECT_THAT(svg, HasSubstr(label));
  EXPECT_TRUE(CompareGolden("sharding_2x2_xy.svg", svg));
}

TEST(ShardingSvg, Mesh2x2SplitFirstGroupsReplicasGolden) {
  const std::string svg = Draw("x=2,y=2", "P('x')", {8, 8});
  EXPECT_EQ(CheckXml(svg), "");
  EXPECT_THAT(svg, HasSubstr(">0,1</text>"));
  EXPECT_THAT(svg, HasSubstr(">2,3</text>"));
  EXPECT_THAT(svg, HasSubstr("rows: dimension 0, columns: none split"));
  EXPECT_TRUE(CompareGolden("sharding_2x2_x.svg", svg));
}

TEST(ShardingSvg, FullyReplicatedIsOneBlock) {
  const std::string svg = Draw("x=4", "P()", {8});
  EXPECT_THAT(svg, HasSubstr(">0-3</text>"));
  EXPECT_THAT(svg, HasSubstr("fully replicated"));
}

TEST(ShardingSvg, ThreeSplitDimensionsDrawTheFirstTwo) {
  const std::string svg = Draw("x=2,y=2,z=2", "P('x','y','z')", {4, 4, 4});
  EXPECT_EQ(CheckXml(svg), "");
  EXPECT_THAT(svg, HasSubstr("dimensions 2 are split too"));
  EXPECT_THAT(svg, HasSubstr(">6</text>"));
  EXPECT_THAT(svg, Not(HasSubstr(">2,3</text>")));
}

TEST(ShardingSvg, ManyBlocksAreCut) {
  const std::string svg = Draw("x=128", "P('x')", {128});
  EXPECT_EQ(CheckXml(svg), "");
  EXPECT_THAT(svg, HasSubstr("at most 64 blocks per direction are drawn"));
  EXPECT_THAT(svg, HasSubstr("blocks too small for their devices&apos; label are unlabelled"));
  EXPECT_LT(CountElements(svg, "rect"), 64 + 32 + 8);
}

// The width and height of the rect drawn just before the text `label`.
std::pair<int64_t, int64_t> BlockSize(const std::string& svg, const std::string& label) {
  const size_t text = svg.find(">" + label + "</text>");
  const size_t rect = svg.rfind("<rect ", text);
  if (text == std::string::npos || rect == std::string::npos) return {-1, -1};
  const std::string line = svg.substr(rect, svg.find('\n', rect) - rect);
  auto attribute = [&line](const std::string& name) {
    const size_t at = line.find(" " + name + "=\"");
    return at == std::string::npos ? int64_t{-1} : std::stoll(line.substr(at + name.size() + 3));
  };
  return {attribute("width"), attribute("height")};
}

TEST(ShardingSvg, BlocksAreDrawnToTheArraysAspectRatio) {
  // f32[8,32] on 2 x 2 devices: each block is 4 x 16 elements, four times wider than tall.
  const std::string svg = Draw("x=2,y=2", "P('x','y')", {8, 32});
  EXPECT_EQ(CheckXml(svg), "");
  const auto [width, height] = BlockSize(svg, "0");
  EXPECT_GT(height, 0);
  // To a pixel of rounding.
  EXPECT_NEAR(static_cast<double>(width) / static_cast<double>(height), 4.0, 0.1)
      << width << " x " << height;
  // Uneven blocks keep their sizes: f32[12,8] by 'x' over 2 devices then 'y' of 4 is 6 x 2.
  const std::string tall = Draw("x=2,y=4", "P('x','y')", {12, 8});
  const auto [w, h] = BlockSize(tall, "0");
  EXPECT_NEAR(static_cast<double>(h) / static_cast<double>(w), 3.0, 0.1) << w << " x " << h;
  EXPECT_THAT(tall, Not(HasSubstr("not to scale")));
}

TEST(ShardingSvg, VeryLongArraysAreClampedAndSaySo) {
  const std::string svg = Draw("x=4", "P('x')", {4096});
  EXPECT_EQ(CheckXml(svg), "");
  EXPECT_THAT(svg, HasSubstr("at most 8 times longer than wide (not to scale)"));
  for (const char* device : {">0</text>", ">1</text>", ">2</text>", ">3</text>"})
    EXPECT_THAT(svg, HasSubstr(device));
}

TEST(ShardingSvg, IsDeterministic) {
  EXPECT_EQ(Draw("x=2,y=2", "P('x','y')", {8, 8}), Draw("x=2,y=2", "P('x','y')", {8, 8}));
}

}  // namespace
}  // namespace sharding_picture_test
}  // namespace axe::picture
