#include "axe/ir/shaped_array.h"

#include "absl/container/flat_hash_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace shaped_array_test {
namespace {

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

TEST(ShapedArrayTest, ReprAndStrOfSa1) {
  ShapedArray a({2, 2}, DType::kF32);
  EXPECT_EQ(a.Repr(), "ShapedArray(float32[2,2])");
  EXPECT_EQ(a.Str(), "float32[2,2]");
  ShapedArray weak = a.WithWeakType(true);
  EXPECT_EQ(weak.Repr(), "ShapedArray(float32[2,2], weak_type=True)");
  EXPECT_EQ(weak.Str(), "~float32[2,2]");
}

TEST(ShapedArrayTest, ShortFormHasNoWeakMarkerAndShowsVariance) {
  EXPECT_EQ(ShapedArray({2, 2}, DType::kF32, true).ShortString(), "f32[2,2]");
  EXPECT_EQ(ShapedArray({}, DType::kS32).ShortString(), "i32[]");
  EXPECT_EQ(ShapedArray({3}, DType::kPred).ShortString(), "bool[3]");
  EXPECT_EQ(ShapedArray({3}, DType::kBF16).ShortString(), "bf16[3]");
  EXPECT_EQ(ShapedArray({3}, DType::kU8).ShortString(), "u8[3]");
  EXPECT_EQ(ShapedArray({3}, DType::kC64).ShortString(), "c64[3]");
  EXPECT_EQ(ShapedArray({3}, DType::kF8E4M3FN).ShortString(), "f8_e4m3fn[3]");
  EXPECT_EQ(ShapedArray({3}, DType::kF32, false, {"i"}).ShortString(), "f32[3]{V:i}");
  EXPECT_EQ(ShapedArray({2, 2}, DType::kF32, false, {"i", "j"}).ShortString(), "f32[2,2]{V:(i,j)}");
  EXPECT_EQ(ShapedArray({3}, DType::kF32, false, {"i"}).Str(), "float32[3]{V:i}");
}

TEST(ShapedArrayTest, ParseShortReadsWhatShortStringPrints) {
  for (const char* text : {"f32[2,2]", "i32[]", "bool[3]{V:x}", "f32[2]{V:(x,y)}", "bf16[0,7]",
                           "f8_e4m3fn[1]", "u4[16]"}) {
    absl::StatusOr<ShapedArray> a = ShapedArray::ParseShort(text);
    ASSERT_TRUE(a.ok()) << text << ": " << a.status();
    EXPECT_EQ(a->ShortString(), text);
  }
  EXPECT_THAT(ShapedArray::ParseShort("float32[2]"), IsOkAndHolds(ShapedArray({2}, DType::kF32)));
}

TEST(ShapedArrayTest, ParseShortErrorsNamePositions) {
  EXPECT_THAT(ShapedArray::ParseShort("q32[2]"), StatusIs(absl::StatusCode::kInvalidArgument,
                                                          HasSubstr("unknown element type 'q32'")));
  EXPECT_THAT(ShapedArray::ParseShort("f32[2,-1]"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position 6")));
  EXPECT_THAT(ShapedArray::ParseShort("f32[2]{V:(x,x)}"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'x' is repeated")));
  EXPECT_THAT(ShapedArray::ParseShort("f32[99999999999999999999]"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position 4")));
  EXPECT_THAT(ShapedArray::ParseShort("f32[2] x"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("the end of the type")));
}

TEST(ShapedArrayTest, CreateValidates) {
  EXPECT_THAT(ShapedArray::Create({2, -1}, DType::kF32),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("dimension 1")));
  EXPECT_THAT(ShapedArray::Create({2}, DType::kToken),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'token'")));
  EXPECT_THAT(ShapedArray::Create({2}, DType::kF32, false, {"1x"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'1x'")));
}

TEST(ShapedArrayTest, EqualityAndHashSeeEveryField) {
  ShapedArray a({2}, DType::kF32);
  std::vector<ShapedArray> distinct = {a, a.WithWeakType(true), a.WithVma({"x"}),
                                       a.WithDType(DType::kS32), a.WithShape({3})};
  absl::flat_hash_set<ShapedArray> set(distinct.begin(), distinct.end());
  EXPECT_EQ(set.size(), distinct.size());
  EXPECT_TRUE(set.contains(ShapedArray({2}, DType::kF32)));
  EXPECT_TRUE(TypesMatch(a, a.WithWeakType(true)));
  EXPECT_FALSE(TypesMatch(a, a.WithVma({"x"})));
  EXPECT_EQ(ShapedArray({2, 3}, DType::kF32).NumElements(), 6);
  EXPECT_EQ(ShapedArray({int64_t{1} << 40, int64_t{1} << 40}, DType::kF32).NumElements(),
            std::nullopt);
}

}  // namespace
}  // namespace shaped_array_test
}  // namespace axe::ir
