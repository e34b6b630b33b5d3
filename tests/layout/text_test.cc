#include <random>

#include "absl/strings/str_cat.h"
#include "axe/layout/layout.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "layout/random_layout.h"
#include "support/test_seed.h"

namespace axe {
namespace text_test {
namespace {

using ::testing::HasSubstr;

Layout P(absl::string_view text) {
  absl::StatusOr<Layout> l = Layout::Parse(text);
  EXPECT_TRUE(l.ok()) << text << ": " << l.status();
  return l.ok() ? *l : *Layout::Parse("S[1:1]");
}

std::string Err(absl::string_view text) {
  absl::StatusOr<Layout> l = Layout::Parse(text);
  EXPECT_FALSE(l.ok()) << text << " parsed as " << *l;
  return l.ok() ? "" : std::string(l.status().message());
}

TEST(LayoutText, PaperExamplePrintsBackUnchanged) {
  const char* text = "S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp";
  Layout l = P(text);
  EXPECT_EQ(l.ToString(), text);
  ASSERT_EQ(l.shard().size(), 4u);
  EXPECT_EQ(l.shard()[0], (Iter{8, 4, Axis::Get("lane")}));
  EXPECT_EQ(l.shard()[3], (Iter{2, 1, Axis::Get("reg")}));
  ASSERT_EQ(l.replica().size(), 1u);
  EXPECT_EQ(l.replica()[0], (Iter{2, 4, Axis::Get("warp")}));
  EXPECT_EQ(l.offset(), (PhysCoord{{Axis::Get("warp"), 5}}));
}

TEST(LayoutText, CanonicalPrinting) {
  EXPECT_EQ(P("S[4096:1]").ToString(), "S[4096:1]");
  EXPECT_EQ(P("S[(4096):(1)]").ToString(), "S[4096:1]");
  EXPECT_EQ(P("S[4096:1@m]").ToString(), "S[4096:1]");
  EXPECT_EQ(P("S[512]").ToString(), "S[512:1]");
  EXPECT_EQ(P("S[(4,64)]").ToString(), "S[(4,64):(64,1)]");
  EXPECT_EQ(P("S[(2,3,4)]").ToString(), "S[(2,3,4):(12,4,1)]");
  EXPECT_EQ(P("S[(4,4):(-4,1)]").ToString(), "S[(4,4):(-4,1)]");
  EXPECT_EQ(P("S[8:2@lane] + R[(2,3):(4@warp,1@warp)]").ToString(),
            "S[8:2@lane] + R[(2,3):(4@warp,1@warp)]");
  // Negative offsets print in parentheses; axes in order of first use.
  EXPECT_EQ(P("S[8:1@lane] + -6@warp").ToString(), "S[8:1@lane] + (-6)@warp");
  EXPECT_EQ(P("S[8:1@lane] + (-6)").ToString(), "S[8:1@lane] + (-6)");
  EXPECT_EQ(P("S[(2,2):(1@b,1@a)] + 3@z + 1@a + 2@b").ToString(),
            "S[(2,2):(1@b,1@a)] + 2@b + 1@a + 3@z");
}

TEST(LayoutText, WhitespaceIsFree) {
  EXPECT_EQ(
      P("  S [ ( 8 , 2 ) : ( 4 @ lane , 1 ) ] +\n R [ 2 : 4 @ warp ]\t+ 5 @ warp ").ToString(),
      "S[(8,2):(4@lane,1)] + R[2:4@warp] + 5@warp");
}

TEST(LayoutText, OffsetsMergePerAxis) {
  Layout l = P("S[32:1@laneid] + 5@warpid + 64");
  EXPECT_EQ(l.offset().get(Axis::Get("warpid")), 5);
  EXPECT_EQ(l.offset().get(Axis::Memory()), 64);
  EXPECT_EQ(l.offset().entries().size(), 2u);
  EXPECT_EQ(P("S[4:1] + 1@a + 2@b + 64").offset().entries().size(), 3u);
  EXPECT_EQ(P("S[4:1] + 1@a + 2@a").offset(), (PhysCoord{{Axis::Get("a"), 3}}));
  EXPECT_TRUE(P("S[4:1] + 1@a + (-1)@a").offset().empty());  // zero entries dropped
  EXPECT_EQ(P("S[4:1] + O[1@gpuid_x, 2]").offset(),
            (PhysCoord{{Axis::Get("gpuid_x"), 1}, {Axis::Memory(), 2}}));
  EXPECT_EQ(P("S[4:1] + {warp:5, lane:8}").offset(),
            (PhysCoord{{Axis::Get("warp"), 5}, {Axis::Get("lane"), 8}}));
  EXPECT_EQ(P("S[4:1] + -6@warp"), P("S[4:1] + (-6)@warp"));
}

TEST(LayoutText, ReplicaSpellingsAndUnion) {
  Layout pairs = P("S[4:1] + R[(2,4@warp),(4,1@warp)]");
  EXPECT_EQ(pairs, P("S[4:1] + R[(2,4):(4@warp,1@warp)]"));
  // Several R terms unite; terms may come in any order; R is a multiset.
  EXPECT_EQ(P("S[4:1] + 3@warp + R[2:4@warp] + R[4:1@warp]"),
            P("S[4:1] + R[(4,2):(1@warp,4@warp)] + 3@warp"));
  EXPECT_NE(P("S[4:1] + R[2:4@warp]"), P("S[4:1] + R[(2,2):(4@warp,4@warp)]"));
}

TEST(LayoutText, ShardOrderMatters) { EXPECT_NE(P("S[(2,4):(4,1)]"), P("S[(4,2):(1,4)]")); }

TEST(LayoutText, ParseErrorsNamePositionAndExpectation) {
  EXPECT_THAT(Err("S[(8,2]"), HasSubstr("position 6: expected ')' or ','"));
  EXPECT_THAT(Err("S[(8,2):(1)]"), HasSubstr("2 extents but 1 strides"));
  EXPECT_THAT(Err("S[0:1]"), HasSubstr("position 2: extent must be >= 1"));
  EXPECT_THAT(Err("S[4:1] + R[2:0@warp]"),
              HasSubstr("position 13: replica stride must be non-zero"));
  EXPECT_THAT(Err("S[4:1] + R[4]"), HasSubstr("replica strides are mandatory"));
  EXPECT_THAT(Err("R[4:1]"), HasSubstr("position 0: expected 'S['"));
  EXPECT_THAT(Err("S[4:1] S[2:1]"), HasSubstr("position 7: expected '+', 'where' or end of input"));
  EXPECT_THAT(Err("S[4:1] + S[2:1]"), HasSubstr("exactly one shard"));
  EXPECT_THAT(Err("S[4:1@]"), HasSubstr("expected an axis name after '@'"));
  EXPECT_THAT(Err("S[4:1@9x]"), HasSubstr("expected an axis name after '@'"));
  EXPECT_THAT(Err("S[4:1] +"), HasSubstr("expected an offset"));
  EXPECT_THAT(Err("S[99999999999999999999:1]"), HasSubstr("does not fit in int64"));
  EXPECT_THAT(Err("S[(4@lane):(1)]"), HasSubstr("an extent has no '@axis'"));
  EXPECT_THAT(Err(""), HasSubstr("position 0"));
  EXPECT_THAT(Err("S[4:1] + R[(2,4@warp),(4,1@warp,3)]"), HasSubstr("pair"));
}

TEST(LayoutText, ValidationErrorsNameTheIter) {
  EXPECT_THAT(Err("S[(4294967296,4294967296):(1,1)]"), HasSubstr("shard iter 1"));
  EXPECT_THAT(Err("S[(4294967296,4294967296):(1,1)]"), HasSubstr("size overflows int64"));
  EXPECT_THAT(Err("S[2:9223372036854775807] + 1"), HasSubstr("overflow"));
  EXPECT_THAT(Err("S[(2,2):(1,-9223372036854775807)] + (-2)"), HasSubstr("shard iter 1"));
  EXPECT_THAT(Err("S[(1):(-9223372036854775808)]"), HasSubstr("greater than -2^63"));
  EXPECT_THAT(Err("S[(2,2):(4611686018427387904,4611686018427387904)]"),
              HasSubstr("values on axis m overflow"));
  EXPECT_THAT(Err("S[(2,2):(1,1)] + (9223372036854775807) + 1"),
              HasSubstr("offset on axis m overflows"));
  EXPECT_THAT(Err("S[(2,2):(4611686018427387904@P,4611686018427387904@F)]"),
              HasSubstr("memory span over all memory axes"));
  absl::StatusOr<Layout> empty = Layout::Create({});
  EXPECT_THAT(std::string(empty.status().message()), HasSubstr("at least one shard iter"));
  absl::StatusOr<Layout> zero =
      Layout::Create({Iter{4, 1, Axis::Memory()}}, {Iter{2, 0, Axis::Get("warp")}});
  EXPECT_THAT(std::string(zero.status().message()), HasSubstr("replica iter 0 (2:0@warp)"));
}

TEST(LayoutText, RoundTripsRandomLayouts) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(20260101));
  for (int i = 0; i < 2000; ++i) {
    Layout l = testing::RandomLayout(rng);
    absl::StatusOr<Layout> back = Layout::Parse(l.ToString());
    ASSERT_TRUE(back.ok()) << l << ": " << back.status();
    EXPECT_EQ(*back, l) << l;
    EXPECT_EQ(back->ToString(), l.ToString());
  }
}

TEST(LayoutText, HashAgreesWithEquality) {
  Layout a = P("S[4:1] + R[(2,4):(1@warp,8@warp)] + 3@lane");
  Layout b = P("S[4:1] + R[(4,2):(8@warp,1@warp)] + 3@lane");
  EXPECT_EQ(a, b);
  EXPECT_EQ(absl::Hash<Layout>()(a), absl::Hash<Layout>()(b));
  EXPECT_NE(absl::Hash<Layout>()(a), absl::Hash<Layout>()(P("S[4:1] + 3@lane")));
}

TEST(LayoutText, RowMajor) {
  EXPECT_EQ(Layout::RowMajor({2, 3, 4})->ToString(), "S[(2,3,4):(12,4,1)]");
  EXPECT_EQ(Layout::RowMajor({8}, Axis::Get("lane"))->ToString(), "S[8:1@lane]");
  EXPECT_FALSE(Layout::RowMajor({0, 3}).ok());
  EXPECT_FALSE(Layout::RowMajor({4294967296, 4294967296, 2}).ok());
}

TEST(LayoutText, ValidationErrorsDoNotEchoHugeInputs) {
  // 20,000 shard iters whose sizes overflow: the message names the iter, not the whole text.
  std::string text = "S[(";
  for (int i = 0; i < 20000; ++i) absl::StrAppend(&text, i ? "," : "", "4294967296");
  text += "):(";
  for (int i = 0; i < 20000; ++i) absl::StrAppend(&text, i ? "," : "", "1");
  text += ")]";
  absl::StatusOr<Layout> l = Layout::Parse(text);
  ASSERT_FALSE(l.ok());
  EXPECT_THAT(std::string(l.status().message()),
              HasSubstr("shard iter 1 (4294967296:1): the layout size overflows int64"));
  EXPECT_LT(l.status().message().size(), 400u);
}

}  // namespace
}  // namespace text_test
}  // namespace axe
