#include "axe/picture/sharding_picture.h"

#include <string>

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
  const std::string svg = Draw("x=64", "P('x')", {64});
  EXPECT_EQ(CheckXml(svg), "");
  EXPECT_THAT(svg, HasSubstr("at most 32 blocks"));
}

TEST(ShardingSvg, IsDeterministic) {
  EXPECT_EQ(Draw("x=2,y=2", "P('x','y')", {8, 8}), Draw("x=2,y=2", "P('x','y')", {8, 8}));
}

}  // namespace
}  // namespace sharding_picture_test
}  // namespace axe::picture
