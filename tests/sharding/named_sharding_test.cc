#include "axe/sharding/named_sharding.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/hash/hash.h"
#include "axe/sharding/sharding.h"

#include "axe/sharding/device_map.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "test_util.h"

namespace axe::sharding {
namespace named_sharding_test {
namespace {

using namespace ::axe::sharding::test_util;  // NOLINT(build/namespaces)

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(NamedShardingTest, Repr) {
  EXPECT_EQ(Named("x=2,y=2", "P('x')").ToString(),
            "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x',))");
  absl::StatusOr<NamedSharding> host =
      NamedSharding::Create(ParseMesh("x=2"), ParseSpec("P()"), std::string("pinned_host"));
  ASSERT_OK(host);
  EXPECT_EQ(host->ToString(),
            "NamedSharding(mesh=Mesh('x': 2), spec=P(), memory_kind=pinned_host)");
  EXPECT_EQ(MemorySpaceOfMemoryKind("pinned_host"), 5);
  EXPECT_EQ(MemorySpaceOfMemoryKind("unpinned_host"), 6);
  EXPECT_EQ(MemorySpaceOfMemoryKind("device"), 0);
  EXPECT_EQ(SingleDeviceSharding::Create(3)->ToString(), "SingleDeviceSharding(device=3)");
}

// What JAX 0.10.2 printed for repr(NamedSharding(mesh, P(...))) on 8 CPU devices: the mesh
// with its axis types, the memory kind always. A single device's sharding has no mesh.
TEST(NamedShardingTest, JaxReprAsJaxPrintsIt) {
  EXPECT_EQ(Named("x=2,y=4", "P('x', 'y')").JaxRepr(),
            "NamedSharding(mesh=Mesh('x': 2, 'y': 4, axis_types=(Auto, Auto)), spec=P('x', 'y'), "
            "memory_kind=device)");
  absl::StatusOr<Mesh> mixed = Mesh::Parse("Mesh('x': 2, 'y': 4, axis_types=(Explicit, Auto))");
  ASSERT_OK(mixed);
  absl::StatusOr<NamedSharding> on_mixed = NamedSharding::Create(*mixed, ParseSpec("P('x')"));
  ASSERT_OK(on_mixed);
  EXPECT_EQ(on_mixed->JaxRepr(),
            "NamedSharding(mesh=Mesh('x': 2, 'y': 4, axis_types=(Explicit, Auto)), spec=P('x',), "
            "memory_kind=device)");
  absl::StatusOr<NamedSharding> host =
      NamedSharding::Create(ParseMesh("x=8"), ParseSpec("P()"), std::string("pinned_host"));
  ASSERT_OK(host);
  EXPECT_EQ(host->JaxRepr(),
            "NamedSharding(mesh=Mesh('x': 8, axis_types=(Auto,)), spec=P(), "
            "memory_kind=pinned_host)");
}

// The devices a client needs for a sharding: its mesh's largest id + 1, or its one device's.
TEST(NamedShardingTest, DeviceIdBoundOfASharding) {
  EXPECT_EQ(Sharding(Named("x=2,y=4", "P('x')")).device_id_bound(), 8);
  EXPECT_EQ(Sharding(*SingleDeviceSharding::Create(3)).device_id_bound(), 4);
  absl::StatusOr<Sharding> on_4_to_7 =
      Sharding::Parse("NamedSharding(Mesh('x': 4, devices=[4, 5, 6, 7]), P('x'))");
  ASSERT_OK(on_4_to_7);
  EXPECT_EQ(on_4_to_7->device_id_bound(), 8);
}

// JAX fills in the devices' default memory kind (`device`) when a sharding is built without
// one, so NamedSharding(m, P('x')) == NamedSharding(m, P('x'), memory_kind='device') and
// they hash alike; axe compares and hashes so, but prints what it was given.
TEST(NamedShardingTest, NoMemoryKindEqualsDevice) {
  const Mesh mesh = ParseMesh("x=2,y=4");
  const std::vector<std::optional<std::string>> kinds = {std::nullopt, std::string("device"),
                                                         std::string("pinned_host"),
                                                         std::string("unpinned_host")};
  std::vector<Sharding> all;
  for (const auto& kind : kinds) {
    for (const char* spec : {"P('x')", "P('y')"}) {
      absl::StatusOr<NamedSharding> n = NamedSharding::Create(mesh, ParseSpec(spec), kind);
      ASSERT_OK(n);
      all.push_back(*n);
    }
    for (int64_t device : {0, 3}) {
      absl::StatusOr<SingleDeviceSharding> d = SingleDeviceSharding::Create(device, kind);
      ASSERT_OK(d);
      all.push_back(*d);
    }
  }
  auto effective = [](const Sharding& s) { return s.memory_kind().value_or("device"); };
  for (const Sharding& a : all) {
    // parse(print(x)) == x, and the print is unchanged.
    absl::StatusOr<Sharding> back = Sharding::Parse(a.ToString());
    ASSERT_OK(back);
    EXPECT_EQ(*back, a) << a;
    EXPECT_EQ(back->ToString(), a.ToString());
    EXPECT_EQ(back->memory_kind(), a.memory_kind());
    for (const Sharding& b : all) {
      const bool same_value =
          (a.named() != nullptr) == (b.named() != nullptr) &&
          (a.named() ? a.named()->spec() == b.named()->spec()
                     : a.single_device()->device() == b.single_device()->device());
      const bool expected = same_value && effective(a) == effective(b);
      EXPECT_EQ(a == b, expected) << a << " vs " << b;
      if (a == b) {
        EXPECT_EQ(absl::HashOf(a), absl::HashOf(b)) << a << " vs " << b;
      }
    }
  }
  const NamedSharding plain = *all[0].named();
  EXPECT_EQ(plain.ToString(), "NamedSharding(mesh=Mesh('x': 2, 'y': 4), spec=P('x',))");
  EXPECT_EQ(plain, *all[4].named());  // memory_kind=device
  EXPECT_EQ(absl::HashOf(plain), absl::HashOf(*all[4].named()));
  EXPECT_NE(plain, *all[8].named());  // pinned_host
  EXPECT_EQ(*all[2].single_device(), *all[6].single_device());
  EXPECT_NE(*all[2].single_device(), *all[10].single_device());
}

TEST(NamedShardingTest, ErrorsOfSpec82) {
  const Mesh mesh = ParseMesh("x=2,y=2");
  EXPECT_THAT(NamedSharding::Create(mesh, ParseSpec("P('z')")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Resource axis: z of P('z',) is not found in mesh: ('x', 'y')."));
  EXPECT_THAT(NamedSharding::Create(mesh, ParseSpec("P('x', ('y', 'x'))")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "A single NamedSharding spec specification can map every mesh axis to at "
                       "most one positional dimension, but P('x', ('y', 'x')) has duplicate "
                       "entries for `x`"));
  EXPECT_THAT(NamedSharding::Create(mesh, ParseSpec("P()"), std::string("hbm")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown memory kind 'hbm'")));
  const NamedSharding two = Named("x=2,y=2", "P('x', 'y')");
  EXPECT_THAT(two.CheckShape({8}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Sharding NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x', 'y')) is "
                       "only valid for values of rank at least 2, but was applied to a value of "
                       "rank 1."));
  EXPECT_THAT(
      Named("x=2", "P('x')").CheckShape({}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("to a value of rank 0. For scalars the PartitionSpec should be P()")));
  EXPECT_THAT(Named("x=2,y=3", "P(None, ('x', 'y'))").CheckShape({4, 8}, "pjit arguments"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "One of pjit arguments was given the sharding of NamedSharding(mesh="
                       "Mesh('x': 2, 'y': 3), spec=P(None, ('x', 'y'))), which implies that the "
                       "global size of its dimension 1 should be divisible by 6 (mesh axes "
                       "('x', 'y')), but it is equal to 8 (full shape: (4, 8))"));
  EXPECT_THAT(Named("x=2", "P()").CheckShape({-1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("dimension 0 has the negative size -1")));
}

TEST(NamedShardingTest, ShardShapeAndReplication) {
  EXPECT_THAT(Named("x=2,y=3", "P(('x', 'y'))").ShardShape({12, 4}),
              IsOkAndHolds(std::vector<int64_t>{2, 4}));
  EXPECT_FALSE(Named("x=2,y=2", "P('x')").IsFullyReplicated());
  EXPECT_TRUE(Named("x=2,y=1", "P('y')").IsFullyReplicated());
  EXPECT_TRUE(Named("x=2", "P()").IsFullyReplicated());
  EXPECT_THAT(Named("x=2,y=2,z=2", "P('z')").ReplicatedAxes(), ElementsAre(0, 1));
}

TEST(DeviceMapTest, FirstDifferenceNamesTheSmallestDeviceThatDiffers) {
  const std::vector<DeviceShard> a = {{1, {{0, 4}}, 0}, {0, {{4, 8}}, 1}, {2, {{0, 8}}, 2}};
  EXPECT_EQ(FirstDifference(a, a), std::nullopt);
  // Order and replica groups do not matter; boxes do.
  const std::vector<DeviceShard> same = {{0, {{4, 8}}, 0}, {2, {{0, 8}}, 0}, {1, {{0, 4}}, 0}};
  EXPECT_EQ(FirstDifference(a, same), std::nullopt);
  const std::vector<DeviceShard> other = {{0, {{4, 8}}, 0}, {1, {{0, 3}}, 0}, {2, {{0, 7}}, 0}};
  std::optional<DeviceMapDifference> d = FirstDifference(a, other);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->device, 1);
  EXPECT_EQ(d->first, "[[0, 4]]");
  EXPECT_EQ(d->second, "[[0, 3]]");
  // A device in one map only, either side.
  const std::vector<DeviceShard> fewer = {{0, {{4, 8}}, 0}, {1, {{0, 4}}, 0}};
  d = FirstDifference(a, fewer);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->device, 2);
  EXPECT_EQ(d->second, "absent");
  d = FirstDifference(fewer, a);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->first, "absent");
  EXPECT_EQ(d->second, "[[0, 8]]");
}

TEST(DeviceMapTest, SplitReplicate) {
  absl::StatusOr<std::vector<DeviceShard>> map =
      DevicesIndicesMap(Named("x=2,y=2", "P('x')"), {8, 8});
  ASSERT_OK(map);
  ASSERT_EQ(map->size(), 4u);
  EXPECT_EQ((*map)[0].IndexToString(), "[[0, 4], [0, 8]]");
  EXPECT_EQ((*map)[1].IndexToString(), "[[0, 4], [0, 8]]");
  EXPECT_EQ((*map)[2].IndexToString(), "[[4, 8], [0, 8]]");
  EXPECT_EQ((*map)[3].replica_group, 1);
  EXPECT_THAT(ReplicaGroups(*map), ElementsAre(ElementsAre(0, 1), ElementsAre(2, 3)));
}

TEST(DeviceMapTest, SplitSplitWithPermutedDevices) {
  absl::StatusOr<std::vector<DeviceShard>> map =
      DevicesIndicesMap(Named("x=2,y=2,devices=[3,1,2,0]", "P('x', 'y')"), {4, 6});
  ASSERT_OK(map);
  // Device 3 is at mesh (0, 0), device 1 at (0, 1), device 2 at (1, 0), device 0 at (1, 1).
  EXPECT_EQ((*map)[3].IndexToString(), "[[0, 2], [0, 3]]");
  EXPECT_EQ((*map)[1].IndexToString(), "[[0, 2], [3, 6]]");
  EXPECT_EQ((*map)[2].IndexToString(), "[[2, 4], [0, 3]]");
  EXPECT_EQ((*map)[0].IndexToString(), "[[2, 4], [3, 6]]");
  EXPECT_EQ(ReplicaGroups(*map).size(), 4u);
}

TEST(DeviceMapTest, TupleEntryIsMajorFirst) {
  absl::StatusOr<std::vector<DeviceShard>> map =
      DevicesIndicesMap(Named("x=2,y=3", "P(('y', 'x'))"), {12});
  ASSERT_OK(map);
  // Device 1 is (x=0, y=1): piece y*2 + x = 2.
  EXPECT_EQ((*map)[1].IndexToString(), "[[4, 6]]");
  EXPECT_EQ((*map)[3].IndexToString(), "[[2, 4]]");
}

TEST(DeviceMapTest, SingleDevice) {
  absl::StatusOr<std::vector<DeviceShard>> map =
      DevicesIndicesMap(*SingleDeviceSharding::Create(5), {3, 4});
  ASSERT_OK(map);
  ASSERT_EQ(map->size(), 1u);
  EXPECT_EQ((*map)[0].device, 5);
  EXPECT_EQ((*map)[0].IndexToString(), "[[0, 3], [0, 4]]");
  EXPECT_THAT(SingleDeviceSharding::Create(-1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("device id -1 is negative")));
}

TEST(DeviceMapTest, ErrorsComeFromCheckShape) {
  EXPECT_THAT(DevicesIndicesMap(Named("x=2", "P('x')"), {3}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("divisible by 2")));
}

TEST(DeviceMapTest, FirstDifference) {
  const std::vector<DeviceShard> a = ValueOrFail(
      DevicesIndicesMap(Named("x=2,y=2", "P('x')"), {8, 8}), "map", std::vector<DeviceShard>());
  const std::vector<DeviceShard> b = ValueOrFail(
      DevicesIndicesMap(Named("x=2,y=2", "P('y')"), {8, 8}), "map", std::vector<DeviceShard>());
  const std::vector<DeviceShard> c =
      *DevicesIndicesMap(Named("y=2,x=2", "P('y')"), {8, 8});  // the same map as a
  EXPECT_FALSE(FirstDifference(a, c).has_value());
  std::optional<DeviceMapDifference> d = FirstDifference(a, b);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->device, 1);
  EXPECT_EQ(d->first, "[[0, 4], [0, 8]]");
  EXPECT_EQ(d->second, "[[4, 8], [0, 8]]");
  absl::StatusOr<SingleDeviceSharding> device0 = SingleDeviceSharding::Create(0);
  ASSERT_OK(device0);
  const std::vector<DeviceShard> one =
      ValueOrFail(DevicesIndicesMap(*device0, {8, 8}), "map", std::vector<DeviceShard>());
  d = FirstDifference(one, a);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->device, 0);
  EXPECT_EQ(d->first, "[[0, 8], [0, 8]]");
  d = FirstDifference(a, std::vector<DeviceShard>(a.begin(), a.begin() + 3));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->device, 3);
  EXPECT_EQ(d->second, "absent");
}

}  // namespace
}  // namespace named_sharding_test
}  // namespace axe::sharding
