#include "axe/sharding/from_hlo.h"

#include <random>
#include <string>
#include <vector>

#include "axe/sharding/device_map.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"
#include "test_util.h"

namespace axe::sharding {
namespace from_hlo_test {
namespace {

using namespace ::axe::sharding::test_util;  // NOLINT(build/namespaces)

using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

std::string Named(absl::string_view hlo, size_t rank, int64_t num_devices = 0) {
  absl::StatusOr<NamedSharding> s = HloToNamedSharding(ParseHlo(hlo), rank, num_devices);
  if (!s.ok()) return std::string(s.status().message());
  return s->ToString();
}

std::string OnMesh(absl::string_view hlo, size_t rank, absl::string_view mesh) {
  absl::StatusOr<NamedSharding> s = HloToNamedSharding(ParseHlo(hlo), rank, ParseMesh(mesh));
  if (!s.ok()) return std::string(s.status().message());
  return s->ToString();
}

TEST(HloToNamedShardingTest, BuildsTheSmallestMesh) {
  EXPECT_EQ(Named("{devices=[2,1,2]<=[4] last_tile_dim_replicate}", 2),
            "NamedSharding(mesh=Mesh('x0': 2, 'x1': 2), spec=P('x0',))");
  EXPECT_EQ(Named("{devices=[2,2]<=[2,2]T(1,0)}", 2),
            "NamedSharding(mesh=Mesh('x0': 2, 'x1': 2), spec=P('x1', 'x0'))");
  // One reshape dim split over two tile dims.
  EXPECT_EQ(Named("{devices=[4,2]<=[8]}", 2),
            "NamedSharding(mesh=Mesh('x0': 4, 'x1': 2), spec=P('x0', 'x1'))");
  // Reshape dim 1 (4) feeds tile dims 0 and 1, reshape dim 0 tile dim 2.
  EXPECT_EQ(Named("{devices=[2,2,2]<=[2,4]T(1,0)}", 3),
            "NamedSharding(mesh=Mesh('x0': 2, 'x1': 2, 'x2': 2), spec=P('x1', 'x2', 'x0'))");
  // Two mesh axes on one dimension, major first.
  EXPECT_EQ(Named("{devices=[1,4]<=[2,2]T(1,0)}", 2),
            "NamedSharding(mesh=Mesh('x0': 2, 'x1': 2), spec=P(None, ('x1', 'x0')))");
  // An explicit list that is an iota reads as the iota ({devices=[2,2]<=[2,2]T(1,0)}).
  EXPECT_EQ(Named("{devices=[2,2]0,2,1,3}", 2),
            "NamedSharding(mesh=Mesh('x0': 2, 'x1': 2), spec=P('x1', 'x0'))");
  // A list that is no iota becomes the mesh's device array.
  EXPECT_EQ(Named("{devices=[2,2]0,3,1,2}", 2),
            "NamedSharding(mesh=Mesh('x0': 2, 'x1': 2, devices=[0, 3, 1, 2]), spec=P('x0', "
            "'x1'))");
  // An iota whose tile dims cut its transposed dims unevenly: its device list.
  EXPECT_EQ(Named("{devices=[2,3]<=[2,3]T(1,0)}", 2),
            "NamedSharding(mesh=Mesh('x0': 2, 'x1': 3, devices=[0, 3, 1, 4, 2, 5]), spec=P('x0', "
            "'x1'))");
  EXPECT_EQ(Named("{devices=[2,2]0,1,2,3}", 2),
            "NamedSharding(mesh=Mesh('x0': 2, 'x1': 2), spec=P('x0', 'x1'))");
  EXPECT_EQ(Named("{devices=[2,1,2]<=[4] last_tile_dims={replicated}}", 2),
            "NamedSharding(mesh=Mesh('x0': 2, 'x1': 2), spec=P('x0',))");
  EXPECT_EQ(Named("{replicated}", 2, 4), "NamedSharding(mesh=Mesh('x0': 4), spec=P())");
  EXPECT_EQ(Named("{replicated}", 1), "NamedSharding(mesh=Mesh(), spec=P())");
}

TEST(HloToNamedShardingTest, SaysWhyNoneExists) {
  EXPECT_THAT(HloToNamedSharding(ParseHlo("{maximal device=3}"), 2),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("{maximal device=3} is SingleDeviceSharding(device=3)")));
  EXPECT_THAT(HloToNamedSharding(ParseHlo("{manual}"), 2),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("manual")));
  EXPECT_THAT(HloToNamedSharding(ParseHlo("{{replicated}, {manual}}"), 2),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("tuple")));
  EXPECT_THAT(
      HloToNamedSharding(ParseHlo("{devices=[2,1,2]<=[4] last_tile_dims={manual}}"), 2),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("only replicated subgroups")));
  EXPECT_THAT(HloToNamedSharding(ParseHlo("{devices=[2]3,5}"), 1),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("names device 3 but has only 2 tiles")));
  EXPECT_THAT(HloToNamedSharding(ParseHlo("{devices=[2,2]<=[4]}"), 3),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tiles 2 dimensions, but the value has rank 3")));
  // A rank no value has is refused before anything is sized by it, both ways.
  EXPECT_THAT(HloToNamedSharding(ParseHlo("{replicated}"), 1000000000, *Mesh::Parse("x=2")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the rank is 1000000000; at most 64 are supported")));
  absl::StatusOr<NamedSharding> named = NamedSharding::Create(*Mesh::Parse("x=2"), PartitionSpec());
  ASSERT_TRUE(named.ok());
  EXPECT_THAT(NamedToHloSharding(*named, 1000000000),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("num_dimensions is 1000000000; at most 64 are supported")));
  EXPECT_TRUE(NamedToHloSharding(*named, 64).ok());
}

TEST(HloToNamedShardingTest, FindsTheSpecOnAGivenMesh) {
  EXPECT_EQ(OnMesh("{devices=[2,1,2]<=[4] last_tile_dim_replicate}", 2, "x=2,y=2"),
            "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x',))");
  EXPECT_EQ(OnMesh("{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}", 2, "x=2,y=2"),
            "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P(None, 'y'))");
  EXPECT_EQ(OnMesh("{devices=[4,1]<=[2,2]T(1,0)}", 2, "x=2,y=2"),
            "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P(('y', 'x'),))");
  EXPECT_EQ(OnMesh("{devices=[2,2]0,2,1,3}", 2, "x=2,y=2"),
            "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('y', 'x'))");
  EXPECT_EQ(OnMesh("{replicated}", 2, "x=2,y=2"),
            "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P())");
  EXPECT_THAT(HloToNamedSharding(ParseHlo("{devices=[2,2]<=[4]}"), 2, ParseMesh("x=8")),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("the sharding uses 4 devices, the mesh Mesh('x': 8) has 8")));
  EXPECT_THAT(HloToNamedSharding(ParseHlo("{devices=[2,2]0,3,1,2}"), 2, ParseMesh("x=2,y=2")),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("no PartitionSpec over Mesh('x': 2, 'y': 2)")));
}

// The spec NamedToHloSharding cannot distinguish from `spec`: mesh axes of size 1 dropped,
// trailing Nones removed.
PartitionSpec Visible(const NamedSharding& s) {
  std::vector<PartitionSpec::Entry> entries;
  for (const PartitionSpec::Entry& entry : s.spec().entries()) {
    PartitionSpec::Entry kept;
    for (const std::string& name : entry) {
      if (s.mesh().axes()[*s.mesh().AxisIndex(name)].size > 1) kept.push_back(name);
    }
    entries.push_back(kept);
  }
  while (!entries.empty() && entries.back().empty()) entries.pop_back();
  return Spec(entries);
}

// Named -> HLO -> Named is the identity on the mesh (up to what HLO cannot see) and keeps
// the device map without one.
TEST(HloToNamedShardingTest, RoundTripsThroughHlo) {
  std::mt19937_64 rng(testing_support::TestSeed(20261124));
  for (int trial = 0; trial < 400; ++trial) {
    RandomMeshParts parts = RandomMesh(rng, 4);
    const size_t rank = 1 + rng() % 3;
    const Mesh mesh = MakeMesh(parts.axes, parts.devices);
    const NamedSharding named = MakeNamed(mesh, Spec(RandomSpecEntries(rng, parts.axes, rank)));
    SCOPED_TRACE(named.ToString());
    absl::StatusOr<HloSharding> hlo = NamedToHloSharding(named, rank);
    ASSERT_TRUE(hlo.ok()) << hlo.status();
    SCOPED_TRACE(hlo->ToString());

    absl::StatusOr<NamedSharding> back = HloToNamedSharding(*hlo, rank, mesh);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->mesh(), mesh);
    EXPECT_EQ(Visible(*back), Visible(named));

    std::vector<int64_t> shape;
    for (size_t i = 0; i < rank; ++i) shape.push_back(named.DimPieces(i) * (1 + rng() % 3));
    absl::StatusOr<NamedSharding> fresh = HloToNamedSharding(*hlo, rank, mesh.num_devices());
    if (!fresh.ok()) {
      // Only explicit device lists leave iota land; they always have a mesh.
      ADD_FAILURE() << fresh.status();
      continue;
    }
    SCOPED_TRACE(fresh->ToString());
    absl::StatusOr<std::vector<DeviceShard>> want = DevicesIndicesMap(named, shape);
    absl::StatusOr<std::vector<DeviceShard>> got = DevicesIndicesMap(*fresh, shape);
    ASSERT_TRUE(want.ok() && got.ok());
    // The HLO numbers devices logically; the mesh's device array maps them to devices.
    EXPECT_EQ(ApplyDeviceAssignment(*got, mesh.device_array()), *want);
  }
}

}  // namespace
}  // namespace from_hlo_test
}  // namespace axe::sharding
