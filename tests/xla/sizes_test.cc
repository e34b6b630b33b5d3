// The four sizes: the spec's SZ, A, J, K and SU-18 vectors.
#include "axe/xla/sizes.h"

#include "axe/xla/memory_space.h"
#include "axe/xla/text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/parse_for_test.h"

namespace axe::xla {
namespace sizes_test {
namespace {

using ::testing::HasSubstr;

Shape S(absl::string_view text) { return testing::ParsedShape(text); }

TEST(Sizes, ElementsInSU18) {
  const std::pair<const char*, int64_t> cases[] = {
      {"s32[]", 1},      {"s32[0]", 0},      {"s32[1]", 1},      {"s32[1,1]", 1},
      {"s32[2]", 2},     {"s32[2,1]", 2},    {"s32[3,5]", 15},   {"s32[3,0,5]", 0},
      {"s32[0,3,0]", 0}, {"s32[1,3,5]", 15}, {"s32[13,17]", 221}};
  for (const auto& [text, n] : cases) EXPECT_EQ(*ElementsIn(S(text)), n) << text;
  EXPECT_EQ(*ElementsIn(S("f32[<=7,2]")), 14);
  EXPECT_FALSE(ElementsIn(S("f32[?,2]")).ok());
  EXPECT_FALSE(ElementsIn(S("(f32[2])")).ok());
}

TEST(Sizes, FigureOneA) {
  Shape s = S("f32[3,5]{1,0:T(2,2)}");
  EXPECT_EQ(*ElementsIn(s), 15);
  EXPECT_EQ(*ByteSizeOf(s), 60);
  EXPECT_EQ(*ArraySize(s), 96);
  EXPECT_EQ(*ArrayDataSize(s), 84);
  EXPECT_EQ(*NestedPaddedElements(s), 24);
}

TEST(Sizes, Table) {
  Shape sz3 = S("s4[123,456]{1,0:T(2,128)E(4)}");
  EXPECT_EQ(*ElementsIn(sz3), 56088);
  EXPECT_EQ(*ByteSizeOf(sz3), 28044);
  EXPECT_EQ(*ArraySize(sz3), 31744);
  EXPECT_EQ(*ArraySizeElements(sz3), 63488);
  Shape sz5 = S("f32[123,456]{0,1:T(2,128)}");
  EXPECT_EQ(*ElementsIn(sz5), 56088);
  EXPECT_EQ(*ByteSizeOf(sz5), 224352);
  EXPECT_EQ(*ArraySize(sz5), 233472);
  Shape sz11 = S("s4[0,64,128]{2,1,0:E(4)}");
  EXPECT_EQ(*ElementsIn(sz11), 0);
  EXPECT_EQ(*ByteSizeOf(sz11), 0);
  EXPECT_EQ(*ArraySize(sz11), 0);
  EXPECT_EQ(*ArrayDataSize(sz11), 0);
}

TEST(Sizes, SubTilePaddingJAndTailPaddingK) {
  Shape j = S("f32[8,128]{1,0:T(8,128)(3,1)}");
  EXPECT_EQ(*NestedPaddedElements(j), 1152);
  EXPECT_EQ(*ArraySizeElements(j), 1024);
  Shape k = S("f32[5]{0:L(8)}");
  EXPECT_EQ(*ArraySize(k), 20);  // XLA: no tiles, so L is ignored (ByteSizeOfElements)
  EXPECT_EQ(*ByteSizeOf(k), 20);
  EXPECT_EQ(*NestedPaddedElements(k), 8);
  EXPECT_EQ(*ArrayDataSize(k), 20);
}

TEST(Sizes, FirstTileOnlyAndOversizedTiles) {
  EXPECT_EQ(*ArraySizeElements(S("f32[]{:T(256)}")), 256);
  EXPECT_EQ(*ArraySizeElements(S("f32[8]{0:T(2,2)}")), 16);
  EXPECT_EQ(*NestedPaddedElements(S("bf16[2,3,1004]{2,1,0:T(2,*,128)}")), 2 * 3072);
  // Split configs: with tiles, ArraySize uses the largest piece.
  EXPECT_EQ(*ArraySizeElements(S("f32[150,200,100]{0,1,2:T(1)SC(0:30)(1:40,130)}")), 945000);
  // Memory space and M never count.
  EXPECT_EQ(*ArraySize(S("f32[16,128]{1,0:T(8,128)S(1)M(64)}")), 8192);
}

// XLA's ShapeUtil::ArraySize is ByteSizeOfElements when there are no tiles: L and split
// configs count only under a tile.
TEST(Sizes, ArraySizeWithoutTilesIgnoresTailPaddingAndSplits) {
  EXPECT_EQ(*ArraySize(S("f32[5]{0:L(8)}")), 20);
  EXPECT_EQ(*ArraySize(S("f32[2,3]{1,0:S(1)SC(0:1)}")), 24);
  EXPECT_EQ(*ArraySize(S("f32[16,3]{1,0:SC(0:4)}")), 192);
  EXPECT_EQ(*ArraySize(S("s4[5]{0:L(8)E(4)}")), 3);  // ceil(5 x 4 / 8)
  EXPECT_EQ(*ArraySizeElements(S("f32[150,200,100]{0,1,2:SC(0:30)(1:40,130)}")), 3000000);
  // Under a tile both count.
  EXPECT_EQ(*ArraySize(S("f32[5]{0:T(1)L(8)}")), 32);
  EXPECT_EQ(*ArraySize(S("f32[16,3]{1,0:T(1)SC(0:4)}")), 144);
  EXPECT_EQ(*ArraySize(S("f32[2,3]{1,0:T(1)S(1)SC(0:1)}")), 12);
}

// XLA rounds every dim up by its bound with RoundUpTo(d, bound); a `*` bound is
// kCombineDimension (INT64_MIN), for which that is 0, so XLA's ArraySize is 0 bytes. The
// folded, padded need is NestedPaddedElements.
TEST(Sizes, ArraySizeWithCombinedDimIsXlasZero) {
  Shape s = S("bf16[2,3,1004]{2,1,0:T(2,*,128)}");
  EXPECT_EQ(*ArraySize(s), 0);
  EXPECT_EQ(*ArraySizeElements(s), 0);
  EXPECT_EQ(*NestedPaddedElements(s), 2 * 3072);
  EXPECT_EQ(*ArraySize(S("f32[4,5,6]{2,1,0:T(*,2,3)L(7)}")), 0);
}

TEST(Sizes, ByteSizeOfKinds) {
  EXPECT_EQ(*ByteSizeOf(S("token[]")), 0);
  EXPECT_EQ(*ByteSizeOf(S("opaque[]"), 8), 8);
  EXPECT_THAT(std::string(ByteSizeOf(S("opaque[]")).status().message()), HasSubstr("pointer size"));
  EXPECT_EQ(*ByteSizeOf(S("(f32[2], s8[3], token[])"), 8), 24);
  EXPECT_FALSE(ByteSizeOf(S("(f32[2])")).ok());
  EXPECT_EQ(*ByteSizeOf(S("b(f32[3]{0})")), 12);
  EXPECT_EQ(*ByteSizeOfElementsRecursive(S("(f32[2], (s8[3], token[]))")), 11);
  EXPECT_EQ(*ByteSizeOf(S("s4[3]")), 3);          // one byte each unless packed
  EXPECT_EQ(*ByteSizeOf(S("s4[3]{0:E(4)}")), 2);  // ceil(12 / 8)
  EXPECT_EQ(*ByteSizeOf(S("pred[9]")), 9);
  EXPECT_EQ(*ByteSizeOf(S("c128[2]")), 32);
}

TEST(Sizes, OverflowIsAnError) {
  Shape big = *ParseShape("f32[9223372036854775807,4]", {.lenient = true});
  EXPECT_THAT(std::string(ElementsIn(big).status().message()), HasSubstr("overflows"));
  EXPECT_FALSE(ByteSizeOf(big).ok());
  EXPECT_FALSE(ArraySize(big).ok());
}

}  // namespace
}  // namespace sizes_test
}  // namespace axe::xla

namespace axe::xla {
namespace sizes_test {
namespace {

TEST(MemorySpace, NamesAndMeanings) {
  EXPECT_EQ(MemorySpaceName(0), "default");
  EXPECT_EQ(MemorySpaceName(1), "fast");
  EXPECT_EQ(MemorySpaceName(5), "pinned_host");
  EXPECT_EQ(MemorySpaceName(6), "unpinned_host");
  EXPECT_EQ(MemorySpaceName(2), "device_specific");
  EXPECT_THAT(MemorySpaceDescription(1), HasSubstr("VMEM"));
  EXPECT_THAT(MemorySpaceDescription(300), HasSubstr("int8"));  // PIT-1: XLA would wrap it to 44
  EXPECT_FALSE(FitsXlaInt8(128));
  EXPECT_TRUE(FitsXlaInt8(-128));
  // RT-5: a memory space never changes a size.
  EXPECT_EQ(*ByteSizeOf(*ParseShape("u32[]{:S(2)}")), 4);
  EXPECT_EQ(*ArraySize(*ParseShape("u32[]{:S(2)}")), 4);
}

}  // namespace
}  // namespace sizes_test
}  // namespace axe::xla
