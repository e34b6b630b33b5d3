#include "axe/sharding/hlo_sharding.h"

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <utility>

#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "axe/sharding/explain.h"
#include "axe/sharding/from_hlo.h"
#include "axe/sharding/to_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/test_seed.h"
#include "test_util.h"

namespace axe::sharding {
namespace hlo_sharding_test {
namespace {

using namespace ::axe::sharding::test_util;  // NOLINT(build/namespaces)

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

std::string RoundTrip(absl::string_view text) {
  absl::StatusOr<HloSharding> s = HloSharding::Parse(text);
  if (!s.ok()) return std::string(s.status().message());
  return s->ToString();
}

// Strings as XLA prints them (hlo_sharding_test.cc, hlo_parser_test.cc, JAX dumps).
TEST(HloShardingTest, RoundTripsByteForByte) {
  for (const char* text : {
           "{replicated}",
           "{manual}",
           "{maximal device=3}",
           "{devices=[2,2]0,2,1,3}",
           "{replicated metadata={op_name=\"jit(f)/jit(main)/mul\" source_file=\"f.py\" "
           "source_line=3}}",
           "{devices=[2,1]<=[2] metadata={op_type=\"Mul\" op_name=\"a\\\"b\"}}",
           "{maximal device=1 metadata={{op_name=\"x\"}, {op_name=\"y\" source_line=7}}}",
           "{devices=[2,1,2]<=[4] last_tile_dim_replicate metadata={op_name=\"m\"}}",
           "{unknown}",
           "{unreduced}",
           "{replicated shard_as 1}",
           "{unknown shard_like 0 metadata={op_name=\"u\"}}",
           "{devices=[2,2]<=[4] last_tile_dims={unreduced} shard_as 3}",
           "{}",
           "{devices=[4,2]<=[8]}",
           "{devices=[2,2]<=[2,2]T(1,0)}",
           "{devices=[2,4]<=[2,4]T(1,0)}",
           "{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
           "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}",
           "{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}",
           "{devices=[2,2,1,2]0,1,3,7,5,4,2,6 last_tile_dim_replicate}",
           "{devices=[1,2,2,2]0,1,4,5,2,3,6,7 last_tile_dims={manual}}",
           "{devices=[3,2,4]<=[2,3,4]T(1,0,2)}",
           "{{replicated}, {devices=[2]0,1}}",
           "{{replicated}, {manual}, {maximal device=0}, {replicated}, {replicated}, "
           "/*index=5*/{devices=[2]<=[2]}}",
           "{}",
           // From XLA's tests (spmd/shardy round trips, hlo_sharding_util_test, parser tests).
           "{devices=[2,2,4]<=[2,2,4]T(1,0,2) last_tile_dim_replicate}",
           "{devices=[1,1,4,4]<=[16] last_tile_dims={manual, replicated}}",
           "{devices=[2,1,8]<=[2,2,4]T(1,0,2) last_tile_dim_replicate}",
           "{devices=[4,1,2]<=[8] last_tile_dim_replicate}",
           "{devices=[2,1,2,2]<=[2,2,2]T(1,0,2) last_tile_dims={manual, replicated}}",
           "{devices=[2,2,2,2]0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 last_tile_dims={manual, "
           "replicated}}",
           "{devices=[2,2]0,1,2,3 last_tile_dim_replicate}",
           "{devices=[1,2,2]0,1,2,3 last_tile_dim_replicate}",
           "{devices=[16,4]<=[64] last_tile_dims={manual, replicated}}",
       }) {
    EXPECT_EQ(RoundTrip(text), text);
  }
}

TEST(HloShardingTest, IotaIsCanonicalizedAsXlaDoes) {
  EXPECT_EQ(RoundTrip("{devices=[2,2]<=[2,2]T(0,1)}"), "{devices=[2,2]<=[4]}");
  EXPECT_EQ(RoundTrip("{devices=[4]<=[1,4,1]T(2,1,0)}"), "{devices=[4]<=[4]}");
  EXPECT_EQ(RoundTrip("{devices=[3,20]<=[3,4,5]T(1,2,0)}"), "{devices=[3,20]<=[3,20]T(1,0)}");
  EXPECT_EQ(RoundTrip("{devices=[60]<=[3,4,5]T(2,0,1)}"), "{devices=[60]<=[12,5]T(1,0)}");
  EXPECT_EQ(RoundTrip(" { devices=[2]<=[2] } "), "{devices=[2]<=[2]}");
}

TEST(HloShardingTest, ParseErrors) {
  EXPECT_THAT(HloSharding::Parse("{devices=[2,2]0,1,2}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 9: tile assignment [2,2] needs 4 device ids, got 3")));
  EXPECT_THAT(HloSharding::Parse("{devices=[2]0,0}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 14: device 0 is not unique in tile assignment")));
  EXPECT_THAT(
      HloSharding::Parse("{devices=[4]<=[2,2]T(0,0)}"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("iota transpose T(0,0) is not a permutation of the 2 reshape dims")));
  EXPECT_THAT(HloSharding::Parse("{devices=[4]<=[8]}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("has 4 devices but the iota <=[8] has 8")));
  EXPECT_THAT(HloSharding::Parse("{replicatd}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 1: expected a sharding attribute or '}'")));
  EXPECT_THAT(HloSharding::Parse("{maximal}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 0: maximal sharding needs device=")));
  EXPECT_THAT(HloSharding::Parse("{replicated shard_as -1}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 21: a shard group id is >= 0")));
  EXPECT_THAT(HloSharding::Parse("{replicated metadata={op_name=\"a}}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 30: unterminated string in metadata")));
  EXPECT_THAT(HloSharding::Parse("{replicated metadata={op_name}}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 22: expected a metadata item key=value")));
  // Metadata is kept (and compared) but moves no element.
  absl::StatusOr<HloSharding> with =
      HloSharding::Parse("{devices=[2,1,2]<=[4] last_tile_dim_replicate metadata={op_name=\"m\"}}");
  ASSERT_OK(with);
  EXPECT_THAT(with->metadata(), ::testing::ElementsAre("op_name=\"m\""));
  EXPECT_NE(*with, ParseHlo("{devices=[2,1,2]<=[4] last_tile_dim_replicate}"));
  EXPECT_THAT(HloSharding::Tuple({}).WithMetadata({"op_name=\"t\""}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("tuple")));
  EXPECT_THAT(HloSharding::Parse("{replicated} x"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("expected end of input")));
  EXPECT_THAT(HloSharding::Parse("{devices=[2,0]<=[0]}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tile assignment dimension 1 is 0 (must be >= 1)")));
  EXPECT_THAT(
      HloSharding::Parse("{devices=[2,2]0,1,2,3 last_tile_dim_replicate last_tile_dims={manual}}"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("position 0: last_tile_dim_replicate and last_tile_dims cannot "
                         "both be given")));
  EXPECT_THAT(HloSharding::Parse("{{{replicated}}}"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position 2")));
  EXPECT_THAT(HloSharding::Parse(std::string(HloSharding::kMaxTextLength + 1, '{')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("(at most")));
}

// Regression: explicit and maximal device ids were never range-checked, and the explicit
// list reached signed overflow in HloShardingToAxe ({devices=[3]-9223372036854775808,0,1}).
TEST(HloShardingTest, DeviceIdsAreCheckedWithTheirPosition) {
  EXPECT_THAT(HloSharding::Parse("{devices=[3]-9223372036854775808,0,1}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 12: device -9223372036854775808 is negative in tile "
                                 "assignment")));
  EXPECT_THAT(HloSharding::Parse("{devices=[2]0, 65536}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 15: device 65536 is out of range in tile assignment "
                                 "(ids are below 65536)")));
  EXPECT_THAT(HloSharding::Parse("{devices=[2,1]3,3}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 16: device 3 is not unique in tile assignment")));
  EXPECT_THAT(HloSharding::Parse("{maximal device=-1}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 16: device -1 is negative in tile assignment")));
  EXPECT_THAT(HloSharding::Parse("{maximal device=9223372036854775807}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("position 16: device 9223372036854775807 is out of range")));
  EXPECT_THAT(HloSharding::Parse("{devices=[2]1,65535}"),
              IsOkAndHolds(testing::Property(&HloSharding::ToString, "{devices=[2]1,65535}")));
  // The constructors check the same.
  EXPECT_THAT(TileAssignment::Explicit({2}, {1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("device 1 is not unique in tile assignment")));
  EXPECT_THAT(TileAssignment::Explicit({1}, {INT64_MIN}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is negative")));
  EXPECT_THAT(HloSharding::Maximal(-1),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("device -1 is negative in tile assignment")));
  EXPECT_THAT(
      HloSharding::Maximal(int64_t{1} << 16),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("device 65536 is out of range")));
}

// Regression: the device map did not compare device ids with the device count.
TEST(HloShardingTest, DevicesIndicesMapChecksIdsAgainstTheDeviceCount) {
  absl::StatusOr<HloSharding> tiled = HloSharding::Parse("{devices=[2]0,5}");
  ASSERT_OK(tiled);
  EXPECT_THAT(DevicesIndicesMap(*tiled, {4}, 4),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("device 5 > num_devices (4) in tile assignment")));
  EXPECT_OK(DevicesIndicesMap(*tiled, {4}, 6));
  EXPECT_OK(DevicesIndicesMap(*tiled, {4}, 0));  // no count: not checked
  EXPECT_THAT(HloShardingToAxe({4}, *tiled, std::nullopt, 4),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("device 5 > num_devices (4) in tile assignment")));
  absl::StatusOr<HloSharding> maximal = HloSharding::Parse("{maximal device=3}");
  ASSERT_OK(maximal);
  EXPECT_THAT(DevicesIndicesMap(*maximal, {2}, 3),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("device 3 > num_devices (3) in tile assignment")));
  EXPECT_THAT(DevicesIndicesMap(HloSharding::Replicated(), {2}, INT64_MAX),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("num_devices 9223372036854775807 is more than 65536")));
}

// A device count given with an HLO sharding is checked the same way wherever it is taken
// (the CLI's --num-devices, the Python from_hlo, the explanation).
TEST(HloShardingTest, NumDevicesOutOfRangeIsRefusedEverywhere) {
  EXPECT_OK(CheckNumDevices(0));
  EXPECT_OK(CheckNumDevices(Mesh::kMaxDevices));
  EXPECT_THAT(CheckNumDevices(-1),
              StatusIs(absl::StatusCode::kInvalidArgument, "num_devices -1 is negative"));
  absl::StatusOr<HloSharding> two = HloSharding::Parse("{devices=[2]0,1}");
  ASSERT_OK(two);
  EXPECT_THAT(
      HloToNamedSharding(*two, 1, int64_t{1} << 40),
      StatusIs(absl::StatusCode::kInvalidArgument, "num_devices 1099511627776 is more than 65536"));
  EXPECT_THAT(HloToNamedSharding(*two, 1, -1),
              StatusIs(absl::StatusCode::kInvalidArgument, "num_devices -1 is negative"));
  EXPECT_THAT(ExplainHloSharding({4}, *two, std::nullopt, -1, ExplainOptions{}),
              StatusIs(absl::StatusCode::kInvalidArgument, "num_devices -1 is negative"));
}

// Regression: ceil(d / t) and tile * (index + 1) overflowed for dims near INT64_MAX.
TEST(HloShardingTest, DevicesIndicesMapOfHugeDimensions) {
  absl::StatusOr<HloSharding> two = HloSharding::Parse("{devices=[2]<=[2]}");
  ASSERT_OK(two);
  absl::StatusOr<std::vector<DeviceShard>> map = DevicesIndicesMap(*two, {INT64_MAX}, 2);
  ASSERT_OK(map);
  ASSERT_EQ(map->size(), 2u);
  EXPECT_EQ((*map)[0].IndexToString(), "[[0, 4611686018427387904]]");
  EXPECT_EQ((*map)[1].IndexToString(), "[[4611686018427387904, 9223372036854775807]]");
  absl::StatusOr<HloSharding> three = HloSharding::Parse("{devices=[1,3]<=[3]}");
  ASSERT_OK(three);
  map = DevicesIndicesMap(*three, {INT64_MAX, INT64_MAX - 1}, 3);
  ASSERT_OK(map);
  EXPECT_EQ((*map)[2].IndexToString(),
            "[[0, 9223372036854775807], [6148914691236517204, 9223372036854775806]]");
}

// The worked examples of the issue: the HLO strings JAX prints for NamedShardings.
TEST(HloShardingTest, NamedToHloAsJaxProducesIt) {
  auto hlo = [](absl::string_view mesh, absl::string_view spec, size_t rank) {
    absl::StatusOr<HloSharding> s = NamedToHloSharding(Named(mesh, spec), rank);
    return s.ok() ? s->ToString() : std::string(s.status().message());
  };
  EXPECT_EQ(hlo("x=2,y=2", "P('x')", 2), "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(hlo("x=2,y=2", "P('y')", 2), "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(hlo("x=2,y=2", "P('x', 'y')", 2), "{devices=[2,2]<=[4]}");
  EXPECT_EQ(hlo("x=2,y=2", "P('y', 'x')", 2), "{devices=[2,2]<=[2,2]T(1,0)}");
  EXPECT_EQ(hlo("x=2,y=2", "P(('x', 'y'))", 1), "{devices=[4]<=[4]}");
  EXPECT_EQ(hlo("x=2,y=3", "P('x', 'y')", 2), "{devices=[2,3]<=[6]}");
  EXPECT_EQ(hlo("x=2,y=2", "P()", 2), "{replicated}");
  EXPECT_EQ(hlo("x=2,y=1", "P('y')", 2), "{replicated}");
  EXPECT_EQ(hlo("x=4,y=2", "P(None, 'x')", 2), "{devices=[1,4,2]<=[8] last_tile_dim_replicate}");
  // XLA's Shardy round-trip test: mesh [a=2,b=2,c=2,d=2], [{b}, {a}].
  EXPECT_EQ(hlo("a=2,b=2,c=2,d=2", "P('b', 'a')", 2),
            "{devices=[2,2,4]<=[2,2,4]T(1,0,2) last_tile_dim_replicate}");
  // JAX numbers devices by their position in the device assignment (the mesh's device
  // array), so the device order does not show (checked against jax 0.10.2).
  EXPECT_EQ(hlo("x=2,y=2,devices=[0,2,1,3]", "P('x', 'y')", 2), "{devices=[2,2]<=[4]}");
  EXPECT_EQ(hlo("x=2,y=2,devices=[0,2,1,3]", "P('y', 'x')", 2), "{devices=[2,2]<=[2,2]T(1,0)}");
  EXPECT_THAT(NamedToHloSharding(Named("x=2", "P(None, 'x')"), 1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("rank at least 2")));
}

TEST(HloShardingTest, DeviceMapOfTiledAndSpecialShardings) {
  absl::StatusOr<HloSharding> s =
      HloSharding::Parse("{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  ASSERT_OK(s);
  absl::StatusOr<std::vector<DeviceShard>> map = DevicesIndicesMap(*s, {8, 8}, 4);
  ASSERT_OK(map);
  EXPECT_EQ((*map)[1].IndexToString(), "[[0, 4], [0, 8]]");
  EXPECT_EQ((*map)[2].IndexToString(), "[[4, 8], [0, 8]]");
  EXPECT_EQ((*map)[1].replica_group, 0);
  absl::StatusOr<std::vector<DeviceShard>> uneven =
      DevicesIndicesMap(ParseHlo("{devices=[4]<=[4]}"), {7}, 0);
  ASSERT_OK(uneven);
  EXPECT_EQ((*uneven)[3].IndexToString(), "[[6, 7]]");
  EXPECT_THAT(DevicesIndicesMap(ParseHlo("{manual}"), {8}, 4),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has no device map")));
  EXPECT_THAT(DevicesIndicesMap(ParseHlo("{devices=[2,2]<=[4]}"), {8}, 4),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Number of tile assignment dimensions (excluding subgroups) is "
                                 "different than the input rank.")));
  absl::StatusOr<std::vector<DeviceShard>> maximal =
      DevicesIndicesMap(ParseHlo("{maximal device=3}"), {2}, 0);
  ASSERT_OK(maximal);
  EXPECT_EQ((*maximal)[0].device, 3);
}

// NamedSharding -> HLO keeps the device map, and the text round-trips.
TEST(HloShardingTest, RandomNamedToHloKeepsTheDeviceMap) {
  std::mt19937_64 rng(testing_support::TestSeed(77));
  for (int trial = 0; trial < 400; ++trial) {
    const auto [axes, devices] = RandomMesh(rng, 3);
    const size_t rank = 1 + rng() % 3;
    std::vector<PartitionSpec::Entry> entries = RandomSpecEntries(rng, axes, rank);
    absl::StatusOr<NamedSharding> named =
        NamedSharding::Create(MakeMesh(axes, devices), Spec(entries));
    ASSERT_OK(named);
    std::vector<int64_t> shape(rank);
    for (size_t i = 0; i < rank; ++i)
      shape[i] = (1 + static_cast<int64_t>(rng() % 3)) * named->DimPieces(i);
    absl::StatusOr<HloSharding> hlo = NamedToHloSharding(*named, rank);
    ASSERT_OK(hlo);
    EXPECT_EQ(RoundTrip(hlo->ToString()), hlo->ToString());
    absl::StatusOr<std::vector<DeviceShard>> want = DevicesIndicesMap(*named, shape);
    absl::StatusOr<std::vector<DeviceShard>> got =
        DevicesIndicesMap(*hlo, shape, named->mesh().num_devices());
    ASSERT_OK(want);
    ASSERT_OK(got);
    EXPECT_EQ(ApplyDeviceAssignment(*got, named->mesh().device_array()), *want)
        << *named << " -> " << hlo->ToString();
  }
}

absl::StatusOr<std::string> HloAxe(absl::string_view hlo, std::vector<int64_t> shape,
                                   int64_t num_devices) {
  AXE_ASSIGN_OR_RETURN(HloSharding s, HloSharding::Parse(hlo));
  AXE_ASSIGN_OR_RETURN(axe::Layout l, HloShardingToAxe(shape, s, std::nullopt, num_devices));
  return l.ToString();
}

TEST(HloShardingToAxeTest, Examples) {
  // The HLO form of NamedSharding(Mesh('x': 2, 'y': 2), P('x',)) gives the spec's layout.
  EXPECT_THAT(HloAxe("{devices=[2,1,2]<=[4] last_tile_dim_replicate}", {8, 8}, 4),
              IsOkAndHolds(std::string("S[(2,32):(2@gpuid,1)] + R[2:1@gpuid]")));
  EXPECT_THAT(HloAxe("{devices=[2,2]0,2,1,3}", {4, 6}, 4),
              IsOkAndHolds(std::string("S[(2,2,2,3):(1@gpuid,3,2@gpuid,1)]")));
  EXPECT_THAT(HloAxe("{devices=[4]<=[2,2]T(1,0)}", {8}, 4),
              IsOkAndHolds(std::string("S[(2,2,2):(1@gpuid,2@gpuid,1)]")));
  EXPECT_THAT(HloAxe("{replicated}", {2, 3}, 4),
              IsOkAndHolds(std::string("S[6:1] + R[4:1@gpuid]")));
  EXPECT_THAT(HloAxe("{maximal device=3}", {2, 3}, 0),
              IsOkAndHolds(std::string("S[6:1] + 3@gpuid")));
  EXPECT_THAT(HloAxe("{devices=[2]1,0}", {4}, 2),
              IsOkAndHolds(std::string("S[(2,2):(-1@gpuid,1)] + 1@gpuid")));
  EXPECT_THAT(
      HloAxe("{devices=[4]0,1,3,2}", {8}, 4),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("is not affine in each tile dim")));
  EXPECT_THAT(HloAxe("{devices=[4]<=[4]}", {6}, 4),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("dimension 0 (size 6) is not divisible by its 4 tiles")));
  EXPECT_THAT(
      HloAxe("{devices=[2,2]<=[4] last_tile_dims={manual}}", {8}, 4),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("non-replicated subgroup")));
  EXPECT_THAT(HloAxe("{manual}", {8}, 4),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no single device map")));
}

// NamedSharding -> HLO -> Axe holds each element where the HLO device map says, at the
// row-major local offset.
TEST(HloShardingToAxeTest, RandomHloLayoutsMatchTheirDeviceMaps) {
  std::mt19937_64 rng(testing_support::TestSeed(4242));
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<MeshAxis> axes;
    int64_t n = 1;
    for (size_t j = 0; j < 1 + rng() % 3; ++j) {
      axes.push_back(
          {std::string(1, static_cast<char>('a' + j)), 1 + static_cast<int64_t>(rng() % 3)});
      n *= axes.back().size;
    }
    const size_t rank = 1 + rng() % 2;
    std::vector<PartitionSpec::Entry> entries(rank);
    for (const MeshAxis& a : axes) {
      const size_t dim = rng() % (rank + 1);
      if (dim < rank) entries[dim].push_back(a.name);
    }
    const NamedSharding named = MakeNamed(MakeMesh(axes), Spec(entries));
    std::vector<int64_t> shape(rank);
    for (size_t i = 0; i < rank; ++i)
      shape[i] = (1 + static_cast<int64_t>(rng() % 3)) * named.DimPieces(i);
    const HloSharding hlo =
        ValueOrFail(NamedToHloSharding(named, rank), "NamedToHloSharding", HloSharding());
    absl::StatusOr<axe::Layout> l = HloShardingToAxe(shape, hlo, std::nullopt, n);
    ASSERT_OK(l) << hlo.ToString();
    // Default device order: the HLO layout equals the NamedSharding's (gpuid = device id).
    absl::StatusOr<axe::Layout> named_layout = ShardedToAxe(shape, named, std::nullopt);
    ASSERT_OK(named_layout);
    // (Skipped for one-element arrays: Equivalent() tells S[1:1] from S[1:1@gpuid], whose maps
    // are equal; reported to the layout module.)
    int64_t total = 1;
    for (int64_t d : shape) total *= d;
    if (total > 1) {
      EXPECT_THAT(Equivalent(*l, *named_layout), IsOkAndHolds(true))
          << hlo.ToString() << ": " << *l << " vs " << *named_layout;
    }
    const std::vector<DeviceShard> map = ValueOrFail(
        DevicesIndicesMap(hlo, shape, n), "DevicesIndicesMap", std::vector<DeviceShard>());
    for (int64_t flat = 0; flat < total; ++flat) {
      const std::vector<int64_t> index = UnflattenIndex(shape, flat);
      std::set<std::pair<int64_t, int64_t>> want, got;
      for (const DeviceShard& s : map) {
        bool inside = true;
        int64_t offset = 0;
        for (size_t i = 0; i < rank; ++i) {
          inside = inside && s.index[i].begin <= index[i] && index[i] < s.index[i].end;
          offset = offset * (s.index[i].end - s.index[i].begin) + index[i] - s.index[i].begin;
        }
        if (inside) want.emplace(s.device, offset);
      }
      absl::StatusOr<std::vector<PhysCoord>> points = Apply(*l, shape, index);
      ASSERT_OK(points);
      for (const PhysCoord& p : *points)
        got.emplace(p.get(Axis::Get("gpuid")), p.get(Axis::Memory()));
      ASSERT_EQ(got, want) << hlo.ToString() << " -> " << *l << " at " << flat;
      ++checked;
    }
  }
  EXPECT_GT(checked, 300);
}

}  // namespace
}  // namespace hlo_sharding_test
}  // namespace axe::sharding
