// The helper operations: permute_dims, pack/unpack, broadcast and group_many, each against
// its definition over whole domains, plus failure modes.
#include <random>

#include "axe/layout/apply.h"
#include "axe/layout/broadcast.h"
#include "axe/layout/canonical.h"
#include "axe/layout/group.h"
#include "axe/layout/pack.h"
#include "axe/layout/permute.h"
#include "axe/layout/properties.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "layout/random_layout.h"
#include "support/test_seed.h"

namespace axe {
namespace reshape_ops_test {
namespace {

using ::testing::HasSubstr;

Layout P(absl::string_view text) { return testing::ParseOrFail(text); }

TEST(PermuteDims, TransposeAndErrors) {
  EXPECT_EQ(PermuteDims(P("S[(4,8):(8,1)]"), {4, 8}, {1, 0})->ToString(), "S[(8,4):(1,8)]");
  EXPECT_EQ(PermuteDims(P("S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + 5@warp"), {8, 16}, {1, 0})
                ->ToString(),
            "S[(2,4,2,8):(1@warp,1@lane,1@reg,4@lane)] + 5@warp");
  EXPECT_THAT(std::string(PermuteDims(P("S[16:1]"), {4, 4}, {0, 0}).status().message()),
              HasSubstr("(0, 0) is not a permutation of the 2 dimensions"));
  EXPECT_THAT(std::string(PermuteDims(P("S[16:1]"), {4, 4}, {0}).status().message()),
              HasSubstr("not a permutation"));
  EXPECT_THAT(std::string(PermuteDims(P("S[(6,2):(1,6)]"), {4, 3}, {1, 0}).status().message()),
              HasSubstr("permute: cannot group"));
  // With explicit separators the blocks are kept as given.
  EXPECT_EQ(
      PermuteByGroups(P("S[(2,3,4):(12,4,1)]"), std::vector<size_t>{0, 2, 3}, {1, 0})->ToString(),
      "S[(4,2,3):(1,12,4)]");
  EXPECT_FALSE(PermuteByGroups(P("S[(2,3,4):(12,4,1)]"), std::vector<size_t>{0, 2}, {0}).ok());
  EXPECT_FALSE(
      PermuteByGroups(P("S[(2,3,4):(12,4,1)]"), std::vector<size_t>{0, 3, 2, 3}, {0, 1, 2}).ok());
  EXPECT_EQ(PermuteShape({2, 3, 4}, {2, 0, 1}), (std::vector<int64_t>{4, 2, 3}));
}

// L'(y) == L(x) with x[perm[i]] = y[i], over whole domains.
TEST(PermuteDims, Law) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(11));
  for (int i = 0; i < 300; ++i) {
    const Layout l = testing::RandomLayout(rng);
    const size_t rank = static_cast<size_t>(std::uniform_int_distribution<int>(1, 3)(rng));
    const std::vector<int64_t> shape = testing::RandomGroupingShape(l, rank, rng);
    std::vector<int64_t> perm(rank);
    for (size_t k = 0; k < rank; ++k) perm[k] = static_cast<int64_t>(k);
    std::shuffle(perm.begin(), perm.end(), rng);
    absl::StatusOr<Layout> p = PermuteDims(l, shape, perm);
    ASSERT_TRUE(p.ok()) << p.status();
    const std::vector<int64_t> pshape = PermuteShape(shape, perm);
    for (int64_t fy = 0; fy < l.size(); ++fy) {
      std::vector<int64_t> y = testing::OracleUnflatten(pshape, fy), x(rank);
      for (size_t k = 0; k < rank; ++k) x[static_cast<size_t>(perm[k])] = y[k];
      ASSERT_EQ(testing::OracleApply(*p, fy),
                testing::OracleApply(l, testing::OracleFlatten(shape, x)))
          << l;
    }
  }
}

TEST(PackUnpack, Examples) {
  EXPECT_EQ(Unpack(P("S[(8,4):(4,1)]"), 2)->ToString(), "S[64:1]");
  EXPECT_EQ(Pack(P("S[64:1]"), 2)->ToString(), "S[32:1]");
  // Thread strides are unchanged; the memory stride and offset are scaled.
  EXPECT_EQ(Unpack(P("S[(8,4,2):(4@laneid,1@laneid,1)] + 3"), 2)->ToString(),
            "S[(32,4):(1@laneid,1)] + 6");
  // The appended iter is on the innermost memory axis.
  // Only the address axis scales: partitions stay partitions.
  EXPECT_EQ(Unpack(P("S[(4,8):(1@P,1@F)]"), 2)->ToString(), "S[(4,16):(1@P,1@F)]");
  EXPECT_EQ(Unpack(P("S[(128,512):(1@P,1@F)] + 3@P + 5@F"), 2)->ToString(),
            "S[(128,1024):(1@P,1@F)] + 3@P + 10@F");
  EXPECT_EQ(Pack(P("S[(128,1024):(1@P,1@F)] + 3@P + 10@F"), 2)->ToString(),
            "S[(128,512):(1@P,1@F)] + 3@P + 5@F");
  // PSUM: the innermost memory iter is on P; name the address axis F.
  EXPECT_EQ(Unpack(P("S[(2,512,8):(1@Bank,1@F,1@P)]"), 2, Axis::Get("F"))->ToString(),
            "S[(2,512,8,2):(1@Bank,2@F,1@P,1@F)]");
  EXPECT_EQ(Pack(P("S[(2,512,8,2):(1@Bank,2@F,1@P,1@F)]"), 2, Axis::Get("F"))->ToString(),
            "S[(2,512,8):(1@Bank,1@F,1@P)]");
  EXPECT_THAT(std::string(Unpack(P("S[4:1]"), 2, Axis::Get("lane")).status().message()),
              HasSubstr("thread axis"));
  EXPECT_THAT(std::string(Pack(P("S[(4,2):(1@F,1@P)]"), 2, Axis::Get("F")).status().message()),
              HasSubstr("stride 1 on memory axis F"));
  EXPECT_EQ(Unpack(P("S[4:1@lane]"), 4)->ToString(), "S[(4,4):(1@lane,1)]");
  EXPECT_THAT(std::string(Pack(P("S[(4,6):(8,1)]"), 4).status().message()),
              HasSubstr("the last shard iter of S[(4,6):(8,1)], 6:1, must have stride 1"));
  EXPECT_THAT(
      std::string(Pack(P("S[(4,4):(6,1)]"), 4).status().message()),
      HasSubstr("shard iter 0 (4:6) of S[(4,4):(6,1)] has a memory stride not divisible by 4"));
  EXPECT_THAT(std::string(Pack(P("S[4:1] + 3"), 2).status().message()),
              HasSubstr("offset 3 on axis m"));
  EXPECT_THAT(std::string(Pack(P("S[4:1] + R[2:3]"), 2).status().message()),
              HasSubstr("replica iter 0"));
  EXPECT_THAT(std::string(Pack(P("S[4:1@lane]"), 2).status().message()), HasSubstr("memory axis"));
  EXPECT_FALSE(Unpack(P("S[4:1]"), 0).ok());
  EXPECT_FALSE(Pack(P("S[4:1]"), 0).ok());
  EXPECT_THAT(std::string(Unpack(P("S[2:2305843009213693952]"), 4).status().message()),
              HasSubstr("overflows"));
}

// unpack(n): (x, t) -> memory values times n plus t on the innermost memory axis; pack
// undoes it.
TEST(PackUnpack, Law) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(12));
  for (int i = 0; i < 300; ++i) {
    const Layout l = testing::RandomLayout(rng);
    const int64_t n = std::uniform_int_distribution<int64_t>(1, 4)(rng);
    absl::StatusOr<Layout> u = Unpack(l, n);
    ASSERT_TRUE(u.ok()) << u.status();
    ASSERT_EQ(u->size(), l.size() * n);
    Axis mem = Axis::Memory();
    for (const Iter& it : l.shard()) {
      if (it.axis.is_memory()) mem = it.axis;
    }
    for (int64_t x = 0; x < l.size(); ++x) {
      for (int64_t t = 0; t < n; ++t) {
        std::set<PhysCoord> want;
        for (const PhysCoord& p : testing::OracleApply(l, x)) {
          PhysCoord q;
          for (const auto& [axis, value] : p.entries())
            q.add(axis, axis.is_memory() ? value * n : value);
          q.add(mem, t);
          want.insert(q);
        }
        ASSERT_EQ(testing::OracleApply(*u, x * n + t), want) << l << " unpack " << n << " = " << *u;
      }
    }
    absl::StatusOr<Layout> back = Pack(*u, n);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(testing::OracleEquivalent(*back, l)) << l << " -> " << *u << " -> " << *back;
  }
}

TEST(Broadcast, DistinctFromReplication) {
  absl::StatusOr<Layout> b = Broadcast(P("S[8:1]"), 4, 0);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->ToString(), "S[(4,8):(0,1)]");
  for (int64_t r = 0; r < 4; ++r) {
    for (int64_t c = 0; c < 8; ++c) {
      std::vector<PhysCoord> pts = *Apply(*b, {4, 8}, {r, c});
      ASSERT_EQ(pts.size(), 1u);                 // one point: not a replica
      EXPECT_EQ(pts[0].get(Axis::Memory()), c);  // the same for every row
    }
  }
  EXPECT_FALSE(*IsInjective(*b));
  EXPECT_EQ(Broadcast(P("S[(2,3):(3,1)]"), 5, 2, Axis::Get("warp"))->ToString(),
            "S[(2,3,5):(3,1,0@warp)]");
  EXPECT_THAT(std::string(Broadcast(P("S[8:1]"), 4, 2).status().message()),
              HasSubstr("position 2 is past the 1"));
  EXPECT_FALSE(Broadcast(P("S[8:1]"), 0, 0).ok());
  EXPECT_THAT(std::string(Broadcast(P("S[4611686018427387904:0]"), 4, 0).status().message()),
              HasSubstr("overflows"));
}

TEST(GroupMany, LawOnRandomLayouts) {
  std::mt19937_64 rng(::axe::testing_support::TestSeed(38));
  for (int i = 0; i < 300; ++i) {
    const Layout l = testing::RandomLayout(rng);
    std::vector<std::vector<int64_t>> shapes = {testing::RandomGroupingShape(l, 2, rng),
                                                testing::RandomGroupingShape(l, 3, rng)};
    absl::StatusOr<GroupedMany> g = GroupMany(l, shapes);
    if (!g.ok()) {
      EXPECT_THAT(std::string(g.status().message()), HasSubstr("no common refinement"));
      continue;
    }
    EXPECT_TRUE(testing::OracleEquivalent(g->layout, l));
    for (size_t s = 0; s < shapes.size(); ++s) {
      ASSERT_EQ(g->seps[s].size(), shapes[s].size() + 1);
      for (size_t b = 0; b < shapes[s].size(); ++b) {
        int64_t p = 1;
        for (size_t k = g->seps[s][b]; k < g->seps[s][b + 1]; ++k) p *= g->layout.shard()[k].extent;
        EXPECT_EQ(p, shapes[s][b]) << l;
      }
    }
  }
}

}  // namespace
}  // namespace reshape_ops_test
}  // namespace axe
