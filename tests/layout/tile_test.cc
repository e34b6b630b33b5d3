// Tile (the paper's A ⊗ B), tile_to and direct sum: golden examples of the spec, the
// set-level law over whole domains on random layouts, and every failure mode.
#include "axe/layout/tile.h"

#include <random>

#include "axe/base/int_list.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "axe/layout/direct_sum.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "layout/random_layout.h"
#include "support/test_seed.h"

namespace axe {
namespace tile_test {
namespace {

using ::testing::HasSubstr;

Layout P(absl::string_view text) { return testing::ParseOrFail(text); }

std::string TileText(absl::string_view a, std::vector<int64_t> sa, absl::string_view b,
                     std::vector<int64_t> sb) {
  absl::StatusOr<Layout> t = Tile(P(a), sa, P(b), sb);
  return t.ok() ? t->ToString() : std::string(t.status().message());
}

TEST(Tile, Example47PaperMatrixOfTiles) {
  EXPECT_EQ(TileText("S[(8,8):(8,1)]", {8, 8}, "S[(2,3):(3,1)]", {2, 3}),
            "S[(8,2,8,3):(48,3,6,1)]");
}

TEST(Tile, Example40And41) {
  EXPECT_EQ(TileText("S[(8,8):(8,1)]", {8, 8}, "S[(8,8):(8,1)]", {8, 8}),
            "S[(8,8,8,8):(512,8,64,1)]");
  EXPECT_EQ(TileText("S[(8,8):(8,1)]", {8, 8}, "S[(2,4):(1,2)]", {2, 4}), "S[(8,2,32):(64,1,2)]");
}

TEST(Tile, Example45aWarpFragment) {
  EXPECT_EQ(TileText("S[(8,4):(4@laneid,1@laneid)]", {8, 4}, "S[(1,2):(2,1)]", {1, 2}),
            "S[(32,2):(1@laneid,1)]");
}

TEST(Tile, Example49aOffsetsScaledOffsetFreeSpan) {
  // Paper semantics: Σ_m = 4 (offset-free), O = 1*4 + 2. TVM would give S[(2,4):(6,1)] + 3.
  EXPECT_EQ(TileText("S[2:1] + 1@m", {2}, "S[4:1] + 2@m", {4}), "S[8:1] + 6");
}

TEST(Tile, OuterReplicasAreScaledToo) {
  // Outer R[2:1] on m scaled by Σ_m = 4; the inner's own replica survives.
  // Replica points {0,2} + 4 * {0,1} = {0,2,4,6}: C2 merges them into R[4:2].
  EXPECT_EQ(TileText("S[2:1] + R[2:1]", {2}, "S[2:1] + R[2:2]", {2}), "S[(2,2):(4,1)] + R[4:2]");
  // Outer replicas on axes the inner does not use are not scaled.
  EXPECT_EQ(TileText("S[2:1@gpuid] + R[2:2@gpuid]", {2}, "S[4:1]", {4}),
            "S[(2,4):(1@gpuid,1)] + R[2:2@gpuid]");
}

TEST(Tile, Example5MeshOfLocalTiles) {
  EXPECT_EQ(TileText("S[(2,2):(1@gpuid,2@gpuid)]", {2, 2}, "S[(32,64):(64,1)]", {32, 64}),
            "S[(2,32,2,64):(1@gpuid,64,2@gpuid,1)]");
}

TEST(Tile, Errors) {
  EXPECT_THAT(TileText("S[(8,8):(8,1)]", {8, 8}, "S[6:1]", {6}),
              HasSubstr("has rank 2 but inner shape (6) has rank 1"));
  EXPECT_THAT(TileText("S[(8,8):(8,1)]", {8, 4}, "S[6:1]", {3, 2}),
              HasSubstr("tile: outer layout: shape (8, 4) has 32 elements"));
  EXPECT_THAT(TileText("S[4:1]", {2, 2}, "S[(6,2):(1,6)]", {4, 3}),
              HasSubstr("tile: inner layout: cannot group S[(6,2):(1,6)] by shape (4, 3): cannot "
                        "form shape entry 0"));
  EXPECT_THAT(TileText("S[2:4611686018427387904]", {2}, "S[3:1]", {3}),
              HasSubstr("overflows int64"));
  EXPECT_THAT(TileText("S[2:1] + 4611686018427387904", {2}, "S[3:1]", {3}),
              HasSubstr("overflows int64"));
}

TEST(Tile, TiledShapeAndTileTo) {
  EXPECT_EQ(*TiledShape({8, 8}, {2, 3}), (std::vector<int64_t>{16, 24}));
  EXPECT_FALSE(TiledShape({8}, {2, 3}).ok());
  absl::StatusOr<Layout> t = TileTo(P("S[(2,3):(3,1)]"), {16, 24}, {2, 3});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->ToString(), "S[(8,2,8,3):(48,3,6,1)]");
  EXPECT_THAT(std::string(TileTo(P("S[(2,3):(3,1)]"), {16, 25}, {2, 3}).status().message()),
              HasSubstr("dimension 1: current size 3 does not divide target size 25"));
  EXPECT_FALSE(TileTo(P("S[(2,3):(3,1)]"), {16}, {2, 3}).ok());
}

// apply(tile(A,B))(x, y) == Σ ⊙ A(x) + B(y) as sets, over the whole domain.
TEST(Tile, LawOverWholeDomainsOnRandomLayouts) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(4047));
  testing::RandomLayoutOptions opt;
  opt.max_size = 36;
  opt.max_replica_size = 6;
  for (int i = 0; i < 300; ++i) {
    const auto [a, b, sa, sb] = testing::RandomLayoutPair(rng, opt, 3);
    absl::StatusOr<Layout> t = Tile(a, sa, b, sb);
    ASSERT_TRUE(t.ok()) << a << " " << b << ": " << t.status();
    ASSERT_EQ(t->size(), a.size() * b.size());
    for (int64_t x = 0; x < a.size(); ++x) {
      for (int64_t y = 0; y < b.size(); ++y) {
        ASSERT_EQ(testing::OracleApply(*t, testing::OracleTiledIndex(sa, sb, x, y)),
                  testing::OracleTileApply(a, x, b, y))
            << "A = " << a << " on " << FormatTuple(sa) << ", B = " << b << " on "
            << FormatTuple(sb) << ", T = " << *t;
      }
    }
    EXPECT_EQ(*t, Canonicalize(*t));
  }
}

TEST(DirectSum, Example51) {
  absl::StatusOr<Layout> s = DirectSum(P("S[(2,2):(8,2)]"), {2, 2}, P("S[(2,2):(4,1)]"), {2, 2});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->ToString(), "S[16:1]");
}

TEST(DirectSum, TileIsTheDirectSumOfTheScaledOuter) {
  // A ⊗ B = (A ⊙ W) + B with W = span(B) = 6.
  absl::StatusOr<Layout> s = DirectSum(P("S[(8,8):(48,6)]"), {8, 8}, P("S[(2,3):(3,1)]"), {2, 3});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, *Tile(P("S[(8,8):(8,1)]"), {8, 8}, P("S[(2,3):(3,1)]"), {2, 3}));
}

TEST(DirectSum, LawAndErrors) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(51));
  testing::RandomLayoutOptions opt;
  opt.max_size = 24;
  opt.max_replica_size = 4;
  for (int i = 0; i < 200; ++i) {
    const auto [a, b, sa, sb] = testing::RandomLayoutPair(rng, opt, 2);
    absl::StatusOr<Layout> s = DirectSum(a, sa, b, sb);
    ASSERT_TRUE(s.ok()) << s.status();
    for (int64_t x = 0; x < a.size(); ++x) {
      for (int64_t y = 0; y < b.size(); ++y) {
        ASSERT_EQ(testing::OracleApply(*s, testing::OracleTiledIndex(sa, sb, x, y)),
                  testing::OracleTileApply(a, x, b, y, /*scale=*/false))
            << a << " + " << b;
      }
    }
  }
  EXPECT_THAT(std::string(DirectSum(P("S[4:1]"), {4}, P("S[4:1]"), {2, 2}).status().message()),
              HasSubstr("rank"));
  EXPECT_THAT(
      std::string(DirectSum(P("S[(6,2):(1,6)]"), {4, 3}, P("S[4:1]"), {2, 2}).status().message()),
      HasSubstr("direct sum: left layout: cannot group"));
  EXPECT_THAT(std::string(DirectSum(P("S[4:1] + 9223372036854775800"), {4}, P("S[4:1] + 100"), {4})
                              .status()
                              .message()),
              HasSubstr("overflows int64"));
}

}  // namespace
}  // namespace tile_test
}  // namespace axe
