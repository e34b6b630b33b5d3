// SplitBox (the staging bound of both reshard backends): pieces within the bound that tile
// the box exactly, in row-major order.
#include "axe/relayout/index_box.h"

#include <cstdint>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/test_seed.h"

namespace axe::relayout {
namespace index_box_test {
namespace {

using ::axe::testing_support::TestSeed;

TEST(SplitBox, CutsTheOutermostDimensionOfExtentAboveOne) {
  std::vector<IndexBox> out;
  SplitBox({{3, 4}, {0, 4}, {0, 8}}, 16, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(BoxToString(out[0]), BoxToString(IndexBox{{3, 4}, {0, 2}, {0, 8}}));
  EXPECT_EQ(BoxToString(out[1]), BoxToString(IndexBox{{3, 4}, {2, 4}, {0, 8}}));
  out.clear();
  // One row is already too big: each row is cut in turn.
  SplitBox({{0, 2}, {0, 10}}, 4, out);
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(BoxToString(out[2]), BoxToString(IndexBox{{0, 1}, {8, 10}}));
  EXPECT_EQ(BoxToString(out[3]), BoxToString(IndexBox{{1, 2}, {0, 4}}));
  out.clear();
  SplitBox({{0, 0}, {0, 10}}, 4, out);
  EXPECT_TRUE(out.empty());
  SplitBox({{0, 2}, {0, 10}}, 100, out);
  ASSERT_EQ(out.size(), 1u);
}

TEST(SplitBox, PiecesTileTheBoxWithinTheBound) {
  std::mt19937_64 rng(TestSeed(20261128));
  for (int trial = 0; trial < 200; ++trial) {
    IndexBox box;
    const int rank = 1 + static_cast<int>(rng() % 4);
    for (int d = 0; d < rank; ++d) {
      const auto begin = static_cast<int64_t>(rng() % 5);
      box.push_back({begin, begin + 1 + static_cast<int64_t>(rng() % 6)});
    }
    const auto bound = 1 + static_cast<int64_t>(rng() % 40);
    std::vector<IndexBox> out;
    SplitBox(box, bound, out);
    int64_t covered = 0;
    for (size_t k = 0; k < out.size(); ++k) {
      const int64_t n = *BoxElements(out[k]);
      EXPECT_GE(n, 1);
      EXPECT_LE(n, bound);
      covered += n;
      EXPECT_EQ(Intersect(out[k], box).has_value() ? BoxToString(*Intersect(out[k], box)) : "",
                BoxToString(out[k]));
      for (size_t j = 0; j < k; ++j) EXPECT_FALSE(Intersect(out[j], out[k]).has_value());
    }
    EXPECT_EQ(covered, *BoxElements(box)) << BoxToString(box) << " bound " << bound;
  }
}

}  // namespace
}  // namespace index_box_test
}  // namespace axe::relayout
