// The per-dimension split of the relayout planner (src/relayout/radix.h): common mixed
// radices and interval decompositions, checked over whole small ranges.
#include "relayout/radix.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace axe::relayout::internal {
namespace radix_test {
namespace {

using ::testing::ElementsAre;

TEST(Radix, CommonRadixOfTilings) {
  // Rows of 16 as one digit vs tiles of 8 rows: levels 8 and 1.
  std::optional<CommonRadix> r = MakeCommonRadix({{{16, 100}}, {{2, 1024}, {8, 128}}});
  ASSERT_TRUE(r.has_value());
  EXPECT_THAT(r->weights, ElementsAre(8, 1));
  EXPECT_THAT(r->strides[0], ElementsAre(800, 100));
  EXPECT_THAT(r->strides[1], ElementsAre(1024, 128));
  // Tiles of 2 and of 3 share no radix.
  EXPECT_FALSE(MakeCommonRadix({{{3, 2}, {2, 1}}, {{2, 3}, {3, 1}}}).has_value());
  // No digits at all (a dimension of extent 1).
  r = MakeCommonRadix({{}, {}});
  ASSERT_TRUE(r.has_value());
  EXPECT_THAT(r->weights, ElementsAre(1));
}

TEST(Radix, DecomposeIntervalCoversExactly) {
  for (const std::vector<int64_t>& weights :
       std::vector<std::vector<int64_t>>{{1}, {8, 1}, {16, 4, 1}, {24, 6, 2, 1}, {128, 8, 1}}) {
    for (int64_t lo = 0; lo < 70; ++lo) {
      for (int64_t hi = lo; hi < 140; hi += 3) {
        std::vector<int64_t> seen;
        for (const RadixBox& b : DecomposeInterval(lo, hi, weights)) {
          ASSERT_GT(b.count, 0);
          ASSERT_EQ(b.start % weights[b.level], 0);
          // No carry across the parent digit.
          if (b.level > 0) {
            ASSERT_LE(b.start % weights[b.level - 1] + b.count * weights[b.level],
                      weights[b.level - 1]);
          }
          for (int64_t x = b.start; x < b.start + b.count * weights[b.level]; ++x)
            seen.push_back(x);
        }
        std::vector<int64_t> want;
        for (int64_t x = lo; x < hi; ++x) want.push_back(x);
        ASSERT_EQ(seen, want) << lo << " " << hi;
      }
    }
  }
}

TEST(Radix, BoxesMapLikeTheDigits) {
  // Each side's address over a box equals DigitsValue at every point.
  const std::vector<Digit> a = {{5, 7}, {6, 100}}, b = {{10, 3}, {3, 1000}};
  std::optional<CommonRadix> r = MakeCommonRadix({a, b});
  ASSERT_TRUE(r.has_value());  // place values 6, 3, 1
  for (const RadixBox& box : DecomposeInterval(0, 29, r->weights)) {
    for (int64_t c = 0; c < box.count * r->weights[box.level]; ++c) {
      const int64_t x = box.start + c;
      int64_t rest = c, va = DigitsValue(a, box.start), vb = DigitsValue(b, box.start);
      for (size_t k = r->weights.size(); k-- > box.level;) {
        const int64_t digit = k == box.level ? rest : rest % (r->weights[k - 1] / r->weights[k]);
        va += digit * r->strides[0][k];
        vb += digit * r->strides[1][k];
        if (k > box.level) rest /= r->weights[k - 1] / r->weights[k];
      }
      EXPECT_EQ(va, DigitsValue(a, x)) << x;
      EXPECT_EQ(vb, DigitsValue(b, x)) << x;
    }
  }
}

}  // namespace
}  // namespace radix_test
}  // namespace axe::relayout::internal
