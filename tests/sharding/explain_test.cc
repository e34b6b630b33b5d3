#include "axe/sharding/explain.h"

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "axe/sharding/equivalent.h"
#include "axe/sharding/picture.h"
#include "axe/sharding/to_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"
#include "test_util.h"

namespace axe::sharding {
namespace explain_test {
namespace {

using namespace ::axe::sharding::test_util;  // NOLINT(build/namespaces)

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Picture(const std::vector<int64_t>& shape, const NamedSharding& s) {
  absl::StatusOr<std::vector<DeviceShard>> map = DevicesIndicesMap(s, shape);
  if (!map.ok()) return std::string(map.status().message());
  return absl::StrJoin(RenderShardingPicture(shape, *map), "\n");
}

TEST(PictureTest, DrawsSplitAndReplicatedBlocks) {
  EXPECT_EQ(Picture({8, 8}, Named("x=2,y=2", "P('x')")),
            "┌────────────────────────────────────────┐\n"
            "│                  0,1                   │\n"
            "├────────────────────────────────────────┤\n"
            "│                  2,3                   │\n"
            "└────────────────────────────────────────┘");
  EXPECT_EQ(Picture({8, 8}, Named("x=2,y=2", "P('x', 'y')")),
            "┌────────────────────┬────────────────────┐\n"
            "│         0          │         1          │\n"
            "├────────────────────┼────────────────────┤\n"
            "│         2          │         3          │\n"
            "└────────────────────┴────────────────────┘");
  EXPECT_EQ(Picture({8, 8}, Named("x=2,y=2", "P(None, 'y')")),
            "┌────────────────────┬────────────────────┐\n"
            "│        0,2         │        1,3         │\n"
            "└────────────────────┴────────────────────┘");
  EXPECT_EQ(Picture({4}, Named("x=4", "P()")),
            "┌────────────────────────────────────────┐\n"
            "│                  0-3                   │\n"
            "└────────────────────────────────────────┘");
  EXPECT_EQ(Picture({2, 2, 2}, Named("x=2,y=2,z=2", "P('x', 'y', 'z')")),
            "(not drawn: more than two dimensions are split)");
  EXPECT_EQ(Picture({64}, Named("x=64", "P('x')")),
            "(not drawn: 1 x 64 blocks; at most 32 along each dimension are drawn)");
  // 2^62 elements over 8 devices: each column is 2^59 elements, whose width 40 * 2^59 / 2^62
  // overflowed int64 before dividing (found by a request sweep of the explorer,
  // fuzz/corpus/explorer_request/sharding-picture-width-past-int64-regression).
  EXPECT_EQ(Picture({int64_t{1} << 62}, Named("x=8", "P('x')")),
            "┌─────┬─────┬─────┬─────┬─────┬─────┬─────┬─────┐\n"
            "│  0  │  1  │  2  │  3  │  4  │  5  │  6  │  7  │\n"
            "└─────┴─────┴─────┴─────┴─────┴─────┴─────┴─────┘");
}

TEST(PictureTest, LabelsRunsOfDevices) {
  EXPECT_EQ(DeviceListLabel({3, 0, 1}), "0,1,3");
  EXPECT_EQ(DeviceListLabel({0, 1, 2, 3}), "0-3");
  EXPECT_EQ(DeviceListLabel({0, 2, 4, 5, 6, 7}), "0,2,4-7");
  EXPECT_EQ(DeviceListLabel({}), "");
}

TEST(ExplainTest, NamedShardingInEveryNotation) {
  absl::StatusOr<ShardingExplanation> e =
      ExplainNamedSharding({8, 8}, Named("x=2,y=2", "P('x')"), {});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->named.text, "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x',))");
  EXPECT_EQ(e->hlo.text, "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(e->axe.text, "S[(2,32):(2@gpuid,1)] + R[2:1@gpuid]");
  EXPECT_THAT(e->shard_shape, ElementsAre(4, 8));
  EXPECT_FALSE(e->fully_replicated);
  EXPECT_EQ(e->num_devices, 4);
  EXPECT_EQ(e->local_shape, "f32[4,8]{1,0}");
  EXPECT_EQ(e->local_axe.text, "S[(4,8):(8,1)]");
  ASSERT_EQ(e->devices.size(), 4u);
  EXPECT_EQ(e->devices[3].IndexToString(), "[[4, 8], [0, 8]]");
  EXPECT_EQ(e->devices[3].replica_group, 1);
  EXPECT_TRUE(e->device_assignment.empty());
}

TEST(ExplainTest, ShardyFormAndShardyInput) {
  absl::StatusOr<ShardingExplanation> e =
      ExplainNamedSharding({8, 8}, Named("x=2,y=2", "P('x')"), {});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->shardy.text, "#sdy.sharding<@mesh, [{\"x\"}, {}]>");
  EXPECT_EQ(e->shardy_mesh, "sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>");

  absl::StatusOr<ShardySharding> sdy =
      ShardySharding::Parse("#sdy.sharding<@m, [{\"y\":(1)2}, {}], replicated={\"x\"}>");
  ASSERT_TRUE(sdy.ok()) << sdy.status();
  absl::StatusOr<ShardyMesh> mesh = ShardyMesh::Parse("sdy.mesh @m = <[\"x\"=2, \"y\"=4]>");
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  e = ExplainShardySharding({8, 8}, *sdy, *mesh, {});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_THAT(e->named.reason, HasSubstr("sub-axis \"y\":(1)2"));
  EXPECT_EQ(e->hlo.text, "{devices=[2,1,4]<=[2,2,2]T(1,0,2) last_tile_dim_replicate}");
  EXPECT_EQ(e->shardy_mesh, "sdy.mesh @m = <[\"x\"=2, \"y\"=4]>");
  EXPECT_THAT(e->shard_shape, ElementsAre(4, 8));
  EXPECT_EQ(e->devices[2].IndexToString(), "[[4, 8], [0, 8]]");
  EXPECT_THAT(ExplainShardySharding({8}, *sdy, *mesh, {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("sharding has rank 2 but the value has rank 1")));
}

TEST(ExplainTest, PerAxisAndLocalLayout) {
  ExplainOptions options;
  options.mode = DeviceAxisMode::kPerAxis;
  options.local_layout = XlaLayout("{0,1}");
  absl::StatusOr<ShardingExplanation> e =
      ExplainNamedSharding({4, 6}, Named("x=2,y=3", "P('x', 'y')"), options);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->axe.text, "S[(2,2,3,2):(1@x,1,1@y,2)] where x:device, y:device");
  EXPECT_EQ(e->local_shape, "f32[2,2]{0,1}");
  EXPECT_EQ(e->local_axe.text, "S[(2,2):(1,2)]");
}

TEST(ExplainTest, HloShardingGetsItsNamedForm) {
  absl::StatusOr<ShardingExplanation> e = ExplainHloSharding(
      {8, 8}, ParseHlo("{devices=[2,1,2]<=[4] last_tile_dim_replicate}"), std::nullopt, 0, {});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->named.text, "NamedSharding(mesh=Mesh('x0': 2, 'x1': 2), spec=P('x0',))");
  EXPECT_EQ(e->axe.text, "S[(2,32):(2@gpuid,1)] + R[2:1@gpuid]");
  EXPECT_EQ(e->num_devices, 4);

  e = ExplainHloSharding({8, 8}, ParseHlo("{devices=[2,1,2]<=[4] last_tile_dim_replicate}"),
                         ParseMesh("x=2,y=2"), 0, {});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->named.text, "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x',))");

  // XLA pads a dimension that does not divide; JAX refuses it.
  e = ExplainHloSharding({7, 8}, ParseHlo("{devices=[2,1]0,1}"), std::nullopt, 0, {});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_FALSE(e->named.text.has_value());
  EXPECT_THAT(e->named.reason, HasSubstr("should be divisible by 2"));
  EXPECT_THAT(e->shard_shape, ElementsAre(4, 8));
  EXPECT_EQ(e->devices[1].IndexToString(), "[[4, 7], [0, 8]]");

  e = ExplainHloSharding({8}, ParseHlo("{maximal device=3}"), std::nullopt, 0, {});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->num_devices, 4);
  EXPECT_THAT(e->named.reason, HasSubstr("SingleDeviceSharding(device=3)"));
}

TEST(ExplainTest, ExplicitDeviceOrderIsTheDeviceAssignment) {
  absl::StatusOr<ShardingExplanation> e =
      ExplainNamedSharding({4}, Named("Mesh('x': 2, devices=[1, 0])", "P('x')"), {});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_THAT(e->device_assignment, ElementsAre(1, 0));
  EXPECT_EQ(e->hlo.text, "{devices=[2]<=[2]}");
  EXPECT_EQ(e->shardy_mesh, "sdy.mesh @mesh = <[\"x\"=2]>");
  EXPECT_EQ(e->devices[0].IndexToString(), "[[2, 4]]");

  // The HLO form read on that mesh gives the same devices.
  e = ExplainHloSharding({4}, ParseHlo("{devices=[2]<=[2]}"),
                         ParseMesh("Mesh('x': 2, devices=[1, 0])"), 0, {});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->named.text, "NamedSharding(mesh=Mesh('x': 2, devices=[1, 0]), spec=P('x',))");
  EXPECT_EQ(e->devices[0].IndexToString(), "[[2, 4]]");
}

TEST(ExplainTest, JaxReprKeepsExplicitAxisTypes) {
  absl::StatusOr<Sharding> s = Sharding::Parse(
      "NamedSharding(mesh=Mesh('x': 2, 'y': 2, axis_types=(Explicit, Auto)), spec=P('x',), "
      "memory_kind=device)");
  ASSERT_TRUE(s.ok()) << s.status();
  absl::StatusOr<ShardingExplanation> e = ExplainSharding({8, 8}, *s, {});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->named.text,
            "NamedSharding(mesh=Mesh('x': 2, 'y': 2, axis_types=(Explicit, Auto)), spec=P('x',), "
            "memory_kind=device)");
  EXPECT_EQ(e->hlo.text, "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
}

TEST(ExplainTest, Errors) {
  EXPECT_THAT(ExplainNamedSharding({7, 8}, Named("x=2", "P('x')"), {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("its dimension 0 should be divisible by 2")));
  EXPECT_THAT(ExplainHloSharding({8}, ParseHlo("{manual}"), std::nullopt, 0, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("manual")));
}

ShardingNotation Read(absl::string_view text, absl::string_view mesh = "") {
  std::optional<Mesh> m;
  if (!mesh.empty()) m = ParseMesh(mesh);
  absl::StatusOr<ShardingNotation> n = ShardingNotation::Parse(text, m);
  EXPECT_TRUE(n.ok()) << text << ": " << n.status();
  return n.ok() ? *n : ShardingNotation{HloSharding::Replicated(), std::nullopt, {}};
}

TEST(EquivalentTest, AcrossNotations) {
  const std::vector<int64_t> shape = {8, 8};
  auto same = [&](const ShardingNotation& a, const ShardingNotation& b) {
    absl::StatusOr<EquivalenceResult> r = Equivalent(shape, a, b);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() && r->equivalent;
  };
  const ShardingNotation named = Read("P('x')", "x=2,y=2");
  EXPECT_EQ(named.KindName(), "named");
  EXPECT_TRUE(same(named, Read("{devices=[2,1,2]<=[4] last_tile_dim_replicate}")));
  EXPECT_TRUE(same(named, Read("S[(2,32):(2@gpuid,1)] + R[2:1@gpuid]")));
  EXPECT_TRUE(same(named, Read("S[(2,32):(1@x,1)] + R[2:1@y]", "x=2,y=2")));
  EXPECT_TRUE(same(Read("P()", "x=4"), Read("{replicated}")));
  EXPECT_FALSE(same(named, Read("{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}")));

  absl::StatusOr<EquivalenceResult> r =
      Equivalent(shape, named, Read("{devices=[1,2,2]<=[4] last_tile_dim_replicate}"));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->difference.has_value());
  EXPECT_EQ(r->difference->device, 0);
  EXPECT_EQ(r->difference->first, "[[0, 4], [0, 8]]");
  EXPECT_EQ(r->difference->second, "[[0, 8], [0, 4]]");
}

TEST(EquivalentTest, JaxReprsNameTheirOwnMesh) {
  // JAX's NamedSharding repr as printed (axis_types, memory_kind) against the HLO XLA prints.
  const ShardingNotation jax = Read(
      "NamedSharding(mesh=Mesh('x': 2, 'y': 4, axis_types=(Auto, Auto)), spec=P('x', None), "
      "memory_kind=device)");
  EXPECT_EQ(jax.KindName(), "named");
  absl::StatusOr<EquivalenceResult> r =
      Equivalent({8, 8}, jax, Read("{devices=[2,1,4]<=[8] last_tile_dim_replicate}"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->equivalent);
  // A mesh on devices 4-7 against the HLO on those ids, and a SingleDeviceSharding.
  r = Equivalent({8}, Read("NamedSharding(mesh=Mesh('x': 4, devices=[4, 5, 6, 7]), spec=P('x'))"),
                 Read("{devices=[4]4,5,6,7}"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->equivalent);
  r = Equivalent({8}, Read("SingleDeviceSharding(device=3)"), Read("{maximal device=3}"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->equivalent);
}

TEST(EquivalentTest, AShardySidesRankMustBeTheValuesRank) {
  // A PartitionSpec may be shorter than the rank; a Shardy sharding may not.
  const ShardingNotation sdy = Read("#sdy.sharding<@mesh, [{\"x\"}, {}]>", "x=2");
  EXPECT_THAT(Equivalent({8, 8, 8}, sdy, Read("P('x')", "x=2")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("has 2 dimension shardings but the value has rank 3 (Shardy: "
                                 "sharding doesn't match tensor rank: 2 != 3)")));
  EXPECT_THAT(Equivalent({8, 8}, sdy, Read("P('x')", "x=2")),
              IsOkAndHolds(::testing::Field(&EquivalenceResult::equivalent, true)));
}

TEST(EquivalentTest, Errors) {
  EXPECT_THAT(ShardingNotation::Parse("P('x')", std::nullopt),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs a mesh")));
  EXPECT_THAT(ShardingNotation::Parse("{devices=[2]0,0}", std::nullopt),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("HLO sharding: ")));
  EXPECT_THAT(ShardingNotation::Parse("S[(2,", std::nullopt),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Axe layout: ")));
  EXPECT_THAT(DevicesIndicesMap(std::get<axe::Layout>(Read("S[(2,2):(1,1@gpuid)]").value), {4},
                                std::nullopt),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("device 0 holds 2 elements that do not form a box")));
  EXPECT_THAT(
      DevicesIndicesMap(std::get<axe::Layout>(Read("S[(2,4):(1@q,1)] where q:device").value),
                        {2, 4}, std::nullopt),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("device axis 'q' is neither gpuid nor a mesh axis")));
  EXPECT_THAT(DevicesIndicesMap(std::get<axe::Layout>(Read("S[(2,4):(1@x,1@gpuid)]", "x=2").value),
                                {2, 4}, ParseMesh("x=2")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not both")));
}

// For random meshes, specs and local layouts, the Axe layout's device map (by
// enumeration) equals the one computed from the definition, and the HLO form is equivalent.
TEST(EquivalentTest, AxeFormHasTheDefinitionsDeviceMap) {
  std::mt19937_64 rng(testing_support::TestSeed(31337));
  for (int trial = 0; trial < 300; ++trial) {
    RandomMeshParts parts = RandomMesh(rng, 3);
    parts.devices.clear();  // flat gpuid = device id needs the default order
    const size_t rank = 1 + rng() % 3;
    const NamedSharding named =
        MakeNamed(MakeMesh(parts.axes), Spec(RandomSpecEntries(rng, parts.axes, rank)));
    std::vector<int64_t> shape;
    for (size_t i = 0; i < rank; ++i) shape.push_back(named.DimPieces(i) * (1 + rng() % 3));
    SCOPED_TRACE(named.ToString());
    const absl::StatusOr<axe::Layout> axe = ShardedToAxe(shape, named, std::nullopt);
    ASSERT_TRUE(axe.ok()) << axe.status();
    const absl::StatusOr<HloSharding> hlo = NamedToHloSharding(named, rank);
    ASSERT_TRUE(hlo.ok()) << hlo.status();
    for (const ShardingNotation& other :
         {ShardingNotation{*axe, std::nullopt, {}}, ShardingNotation{*hlo, std::nullopt, {}}}) {
      absl::StatusOr<EquivalenceResult> r =
          Equivalent(shape, ShardingNotation{named, std::nullopt, {}}, other);
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_TRUE(r->equivalent) << other.ToString() << " differs on device "
                                 << r->difference->device << ": " << r->difference->first << " vs "
                                 << r->difference->second;
    }
  }
}

}  // namespace
}  // namespace explain_test
}  // namespace axe::sharding
