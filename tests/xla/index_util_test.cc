// IndexUtil: the spec's IU vectors and the linear/multi-index laws over whole small shapes.
#include "axe/xla/index_util.h"

#include "axe/xla/text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/parse_for_test.h"

namespace axe::xla {
namespace index_util_test {
namespace {

using ::testing::ElementsAre;

Shape S(absl::string_view text) { return testing::ParsedShape(text); }

TEST(IndexUtil, BumpIndicesIU1) {
  Shape s = S("f32[2,2]{0,1}");  // logical order whatever the layout
  std::vector<int64_t> idx = {0, 0};
  std::vector<std::vector<int64_t>> seen = {idx};
  while (*IndexUtil::BumpIndices(s, absl::MakeSpan(idx))) seen.push_back(idx);
  EXPECT_THAT(seen, ElementsAre(ElementsAre(0, 0), ElementsAre(0, 1), ElementsAre(1, 0),
                                ElementsAre(1, 1)));
  EXPECT_THAT(idx, ElementsAre(1, 1));  // unchanged at the end
  std::vector<int64_t> bad = {2, 0};
  EXPECT_FALSE(IndexUtil::BumpIndices(s, absl::MakeSpan(bad)).ok());
}

TEST(IndexUtil, RowMajorIU5) {
  Shape s = S("f32[10,20]{1,0}");
  EXPECT_EQ(*IndexUtil::MultidimensionalIndexToLinearIndex(s, {9, 19}), 199);
  EXPECT_EQ(*IndexUtil::MultidimensionalIndexToLinearIndex(s, {3, 5}), 65);
  EXPECT_THAT(*IndexUtil::LinearIndexToMultidimensionalIndex(s, 65), ElementsAre(3, 5));
}

TEST(IndexUtil, PermutedIU7) {
  Shape s = S("f32[10,20,30]{1,2,0}");
  EXPECT_EQ(*IndexUtil::MultidimensionalIndexToLinearIndex(s, {3, 5, 7}), 1945);
  EXPECT_EQ(*IndexUtil::MultidimensionalIndexToLinearIndex(s, {8, 15, 27}), 5355);
  EXPECT_THAT(*IndexUtil::LinearIndexToMultidimensionalIndex(s, 5355), ElementsAre(8, 15, 27));
}

TEST(IndexUtil, LawsOverWholeShapes) {
  for (const char* text : {"f32[3,4,5]{0,1,2}", "f32[3,4,5]{2,0,1}", "f32[2,1,3]{1,2,0}", "f32[]",
                           "f32[7]", "f32[3,5]{1,0:T(2,2)}"}) {
    Shape s = S(text);
    std::vector<bool> hit(60, false);
    std::vector<int64_t> idx(s.dimensions().size(), 0);
    do {
      int64_t lin = *IndexUtil::MultidimensionalIndexToLinearIndex(s, idx);
      ASSERT_FALSE(hit[static_cast<size_t>(lin)]) << text;
      hit[static_cast<size_t>(lin)] = true;
      EXPECT_EQ(*IndexUtil::LinearIndexToMultidimensionalIndex(s, lin), idx) << text;
    } while (*IndexUtil::BumpIndices(s, absl::MakeSpan(idx)));
  }
  // Strides: the product of the sizes before the dim in minor_to_major.
  Shape s = S("f32[3,4,5]{2,0,1}");
  EXPECT_EQ(*IndexUtil::GetDimensionStride(s, 2), 1);
  EXPECT_EQ(*IndexUtil::GetDimensionStride(s, 0), 5);
  EXPECT_EQ(*IndexUtil::GetDimensionStride(s, 1), 15);
  EXPECT_FALSE(IndexUtil::GetDimensionStride(s, 3).ok());
}

TEST(IndexUtil, BoundsAndComparison) {
  Shape s = S("f32[2,3]");
  EXPECT_TRUE(IndexUtil::IndexInBounds(s, {1, 2}));
  EXPECT_FALSE(IndexUtil::IndexInBounds(s, {1, 3}));
  EXPECT_FALSE(IndexUtil::IndexInBounds(s, {-1, 0}));  // XLA omits this check
  EXPECT_FALSE(IndexUtil::IndexInBounds(s, {1}));
  EXPECT_EQ(IndexUtil::CompareIndices({1, 2}, {1, 3}), -1);
  EXPECT_EQ(IndexUtil::CompareIndices({2, 0}, {1, 3}), 1);
  EXPECT_EQ(IndexUtil::CompareIndices({1, 3}, {1, 3}), 0);
  EXPECT_EQ(IndexUtil::CompareIndices({1}, {1, 3}), -1);
  EXPECT_FALSE(IndexUtil::MultidimensionalIndexToLinearIndex(s, {2, 0}).ok());
  EXPECT_FALSE(IndexUtil::LinearIndexToMultidimensionalIndex(s, 6).ok());
  EXPECT_FALSE(IndexUtil::MultidimensionalIndexToLinearIndex(S("f32[?,3]"), {0, 0}).ok());
  EXPECT_FALSE(IndexUtil::MultidimensionalIndexToLinearIndex(
                   *ParseShape("f32[2,3]{0,0}", {.lenient = true}), {0, 0})
                   .ok());
}

}  // namespace
}  // namespace index_util_test
}  // namespace axe::xla
