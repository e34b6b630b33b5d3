#include "axe/sharding/to_axe.h"

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "axe/sharding/device_map.h"
#include "axe/xla/text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"
#include "test_util.h"

namespace axe::sharding {
namespace to_axe_test {
namespace {

using namespace ::axe::sharding::test_util;  // NOLINT(build/namespaces)

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Points(const axe::Layout& l, std::vector<int64_t> shape,
                                std::vector<int64_t> index) {
  std::vector<std::string> out;
  absl::StatusOr<std::vector<PhysCoord>> points = Apply(l, shape, index);
  EXPECT_OK(points);
  if (points.ok()) {
    for (const PhysCoord& p : *points) out.push_back(p.ToString());
  }
  return out;
}

// Spec §9, first example: split/split on {x:2, y:3}, local row-major and column-major.
TEST(ShardedToAxeTest, SpecExampleSplitSplit) {
  const NamedSharding s = Named("x=2,y=3", "P('x', 'y')");
  absl::StatusOr<axe::Layout> l = ShardedToAxe({4, 6}, s, std::nullopt);
  ASSERT_OK(l);
  EXPECT_EQ(l->ToString(), "S[(2,2,3,2):(3@gpuid,2,1@gpuid,1)]");
  EXPECT_THAT(Points(*l, {4, 6}, {3, 5}), ElementsAre("{gpuid:5, m:3}"));
  absl::StatusOr<axe::Layout> cm = ShardedToAxe({4, 6}, s, XlaLayout("{0,1}"));
  ASSERT_OK(cm);
  EXPECT_EQ(cm->ToString(), "S[(2,2,3,2):(3@gpuid,1,1@gpuid,2)]");
  EXPECT_THAT(Points(*cm, {4, 6}, {2, 1}), ElementsAre("{gpuid:3, m:2}"));
}

// Second example: a tuple entry.
TEST(ShardedToAxeTest, SpecExampleTupleEntry) {
  absl::StatusOr<axe::Layout> l =
      ShardedToAxe({12, 4}, Named("x=2,y=3", "P(('x', 'y'))"), std::nullopt);
  ASSERT_OK(l);
  EXPECT_EQ(l->ToString(), "S[(6,8):(1@gpuid,1)]");
}

// A mesh axis named `m` (valid in JAX) has a flat layout; per_axis cannot name a device
// axis `m`, the memory axis of layouts.
TEST(ShardedToAxeTest, MeshAxisNamedM) {
  const NamedSharding s = Named("m=2,y=2", "P('m')");
  absl::StatusOr<axe::Layout> flat = ShardedToAxe({8, 8}, s, std::nullopt);
  ASSERT_OK(flat);
  EXPECT_EQ(flat->ToString(), "S[(2,32):(2@gpuid,1)] + R[2:1@gpuid]");
  EXPECT_THAT(ShardedToAxe({8, 8}, s, std::nullopt, DeviceAxisMode::kPerAxis),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("mesh axis 'm' cannot be a per_axis device axis")));
}

// Third example: split over x, replicated over y; flat and per_axis.
TEST(ShardedToAxeTest, SpecExampleSplitReplicate) {
  const NamedSharding s = Named("x=2,y=2", "P('x')");
  absl::StatusOr<axe::Layout> l = ShardedToAxe({8, 8}, s, std::nullopt);
  ASSERT_OK(l);
  EXPECT_EQ(l->ToString(), "S[(2,32):(2@gpuid,1)] + R[2:1@gpuid]");
  EXPECT_THAT(Points(*l, {8, 8}, {5, 3}), ElementsAre("{gpuid:2, m:11}", "{gpuid:3, m:11}"));
  absl::StatusOr<axe::Layout> per_axis =
      ShardedToAxe({8, 8}, s, std::nullopt, DeviceAxisMode::kPerAxis);
  ASSERT_OK(per_axis);
  // The spec writes S[(2,32):(1@x,1)] + R[2:1@y]; x and y are mesh (device) axes, which the
  // canonical text names in its where clause.
  EXPECT_EQ(per_axis->ToString(), "S[(2,32):(1@x,1)] + R[2:1@y] where x:device, y:device");
  absl::StatusOr<axe::Layout> want =
      axe::Layout::Parse("S[(2,32):(1@x,1)] + R[2:1@y] where x:device, y:device");
  ASSERT_OK(want);
  EXPECT_THAT(Equivalent(*per_axis, *want), IsOkAndHolds(true));
}

// Fourth example: a tiled local layout.
TEST(ShardedToAxeTest, SpecExampleTiledLocal) {
  absl::StatusOr<axe::Layout> l =
      ShardedToAxe({8, 8}, Named("x=2", "P('x')"), XlaLayout("{1,0:T(2,4)(2,1)}"));
  ASSERT_OK(l);
  absl::StatusOr<axe::Layout> want = axe::Layout::Parse("S[(2,2,2,2,4):(1@gpuid,16,1,8,2)]");
  ASSERT_OK(want);
  EXPECT_THAT(Equivalent(*l, *want), IsOkAndHolds(true)) << *l;
  EXPECT_EQ(*l, Canonicalize(*want));
}

TEST(ShardedToAxeTest, Errors) {
  EXPECT_THAT(ShardedToAxe({6, 8}, Named("x=4", "P('x')"), std::nullopt),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("global size of its dimension 0 should be divisible by 4 (mesh "
                                 "axes 'x'), but it is equal to 6 (full shape: (6, 8))")));
  EXPECT_THAT(ShardedToAxe({8, 8}, Named("x=2", "P('x')"), XlaLayout("{1,0:T(8,128)}")),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("not expressible: the local layout pads the shard")));
  EXPECT_THAT(ShardedToAxe({0, 8}, Named("x=2", "P('x')"), std::nullopt),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("dimension 0 has size 0")));
}

// ---- Randomized: the device -> elements map of the Axe layout equals the definition. ----

struct Case {
  NamedSharding sharding;
  std::vector<int64_t> shape;
  std::vector<int64_t> minor_to_major;
};

Case RandomCase(std::mt19937_64& rng) {
  const auto [axes, devices] = RandomMesh(rng, 3);
  const size_t rank = 1 + rng() % 3;
  std::vector<PartitionSpec::Entry> entries = RandomSpecEntries(rng, axes, rank);
  while (!entries.empty() && entries.back().empty() && rng() % 2) entries.pop_back();
  const NamedSharding s = MakeNamed(MakeMesh(axes, devices), Spec(entries));
  std::vector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i)
    shape[i] = (1 + static_cast<int64_t>(rng() % 3)) * s.DimPieces(i);
  std::vector<int64_t> m2m(rank);
  for (size_t i = 0; i < rank; ++i) m2m[i] = static_cast<int64_t>(i);
  std::shuffle(m2m.begin(), m2m.end(), rng);
  return Case{s, shape, m2m};
}

// (device, local offset) pairs holding `index`, from the index boxes.
std::set<std::pair<int64_t, int64_t>> Expected(const Case& c, const std::vector<DeviceShard>& map,
                                               const std::vector<int64_t>& index) {
  std::vector<int64_t> local =
      ValueOrFail(c.sharding.ShardShape(c.shape), "ShardShape", std::vector<int64_t>(c.shape));
  std::vector<int64_t> stride(local.size());
  int64_t s = 1;
  for (int64_t d : c.minor_to_major) {
    stride[static_cast<size_t>(d)] = s;
    s *= local[static_cast<size_t>(d)];
  }
  std::set<std::pair<int64_t, int64_t>> out;
  for (const DeviceShard& shard : map) {
    int64_t offset = 0;
    bool inside = true;
    for (size_t i = 0; i < index.size(); ++i) {
      const auto [start, stop] = shard.index[i];
      inside = inside && start <= index[i] && index[i] < stop;
      offset += (index[i] - start) * stride[i];
    }
    if (inside) out.emplace(shard.device, offset);
  }
  return out;
}

std::set<std::pair<int64_t, int64_t>> FromAxe(const Case& c, const axe::Layout& l,
                                              DeviceAxisMode mode,
                                              const std::vector<int64_t>& index) {
  std::set<std::pair<int64_t, int64_t>> out;
  const Mesh& mesh = c.sharding.mesh();
  absl::StatusOr<std::vector<PhysCoord>> points = Apply(l, c.shape, index);
  EXPECT_OK(points);
  if (!points.ok()) return out;
  for (const PhysCoord& p : *points) {
    int64_t device = 0;
    if (mode == DeviceAxisMode::kFlat) {
      device = mesh.DeviceAtPosition(p.get(Axis::Get("gpuid")));
    } else {
      std::vector<int64_t> coord;
      for (const MeshAxis& a : mesh.axes())
        coord.push_back(p.get(Axis::Get(a.name, AxisKind::kDevice)));
      device = ValueOrFail(mesh.DeviceAt(coord), "DeviceAt", int64_t{-1});
    }
    out.emplace(device, p.get(Axis::Memory()));
  }
  return out;
}

TEST(ShardedToAxeTest, RandomShardingsMatchTheDefinition) {
  std::mt19937_64 rng(testing_support::TestSeed(2026));
  for (int trial = 0; trial < 400; ++trial) {
    const Case c = RandomCase(rng);
    absl::StatusOr<std::vector<DeviceShard>> map = DevicesIndicesMap(c.sharding, c.shape);
    ASSERT_OK(map);
    for (DeviceAxisMode mode : {DeviceAxisMode::kFlat, DeviceAxisMode::kPerAxis}) {
      absl::StatusOr<axe::Layout> l =
          ShardedToAxe(c.shape, c.sharding, xla::Layout(c.minor_to_major), mode);
      ASSERT_OK(l) << c.sharding;
      int64_t total = 1;
      for (int64_t d : c.shape) total *= d;
      for (int64_t flat = 0; flat < total; ++flat) {
        const std::vector<int64_t> index = UnflattenIndex(c.shape, flat);
        ASSERT_EQ(FromAxe(c, *l, mode, index), Expected(c, *map, index))
            << "trial " << trial << ": " << c.sharding << " on " << testing::PrintToString(c.shape)
            << " -> " << *l << " at flat index " << flat;
      }
    }
  }
}

}  // namespace
}  // namespace to_axe_test
}  // namespace axe::sharding
