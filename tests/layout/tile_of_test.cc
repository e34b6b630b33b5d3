// Tile-of in both directions: golden examples, the re-tiling law on random tiles (it must
// find an answer for every layout built as a tile) and on random pairs (whenever it answers),
// and every failure mode.
#include "axe/layout/tile_of.h"

#include <random>

#include "axe/base/int_list.h"
#include "axe/layout/canonical.h"
#include "axe/layout/tile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "layout/random_layout.h"
#include "support/test_seed.h"

namespace axe {
namespace tile_of_test {
namespace {

using ::testing::HasSubstr;

Layout P(absl::string_view text) { return testing::ParseOrFail(text); }

TEST(TileOf, Example41InnerKnownRecoversTheOuter) {
  absl::StatusOr<MaybeLayout> c =
      TileOfInner(P("S[(8,2,32):(64,1,2)]"), {16, 32}, P("S[(2,4):(1,2)]"), {2, 4});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(c->has_value()) << c->reason;
  // Results are canonical: S[(8,8):(8,1)] is S[64:1].
  EXPECT_EQ(**c, Canonicalize(P("S[(8,8):(8,1)]")));
  EXPECT_TRUE(*Equivalent(**c, P("S[(8,8):(8,1)]")));
}

TEST(TileOf, Example41OuterKnownRecoversTheInner) {
  absl::StatusOr<MaybeLayout> b =
      TileOfOuter(P("S[(8,2,32):(64,1,2)]"), {16, 32}, P("S[(8,8):(8,1)]"), {8, 8});
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_TRUE(b->has_value()) << b->reason;
  EXPECT_TRUE(*Equivalent(**b, P("S[(2,4):(1,2)]"))) << **b;
}

TEST(TileOf, Example47BothDirections) {
  const Layout a = P("S[(8,2,8,3):(48,3,6,1)]");
  EXPECT_EQ(TileOfInner(a, {16, 24}, P("S[(2,3):(3,1)]"), {2, 3})->ToString(),
            "S[64:1]");  // S[(8,8):(8,1)]
  EXPECT_EQ(TileOfOuter(a, {16, 24}, P("S[(8,8):(8,1)]"), {8, 8})->ToString(),
            "S[6:1]");  // S[(2,3):(3,1)]
}

TEST(TileOf, Example51DirectSumIsNotATile) {
  absl::StatusOr<MaybeLayout> c = TileOfInner(P("S[16:1]"), {4, 4}, P("S[(2,2):(4,1)]"), {2, 2});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->has_value());
  // Every image of a tiling by B is in {0,1,4,5} mod span(B) = 6 within a tile.
  EXPECT_THAT(c->reason, HasSubstr("inter-tile iter 2:8 of A is not a multiple of B's span 6"));
  EXPECT_EQ(c->ToString().substr(0, 6), "none: ");
}

TEST(TileOf, ReplicasAndOffsetsPaperSemantics) {
  // Example 49a's tile S[8:1] + 6 = tile(S[2:1] + 1, S[4:1] + 2): both directions.
  absl::StatusOr<MaybeLayout> c = TileOfInner(P("S[8:1] + 6"), {8}, P("S[4:1] + 2"), {4});
  ASSERT_TRUE(c.ok() && c->has_value()) << c->reason;
  EXPECT_EQ((*c)->ToString(), "S[2:1] + 1");
  absl::StatusOr<MaybeLayout> b = TileOfOuter(P("S[8:1] + 6"), {8}, P("S[2:1] + 1"), {2});
  ASSERT_TRUE(b.ok() && b->has_value()) << b->reason;
  EXPECT_EQ((*b)->ToString(), "S[4:1] + 2");
  // Replicas merged by C2 in the tile ({0,2} + 4{0,1} = R[4:2]) are split again.
  const Layout t = *Tile(P("S[2:1] + R[2:1]"), {2}, P("S[2:1] + R[2:2]"), {2});
  EXPECT_EQ(TileOfInner(t, {4}, P("S[2:1] + R[2:2]"), {2})->ToString(), "S[2:1] + R[2:1]");
  EXPECT_EQ(TileOfOuter(t, {4}, P("S[2:1] + R[2:1]"), {2})->ToString(), "S[2:1] + R[2:2]");
}

TEST(TileOf, NoAnswerReasons) {
  // The inner shape does not divide the tiled shape.
  absl::StatusOr<MaybeLayout> r = TileOfInner(P("S[16:1]"), {4, 4}, P("S[3:1]"), {3, 1});
  EXPECT_THAT(r->reason, HasSubstr("does not divide"));
  // The interleaved shape does not group A.
  r = TileOfInner(P("S[(6,2):(1,6)]"), {12}, P("S[3:1]"), {3});
  EXPECT_THAT(r->reason, HasSubstr("cannot be grouped by the interleaved shape"));
  // The outer stride is not a multiple of the inner span.
  r = TileOfInner(P("S[(2,4):(5,1)]"), {8}, P("S[4:1]"), {4});
  EXPECT_THAT(r->reason, HasSubstr("not a multiple of B's span 4"));
  // The intra-tile part differs from B.
  r = TileOfInner(P("S[(2,4):(4,1)]"), {8}, P("S[4:2]"), {4});
  EXPECT_THAT(r->reason, HasSubstr("the intra-tile part of A, 4:1, differs from B's block, 4:2"));
  // A's replica is not made of B's.
  r = TileOfInner(P("S[(2,4):(4,1)] + R[2:1@warp]"), {8}, P("S[4:1] + R[3:1@warp]"), {4});
  EXPECT_FALSE(r->has_value());
  EXPECT_THAT(r->reason, HasSubstr("axis warp"));
  // Offsets that are not a multiple of the span.
  r = TileOfInner(P("S[(2,4):(4,1)] + 3"), {8}, P("S[4:1]"), {4});
  EXPECT_FALSE(r->has_value());
  // Outer direction: A does not contain C's replicas.
  r = TileOfOuter(P("S[(2,4):(4,1)]"), {8}, P("S[2:1] + R[2:1@warp]"), {2});
  EXPECT_FALSE(r->has_value());
  EXPECT_THAT(r->reason, HasSubstr("axis warp"));
  // Outer direction: the outer part of A is not C scaled.
  r = TileOfOuter(P("S[(2,4):(5,1)]"), {8}, P("S[2:1]"), {2});
  EXPECT_FALSE(r->has_value());
  EXPECT_THAT(r->reason, HasSubstr("re-tiling"));
}

TEST(TileOf, InputErrors) {
  EXPECT_THAT(std::string(TileOfInner(P("S[16:1]"), {4, 4}, P("S[4:1]"), {4}).status().message()),
              HasSubstr("rank"));
  EXPECT_THAT(
      std::string(TileOfInner(P("S[16:1]"), {4, 5}, P("S[4:1]"), {2, 2}).status().message()),
      HasSubstr("tile-of: tiled layout: shape (4, 5) has 20 elements"));
  EXPECT_THAT(
      std::string(TileOfOuter(P("S[16:1]"), {4, 4}, P("S[4:1]"), {2, 3}).status().message()),
      HasSubstr("tile-of: outer layout: shape (2, 3)"));
}

testing::RandomPair DrawTile(std::mt19937_64& rng) {
  testing::RandomLayoutOptions opt;
  opt.max_size = 24;
  opt.max_replica_size = 6;
  return testing::RandomLayoutPair(rng, opt, 3);  // (C, B) and their shapes
}

// Every layout built as a tile is recognized, in both directions, and re-tiles to itself.
TEST(TileOf, FindsAnAnswerForEveryTile) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(4704));
  int inner_found = 0, outer_found = 0;
  const int n = 1500;
  for (int i = 0; i < n; ++i) {
    const auto [c_in, b_in, sc, sb] = DrawTile(rng);
    const Layout a = *Tile(c_in, sc, b_in, sb);
    const std::vector<int64_t> sa = *TiledShape(sc, sb);
    absl::StatusOr<MaybeLayout> c = TileOfInner(a, sa, b_in, sb);
    ASSERT_TRUE(c.ok()) << c.status();
    if (c->has_value()) {
      ++inner_found;
      EXPECT_TRUE(testing::OracleEquivalent(*Tile(**c, sc, b_in, sb), a));
    } else {
      ADD_FAILURE() << "tile_of_inner found nothing for A = tile(" << c_in << " on "
                    << FormatTuple(sc) << ", " << b_in << " on " << FormatTuple(sb) << ") = " << a
                    << ": " << c->reason;
    }
    absl::StatusOr<MaybeLayout> b = TileOfOuter(a, sa, c_in, sc);
    ASSERT_TRUE(b.ok()) << b.status();
    if (b->has_value()) {
      ++outer_found;
      EXPECT_TRUE(testing::OracleEquivalent(*Tile(c_in, sc, **b, sb), a));
    } else {
      ADD_FAILURE() << "tile_of_outer found nothing for A = tile(" << c_in << " on "
                    << FormatTuple(sc) << ", " << b_in << " on " << FormatTuple(sb) << ") = " << a
                    << ": " << b->reason;
    }
  }
  EXPECT_EQ(inner_found, n);
  EXPECT_EQ(outer_found, n);
}

// On arbitrary pairs, whatever tile-of returns re-tiles to A (checked by the brute-force
// oracle, not by the library's own verification).
TEST(TileOf, AnswersAreAlwaysCorrect) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(4705));
  testing::RandomLayoutOptions opt;
  opt.max_size = 32;
  opt.max_replica_size = 4;
  int answered = 0;
  for (int i = 0; i < 1500; ++i) {
    const auto [a, known, sa, sk] = testing::RandomLayoutPair(rng, opt, 2);
    std::optional<std::vector<int64_t>> q = QuotientShape(sa, sk);
    absl::StatusOr<MaybeLayout> c = TileOfInner(a, sa, known, sk);
    absl::StatusOr<MaybeLayout> b = TileOfOuter(a, sa, known, sk);
    ASSERT_TRUE(c.ok() && b.ok());
    if (c->has_value()) {
      ++answered;
      ASSERT_TRUE(q.has_value());
      EXPECT_TRUE(testing::OracleEquivalent(*Tile(**c, *q, known, sk), a)) << a << " / " << known;
    }
    if (b->has_value()) {
      ++answered;
      EXPECT_TRUE(testing::OracleEquivalent(*Tile(known, sk, **b, *q), a)) << a << " / " << known;
    }
  }
  EXPECT_GT(answered, 100);  // small layouts are often tiles of each other
}

}  // namespace
}  // namespace tile_of_test
}  // namespace axe
