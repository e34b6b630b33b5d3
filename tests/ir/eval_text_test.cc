// Argument specs and value printing for axe ir run (eval_text.h).
#include "axe/ir/eval_text.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::ir {
namespace eval_text_test {
namespace {

using ::absl::StatusCode;
using ::axe::testing_support::IsOk;
using ::axe::testing_support::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(EvalTextTest, Fills) {
  absl::StatusOr<HostArray> iota = ParseArgSpec("i32[2,2]=iota");
  ASSERT_THAT(iota, IsOk());
  EXPECT_EQ(iota->aval.ShortString(), "i32[2,2]");
  EXPECT_THAT(iota->values, ElementsAre(0, 1, 2, 3));
  absl::StatusOr<HostArray> fill = ParseArgSpec("f32[3]=0.5");
  ASSERT_THAT(fill, IsOk());
  EXPECT_THAT(fill->values, ElementsAre(0.5, 0.5, 0.5));
  absl::StatusOr<HostArray> list = ParseArgSpec("bool[3]=true,0,False");
  ASSERT_THAT(list, IsOk());
  EXPECT_THAT(list->values, ElementsAre(1, 0, 0));
  absl::StatusOr<HostArray> rounded = ParseArgSpec("f32[]=0.1");
  ASSERT_THAT(rounded, IsOk());
  EXPECT_EQ(rounded->values[0], static_cast<double>(0.1f));
  absl::StatusOr<HostArray> saturated = ParseArgSpec("u8[2]=300,-1");
  ASSERT_THAT(saturated, IsOk());
  EXPECT_THAT(saturated->values, ElementsAre(255, 0));
}

// An integer past 2^53 would silently become its neighbour in the interpreter's doubles
// (9007199254740993 came back 9007199254740992): it is refused, naming its position.
TEST(EvalTextTest, IntegersPastTwoToThe53AreRefused) {
  EXPECT_THAT(ParseArgSpec("i64[2]=1,9007199254740993"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("at position 9: 9007199254740993 is past 2^53")));
  EXPECT_THAT(ParseArgSpec("u64[1]=18446744073709551615"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("is past 2^53")));
  absl::StatusOr<HostArray> edge = ParseArgSpec("i64[2]=9007199254740992,-9007199254740992");
  ASSERT_THAT(edge, IsOk());
  EXPECT_THAT(edge->values, ElementsAre(9007199254740992.0, -9007199254740992.0));
}

TEST(EvalTextTest, ErrorsNamePositions) {
  EXPECT_THAT(ParseArgSpec("f32[8]"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("at position 6: expected TYPE=")));
  EXPECT_THAT(
      ParseArgSpec("f32[2]=1,y"),
      StatusIs(StatusCode::kInvalidArgument, HasSubstr("at position 9: 'y' is not a number")));
  EXPECT_THAT(ParseArgSpec("f32[4]=1,2"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("2 values for f32[4]")));
  EXPECT_THAT(ParseArgSpec("q32[4]=1"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("at position 0")));
  EXPECT_THAT(ParseArgSpec("f32[100000,100000]=1"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("more than")));
}

TEST(EvalTextTest, FormatsLikeNumpy) {
  HostArray m{ShapedArray({2, 2}, DType::kF32), {0, 0.1f, 1e10, -2.5}};
  EXPECT_EQ(FormatValues(m), "[[0.0, 0.1], [1e+10, -2.5]]");
  HostArray s{ShapedArray({}, DType::kS32), {-7}};
  EXPECT_EQ(FormatValues(s), "-7");
  HostArray b{ShapedArray({2}, DType::kPred), {1, 0}};
  EXPECT_EQ(FormatValues(b), "[True, False]");
  EXPECT_EQ(FormatElement(NAN, DType::kF32), "nan");
  EXPECT_EQ(FormatElement(-HUGE_VAL, DType::kBF16), "-inf");
  EXPECT_EQ(FormatElement(4294967295.0, DType::kU32), "4294967295");
}

// Found by the eval_value fuzz target: an empty array printed one nested list per index of
// its other dimensions, i32[6464028,8,0] 52 M of them (14 s under ASan), and
// f32[2^31,2^31,0] would never have finished. Empty arrays print numpy's [] now
// (fuzz/corpus/eval_value/empty-huge-dims-regression).
TEST(EvalTextTest, EmptyArraysPrintAsOneEmptyList) {
  absl::StatusOr<HostArray> huge = ParseArgSpec("i32[6464028,8,0]=false");
  ASSERT_TRUE(huge.ok()) << huge.status();
  EXPECT_EQ(FormatValues(*huge), "[]");
  absl::StatusOr<HostArray> huger = ParseArgSpec("f32[2147483648,2147483648,0]=1");
  ASSERT_TRUE(huger.ok()) << huger.status();
  EXPECT_EQ(FormatValues(*huger), "[]");
  EXPECT_EQ(FormatValues(HostArray{ShapedArray({2, 0}, DType::kF32), {}}), "[]");
  EXPECT_EQ(FormatValues(HostArray{ShapedArray({0}, DType::kF32), {}}), "[]");
}

// Found by the eval_value fuzz target: a complex type was read as real numbers (and printed
// back without the fraction). Types the interpreter cannot hold are refused.
TEST(EvalTextTest, TypesTheInterpreterCannotHoldAreRefused) {
  for (const char* text : {"c64[]=0.1", "c128[2]=iota", "f8e4m3fn[2]=1,2", "s4[2]=1,2"}) {
    EXPECT_EQ(ParseArgSpec(text).status().code(), absl::StatusCode::kUnimplemented) << text;
  }
  EXPECT_OK(ParseArgSpec("u64[2]=0,9007199254740992").status());
}

}  // namespace
}  // namespace eval_text_test
}  // namespace axe::ir
