#include <random>

#include "axe/layout/properties.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "layout/random_layout.h"
#include "support/test_seed.h"

namespace axe {
namespace properties_test {
namespace {

using ::testing::ElementsAre;

Layout P(absl::string_view text) { return *Layout::Parse(text); }

TEST(Properties, Example58SizeAndSpan) {
  Layout a = P("S[(8,8):(8,1)]");
  EXPECT_EQ(a.size(), 64);
  EXPECT_EQ(a.span(Axis::Memory()), 64);
  EXPECT_EQ(P("S[(8,6):(8,1)]").span(Axis::Memory()), 62);
  Layout b = P("S[(8,8,8):(64@F,1@P,1@F)]");
  Axis f = Axis::Get("F"), p = Axis::Get("P");
  EXPECT_EQ(b.size(p), 8);
  EXPECT_EQ(b.size(f), 64);
  EXPECT_EQ(b.span(f), 456);
  EXPECT_EQ(b.span(p), 8);
  EXPECT_EQ(b.span(Axis::Get("lane")), 1);  // unused
  EXPECT_EQ(b.span_memory(), 1 + 455 + 7);
}

TEST(Properties, SpanIgnoresOffsetAndCountsReplicas) {
  Layout la = P("S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp");
  EXPECT_EQ(la.span(Axis::Get("warp")), 1 + 1 + 4);
  EXPECT_EQ(la.span(Axis::Get("lane")), 32);
  EXPECT_EQ(la.replica_size(), 2);
  EXPECT_EQ(P("S[4:-3]").span(Axis::Memory()), 10);
}

TEST(Properties, AxesInPrintOrder) {
  Layout la =
      P("S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp + 1@gpuid + 2@bx");
  std::vector<std::string> names;
  for (Axis a : la.axes()) names.emplace_back(a.name());
  EXPECT_THAT(names, ElementsAre("lane", "warp", "reg", "bx", "gpuid"));
  EXPECT_TRUE(la.uses(Axis::Get("gpuid")));
  EXPECT_FALSE(la.uses(Axis::Memory()));
}

TEST(Properties, Example59aStorage) {
  EXPECT_EQ(Storage(P("S[(8,4,2):(4@laneid,1@laneid,1)]")).ToString(), "S[2:1]");
  EXPECT_EQ(Storage(P("S[(2,32,2,64):(1@gpuid,64@m,2@gpuid,1@m)]")).ToString(), "S[2048:1]");
  EXPECT_EQ(Storage(P("S[(2,32,128):(1@gpuid,128@m,1@m)] + R[2:2@gpuid]")).ToString(), "S[4096:1]");
  EXPECT_EQ(Storage(P("S[8:1@laneid] + 3@warpid + 16")).ToString(), "S[1:1] + 16");
  EXPECT_EQ(Storage(P("S[(2,4):(4@P,1@F)]")).ToString(), "S[(2,4):(4@P,1@F)]");
}

TEST(Properties, IsTrivial) {
  EXPECT_TRUE(IsTrivial(P("S[64:1]")));
  EXPECT_FALSE(IsTrivial(P("S[64:1] + 1")));
  EXPECT_FALSE(IsTrivial(P("S[64:1@P]")));
  EXPECT_FALSE(IsTrivial(P("S[(8,8):(8,1)]")));
}

TEST(Properties, InjectivityExamples) {
  EXPECT_TRUE(*IsInjective(P("S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp")));
  EXPECT_FALSE(*IsInjective(P("S[(2,2):(1,1)]")));
  EXPECT_FALSE(*IsInjective(P("S[(3,4):(0,1)]")));   // broadcast
  EXPECT_TRUE(*IsInjective(P("S[(3,3):(5,3)]")));    // not a mixed radix, still injective
  EXPECT_FALSE(*IsInjective(P("S[4:1] + R[2:1]")));  // replica overlaps the shard
  EXPECT_TRUE(*IsInjective(P("S[4:1] + R[2:4]")));
  EXPECT_TRUE(*IsInjective(P("S[4:1] + R[(2,2):(4,4)]")));  // replica copies coincide: still fine
  EXPECT_FALSE(*IsInjective(P("S[4:1] + R[(2,2):(4,5)]")));
  // 2^60 points, decided without enumeration.
  EXPECT_TRUE(*IsInjective(P("S[(1073741824,1073741824):(1073741824,1)]")));
  EXPECT_FALSE(*IsInjective(P("S[(1073741824,1073741824):(1073741823,1)]")));
}

TEST(Properties, InjectivityAgreesWithOracle) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(9));
  int injective = 0, not_injective = 0;
  for (int i = 0; i < 800; ++i) {
    Layout l = testing::RandomLayout(rng);
    bool expected = testing::OracleInjective(l);
    absl::StatusOr<bool> got = IsInjective(l);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, expected) << l;
    (expected ? injective : not_injective)++;
  }
  EXPECT_GT(injective, 100);
  EXPECT_GT(not_injective, 100);
}

}  // namespace
}  // namespace properties_test
}  // namespace axe
