#include <random>

#include "axe/layout/apply.h"
#include "axe/layout/inverse.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "layout/random_layout.h"
#include "support/test_seed.h"

namespace axe {
namespace inverse_test {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Layout P(absl::string_view text) { return *Layout::Parse(text); }
PhysCoord Pt(absl::string_view text) { return *PhysCoord::Parse(text); }

constexpr char kLA[] = "S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp";

TEST(Inverse, Example3aUniquePreimage) {
  EXPECT_THAT(*Inverse(P(kLA), {8, 16}, Pt("warp=6,lane=8,reg=1")), ElementsAre(ElementsAre(2, 9)));
  // The replicated copy (warp 10) has the same preimage.
  EXPECT_THAT(*Inverse(P(kLA), {8, 16}, Pt("warp=10,lane=8,reg=1")),
              ElementsAre(ElementsAre(2, 9)));
  EXPECT_THAT(*InverseFlat(P(kLA), Pt("{warp:6, lane:8, reg:1}")), ElementsAre(41));
}

TEST(Inverse, Example3dNoPreimage) {
  EXPECT_THAT(*Inverse(P(kLA), {8, 16}, Pt("warp=7,lane=8,reg=1")), IsEmpty());
  // An axis the layout does not use must be 0.
  EXPECT_THAT(*InverseFlat(P(kLA), Pt("warp=6,lane=8,reg=1,gpuid=1")), IsEmpty());
  EXPECT_THAT(*InverseFlat(P(kLA), Pt("warp=9223372036854775807")), IsEmpty());
  EXPECT_THAT(*InverseFlat(P(kLA), Pt("warp=-9223372036854775808")), IsEmpty());
}

TEST(Inverse, SeveralPreimages) {
  EXPECT_THAT(*Inverse(P("S[(2,2):(1,1)]"), {4}, Pt("m=1")),
              ElementsAre(ElementsAre(1), ElementsAre(2)));
  // A broadcast dimension: every value of it maps to the same point.
  EXPECT_THAT(*Inverse(P("S[(3,4):(0,1)]"), {3, 4}, Pt("m=2")),
              ElementsAre(ElementsAre(0, 2), ElementsAre(1, 2), ElementsAre(2, 2)));
  // Replica points that overlap the shard pattern.
  EXPECT_THAT(*InverseFlat(P("S[4:1] + R[2:1]"), Pt("m=2")), ElementsAre(1, 2));
}

TEST(Inverse, AxesOnlyInReplicaOrOffset) {
  Layout l = P("S[(2,4):(1@gpuid_y,1)] + R[2:1@gpuid_x] + 3@pid");
  EXPECT_THAT(*InverseFlat(l, Pt("gpuid_y=1,gpuid_x=1,m=2,pid=3")), ElementsAre(6));
  EXPECT_THAT(*InverseFlat(l, Pt("gpuid_y=1,gpuid_x=2,m=2,pid=3")), IsEmpty());
  EXPECT_THAT(*InverseFlat(l, Pt("gpuid_y=1,m=2")), IsEmpty());  // pid must be 3
}

TEST(Inverse, MixedRadixDetection) {
  EXPECT_TRUE(InverseMap::Build(P(kLA))->mixed_radix());
  EXPECT_TRUE(InverseMap::Build(P("S[(4,4):(-4,1)]"))->mixed_radix());
  EXPECT_FALSE(InverseMap::Build(P("S[(2,2):(1,1)]"))->mixed_radix());
  EXPECT_FALSE(InverseMap::Build(P("S[(3,3):(5,3)]"))->mixed_radix());
}

TEST(Inverse, LargeDomainIsNotEnumerated) {
  // 2^60 logical points: a domain scan would never finish.
  Layout l = P("S[(1073741824,1073741824):(1073741824,1)]");
  EXPECT_THAT(*InverseFlat(l, Pt("m=1152921504606846975")), ElementsAre(1152921504606846975));
  Layout g = P("S[(1048576,1048576,3):(1,1048576,7)]");  // not a mixed radix on m
  EXPECT_FALSE(InverseMap::Build(g)->mixed_radix());
  // c0 + 1048576 c1 + 7 c2 = 1048583: (0,1,1), (7,1,0), (1048569,0,2).
  EXPECT_THAT(*InverseFlat(g, Pt("m=1048583")), ElementsAre(4, 22020099, 3298512863234));
}

TEST(Inverse, ResourceLimits) {
  // 2^40 preimages of one point.
  Layout l = P("S[(1048576,1048576):(0,0)]");
  EXPECT_EQ(InverseFlat(l, Pt("")).status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(Inverse, ContainsEveryPointOfItsImage) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(11));
  for (int i = 0; i < 300; ++i) {
    Layout l = testing::RandomLayout(rng);
    absl::StatusOr<InverseMap> m = InverseMap::Build(l);
    ASSERT_TRUE(m.ok()) << m.status();
    for (int64_t x = 0; x < l.size(); ++x) {
      std::vector<PhysCoord> image = *Apply(l, x);
      for (const PhysCoord& p : image) {
        std::vector<int64_t> pre = *m->Preimage(p);
        EXPECT_TRUE(std::binary_search(pre.begin(), pre.end(), x)) << l << " x=" << x << " p=" << p;
      }
    }
  }
}

TEST(Inverse, AgreesWithOracle) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(12));
  const Axis axes[] = {Axis::Memory(), Axis::Get("lane"), Axis::Get("warp")};
  for (int i = 0; i < 300; ++i) {
    Layout l = testing::RandomLayout(rng);
    InverseMap m = *InverseMap::Build(l);
    for (int q = 0; q < 20; ++q) {
      PhysCoord p;
      for (Axis a : axes) p.set(a, std::uniform_int_distribution<int64_t>(-8, 24)(rng));
      EXPECT_EQ(*m.Preimage(p), testing::OracleInverse(l, p)) << l << " p=" << p;
    }
  }
}

}  // namespace
}  // namespace inverse_test
}  // namespace axe
