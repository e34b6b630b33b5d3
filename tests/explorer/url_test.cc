#include "axe/explorer/url.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace axe::explorer {
namespace url_test {
namespace {

using ::axe::testing_support::IsOkAndHolds;
using ::axe::testing_support::StatusIs;
using ::testing::HasSubstr;

TEST(PercentDecodeTest, DecodesEscapesAndPlus) {
  EXPECT_THAT(PercentDecode("S%5B(4%2C8)%3A(8%2C1)%5D"), IsOkAndHolds("S[(4,8):(8,1)]"));
  EXPECT_THAT(PercentDecode("a+b%2Bc"), IsOkAndHolds("a b+c"));
  EXPECT_THAT(PercentDecode("a+b", /*plus_is_space=*/false), IsOkAndHolds("a+b"));
  EXPECT_THAT(PercentDecode("%e2%80%a6"), IsOkAndHolds("\xe2\x80\xa6"));
  EXPECT_THAT(PercentDecode(""), IsOkAndHolds(""));
}

TEST(PercentDecodeTest, RejectsBadEscapesAndNul) {
  EXPECT_THAT(PercentDecode("ab%4"), StatusIs(absl::StatusCode::kInvalidArgument,
                                              HasSubstr("position 2: '%' must be followed")));
  EXPECT_THAT(PercentDecode("%zz"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("two hexadecimal digits")));
  EXPECT_THAT(PercentDecode("%"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("position 0")));
  EXPECT_THAT(PercentDecode("a%00b"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a NUL byte")));
}

TEST(PercentEncodeTest, RoundTripsEveryByte) {
  std::string all;
  for (int c = 1; c < 256; ++c) all.push_back(static_cast<char>(c));
  EXPECT_EQ(PercentEncode("a b/~"), "a%20b%2F~");
  EXPECT_THAT(PercentDecode(PercentEncode(all)), IsOkAndHolds(all));
}

TEST(ParseQueryTest, ReadsFields) {
  using Fields = std::map<std::string, std::string>;
  EXPECT_THAT(ParseQuery("layout=S%5B8%3A1%5D&shape=2,4"),
              IsOkAndHolds(Fields{{"layout", "S[8:1]"}, {"shape", "2,4"}}));
  EXPECT_THAT(ParseQuery("a=1&&b&c="), IsOkAndHolds(Fields{{"a", "1"}, {"b", ""}, {"c", ""}}));
  EXPECT_THAT(ParseQuery("x=a=b"), IsOkAndHolds(Fields{{"x", "a=b"}}));
  EXPECT_THAT(ParseQuery(""), IsOkAndHolds(Fields{}));
}

TEST(ParseQueryTest, RejectsMalformedQueries) {
  EXPECT_THAT(ParseQuery("a=1&a=2"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("field 'a' is given twice")));
  EXPECT_THAT(ParseQuery("=1"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("empty name")));
  EXPECT_THAT(ParseQuery("shape=%G1"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("field 'shape': position 0")));
  EXPECT_THAT(ParseQuery("a%2=1"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("field name 'a%2'")));
  std::string many;
  for (int i = 0; i < 33; ++i) many += "f" + std::to_string(i) + "=1&";
  EXPECT_THAT(ParseQuery(many),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("more than 32 fields")));
}

}  // namespace
}  // namespace url_test
}  // namespace axe::explorer
