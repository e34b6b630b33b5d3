#include <random>

#include "axe/layout/canonical.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "layout/random_layout.h"
#include "support/test_seed.h"

namespace axe {
namespace canonical_test {
namespace {

using ::testing::HasSubstr;

Layout P(absl::string_view text) { return *Layout::Parse(text); }
std::string Canon(absl::string_view text) { return Canonicalize(P(text)).ToString(); }

TEST(Canonicalize, Example20MergesEveryNeighbourPair) {
  EXPECT_EQ(Canon("S[(8,8,8,4,2):(512,64,8,2,1)]"), "S[4096:1]");
}

TEST(Canonicalize, Example24) {
  EXPECT_EQ(Canon("S[(2,3,6):(18,6,1)]"), "S[36:1]");
  EXPECT_EQ(Canon("S[(8,2,3,6):(6,18,6,1)]"), "S[(8,36):(6,1)]");
  EXPECT_EQ(Canon("S[(8,2,3,6):(6,24,6,1)]"), "S[(8,2,18):(6,24,1)]");
}

TEST(Canonicalize, Example27NoMergeAcrossAxes) {
  EXPECT_EQ(Canon("S[(8,8,8,4,2):(16,4@laneid,2,1@laneid,1)]"),
            "S[(8,8,8,4,2):(16,4@laneid,2,1@laneid,1)]");
}

TEST(Canonicalize, Example31bAllUnitShard) {
  EXPECT_EQ(Canon("S[(1,1,1,1,1):(1,1,1,1,1)]"), "S[1:1]");
  EXPECT_EQ(Canon("S[(1,1):(3@warp,1)]"), "S[1:1@warp]");
}

TEST(Canonicalize, Example33Replicas) {
  EXPECT_EQ(Canon("S[1:1] + R[4:-2@warp]"), "S[1:1] + R[4:2@warp] + (-6)@warp");  // C1
  EXPECT_EQ(Canon("S[1:1] + R[(2,4@warp),(4,1@warp)]"), "S[1:1] + R[8:1@warp]");  // C2
  EXPECT_EQ(Canon("S[1:1] + R[(2,8@warp),(4,1@warp)]"), "S[1:1] + R[(4,2):(1@warp,8@warp)]");
  EXPECT_EQ(Canonicalize(P("S[1:1] + R[(8,4@l),(4,1@l)]")),
            Canonicalize(P("S[1:1] + R[(4,1@l),(8,4@l)]")));
  EXPECT_EQ(Canon("S[1:1] + R[(8,4@l),(4,1@l)]"), "S[1:1] + R[32:1@l]");
  EXPECT_EQ(Canon("S[4:1] + R[(1,3@warp),(2,2)] + 0@warp"), "S[4:1] + R[2:2]");    // C0, Z
  EXPECT_EQ(Canon("S[1:1] + R[(2,1@b),(2,1@a)]"), "S[1:1] + R[(2,2):(1@a,1@b)]");  // sorted by axis
}

TEST(Canonicalize, Example32bThreadScopeFusion) {
  Layout l = P("S[(2,2,8,4):(2@warpid,1@warpid,4@laneid,1@laneid)]");
  EXPECT_EQ(Canonicalize(l).ToString(), "S[(4,32):(1@warpid,1@laneid)]");
  absl::StatusOr<Layout> fused = Canonicalize(l, {.fuse_thread_scopes = true});
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_EQ(fused->ToString(), "S[128:1@tx]");
  EXPECT_EQ(Canonicalize(P("S[(4,32):(1@wid_in_wg,1@laneid)] + 1@wid_in_wg"),
                         {.fuse_thread_scopes = true})
                ->ToString(),
            "S[128:1@tid_in_wg] + 32@tid_in_wg");
  // A single thread axis is left alone.
  EXPECT_EQ(Canonicalize(P("S[32:1@laneid]"), {.fuse_thread_scopes = true})->ToString(),
            "S[32:1@laneid]");
  EXPECT_THAT(
      std::string(Canonicalize(P("S[(2,32):(1@wgid,1@laneid)]"), {.fuse_thread_scopes = true})
                      .status()
                      .message()),
      HasSubstr("no common scope chain"));
}

TEST(Canonicalize, PreservesTheInducedMapAndIsIdempotent) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(3));
  for (int i = 0; i < 500; ++i) {
    Layout l = testing::RandomLayout(rng);
    Layout c = Canonicalize(l);
    EXPECT_TRUE(testing::OracleEquivalent(l, c)) << l << " -> " << c;
    EXPECT_EQ(Canonicalize(c), c) << l;
    for (const Iter& it : c.shard()) EXPECT_TRUE(it.extent > 1 || c.shard().size() == 1) << c;
    for (const Iter& it : c.replica()) EXPECT_GT(it.stride, 0) << c;
  }
}

TEST(Equivalent, AgreesWithBruteForce) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(5));
  int equivalent_pairs = 0, different_pairs = 0;
  for (int i = 0; i < 600; ++i) {
    Layout a = testing::RandomLayout(rng);
    Layout b = (i % 2 == 0) ? testing::RandomEquivalentRewrite(a, rng) : testing::RandomLayout(rng);
    bool expected = testing::OracleEquivalent(a, b);
    absl::StatusOr<bool> got = Equivalent(a, b);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, expected) << a << " vs " << b;
    (expected ? equivalent_pairs : different_pairs)++;
  }
  // Both answers must be exercised for the test to mean anything.
  EXPECT_GT(equivalent_pairs, 250);
  EXPECT_GT(different_pairs, 250);
}

TEST(Equivalent, Examples) {
  EXPECT_TRUE(*Equivalent(P("S[(8,8,8,4,2):(512,64,8,2,1)]"), P("S[4096:1]")));
  EXPECT_FALSE(*Equivalent(P("S[(2,4):(4,1)]"), P("S[(4,2):(1,4)]")));
  EXPECT_TRUE(*Equivalent(P("S[1:1] + R[4:-2@warp]"), P("S[1:1] + R[4:2@warp] + (-6)@warp")));
  // Different replica structure, same point set, gap condition fails: {0,2,3,5} both ways.
  // Two canonical layouts with different replica iters (gap condition fails on both) and the
  // same point set {0,2,...,11,13}: equivalent, not ==.
  Layout six = P("S[2:1] + R[(6,2):(2@w,3@w)]"), three = P("S[2:1] + R[(3,4):(2@w,3@w)]");
  EXPECT_EQ(Canonicalize(six), six);
  EXPECT_EQ(Canonicalize(three), three);
  EXPECT_NE(six, three);
  EXPECT_TRUE(*Equivalent(six, three));
  EXPECT_FALSE(*Equivalent(six, P("S[2:1] + R[(3,3):(2@w,3@w)]")));
  // {0,1,2} + {0,2} = {0,1,2,3,4} = R[5:1].
  EXPECT_TRUE(*Equivalent(P("S[2:1] + R[(3,2):(1@w,2@w)]"), P("S[2:1] + R[5:1@w]")));
  EXPECT_FALSE(*Equivalent(P("S[2:1] + R[(3,2):(1@w,4@w)]"), P("S[2:1] + R[7:1@w]")));
  EXPECT_FALSE(*Equivalent(P("S[4:1]"), P("S[8:1]")));
  // Broadcast (stride-0) iters map to 0 on any axis.
  EXPECT_TRUE(*Equivalent(P("S[(2,4):(0@warp,1)]"), P("S[(2,4):(0,1)]")));
  EXPECT_TRUE(*Equivalent(P("S[(2,2):(0@warp,0)]"), P("S[4:0]")));
  EXPECT_FALSE(*Equivalent(P("S[(2,4):(0@warp,1)]"), P("S[(2,4):(1@warp,1)]")));
  // A one-element layout maps its point to 0 on every axis.
  EXPECT_TRUE(*Equivalent(P("S[1:1]"), P("S[1:1@gpuid]")));
  EXPECT_TRUE(*Equivalent(P("S[1:5@warp] + 2"), P("S[1:0] + 2")));
  EXPECT_FALSE(*Equivalent(P("S[1:1] + 1@gpuid"), P("S[1:1@gpuid]")));
}

TEST(GapCondition, Examples) {
  EXPECT_TRUE(SatisfiesGapCondition(Canonicalize(P("S[1:1] + R[(2,8@warp),(4,1@warp)]"))));
  EXPECT_FALSE(SatisfiesGapCondition(Canonicalize(P("S[1:1] + R[(2,2):(2@w,3@w)]"))));
}

}  // namespace
}  // namespace canonical_test
}  // namespace axe
