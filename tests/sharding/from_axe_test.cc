#include "axe/sharding/from_axe.h"

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/layout/canonical.h"
#include "axe/sharding/device_map.h"
#include "axe/sharding/format.h"
#include "axe/sharding/to_axe.h"
#include "axe/xla/shape.h"
#include "axe/xla/to_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"
#include "test_util.h"

namespace axe::sharding {
namespace from_axe_test {
namespace {

using namespace ::axe::sharding::test_util;  // NOLINT(build/namespaces)

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Tuple(const std::vector<int64_t>& v) {
  return absl::StrCat("(", absl::StrJoin(v, ", "), ")");
}

axe::Layout AxeLayout(absl::string_view text) {
  return ValueOrFail(axe::Layout::Parse(text), std::string(text),
                     axe::Layout::RowMajor({1}).value());
}

// "<sharding> | <local xla layout> | <local JAX layout>", or the error message.
std::string FromAxeText(absl::string_view layout, std::vector<int64_t> shape,
                        std::optional<absl::string_view> mesh = std::nullopt) {
  std::optional<Mesh> m;
  if (mesh) m = ParseMesh(*mesh);
  absl::StatusOr<ShardingOfLayout> r = ShardingFromAxe(AxeLayout(layout), shape, m);
  if (!r.ok()) return std::string(r.status().message());
  return absl::StrCat(r->sharding.ToString(), " | ", r->local_xla.ToString(), " | ",
                      r->local_layout.ToString());
}

// The spec §9 examples, read back.
TEST(ShardingFromAxeTest, SpecExamples) {
  const std::string row_major_2d =
      "Layout(major_to_minor=(0, 1), tiling=None, sub_byte_element_size_in_bits=0)";
  EXPECT_EQ(FromAxeText("S[(2,32):(2@gpuid,1)] + R[2:1@gpuid]", {8, 8}, "x=2,y=2"),
            "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x',)) | {1,0} | " + row_major_2d);
  EXPECT_EQ(FromAxeText("S[(2,32):(1@x,1)] + R[2:1@y] where x:device, y:device", {8, 8}),
            "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x',)) | {1,0} | " + row_major_2d);
  EXPECT_EQ(FromAxeText("S[(2,2,3,2):(3@gpuid,2,1@gpuid,1)]", {4, 6}, "x=2,y=3"),
            "NamedSharding(mesh=Mesh('x': 2, 'y': 3), spec=P('x', 'y')) | {1,0} | " + row_major_2d);
  EXPECT_EQ(FromAxeText("S[(2,2,3,2):(3@gpuid,1,1@gpuid,2)]", {4, 6}, "x=2,y=3"),
            "NamedSharding(mesh=Mesh('x': 2, 'y': 3), spec=P('x', 'y')) | {0,1} | "
            "Layout(major_to_minor=(1, 0), tiling=None, sub_byte_element_size_in_bits=0)");
  EXPECT_EQ(
      FromAxeText("S[(6,8):(1@gpuid,1)]", {12, 4}, "x=2,y=3"),
      "NamedSharding(mesh=Mesh('x': 2, 'y': 3), spec=P(('x', 'y'),)) | {1,0} | " + row_major_2d);
}

// Without a mesh: one axis per device iter, named d<i>, d<i>_<k>, r<k>, row-major by stride.
TEST(ShardingFromAxeTest, InventsMeshAxesDeterministically) {
  EXPECT_THAT(FromAxeText("S[(2,32):(2@gpuid,1)] + R[2:1@gpuid]", {8, 8}),
              HasSubstr("NamedSharding(mesh=Mesh('d0': 2, 'r0': 2), spec=P('d0',))"));
  EXPECT_THAT(FromAxeText("S[(2,2,3,2):(3@gpuid,2,1@gpuid,1)]", {4, 6}),
              HasSubstr("NamedSharding(mesh=Mesh('d0': 2, 'd1': 3), spec=P('d0', 'd1'))"));
  EXPECT_THAT(FromAxeText("S[(6,8):(1@gpuid,1)]", {12, 4}),
              HasSubstr("NamedSharding(mesh=Mesh('d0': 6), spec=P('d0',))"));
  // P(('y', 'x')) on {x:2, y:2}: two iters in one block, the second more major on gpuid.
  EXPECT_THAT(FromAxeText("S[(2,2,2):(1@gpuid,2@gpuid,1)]", {8}),
              HasSubstr("NamedSharding(mesh=Mesh('d0_1': 2, 'd0': 2), spec=P(('d0', 'd0_1'),))"));
  EXPECT_THAT(FromAxeText("S[(2,2,2):(1@gpuid,2@gpuid,1)]", {8}, "x=2,y=2"),
              HasSubstr("NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P(('y', 'x'),))"));
}

TEST(ShardingFromAxeTest, TiledLocalLayoutAndSingleDevice) {
  const axe::Layout tiled = AxeLayout("S[(2,2,2,2,4):(1@gpuid,16,1,8,2)]");
  absl::StatusOr<ShardingOfLayout> r = ShardingFromAxe(tiled, {8, 8}, ParseMesh("x=2"));
  ASSERT_OK(r);
  EXPECT_EQ(r->sharding.ToString(), "NamedSharding(mesh=Mesh('x': 2), spec=P('x',))");
  EXPECT_EQ(r->local_xla.ToString(), "{1,0:T(2,8)(2,1)}");  // the same map as T(2,4)(2,1)
  EXPECT_EQ(r->local_layout.ToString(),
            "Layout(major_to_minor=(0, 1), tiling=((2, 8), (2, 1)), "
            "sub_byte_element_size_in_bits=0)");
  EXPECT_THAT(r->shard_shape, ElementsAre(4, 8));
  absl::StatusOr<Format> back = Format::Create(r->local_layout, r->sharding);
  ASSERT_OK(back);
  absl::StatusOr<axe::Layout> again = FormatToAxe({8, 8}, *back);
  ASSERT_OK(again);
  EXPECT_EQ(again->ToString(), Canonicalize(tiled).ToString());

  EXPECT_EQ(FromAxeText("S[(4,6):(1,4)] + 3@gpuid", {4, 6}),
            "SingleDeviceSharding(device=3) | {0,1} | "
            "Layout(major_to_minor=(1, 0), tiling=None, sub_byte_element_size_in_bits=0)");
  EXPECT_THAT(FromAxeText("S[24:1]", {4, 6}),
              HasSubstr("NamedSharding(mesh=Mesh(), spec=P()) | {1,0}"));
}

TEST(ShardingFromAxeTest, NotExpressible) {
  struct Bad {
    const char* layout;
    std::vector<int64_t> shape;
    std::optional<absl::string_view> mesh;
    const char* message;
  };
  for (const Bad& bad : std::vector<Bad>{
           {"S[(4,2,8):(8,1@gpuid,1)]",
            {8, 8},
            std::nullopt,
            "dimension 0: the device iter 2:1@gpuid follows the memory iter 4:8 (a cyclic "
            "distribution, not a block sharding)"},
           {"S[(2,32):(1@laneid,1)]",
            {8, 8},
            std::nullopt,
            "the axis laneid is a thread axis, not a device axis"},
           {"S[(2,32):(1@gpuid,1)] + R[2:1@x] where x:device",
            {8, 8},
            std::nullopt,
            "the layout uses gpuid and the axis x"},
           {"S[(2,32):(2@gpuid,1)]",
            {8, 8},
            std::nullopt,
            "the device iters do not tile gpuid 0..N-1 exactly once (expected an iter of stride "
            "1, found 2:2@gpuid in dimension 0)"},
           {"S[(2,32):(2@gpuid,1)]",
            {8, 8},
            "x=2,y=2",
            "mesh axis 'y' (size 2) is not covered by the layout"},
           {"S[(2,32):(4@gpuid,1)]",
            {8, 8},
            "x=2,y=2",
            "no axis of Mesh('x': 2, 'y': 2) has the position stride 4 (the device iter "
            "2:4@gpuid in dimension 0)"},
           {"S[(2,32):(1@gpuid,1)]",
            {8, 8},
            "x=4",
            "the device iter does not cover whole axes of Mesh('x': 4)"},
           {"S[(2,32):(2@gpuid,1)] + R[2:1@gpuid] + 1@gpuid",
            {8, 8},
            std::nullopt,
            "the layout has the offset 1@gpuid and device iters or a mesh"},
           {"S[64:1] + 5", {8, 8}, std::nullopt, "the layout has the offset 5@m"},
           {"S[64:1] + R[2:64]", {8, 8}, std::nullopt, "the replica iter 2:64 is on memory"},
           {"S[(2,32):(1@x,1)] + R[2:2@x] where x:device",
            {8, 8},
            std::nullopt,
            "the device axis x is used by more than one iter"},
           {"S[(2,32):(2@x,1)] where x:device",
            {8, 8},
            std::nullopt,
            "the device iter 2:2@x in dimension 0 has stride 2"},
           {"S[(2,32):(1@x,1)] where x:device",
            {8, 8},
            "y=2",
            "the device axis x (extent 2) is not an axis of Mesh('y': 2)"},
           {"S[(2,32):(1@x,1)] where x:device",
            {8, 8},
            "x=2,y=2",
            "mesh axis 'y' (size 2) is not used by the layout"},
           {"S[(2,32):(1@gpuid,2)]",
            {8, 8},
            std::nullopt,
            "not expressible: the memory part S[(4,8):(16,2)]: not expressible as an XLA layout"},
       }) {
    EXPECT_EQ(FromAxeText(bad.layout, bad.shape, bad.mesh).find(bad.message) != std::string::npos,
              true)
        << bad.layout << " -> " << FromAxeText(bad.layout, bad.shape, bad.mesh);
    std::optional<Mesh> m;
    if (bad.mesh) m = ParseMesh(*bad.mesh);
    EXPECT_THAT(ShardingFromAxe(AxeLayout(bad.layout), bad.shape, m),
                StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not expressible: ")));
  }
  EXPECT_THAT(ShardingFromAxe(AxeLayout("S[64:1]"), {8, 4}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("64")));
}

// ---- Randomized: FromAxe(ShardedToAxe(x)) gives x back. ----

struct Original {
  NamedSharding sharding;
  std::vector<int64_t> shape;
  std::vector<int64_t> major_to_minor;
};

Original RandomOriginal(std::mt19937_64& rng) {
  const auto [axes, devices] = RandomMesh(rng, 3);
  const size_t rank = 1 + rng() % 3;
  NamedSharding named =
      MakeNamed(MakeMesh(axes, devices), Spec(RandomSpecEntries(rng, axes, rank)));
  std::vector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    shape[i] = named.DimPieces(i) * (1 + static_cast<int64_t>(rng() % 3));
  }
  std::vector<int64_t> m2m(rank);
  for (size_t i = 0; i < rank; ++i) m2m[i] = static_cast<int64_t>(i);
  std::shuffle(m2m.begin(), m2m.end(), rng);
  return {std::move(named), std::move(shape), std::move(m2m)};
}

// The spec as FromAxe can know it: without size-1 axes and trailing Nones.
PartitionSpec Normalized(const NamedSharding& s) {
  std::vector<PartitionSpec::Entry> entries;
  for (const PartitionSpec::Entry& e : s.spec().entries()) {
    PartitionSpec::Entry kept;
    for (const std::string& name : e) {
      if (s.mesh().axes()[*s.mesh().AxisIndex(name)].size > 1) kept.push_back(name);
    }
    entries.push_back(kept);
  }
  while (!entries.empty() && entries.back().empty()) entries.pop_back();
  return Spec(entries);
}

// The device map with each device renamed to its mesh position (what gpuid holds).
std::vector<DeviceShard> MapByPosition(const NamedSharding& s, const std::vector<int64_t>& shape) {
  std::vector<DeviceShard> map =
      ValueOrFail(DevicesIndicesMap(s, shape), "DevicesIndicesMap", std::vector<DeviceShard>{});
  for (DeviceShard& d : map) d.device = s.mesh().PositionOf(d.device).value_or(-1);
  AssignReplicaGroups(map);
  return map;
}

// The local memory map of a shard under an XLA layout, canonical.
std::string MemoryMap(const std::vector<int64_t>& shard, const xla::Layout& layout) {
  absl::StatusOr<xla::AxeForm> form = xla::ToAxe(xla::Shape::Array(DType::kF32, shard, {}, layout));
  if (!form.ok()) return std::string(form.status().message());
  return Canonicalize(form->layout).ToString();
}

void CheckRoundTrip(const Original& x, DeviceAxisMode mode, bool pass_mesh) {
  const std::string what = absl::StrCat(
      x.sharding.ToString(), " on ", Tuple(x.shape), " m2m ", Tuple(x.major_to_minor),
      mode == DeviceAxisMode::kFlat ? " flat" : " per_axis", pass_mesh ? " with the mesh" : "");
  const LocalLayout local = LocalLayout::Create(x.major_to_minor).value();
  const xla::Layout local_xla = local.ToXla(DType::kF32).value();
  absl::StatusOr<axe::Layout> l = ShardedToAxe(x.shape, x.sharding, local_xla, mode);
  ASSERT_OK(l) << what;
  std::optional<Mesh> mesh;
  if (pass_mesh) mesh = x.sharding.mesh();
  absl::StatusOr<ShardingOfLayout> r = ShardingFromAxe(*l, x.shape, mesh);
  ASSERT_OK(r) << what << " -> " << *l;
  const NamedSharding* named = r->sharding.named();
  ASSERT_NE(named, nullptr) << what;
  if (pass_mesh) {
    EXPECT_EQ(named->mesh(), x.sharding.mesh()) << what;
    EXPECT_EQ(named->spec(), Normalized(x.sharding)) << what;
    EXPECT_EQ(FirstDifference(DevicesIndicesMap(*named, x.shape).value(),
                              DevicesIndicesMap(x.sharding, x.shape).value()),
              std::nullopt)
        << what;
  }
  EXPECT_EQ(FirstDifference(MapByPosition(*named, x.shape), MapByPosition(x.sharding, x.shape)),
            std::nullopt)
      << what << " -> " << *named;
  const std::vector<int64_t> shard = x.sharding.ShardShape(x.shape).value();
  EXPECT_EQ(r->shard_shape, shard) << what;
  if (std::all_of(shard.begin(), shard.end(), [](int64_t d) { return d > 1; })) {
    EXPECT_EQ(r->local_layout, local) << what;
  }
  EXPECT_EQ(MemoryMap(shard, r->local_xla), MemoryMap(shard, local_xla)) << what;
  // And back again: the same Axe layout.
  absl::StatusOr<axe::Layout> again = ShardedToAxe(x.shape, *named, r->local_xla, mode);
  ASSERT_OK(again) << what;
  // (Equivalent, not textually equal: an all-unit layout keeps the axis of its first iter.)
  EXPECT_THAT(Equivalent(*again, *l), IsOkAndHolds(true)) << what << ": " << *again << " vs " << *l;
}

TEST(ShardingFromAxeTest, RandomShardingsRoundTrip) {
  std::mt19937_64 rng(testing_support::TestSeed(2027));
  for (int n = 0; n < 300; ++n) {
    const Original x = RandomOriginal(rng);
    for (DeviceAxisMode mode : {DeviceAxisMode::kFlat, DeviceAxisMode::kPerAxis}) {
      for (bool pass_mesh : {true, false}) CheckRoundTrip(x, mode, pass_mesh);
    }
  }
}

}  // namespace
}  // namespace from_axe_test
}  // namespace axe::sharding
