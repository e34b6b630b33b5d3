// Slice: the spec's worked examples, both sufficient forms (including a wrap whose carry
// propagates past the previous digit), agreement with apply over the region on random
// layouts whenever it answers, and every failure mode.
#include "axe/layout/slice.h"

#include <random>

#include "axe/layout/canonical.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "layout/random_layout.h"
#include "support/test_seed.h"

namespace axe {
namespace slice_test {
namespace {

using ::testing::HasSubstr;

Layout P(absl::string_view text) { return testing::ParseOrFail(text); }

std::string SliceText(absl::string_view l, std::vector<int64_t> shape, absl::string_view region) {
  absl::StatusOr<std::vector<Interval>> r = ParseBox(region);
  if (!r.ok()) return std::string(r.status().message());
  absl::StatusOr<MaybeLayout> s = Slice(P(l), shape, *r);
  if (!s.ok()) return std::string(s.status().message());
  return s->ToString();
}

TEST(Slice, Example52SingleIterBlockNeedsNoModulo) {
  EXPECT_EQ(SliceText("S[(8,8):(8,1)]", {64}, "5:8"), "S[3:1] + 5");
}

TEST(Slice, Example53SymmetricOneWrap) {
  EXPECT_EQ(SliceText("S[(4,4,4,4):(64,4,16,1)]", {16, 16}, "2:3,6:10"), "S[(2,2):(14,1)] + 26");
}

TEST(Slice, Example54bPaper) {
  EXPECT_EQ(SliceText("S[(2,8,3,8):(192,8,64,1)]", {16, 24}, "0:8,8:24"),
            "S[(8,2,8):(8,64,1)] + 64");
}

TEST(Slice, ReplicasAreKeptAndOffsetsAdded) {
  EXPECT_EQ(SliceText("S[(4,8):(8@lane,1)] + R[2:4@warp] + 1@warp", {4, 8}, "1:3,2:6"),
            "S[(2,4):(8@lane,1)] + R[2:4@warp] + 8@lane + 2 + 1@warp");
}

TEST(Slice, WrapWithCarryPastThePreviousDigit) {
  // Block (2,2,4):(100,10,1), region [6, 10): digits of 6 are (0,1,2); the wrap at digit 2
  // carries through digit 1 into digit 0, so Δ = f(8) - f(6) = 100 - 12 = 88 (the paper's
  // formula S_{k-1} - (E_k - rem/2) S_k = 10 - 2 = 8 would be wrong).
  EXPECT_EQ(SliceText("S[(2,2,4):(100,10,1)]", {16}, "6:10"), "S[(2,2):(88,1)] + 12");
}

TEST(Slice, UnitRegionsAndWholeDimensions) {
  EXPECT_EQ(SliceText("S[(4,4):(1,4)]", {4, 4}, "2,3"), "S[1:1] + 14");
  EXPECT_EQ(SliceText("S[(4,4):(1,4)]", {4, 4}, "0:4,0:4"), "S[(4,4):(1,4)]");
}

TEST(Slice, NoAnswer) {
  // Neither form: a 3-long run wrapping around a digit of extent 4.
  EXPECT_THAT(SliceText("S[(4,4):(1,4)]", {16}, "3:6"),
              HasSubstr("none: dimension 0: the region [3, 6) is neither"));
  // A symmetric wrap whose jump lies on two axes.
  EXPECT_THAT(SliceText("S[(2,4):(1@lane,1)]", {8}, "2:6"),
              HasSubstr("is not on exactly one axis"));
  // The shape does not group the layout.
  EXPECT_THAT(SliceText("S[(6,2):(1,6)]", {4, 3}, "0:2,0:3"),
              HasSubstr("none: the shape does not group"));
}

TEST(Slice, Errors) {
  EXPECT_THAT(SliceText("S[(4,4):(1,4)]", {4, 4}, "0:2"),
              HasSubstr("has rank 1 but the shape (4, 4) has rank 2"));
  EXPECT_THAT(SliceText("S[(4,4):(1,4)]", {4, 4}, "0:2,3:5"),
              HasSubstr("dimension 1: the interval 3:5"));
  EXPECT_THAT(SliceText("S[(4,4):(1,4)]", {4, 4}, "0:2,3:3"), HasSubstr("dimension 1"));
  EXPECT_THAT(SliceText("S[(4,4):(1,4)]", {4, 4}, "-1:2,0:1"), HasSubstr("dimension 0"));
  EXPECT_THAT(SliceText("S[(4,4):(1,4)]", {4, 5}, "0:2,0:1"),
              HasSubstr("shape (4, 5) has 20 elements"));
  EXPECT_THAT(SliceText("S[(4,4):(1,4)]", {4, 4}, "0:2;0:1"),
              HasSubstr("position 3: expected ',' or end of input"));
  EXPECT_THAT(SliceText("S[(4,4):(1,4)]", {4, 4}, ""), HasSubstr("expected a box such as"));
}

TEST(Slice, RegionTextRoundTrips) {
  std::vector<Interval> r = *ParseBox(" 0:8 , 8:24");
  EXPECT_EQ(r, (std::vector<Interval>{{0, 8}, {8, 24}}));
  EXPECT_EQ(BoxToString(r), "[[0, 8], [8, 24]]");
  EXPECT_EQ(*ParseBox(BoxToString(r)), r);
}

// Whenever slice answers, the result agrees with apply on every point of the region.
TEST(Slice, AgreesWithApplyOnTheRegion) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(5253));
  testing::RandomLayoutOptions opt;
  opt.max_size = 64;
  opt.max_shard_iters = 5;
  int answered = 0;
  for (int i = 0; i < 3000; ++i) {
    const Layout l = testing::RandomLayout(rng, opt);
    const size_t rank = static_cast<size_t>(std::uniform_int_distribution<int>(1, 3)(rng));
    const std::vector<int64_t> shape = testing::RandomGroupingShape(l, rank, rng);
    std::vector<Interval> region;
    for (int64_t s : shape) {
      int64_t b = std::uniform_int_distribution<int64_t>(0, s - 1)(rng);
      int64_t e = std::uniform_int_distribution<int64_t>(b + 1, s)(rng);
      region.push_back({b, e});
    }
    absl::StatusOr<MaybeLayout> s = Slice(l, shape, region);
    ASSERT_TRUE(s.ok()) << s.status();
    if (!s->has_value()) {
      EXPECT_FALSE(s->reason.empty());
      continue;
    }
    ++answered;
    std::vector<int64_t> sub;
    for (const Interval& r : region) sub.push_back(r.size());
    int64_t sub_size = 1;
    for (int64_t v : sub) sub_size *= v;
    ASSERT_EQ((*s)->size(), sub_size);
    EXPECT_EQ(**s, Canonicalize(**s));
    for (int64_t u = 0; u < (*s)->size(); ++u) {
      std::vector<int64_t> cu = testing::OracleUnflatten(sub, u), x(rank);
      for (size_t d = 0; d < rank; ++d) x[d] = cu[d] + region[d].begin;
      ASSERT_EQ(testing::OracleApply(**s, u),
                testing::OracleApply(l, testing::OracleFlatten(shape, x)))
          << l << " on " << shape.size() << "-d region " << BoxToString(region) << " -> " << **s;
    }
  }
  EXPECT_GT(answered, 1500);
}

}  // namespace
}  // namespace slice_test
}  // namespace axe
