// XlaEqual (XLA's Layout::Equal / Shape::Equal with options) against operator==.
#include "axe/xla/equal.h"

#include "axe/xla/shape_util.h"
#include "axe/xla/text.h"
#include "gtest/gtest.h"
#include "xla/parse_for_test.h"

namespace axe::xla {
namespace equal_test {
namespace {

Shape S(absl::string_view text) { return testing::ParsedShape(text); }
Layout L(absl::string_view text) { return *ParseLayout(text); }

TEST(Equal, MemorySpaceEQ5) {
  EXPECT_FALSE(XlaEqual(L("{0:S(1)}"), L("{0:S(3)}")));
  EXPECT_TRUE(XlaEqual(L("{0:S(1)}"), L("{0:S(3)}"), {.ignore_memory_space = true}));
  EXPECT_FALSE(XlaEqual(S("f32[2]{0:S(1)}"), S("f32[2]{0:S(3)}")));
  EXPECT_TRUE(
      XlaEqual(S("f32[2]{0:S(1)}"), S("f32[2]{0:S(3)}"), {.ignore_memory_space_in_layout = true}));
}

TEST(Equal, MinorToMajorOnlyEQ7) {
  EXPECT_FALSE(XlaEqual(L("{0,1,2:SC(0:2)}"), L("{0,1,2}")));
  EXPECT_TRUE(XlaEqual(L("{0,1,2:SC(0:2)}"), L("{0,1,2}"), LayoutEqualOptions::MinorToMajorOnly()));
  EXPECT_FALSE(XlaEqual(L("{0,1,2}"), L("{0,2,1}"), LayoutEqualOptions::MinorToMajorOnly()));
}

TEST(Equal, ScalarDefaultLayoutEQ8) {
  EXPECT_TRUE(XlaEqual(S("f32[]").layout(),
                       ShapeUtil::MakeShapeWithDenseLayout(PrimitiveType::kF32, {}, {})->layout()));
  EXPECT_EQ(S("f32[]"), *ShapeUtil::MakeShapeWithDenseLayout(PrimitiveType::kF32, {}, {}));
}

TEST(Equal, MetadataPrefixIsIgnoredByXlaEqualOnly) {
  EXPECT_TRUE(XlaEqual(L("{0:M(8)}"), L("{0}")));
  EXPECT_FALSE(L("{0:M(8)}") == L("{0}"));  // regular-value semantics compare every field
}

TEST(Equal, ShapeOptions) {
  EXPECT_FALSE(XlaEqual(S("f32[2]"), S("bf16[2]")));
  EXPECT_TRUE(XlaEqual(S("f32[2]"), S("bf16[2]"), {.ignore_fp_precision = true}));
  EXPECT_FALSE(XlaEqual(S("f32[2]"), S("s32[2]"), {.ignore_fp_precision = true}));
  EXPECT_TRUE(XlaEqual(S("f32[2]"), S("s32[2]"), {.ignore_element_type = true}));
  EXPECT_TRUE(XlaEqual(S("f32[2]"), S("f32[3]"), {.ignore_dimensions = true}));
  EXPECT_FALSE(XlaEqual(S("f32[2]"), S("f32[2,3]"), {.ignore_dimensions = true}));
  EXPECT_FALSE(XlaEqual(S("f32[?]"), S("f32[5]")));
  EXPECT_TRUE(XlaEqual(S("f32[?]"), S("f32[5]"), {.ignore_dynamic_dimension = true}));
  EXPECT_FALSE(XlaEqual(S("f32[<=5]"), S("f32[5]")));
  EXPECT_TRUE(XlaEqual(S("f32[2,3]{0,1}"), S("f32[2,3]{1,0}"), {.ignore_layout = true}));
  EXPECT_TRUE(XlaEqual(S("f32[8]{0:T(8)}"), S("f32[8]{0}"), {.ignore_tiles_in_layout = true}));
  EXPECT_TRUE(XlaEqual(S("s4[8]{0:E(4)}"), S("s4[8]{0}"), {.ignore_element_size_in_layout = true}));
  EXPECT_TRUE(XlaEqual(S("f32[8]{0:L(4)}"), S("f32[8]{0}"),
                       {.ignore_tail_padding_alignment_in_elements = true}));
  EXPECT_TRUE(
      XlaEqual(S("f32[8]{0:SC(0:4)}"), S("f32[8]{0}"), {.ignore_split_config_in_layout = true}));
  EXPECT_TRUE(XlaEqual(S("(f32[2], token[])"), S("(f32[2], token[])")));
  EXPECT_FALSE(XlaEqual(S("(f32[2], token[])"), S("(f32[2], opaque[])")));
  EXPECT_TRUE(Compatible(S("f32[<=4,2]{0,1}"), S("f32[4,2]{1,0}")));
  EXPECT_FALSE(Compatible(S("f32[4,2]"), S("f32[2,4]")));
  EXPECT_FALSE(XlaEqual(S("f32[2]"), *ParseShape("f32[2]", {.fill_missing_layouts = false})));
}

}  // namespace
}  // namespace equal_test
}  // namespace axe::xla
