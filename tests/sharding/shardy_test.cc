#include "axe/sharding/shardy.h"

#include <random>
#include <string>
#include <vector>

#include "axe/sharding/device_map.h"
#include "axe/sharding/hlo_sharding.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"
#include "test_util.h"

namespace axe::sharding {
namespace shardy_test {
namespace {

using namespace ::axe::sharding::test_util;  // NOLINT(build/namespaces)

using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

std::string RoundTrip(absl::string_view text) {
  absl::StatusOr<ShardySharding> s = ShardySharding::Parse(text);
  if (!s.ok()) return std::string(s.status().message());
  return s->ToString();
}

ShardyMesh SdyMesh(absl::string_view text) {
  absl::StatusOr<ShardyMesh> m = ShardyMesh::Parse(text);
  EXPECT_TRUE(m.ok()) << text << ": " << m.status();
  return m.ok() ? *m : ShardyMesh{};
}

ShardySharding Sdy(absl::string_view text) {
  absl::StatusOr<ShardySharding> s = ShardySharding::Parse(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status();
  return s.ok() ? *s : ShardySharding{};
}

// Texts as Shardy prints them (its parse/print tests and dumps).
TEST(ShardyTest, ShardingsRoundTripByteForByte) {
  for (const char* text : {
           "#sdy.sharding<@mesh, [{\"x\"}, {}]>",
           "#sdy.sharding<@mesh, [{\"x\", \"y\"}]>",
           "#sdy.sharding<@mesh, [{\"a\", ?}, {?}]>",
           "#sdy.sharding<@mesh, [{\"x\"}p1, {\"y\"}, {\"z\", ?}p2]>",
           "#sdy.sharding<@mesh, [{}, {}], replicated={\"a\", \"b\"}>",
           "#sdy.sharding<@mesh, [{}, {}], unreduced={\"x\"}>",
           "#sdy.sharding<@mesh, [{}], unreduced=max{\"x\"}>",
           "#sdy.sharding<@foo, [{}, {}], replicated={\"a\"}, unreduced={\"b\"}>",
           "#sdy.sharding<@mesh, [{\"y\", \"z\":(4)2}, {\"z\":(2)2, \"x\"}]>",
           "#sdy.sharding<mesh<[\"x\"=2, \"y\"=2]>, [{\"x\"}, {}]>",
           "#sdy.sharding<mesh<[\"x\"=2], device_ids=[1, 0]>, [{\"x\"}, {}]>",
           "#sdy.sharding<@single_dev_0, []>",
           "#sdy.sharding<@mesh_a_2_b_2, [], replicated={\"a\"}>",
       }) {
    EXPECT_EQ(RoundTrip(text), text);
  }
  // What Shardy normalizes: the order of replicated/unreduced, iota device ids, the bare form.
  EXPECT_EQ(RoundTrip("<@foo, [{}, {}], unreduced={\"b\"}, replicated={\"a\"}>"),
            "#sdy.sharding<@foo, [{}, {}], replicated={\"a\"}, unreduced={\"b\"}>");
  EXPECT_EQ(RoundTrip("#sdy.sharding<mesh<[\"x\"=2], device_ids=[0, 1]>, [{\"x\"}, {}]>"),
            "#sdy.sharding<mesh<[\"x\"=2]>, [{\"x\"}, {}]>");
}

// Found by the shardy fuzz target: device ids in iota order were kept in the parsed value
// but not printed, so parse(print(s)) != s. They are dropped when read, as Shardy prints.
TEST(ShardyTest, IotaDeviceIdsAreDroppedWhenRead) {
  const ShardySharding s = Sdy("#sdy.sharding<mesh<[\"x\"=2], device_ids=[0, 1]>, [{\"x\"}, {}]>");
  ASSERT_TRUE(s.inline_mesh().has_value());
  EXPECT_TRUE(s.inline_mesh()->device_ids.empty());
  EXPECT_EQ(Sdy(s.ToString()), s);
  const ShardyMesh m = SdyMesh("sdy.mesh @m = <[\"x\"=2, \"y\"=2], device_ids=[0, 1, 2, 3]>");
  EXPECT_TRUE(m.device_ids.empty());
  EXPECT_EQ(SdyMesh(m.ToString()), m);
  // A maximal mesh keeps its one id, and a non-iota order is kept.
  EXPECT_EQ(SdyMesh("<[], device_ids=[0]>").device_ids, std::vector<int64_t>{0});
  EXPECT_EQ(SdyMesh("<[\"x\"=2], device_ids=[1, 0]>").device_ids, (std::vector<int64_t>{1, 0}));
  // Ids too few for the axes are refused, not dropped (ToMesh dropped any iota prefix, so
  // two ids passed for four devices).
  EXPECT_THAT(ShardyMesh::Parse("<[\"x\"=4], device_ids=[0, 1]>"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("the device array has 2")));
}

// Found by the shardy fuzz target: `unreduced=max{}` kept the reduction, which the print
// (no unreduced axes, no attribute) lost.
TEST(ShardyTest, AnEmptyUnreducedListKeepsNoReduction) {
  const ShardySharding s = Sdy("#sdy.sharding<@mesh, [{}], unreduced=max{}>");
  EXPECT_EQ(s.reduction(), ShardyReduction::kSum);
  EXPECT_EQ(s.ToString(), "#sdy.sharding<@mesh, [{}]>");
  EXPECT_EQ(Sdy(s.ToString()), s);
  EXPECT_EQ(Sdy("#sdy.sharding<@mesh, [{}], unreduced=min{\"x\"}>").reduction(),
            ShardyReduction::kMin);
}

TEST(ShardyTest, MeshesRoundTrip) {
  EXPECT_EQ(SdyMesh("sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>").ToString(),
            "sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>");
  EXPECT_EQ(SdyMesh("sdy.mesh @maximal_mesh = <[], device_ids=[0]>").ToString(),
            "sdy.mesh @maximal_mesh = <[], device_ids=[0]>");
  EXPECT_EQ(SdyMesh("sdy.mesh @mesh_b = <[\"x\"=4], device_ids=[1, 2, 3, 0]>").ToString(),
            "sdy.mesh @mesh_b = <[\"x\"=4], device_ids=[1, 2, 3, 0]>");
  EXPECT_EQ(SdyMesh("#sdy.mesh<[\"a\"=2]>").AttrToString(), "<[\"a\"=2]>");
  EXPECT_EQ(*SdyMesh("sdy.mesh @d3 = <[], device_ids=[3]>").MaximalDevice(), 3);
  EXPECT_THAT(
      SdyMesh("sdy.mesh @d3 = <[], device_ids=[3]>").ToMesh(),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("SingleDeviceSharding(device=3)")));
}

TEST(ShardyTest, ParseErrorsNameThePosition) {
  EXPECT_THAT(ShardySharding::Parse("#sdy.sharding<@mesh, [{\"x\"}, {}"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position 31")));
  EXPECT_THAT(
      ShardySharding::Parse("#sdy.sharding<@mesh, [{x}]>"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("an axis name in double quotes")));
  EXPECT_THAT(ShardySharding::Parse("#sdy.sharding<@mesh, [{}], replicated={}, replicated={}>"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("each at most once")));
  EXPECT_THAT(ShardyMesh::Parse("<[\"x\"=2, \"x\"=2]>"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("x")));
  EXPECT_THAT(ShardyMesh::Parse("<[\"x\"=2], device_ids=[0, 0]>"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("appears twice")));
  std::string deep = "#sdy.sharding<@mesh, [";
  for (int i = 0; i < 65; ++i) deep += i ? ", {}" : "{}";
  EXPECT_THAT(ShardySharding::Parse(deep + "]>"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at most 64 dimensions")));
}

TEST(ShardyTest, ChecksAgainstTheMesh) {
  const ShardyMesh mesh = SdyMesh("sdy.mesh @mesh = <[\"x\"=2, \"y\"=8]>");
  EXPECT_OK(
      Sdy("#sdy.sharding<@mesh, [{\"x\"}, {\"y\":(2)2}], replicated={\"y\":(1)2}>").Check(mesh, 2));
  EXPECT_THAT(Sdy("#sdy.sharding<@mesh, [{\"z\"}]>").Check(mesh),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown axis name: \"z\"")));
  EXPECT_THAT(Sdy("#sdy.sharding<@mesh, [{\"y\":(1)4}, {\"y\":(2)2}]>").Check(mesh),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("\"y\":(2)2 overlaps another use of axis \"y\"")));
  EXPECT_THAT(Sdy("#sdy.sharding<@mesh, [{\"y\":(3)2}]>").Check(mesh),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("does not split axis")));
  EXPECT_THAT(Sdy("#sdy.sharding<@mesh, [{\"y\":(1)8}]>").Check(mesh),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("does not split axis")));
  EXPECT_THAT(Sdy("#sdy.sharding<@mesh, [{\"x\"}, {\"x\"}]>").Check(mesh),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("overlaps")));
  EXPECT_THAT(Sdy("#sdy.sharding<@other, [{\"x\"}]>").Check(mesh),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("refers to @other but the mesh given is @mesh")));
  EXPECT_THAT(Sdy("#sdy.sharding<@mesh, [{\"x\"}]>").Check(mesh, 2),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("sharding has rank 1 but the value has rank 2")));
}

TEST(ShardyTest, ToNamedSharding) {
  const ShardyMesh mesh = SdyMesh("sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>");
  auto named = [&](absl::string_view text) -> std::string {
    absl::StatusOr<NamedSharding> n = ShardyToNamedSharding(Sdy(text), mesh);
    return n.ok() ? n->ToString() : std::string(n.status().message());
  };
  EXPECT_EQ(named("#sdy.sharding<@mesh, [{\"x\"}, {}]>"),
            "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x', None))");
  EXPECT_EQ(named("#sdy.sharding<@mesh, [{\"y\", \"x\", ?}]>"),
            "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P(('y', 'x'),))");
  EXPECT_EQ(named("#sdy.sharding<mesh<[\"x\"=2], device_ids=[1, 0]>, [{\"x\"}]>"),
            "NamedSharding(mesh=Mesh('x': 2, devices=[1, 0]), spec=P('x',))");
  EXPECT_THAT(named("#sdy.sharding<@mesh, [{\"x\":(1)2}]>"),
              HasSubstr("sub-axis \"x\":(1)2 does not split axis \"x\" of size 2"));
  EXPECT_THAT(ShardyToNamedSharding(Sdy("#sdy.sharding<@m, [{\"y\":(1)2}]>"),
                                    SdyMesh("sdy.mesh @m = <[\"y\"=4]>")),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("sub-axis \"y\":(1)2: a PartitionSpec names whole mesh axes")));
  EXPECT_THAT(ShardyToNamedSharding(Sdy("#sdy.sharding<@mesh, [{}], unreduced={\"x\"}>"), mesh),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("unreduced axes {\"x\"} hold partial values")));
}

TEST(ShardyTest, SubAxesRefineTheMesh) {
  // The example of Shardy's documentation: two shardings of a (4,4) array, one on a mesh
  // x=4,y=2 and one on a flat axis of 8 split into sub-axes, are the same.
  const ShardyMesh full = SdyMesh("sdy.mesh @mesh_full = <[\"devices\"=8]>");
  absl::StatusOr<NamedSharding> refined = ShardyToRefinedNamedSharding(
      Sdy("#sdy.sharding<@mesh_full, [{\"devices\":(1)4}, {\"devices\":(4)2}]>"), full);
  ASSERT_TRUE(refined.ok()) << refined.status();
  EXPECT_EQ(refined->ToString(),
            "NamedSharding(mesh=Mesh('devices_1_4': 4, 'devices_4_2': 2), spec=P('devices_1_4', "
            "'devices_4_2'))");
  absl::StatusOr<std::vector<DeviceShard>> a = DevicesIndicesMap(*refined, {4, 4});
  absl::StatusOr<std::vector<DeviceShard>> b =
      DevicesIndicesMap(Named("x=4,y=2", "P('x', 'y')"), {4, 4});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE(FirstDifference(*a, *b).has_value());

  // Unreduced axes replicate; a sub-axis used in the middle leaves the others replicated.
  refined = ShardyToRefinedNamedSharding(Sdy("#sdy.sharding<@mesh, [{\"x\"}, {\"y\":(2)2}]>"),
                                         SdyMesh("sdy.mesh @mesh = <[\"x\"=2, \"y\"=8]>"));
  ASSERT_TRUE(refined.ok()) << refined.status();
  EXPECT_EQ(refined->ToString(),
            "NamedSharding(mesh=Mesh('x': 2, 'y_1_2': 2, 'y_2_2': 2, 'y_4_2': 2), spec=P('x', "
            "'y_2_2'))");
}

TEST(ShardyTest, NamedShardingGoesToShardyAndBack) {
  std::mt19937_64 rng(testing_support::TestSeed(4242));
  for (int trial = 0; trial < 300; ++trial) {
    RandomMeshParts parts = RandomMesh(rng, 4);
    const size_t rank = 1 + rng() % 3;
    const Mesh mesh = MakeMesh(parts.axes, parts.devices);
    const NamedSharding named = MakeNamed(mesh, Spec(RandomSpecEntries(rng, parts.axes, rank)));
    const ShardySharding sdy = NamedToShardySharding(named, rank);
    SCOPED_TRACE(named.ToString() + " -> " + sdy.ToString());
    absl::StatusOr<ShardySharding> reparsed = ShardySharding::Parse(sdy.ToString());
    ASSERT_TRUE(reparsed.ok()) << reparsed.status();
    EXPECT_EQ(*reparsed, sdy);
    const ShardyMesh sdy_mesh = ShardyMesh::FromMesh(mesh, JaxMeshName(mesh));
    absl::StatusOr<ShardyMesh> mesh_again = ShardyMesh::Parse(sdy_mesh.ToString());
    ASSERT_TRUE(mesh_again.ok()) << mesh_again.status();
    EXPECT_EQ(*mesh_again, sdy_mesh);
    absl::StatusOr<NamedSharding> back = ShardyToNamedSharding(sdy, sdy_mesh);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->mesh(), named.mesh());
    for (size_t i = 0; i < rank; ++i) EXPECT_EQ(back->spec().entry(i), named.spec().entry(i));
  }
}

}  // namespace
}  // namespace shardy_test
}  // namespace axe::sharding
