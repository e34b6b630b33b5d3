// LayoutUtil: the spec's LU vectors and the layout helpers.
#include "axe/xla/layout_util.h"

#include "axe/xla/text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/parse_for_test.h"

namespace axe::xla {
namespace layout_util_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Shape S(absl::string_view text) { return testing::ParsedShape(text); }
Layout L(absl::string_view text) { return *ParseLayout(text); }

TEST(LayoutUtil, MakeLayoutsLU1) {
  EXPECT_EQ(LayoutUtil::MakeLayoutFromMajorToMinor({0, 1, 2}).ToString(), "{2,1,0}");
  EXPECT_EQ(LayoutUtil::MakeDescendingLayout(3).ToString(), "{2,1,0}");
  EXPECT_EQ(LayoutUtil::MakeAscendingLayout(3).ToString(), "{0,1,2}");
  EXPECT_EQ(LayoutUtil::MakeDescendingLayout(0).ToString(), "{}");
  EXPECT_EQ(
      LayoutUtil::MakeLayout({1, 0}, {Tile({8, 128})}, 2, PrimitiveType::kInvalid,
                             PrimitiveType::kInvalid, 4, 1, {SplitConfig(0, {3})}, std::nullopt, 16)
          .ToString(),
      "{1,0:T(8,128)L(2)E(4)S(1)SC(0:3)M(16)}");
  EXPECT_TRUE(LayoutUtil::HasDescendingLayout(L("{1,0:T(8,128)}")));  // {1,0} is row-major
  EXPECT_FALSE(LayoutUtil::HasDescendingLayout(L("{0,1}")));
  EXPECT_TRUE(LayoutUtil::HasAscendingLayout(L("{0,1}")));
  EXPECT_TRUE(LayoutUtil::IsMonotonicWithDim0Major(L("{0}")));
}

TEST(LayoutUtil, MajorMinorAndMovesLU3) {
  Layout l = L("{0,2,1}");
  EXPECT_EQ(LayoutUtil::Major(l, 0), 1);
  EXPECT_EQ(LayoutUtil::Minor(l, 0), 0);
  EXPECT_THAT(LayoutUtil::MakeLogicalToPhysical(l), ElementsAre(2, 0, 1));
  EXPECT_EQ(LayoutUtil::MoveDimToMajor(L("{2,1,0}"), 0)->ToString(), "{2,1,0}");
  EXPECT_EQ(LayoutUtil::MoveDimToMajor(L("{2,1,0}"), 1)->ToString(), "{2,0,1}");
  EXPECT_EQ(LayoutUtil::MoveDimToMinor(L("{2,1,0:S(1)}"), 0)->ToString(), "{0,2,1:S(1)}");
  EXPECT_FALSE(LayoutUtil::MoveDimToMajor(L("{1,0}"), 2).ok());
  EXPECT_TRUE(LayoutUtil::AreDimensionsConsecutive(L("{3,1,0,2}"), {0, 1}));
  EXPECT_FALSE(LayoutUtil::AreDimensionsConsecutive(L("{3,1,0,2}"), {3, 0}));
  EXPECT_FALSE(LayoutUtil::AreDimensionsConsecutive(L("{1,0}"), {5}));
}

TEST(LayoutUtil, DeleteDimensionSU11) {
  EXPECT_EQ(LayoutUtil::DeleteDimension(L("{2,0,1:SC(0:10)(1:20)(2:30)}"), 0)->ToString(),
            "{1,0:SC(0:10)(1:30)}");
}

TEST(LayoutUtil, MaxSplitSizeLU7) {
  Shape s = S("f32[150,200,100]{0,1,2:SC(0:30)(1:40,130)}");
  EXPECT_EQ(*LayoutUtil::MaxSplitSize(s, 0), 150);
  EXPECT_EQ(*LayoutUtil::MaxSplitSize(s, 1), 90);
  EXPECT_EQ(*LayoutUtil::MaxSplitSize(s, 2), 70);
  EXPECT_EQ(*LayoutUtil::MaxElementsInPerSplit(s), 945000);
  EXPECT_EQ(*LayoutUtil::MaxElementsInPerSplit(S("f32[150,200,100]")), 3000000);
}

TEST(LayoutUtil, IsUntiledLayout) {
  EXPECT_TRUE(LayoutUtil::IsUntiledLayout({}, {4, 8}));
  EXPECT_TRUE(LayoutUtil::IsUntiledLayout({Tile({1, 8})}, {4, 8}));
  EXPECT_TRUE(LayoutUtil::IsUntiledLayout({Tile({2, 8})}, {4, 8}));
  EXPECT_FALSE(LayoutUtil::IsUntiledLayout({Tile({2, 4})}, {4, 8}));
  EXPECT_FALSE(LayoutUtil::IsUntiledLayout({Tile({8, 128})}, {4, 128}));  // padding
  EXPECT_TRUE(LayoutUtil::IsUntiledLayout({Tile({8, 128}), Tile({2, 1})}, {8, 128}) == false);
  EXPECT_TRUE(LayoutUtil::IsUntiledLayout({Tile({Tile::kCombineDimension, 32})}, {4, 8}));
  EXPECT_TRUE(LayoutUtil::ByteStridesIsMajorToMinor({24, 4}, {2, 6}, PrimitiveType::kF32));
  EXPECT_FALSE(LayoutUtil::ByteStridesIsMajorToMinor({4, 8}, {2, 6}, PrimitiveType::kF32));
}

TEST(LayoutUtil, ShapeHelpers) {
  Shape t = S("(f32[2,3]{0,1}, token[], s8[4]{0:S(1)})");
  EXPECT_TRUE(LayoutUtil::HasLayout(t));
  Shape cleared = LayoutUtil::ClearLayout(t);
  EXPECT_FALSE(LayoutUtil::HasLayout(cleared));
  EXPECT_EQ(cleared.ToString(), "(f32[2,3], token[], s8[4])");
  EXPECT_EQ(LayoutUtil::SetToDefaultLayout(cleared).ToString(),
            "(f32[2,3]{1,0}, token[], s8[4]{0})");
  EXPECT_EQ(LayoutUtil::ClearTiles(S("f32[8,128]{1,0:T(8,128)S(1)}")).ToString(),
            "f32[8,128]{1,0:S(1)}");
  EXPECT_EQ(LayoutUtil::CopyLayoutBetweenShapes(t, S("(s32[5,7], token[], u8[9])"))->ToString(),
            "(s32[5,7]{0,1}, token[], u8[9]{0:S(1)})");
  EXPECT_THAT(
      std::string(
          LayoutUtil::CopyLayoutBetweenShapes(t, S("(s32[5,7], token[])")).status().message()),
      HasSubstr("cannot copy layout from shape"));
  EXPECT_THAT(
      std::string(
          LayoutUtil::CopyLayoutBetweenShapes(S("f32[2]"), S("f32[2,2]")).status().message()),
      HasSubstr("cannot copy layout from shape"));
  EXPECT_TRUE(LayoutUtil::LayoutsInShapesEqual(S("f32[2,3]{0,1}"), S("s8[5,5]{0,1}")));
  EXPECT_FALSE(LayoutUtil::LayoutsInShapesEqual(S("f32[2,3]{0,1}"), S("f32[2,3]{1,0}")));
  EXPECT_TRUE(LayoutUtil::LayoutsInShapesEqual(S("token[]"), S("token[]")));
  EXPECT_TRUE(LayoutUtil::HasCustomElementSizeInBits(S("(f32[2], s4[2]{0:E(4)})")));
  EXPECT_FALSE(LayoutUtil::HasCustomElementSizeInBits(S("(f32[2], s4[2])")));
}

}  // namespace
}  // namespace layout_util_test
}  // namespace axe::xla
