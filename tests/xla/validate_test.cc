// ValidateShape / ValidateLayoutForShape: each check in order, with its message.
#include "axe/xla/validate.h"

#include "axe/xla/sizes.h"
#include "axe/xla/text.h"
#include "axe/xla/tiling.h"
#include "axe/xla/to_axe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::xla {
namespace validate_test {
namespace {

using ::testing::HasSubstr;

std::string Check(const Shape& s, ValidateOptions o = {}) {
  absl::Status st = ValidateShape(s, o);
  return st.ok() ? "ok" : std::string(st.message());
}

TEST(Validate, MissingLayoutVAL1) {
  Shape s = Shape::Array(PrimitiveType::kF32, {2, 3});
  EXPECT_EQ(Check(s), "shape f32[2,3] does not have a layout");
  EXPECT_EQ(Check(s, {.allow_missing_layouts = true}), "ok");
}

TEST(Validate, LayoutChecksInOrder) {
  auto with = [](Layout l, std::vector<int64_t> dims = {2, 3}) {
    return Check(Shape::Array(PrimitiveType::kF32, std::move(dims), {}, std::move(l)));
  };
  EXPECT_THAT(with(Layout({0})),
              HasSubstr("minor_to_major field contains 1 elements, but shape has 2 dimensions"));
  EXPECT_THAT(with(Layout({0, 2})), HasSubstr("out-of-bounds value 2"));
  EXPECT_THAT(with(Layout({0, 0})), HasSubstr("duplicate values"));
  EXPECT_THAT(with(Layout({0, 0})), HasSubstr("shape: f32[2,3]{0,0}"));
  EXPECT_THAT(with(Layout({1, 0}).WithTailPaddingAlignmentInElements(0)),
              HasSubstr("tail_padding_alignment"));
  EXPECT_THAT(with(Layout({1, 0}).WithIndexPrimitiveType(PrimitiveType::kU32)),
              HasSubstr("not a sparse array"));
  EXPECT_THAT(with(Layout({1, 0}, {Tile(std::vector<int64_t>{})})),
              HasSubstr("invalid tiles: tile 0 is empty"));
  EXPECT_THAT(with(Layout({1, 0}, {Tile({8, -3})})), HasSubstr("invalid tiles"));
  EXPECT_EQ(with(Layout({1, 0}, {Tile({2, 8, 128, 4, 4})})), "ok");  // longer than the rank
  EXPECT_THAT(with(Layout({1, 0}).WithElementSizeInBits(-4)), HasSubstr("element_size_in_bits"));
  EXPECT_THAT(with(Layout({1, 0}).WithSplitConfigs({SplitConfig(2, {1})})),
              HasSubstr("physical dimension 2"));
  EXPECT_THAT(with(Layout({1, 0}).WithSplitConfigs({SplitConfig(0, {1}), SplitConfig(0, {1})})),
              HasSubstr("two split configs"));
  // Physical dim 0 of {1,0} is logical dim 0 (size 2): indices in (0, 2).
  EXPECT_EQ(with(Layout({1, 0}).WithSplitConfigs({SplitConfig(0, {1})})), "ok");
  EXPECT_THAT(with(Layout({1, 0}).WithSplitConfigs({SplitConfig(0, {2})})), HasSubstr("(0, 2)"));
  EXPECT_THAT(with(Layout({1, 0}).WithSplitConfigs({SplitConfig(1, {2, 1})})),
              HasSubstr("increase strictly"));
  EXPECT_THAT(with(Layout({1, 0}).WithDynamicShapeMetadataPrefixBytes(-1)), HasSubstr("metadata"));
}

TEST(Validate, Shapes) {
  EXPECT_EQ(Check(Shape::Token()), "ok");
  EXPECT_EQ(Check(Shape::Opaque()), "ok");
  EXPECT_THAT(Check(Shape::Array(PrimitiveType::kF32, {-2}, {}, Layout({0}))),
              HasSubstr("invalid size -2 in dimension 0"));
  EXPECT_EQ(Check(Shape::Array(PrimitiveType::kF32, {Shape::kUnboundedSize}, {true}, Layout({0}))),
            "ok");
  EXPECT_THAT(
      Check(Shape::Array(PrimitiveType::kF32, {Shape::kUnboundedSize}, {false}, Layout({0}))),
      HasSubstr("invalid size"));
  EXPECT_THAT(Check(Shape::Array(PrimitiveType::kToken, {}, {}, Layout())),
              HasSubstr("no array element type"));
  EXPECT_THAT(Check(Shape::Buffer(Shape::Token())),
              HasSubstr("a buffer wraps exactly one array shape"));
  EXPECT_THAT(Check(Shape::Tuple({Shape::Token(), Shape::Array(PrimitiveType::kF32, {2})})),
              HasSubstr("tuple element 1: shape f32[2] does not have a layout"));
  EXPECT_THAT(Check(Shape::Array(PrimitiveType::kS64, {INT64_MAX / 4, 2}, {}, Layout({1, 0}))),
              HasSubstr("size may overflow int64_t"));
  EXPECT_EQ(Check(Shape::Array(PrimitiveType::kS64, {INT64_MAX / 4, 2, 0}, {}, Layout({2, 1, 0}))),
            "ok");
  EXPECT_THAT(std::string(ValidateLayoutForShape(Layout(), Shape::Tuple({})).message()),
              HasSubstr("a layout describes an array shape"));
}

TEST(Validate, BareLayouts) {
  EXPECT_TRUE(ValidateLayout(Layout({5, 5})).ok());  // no shape to check minor_to_major against
  EXPECT_FALSE(ValidateLayout(Layout({0}, {Tile({0})})).ok());
  EXPECT_FALSE(ValidateLayout(Layout({0}).WithTailPaddingAlignmentInElements(0)).ok());
  EXPECT_FALSE(ValidateLayout(Layout({0}).WithElementSizeInBits(-1)).ok());
  EXPECT_FALSE(ParseLayout("{0:T(0)}").ok());
  EXPECT_TRUE(ParseLayout("{0:T(0)}", {.lenient = true}).ok());
}

}  // namespace
}  // namespace validate_test
}  // namespace axe::xla

namespace axe::xla {
namespace validate_test {
namespace {

using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

// One rule for every function (and so every command): a tile whose last bound is `*` has
// nothing to combine that dim into.
TEST(Validate, TileEndingWithCombineIsInvalidEverywhere) {
  for (const char* text : {"f32[4,8]{1,0:T(2,*)}", "f32[4]{0:T(*)}", "f32[4,8]{1,0:T(*,*)}",
                           "f32[4,8]{1,0:T(8,128)(2,*)}"}) {
    EXPECT_THAT(ParseShape(text),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("layout has invalid tiles")))
        << text;
    absl::StatusOr<Shape> lenient = ParseShape(text, {.lenient = true});
    ASSERT_TRUE(lenient.ok()) << text << ": " << lenient.status();
    EXPECT_THAT(ValidateShape(*lenient),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ends with '*'")))
        << text;
    EXPECT_THAT(TilingMap::Create(*lenient).status(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ends with '*'")))
        << text;
    EXPECT_THAT(ArraySize(*lenient).status(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ends with '*'")))
        << text;
    EXPECT_THAT(ToAxe(*lenient).status(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ends with '*'")))
        << text;
  }
  EXPECT_THAT(ParseLayout("{1,0:T(2,*)}"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ends with '*'")));
  // `*` before a bound is fine.
  EXPECT_TRUE(ParseShape("bf16[2,3,1004]{2,1,0:T(2,*,128)}").ok());
}

}  // namespace
}  // namespace validate_test
}  // namespace axe::xla
