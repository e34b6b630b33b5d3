#include "axe/picture/reshard_picture.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "picture/golden.h"
#include "picture/xml_check.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"

namespace axe::picture {
namespace reshard_picture_test {
namespace {

using ::axe::testing_support::StatusIs;
using testing::CheckXml;
using testing::CompareGolden;
using testing::CountElements;
using ::testing::HasSubstr;
using ::testing::Not;

absl::StatusOr<sharding::NamedSharding> Named(const std::string& mesh_text,
                                              const std::string& spec_text) {
  AXE_ASSIGN_OR_RETURN(sharding::Mesh mesh, sharding::Mesh::Parse(mesh_text));
  AXE_ASSIGN_OR_RETURN(sharding::PartitionSpec spec, sharding::PartitionSpec::Parse(spec_text));
  return sharding::NamedSharding::Create(mesh, spec);
}

absl::StatusOr<std::string> Draw(const std::string& mesh, const std::string& from,
                                 const std::string& to, std::vector<int64_t> shape,
                                 int element_bytes = 4) {
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding f, Named(mesh, from));
  AXE_ASSIGN_OR_RETURN(sharding::NamedSharding t, Named(mesh, to));
  return ReshardSvg(shape, element_bytes, f, t);
}

// The tour's example: rows -> columns on a 2x2 mesh. Each quarter is kept by one device and
// sent to one other, so V_min is 4 quarters of 16 f32.
TEST(ReshardSvg, Mesh2x2RowsToColumnsGolden) {
  absl::StatusOr<std::string> svg = Draw("x=2,y=2", "P('x', None)", "P(None, 'y')", {8, 8});
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_EQ(CheckXml(*svg), "");
  // Source: devices 0,1 hold rows 0-3, 2,3 rows 4-7. Destination: 0,2 columns 0-3.
  for (const char* label : {">0,1</text>", ">2,3</text>", "V_min 256 bytes (64 elements) in 4",
                            "kept locally 256 bytes", "#1 ", " → 0: [[4, 8], [0, 4]] 64 B",
                            "device 3: sends 64 B, receives 64 B, keeps 64 B"})
    EXPECT_THAT(*svg, HasSubstr(label));
  // Device 0 keeps its top-left quarter and receives the bottom-left one.
  EXPECT_THAT(*svg, HasSubstr(">0 2←"));
  EXPECT_THAT(*svg, HasSubstr(">0←"));
  EXPECT_EQ(CountElements(*svg, "polygon"), 4);  // one arrowhead per sender -> receiver pair
  EXPECT_GE(CountElements(*svg, "circle"), 4);   // the kept quarters are marked
  EXPECT_TRUE(CompareGolden("reshard_2x2_rows_to_columns.svg", *svg));
}

TEST(ReshardSvg, SameShardingSendsNothing) {
  absl::StatusOr<std::string> svg = Draw("x=2,y=2", "P('x', 'y')", "P('x', 'y')", {8, 8});
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_EQ(CheckXml(*svg), "");
  EXPECT_THAT(*svg, HasSubstr("V_min 0 bytes"));
  EXPECT_THAT(*svg, HasSubstr("no messages"));
  EXPECT_EQ(CountElements(*svg, "polyline"), 0);
}

TEST(ReshardSvg, ReplicatedToShardedKeepsEverything) {
  absl::StatusOr<std::string> svg = Draw("x=4", "P()", "P('x')", {8});
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_EQ(CheckXml(*svg), "");
  EXPECT_THAT(*svg, HasSubstr(">0-3</text>"));
  EXPECT_THAT(*svg, HasSubstr("V_min 0 bytes"));
  EXPECT_THAT(*svg, HasSubstr("rows: none split, columns: dimension 0"));
}

TEST(ReshardSvg, ManyDevicesAreSummarised) {
  absl::StatusOr<std::string> svg = Draw("x=64", "P('x')", "P(None, 'x')", {64, 64}, 2);
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_EQ(CheckXml(*svg), "");
  EXPECT_THAT(*svg, HasSubstr("at most 32 boxes per direction"));
  EXPECT_THAT(*svg, HasSubstr("are not drawn as arrows"));
  EXPECT_THAT(*svg, HasSubstr("more messages"));
  EXPECT_THAT(*svg, HasSubstr("48 more devices"));  // 16..63 in the byte list
  EXPECT_EQ(CountElements(*svg, "polyline"), 0);
  EXPECT_LT(svg->size(), 400000u);
}

TEST(ReshardSvg, ThreeSplitDimensionsDrawTheFirstTwo) {
  absl::StatusOr<std::string> svg =
      Draw("x=2,y=2,z=2", "P('x','y','z')", "P('z','x','y')", {4, 4, 4});
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_EQ(CheckXml(*svg), "");
  EXPECT_THAT(*svg, HasSubstr("dimensions 2 are split too"));
}

TEST(ReshardSvg, ScalarAndEmptyArraysDraw) {
  absl::StatusOr<std::string> scalar = Draw("x=2", "P()", "P()", {});
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(CheckXml(*scalar), "");
  EXPECT_THAT(*scalar, HasSubstr(">all</text>"));
  absl::StatusOr<std::string> empty = Draw("x=2", "P('x')", "P(None, 'x')", {0, 4});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(CheckXml(*empty), "");
  EXPECT_THAT(*empty, HasSubstr("V_min 0 bytes"));
}

TEST(ReshardSvg, PlanErrorsComeBack) {
  EXPECT_THAT(Draw("x=2", "P('x')", "P()", {8}, 0),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("element")));
  EXPECT_THAT(
      Draw("x=4", "P('x')", "P()", {6}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("should be divisible by 4 (mesh axes 'x'), but it is equal to 6")));
}

// Seeded random reshards on random meshes: always well-formed, bounded and deterministic.
TEST(ReshardSvg, RandomReshardsDrawAsWellFormedBoundedSvg) {
  std::mt19937_64 rng(axe::testing_support::TestSeed(15));
  const std::vector<std::string> meshes = {"x=2",     "x=4",         "x=2,y=2", "x=2,y=3",
                                           "x=4,y=4", "x=2,y=2,z=2", "x=8,y=8"};
  int drawn = 0;
  for (int i = 0; i < 120; ++i) {
    const std::string mesh = meshes[rng() % meshes.size()];
    const int rank = std::uniform_int_distribution<int>(1, 3)(rng);
    std::vector<int64_t> shape;
    for (int d = 0; d < rank; ++d)
      shape.push_back(24 * std::uniform_int_distribution<int>(1, 4)(rng));
    auto spec = [&] {
      std::vector<std::string> entries;
      std::vector<std::string> axes = {"'x'", "'y'", "'z'", "None", "None"};
      for (int d = 0; d < rank; ++d) {
        const std::string& a = axes[rng() % axes.size()];
        if (std::find(entries.begin(), entries.end(), a) != entries.end() && a != "None") {
          entries.push_back("None");
        } else {
          entries.push_back(a);
        }
      }
      return absl::StrCat("P(", absl::StrJoin(entries, ", "), ")");
    };
    const std::string from = spec(), to = spec();
    absl::StatusOr<std::string> svg = Draw(mesh, from, to, shape);
    if (!svg.ok()) continue;  // an axis the mesh lacks
    ++drawn;
    const std::string what = absl::StrCat(mesh, " ", from, " -> ", to);
    EXPECT_EQ(CheckXml(*svg), "") << what;
    EXPECT_LT(CountElements(*svg, "rect"), 2 * 33 * 33 + 64) << what;
    EXPECT_LE(CountElements(*svg, "polyline"), 48) << what;
    EXPECT_EQ(*svg, *Draw(mesh, from, to, shape)) << what;
  }
  EXPECT_GT(drawn, 40);
}

}  // namespace
}  // namespace reshard_picture_test
}  // namespace axe::picture
