#include <random>

#include "axe/layout/apply.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "layout/random_layout.h"
#include "support/test_seed.h"

namespace axe {
namespace apply_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const Axis kWarp = Axis::Get("warp"), kLane = Axis::Get("lane"), kReg = Axis::Get("reg"),
           kM = Axis::Memory();

Layout P(absl::string_view text) { return *Layout::Parse(text); }

constexpr char kLA[] = "S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp";

TEST(Apply, Example1PaperFigure) {
  Layout la = P(kLA);
  PhysCoord p1 = {{kWarp, 6}, {kLane, 8}, {kReg, 1}};
  PhysCoord p2 = {{kWarp, 10}, {kLane, 8}, {kReg, 1}};
  EXPECT_EQ(*ApplyBase(la, {8, 16}, {2, 9}), p1);
  EXPECT_THAT(*Apply(la, {8, 16}, {2, 9}), ElementsAre(p1, p2));
  EXPECT_THAT(*Apply(la, 41), ElementsAre(p1, p2));
  EXPECT_THAT(*Apply(la, {128}, {41}), ElementsAre(p1, p2));
  // Closed form: lane = 4i + ((j div 2) mod 4), warp = j div 8 + 5 + 4r, reg = j mod 2.
  for (int64_t i = 0; i < 8; ++i) {
    for (int64_t j = 0; j < 16; ++j) {
      PhysCoord base = {{kLane, 4 * i + (j / 2) % 4}, {kWarp, j / 8 + 5}, {kReg, j % 2}};
      EXPECT_EQ(*ApplyBase(la, {8, 16}, {i, j}), base);
      PhysCoord second = base;
      second.add(kWarp, 4);
      EXPECT_THAT(*Apply(la, {8, 16}, {i, j}), ElementsAre(base, second));
    }
  }
}

TEST(Apply, Example16ShapeNotAlignedWithIters) {
  Layout l = P("S[(2,3,4,2,2):(1,2,12,6,48)]");
  EXPECT_EQ(*ApplyBase(l, {6, 16}, {4, 13}), (PhysCoord{{kM, 87}}));
  for (int64_t i0 = 0; i0 < 6; ++i0) {
    for (int64_t i1 = 0; i1 < 16; ++i1) {
      int64_t m = i0 / 3 + 2 * (i0 % 3) + 12 * (i1 / 4) + 6 * ((i1 % 4) / 2) + 48 * (i1 % 2);
      EXPECT_EQ(*ApplyBase(l, {6, 16}, {i0, i1}), (PhysCoord{{kM, m}})) << i0 << "," << i1;
    }
  }
}

TEST(Apply, Example9ReplicaVersusOffsetOnDeviceAxis) {
  Axis gx = Axis::Get("gpuid_x"), gy = Axis::Get("gpuid_y");
  EXPECT_THAT(*Apply(P("S[(2,4,8):(1@gpuid_y,8@m,1@m)]"), {2, 4, 8}, {1, 2, 3}),
              ElementsAre(PhysCoord{{gy, 1}, {kM, 19}}));
  EXPECT_THAT(*Apply(P("S[(2,4,8):(1@gpuid_y,8@m,1@m)] + R[2:1@gpuid_x]"), {2, 4, 8}, {1, 2, 3}),
              ElementsAre(PhysCoord{{gy, 1}, {kM, 19}}, PhysCoord{{gx, 1}, {gy, 1}, {kM, 19}}));
  EXPECT_THAT(*Apply(P("S[(2,4,8):(1@gpuid_y,8@m,1@m)] + 1@gpuid_x"), {2, 4, 8}, {1, 2, 3}),
              ElementsAre(PhysCoord{{gx, 1}, {gy, 1}, {kM, 19}}));
}

TEST(Apply, Example5MeshShardedCompact) {
  Layout l = P("S[(2,32,2,64):(1@gpuid,64@m,2@gpuid,1@m)]");
  Axis g = Axis::Get("gpuid");
  EXPECT_EQ(*ApplyBase(l, {64, 128}, {31, 127}), (PhysCoord{{g, 2}, {kM, 2047}}));
  EXPECT_EQ(*ApplyBase(l, {64, 128}, {33, 65}), (PhysCoord{{g, 3}, {kM, 65}}));
  EXPECT_EQ(*ApplyBase(l, {64, 128}, {2, 9}), (PhysCoord{{kM, 137}}));
  EXPECT_EQ(*ApplyBase(l, {64, 128}, {40, 100}), (PhysCoord{{g, 3}, {kM, 548}}));
  EXPECT_EQ(l.span(kM), 2048);
}

TEST(Apply, Example18TrainiumPsumBanks) {
  Layout l = P("S[(2,512,8):(1@Bank,1@F,1@P)]");
  EXPECT_EQ(*ApplyBase(l, {1024, 8}, {600, 3}),
            (PhysCoord{{Axis::Get("Bank"), 1}, {Axis::Get("F"), 88}, {Axis::Get("P"), 3}}));
}

TEST(Apply, ReplicaEnumerationIsTheCartesianProduct) {
  // R = [(2,4@warp),(2,1@warp)] contributes {0,1,4,5} (not the union {0,4,1}).
  Layout l = P("S[1:1] + R[(2,4@warp),(2,1@warp)]");
  EXPECT_THAT(*Apply(l, 0), ElementsAre(PhysCoord{}, PhysCoord{{kWarp, 1}}, PhysCoord{{kWarp, 4}},
                                        PhysCoord{{kWarp, 5}}));
  // Coinciding replica points appear once.
  EXPECT_EQ(Apply(P("S[1:1] + R[(2,2):(1@warp,1@warp)]"), 0)->size(), 3u);
}

TEST(Apply, Errors) {
  Layout la = P(kLA);
  EXPECT_THAT(std::string(ApplyBase(la, {8, 15}, {2, 9}).status().message()),
              HasSubstr("shape (8, 15) has 120 elements but the layout"));
  EXPECT_THAT(std::string(ApplyBase(la, {8, 15}, {2, 9}).status().message()),
              HasSubstr("has size 128"));
  EXPECT_THAT(std::string(Apply(la, {8, 16}, {2, 16}).status().message()),
              HasSubstr("dimension 1 value 16 is outside [0, 16)"));
  EXPECT_THAT(std::string(Apply(la, {8, 16}, {-1, 0}).status().message()),
              HasSubstr("dimension 0"));
  EXPECT_THAT(std::string(Apply(la, {8, 16}, {2}).status().message()), HasSubstr("has rank 1"));
  EXPECT_THAT(std::string(ApplyBase(la, 128).status().message()), HasSubstr("outside [0, 128)"));
  EXPECT_THAT(std::string(ApplyBase(la, {0, 16}, {0, 0}).status().message()),
              HasSubstr("dimension 0 has size 0"));
  EXPECT_THAT(std::string(ApplyBase(la, {4294967296, 4294967296, 4}, {0, 0, 0}).status().message()),
              HasSubstr("more than 2^63"));
  // Too many replica points to enumerate.
  EXPECT_EQ(Apply(P("S[1:1] + R[(2048,2048):(1@warp,4096@warp)]"), 0).status().code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(Apply, AgreesWithOracleOnRandomLayouts) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(7));
  for (int i = 0; i < 400; ++i) {
    Layout l = testing::RandomLayout(rng);
    for (int64_t x = 0; x < l.size(); ++x) {
      std::set<PhysCoord> expected = testing::OracleApply(l, x);
      absl::StatusOr<std::vector<PhysCoord>> got = Apply(l, x);
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_EQ(std::vector<PhysCoord>(expected.begin(), expected.end()), *got) << l << " x=" << x;
    }
  }
}

TEST(Apply, FlattenUnflatten) {
  EXPECT_EQ(*FlattenCoord({6, 16}, {4, 13}), 77);
  EXPECT_EQ(UnflattenIndex({6, 16}, 77), (std::vector<int64_t>{4, 13}));
  EXPECT_EQ(*FlattenCoord({}, {}), 0);
}

}  // namespace
}  // namespace apply_test
}  // namespace axe
