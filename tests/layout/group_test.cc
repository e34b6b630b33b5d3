#include "axe/layout/group.h"

#include <random>

#include "axe/layout/canonical.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "layout/random_layout.h"
#include "support/test_seed.h"

namespace axe {
namespace group_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Layout P(absl::string_view text) { return *Layout::Parse(text); }

TEST(Group, Example37) {
  Grouped g = *Group(P("S[(32,2):(1@laneid,1)]"), {8, 8});
  EXPECT_EQ(g.layout.ToString(), "S[(8,4,2):(4@laneid,1@laneid,1)]");
  EXPECT_THAT(g.seps, ElementsAre(0, 1, 3));
}

TEST(Group, Example38aCannotFormEntry) {
  absl::StatusOr<Grouped> g = Group(P("S[(6,2):(1,6)]"), {4, 3});
  EXPECT_THAT(std::string(g.status().message()), HasSubstr("cannot form shape entry 0 (= 4)"));
}

TEST(Group, UnitEntriesAndMismatch) {
  Grouped g = *Group(P("S[16:1]"), {1, 4, 1, 4, 1});
  EXPECT_EQ(g.seps.size(), 6u);
  for (size_t i = 0; i + 1 < g.seps.size(); ++i) {
    int64_t p = 1;
    for (size_t k = g.seps[i]; k < g.seps[i + 1]; ++k) p *= g.layout.shard()[k].extent;
    EXPECT_EQ(p, (std::vector<int64_t>{1, 4, 1, 4, 1})[i]);
  }
  EXPECT_THAT(std::string(Group(P("S[16:1]"), {4, 5}).status().message()),
              HasSubstr("has 20 elements"));
  EXPECT_EQ(Group(P("S[1:1]"), {1})->seps, (std::vector<size_t>{0, 1}));
}

TEST(Group, Example38bMany) {
  GroupedMany g = *GroupMany(P("S[30:1]"), {{6, 5}, {2, 15}});
  EXPECT_EQ(g.layout.ToString(), "S[(2,3,5):(15,5,1)]");
  EXPECT_THAT(g.meet_shape, ElementsAre(2, 3, 5));
  EXPECT_THAT(g.seps, ElementsAre(ElementsAre(0, 2, 3), ElementsAre(0, 1, 3)));
  EXPECT_THAT(std::string(GroupMany(P("S[12:1]"), {{4, 3}, {6, 2}}).status().message()),
              HasSubstr("prefix product 4 does not divide 6"));
}

TEST(Group, PreservesTheMapAndBlockProducts) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(21));
  int grouped = 0;
  for (int i = 0; i < 500; ++i) {
    Layout l = testing::RandomLayout(rng);
    // A random factorization of the size into 1..3 entries.
    std::vector<int64_t> shape;
    int64_t rest = l.size();
    for (int k = 0; k < 2; ++k) {
      std::vector<int64_t> divisors;
      for (int64_t d = 1; d <= rest; ++d) {
        if (rest % d == 0) divisors.push_back(d);
      }
      int64_t d = divisors[std::uniform_int_distribution<size_t>(0, divisors.size() - 1)(rng)];
      shape.push_back(d);
      rest /= d;
    }
    shape.push_back(rest);
    absl::StatusOr<Grouped> g = Group(l, shape);
    if (!g.ok()) continue;
    ++grouped;
    EXPECT_TRUE(testing::OracleEquivalent(l, g->layout)) << l << " by " << shape[0];
    ASSERT_EQ(g->seps.size(), shape.size() + 1);
    for (size_t b = 0; b < shape.size(); ++b) {
      int64_t p = 1;
      for (size_t k = g->seps[b]; k < g->seps[b + 1]; ++k) p *= g->layout.shard()[k].extent;
      EXPECT_EQ(p, shape[b]) << l;
    }
  }
  EXPECT_GT(grouped, 200);
}

}  // namespace
}  // namespace group_test
}  // namespace axe
